package BrokerBench::Histogram;
# Histograms of response times (and of the market emulator's waits), in microseconds: what the
# report keeps instead of rows, so that its memory does not grow with the run's length.
#
# Buckets (log-linear, in the manner of HdrHistogram): below 2048 µs one bucket per
# microsecond, so a value there is exact; above, each power of two [2^e, 2^(e+1)) is cut into
# 1024 buckets of width 2^(e-10), at most 1/1024 (0.098 %) of the bucket's lowest value. A
# bucket stands for its highest value: a percentile read from the histogram is the true
# nearest-rank percentile, or above it by less than 0.1 % of it, never below. Counting the rows
# slower than a bucket's highest value is exact.
#
# The reader fills a histogram row by row as a Perl array of counts indexed by bucket (cheap to
# add to); it keeps it packed: the number of empty buckets before the first that is not, then
# the counts from there as BER integers (pack 'w*': an empty bucket takes one byte). The
# figures are read from a span, [the first bucket, [its count and the next ones']], the packed
# form unpacked, so that no one walks the empty buckets below the fastest row.
use strict;
use warnings;
use Exporter 'import';
use List::Util qw(sum0);

our @EXPORT_OK = qw(bucket_of bucket_high bucket_low $INDEX_TABLE $TABLE_LIMIT $EXACT_BELOW
                    $RELATIVE_ERROR HISTOGRAM_METHOD pack_hist pack_span unpack_hist add_into
                    hist_count hist_summary hist_percentile count_above cdf_points
                    signed_summary);

# Below this every value has a bucket of its own.
our $EXACT_BELOW = 2048;
# The largest relative width of a bucket above it (1/1024).
our $RELATIVE_ERROR = 1 / 1024;

# What the report says of its percentiles (report.txt, report.html, results.json).
use constant HISTOGRAM_METHOD =>
  'percentiles are read from histograms: exact below 2.048 ms (1 us buckets); above, each '
  . 'power of two is cut into 1024 buckets and a bucket reports its highest value, so a '
  . 'percentile is never below the true one and at most 0.1 % (1/1024) above it; minimum, '
  . 'average and maximum are exact';

# The bucket of every value below $TABLE_LIMIT (4.19 s), 16 bits each: one vec() a row instead
# of arithmetic. Filled in place, a bucket's run of values at a time (no per-value work, and no
# copy of the 8 MB).
our $TABLE_LIMIT = 1 << 22;
our $INDEX_TABLE = "\0" x (2 * $TABLE_LIMIT);
substr($INDEX_TABLE, 0, 2 * $EXACT_BELOW) = pack('n*', 0 .. $EXACT_BELOW - 1);
for my $e (11 .. 21) {
  my $s = $e - 10;
  for my $sub (1024 .. 2047) {
    substr($INDEX_TABLE, 2 * ($sub << $s), 2 << $s) = pack('n', ($s << 10) + $sub) x (1 << $s);
  }
}

# bucket_of($us) -> the bucket index of a non-negative integer.
sub bucket_of {
  my ($v) = @_;
  return vec($INDEX_TABLE, $v, 16) if $v < $TABLE_LIMIT;
  my $s = 12;
  $s++ while ($v >> ($s + 10)) >= 2;
  return ($s << 10) + ($v >> $s);
}

# The lowest and the highest value of bucket $i.
sub bucket_low {
  my ($i) = @_;
  return $i if $i < $EXACT_BELOW;
  my $s = ($i >> 10) - 1;
  return ($i - ($s << 10)) << $s;
}

sub bucket_high {
  my ($i) = @_;
  return $i if $i < $EXACT_BELOW;
  my $s = ($i >> 10) - 1;
  return (($i - ($s << 10)) << $s) + (1 << $s) - 1;
}

# pack_hist(\@counts) -> the packed histogram of the reader's array (undef: empty buckets).
sub pack_hist {
  no warnings 'uninitialized';
  my $s = pack('w*', @{ $_[0] });
  $s =~ s/\A(\0*)//;
  return pack('w', length $1) . $s;
}

# pack_span($span) -> the packed histogram of a span.
sub pack_span {
  my ($span) = @_;
  return pack('w*', $span->[0], @{ $span->[1] });
}

# unpack_hist($packed) -> its span [first bucket, [counts]] ([0, []] for none).
sub unpack_hist {
  my ($off, @c) = unpack('w*', $_[0] // '');
  return [$off // 0, \@c];
}

# add_into($sum, $span) -> $sum (a span, or undef for none yet) with $span added.
sub add_into {
  my ($sum, $h) = @_;
  return [$h->[0], [@{ $h->[1] }]] if !$sum || !@{ $sum->[1] };
  my ($so, $sc) = @$sum;
  my ($ho, $hc) = @$h;
  if ($ho < $so) {
    unshift @$sc, (0) x ($so - $ho);
    $sum->[0] = $so = $ho;
  }
  my $j = $ho - $so;
  push @$sc, (0) x ($j + @$hc - @$sc) if $j + @$hc > @$sc;
  for (@$hc) {    # most buckets are empty: a loop over the elements, not their indices
    $sc->[$j] += $_ if $_;
    $j++;
  }
  return $sum;
}

sub hist_count {
  no warnings 'uninitialized';
  return sum0(@{ $_[0][1] });
}

# The index of the highest non-empty bucket of a span, or undef.
sub top_bucket {
  my ($span) = @_;
  my $c = $span->[1];
  for (my $i = $#$c; $i >= 0; $i--) {
    return $span->[0] + $i if $c->[$i];
  }
  return undef;
}

# hist_percentile($span, $n, $percent...) -> the nearest-rank percentiles (the ceil(p/100 x n)-th
# smallest value, in integer arithmetic as Stats.pm's nearest_rank) of the $n values, each its
# bucket's highest value; the percents in increasing order.
sub hist_percentile {
  my ($h, $n, @p) = @_;
  return map { undef } @p unless $n;
  my @rank = map {
    my $k = $_ == int $_ ? int(($n * $_ + 99) / 100) : int($n * $_ / 100);
    $k++ if $_ != int $_ && $k < $n * $_ / 100;
    $k < 1 ? 1 : $k > $n ? $n : $k;
  } @p;
  my ($off, $c) = @$h;
  my ($seen, $j, $i, @v) = (0, 0, $off - 1);
  for (@$c) {    # $i: the bucket
    $i++;
    next unless $_;
    $seen += $_;
    while ($j < @rank && $seen >= $rank[$j]) {
      push @v, bucket_high($i);
      $j++;
    }
    last if $j == @rank;
  }
  return wantarray ? @v : $v[0];
}

# hist_summary($span, sum => $exact_sum, min => $exact_min, max => $exact_max) -> { n, mean,
# min, p50, p90, p95, p99, max } as Stats.pm's summary gives of the values: the percentiles
# from the buckets (each its bucket's highest value, but never above the maximum); the rest
# exact, or from the buckets when not given.
sub hist_summary {
  my ($h, %x) = @_;
  my $n = hist_count($h);
  my %s = (n => $n, map { ($_ => undef) } qw(mean min max p50 p90 p95 p99));
  return \%s unless $n;
  my $top = bucket_high(top_bucket($h));
  my $max = $x{max} // $top;
  my @p = (50, 90, 95, 99);
  my @v = hist_percentile($h, $n, @p);
  $s{"p$p[$_]"} = $v[$_] > $max ? $max : $v[$_] for 0 .. $#p;
  my ($lo) = grep { $h->[1][$_] } 0 .. $#{ $h->[1] };
  $s{min}  = $x{min} // bucket_high($h->[0] + $lo);
  $s{max}  = $max;
  $s{mean} = defined $x{sum} ? $x{sum} / $n : undef;
  return \%s;
}

# signed_summary($non_negative, $negative (a span of -v), sum => $exact_sum): the summary of
# values of either sign, each its bucket's value (a negative one -(its magnitude's lowest)).
sub signed_summary {
  my ($pos, $neg, %x) = @_;
  my $count = hist_count($pos) + hist_count($neg);
  my %s = (n => $count, map { ($_ => undef) } qw(mean min max p50 p90 p95 p99));
  return \%s unless $count;
  # The buckets in the values' order: the negative ones from the largest magnitude, then the
  # others; a bucket's value is worked out only when a figure takes it (one a tick, per wait).
  my @p = (50, 90, 95, 99);
  my @rank = ((map { int(($count * $_ + 99) / 100) || 1 } @p), 9e99);
  my ($seen, $j) = (0, 0);
  my ($no, $nc) = @$neg;
  my $neg_top = top_bucket($neg);
  my $neg_low;
  for (my $i = $#$nc; $i >= 0; $i--) {
    my $c = $nc->[$i] or next;
    $neg_low = $i;
    $seen += $c;
    $s{"p$p[$j++]"} = -bucket_low($no + $i) while $seen >= $rank[$j];
  }
  my ($po, $pc) = @$pos;
  my $pos_low;
  for my $i (0 .. $#$pc) {
    my $c = $pc->[$i] or next;
    $pos_low //= $i;
    last if $j == @p;
    $seen += $c;
    $s{"p$p[$j++]"} = bucket_high($po + $i) while $seen >= $rank[$j];
  }
  my $pos_top = top_bucket($pos);
  $s{min}  = defined $neg_top ? -bucket_low($neg_top) : bucket_high($po + $pos_low);
  $s{max}  = defined $pos_top ? bucket_high($pos_top) : -bucket_low($no + $neg_low);
  $s{mean} = defined $x{sum} ? $x{sum} / $count : undef;
  return \%s;
}

# count_above($span, $us) -> the values greater than $us: exact when $us is a bucket's highest
# value (a percentile read from a histogram of this kind), else it counts whole buckets above
# the one that holds $us.
sub count_above {
  my ($h, $us) = @_;
  my ($off, $c) = @$h;
  my $from = bucket_of($us) + 1 - $off;
  $from = 0 if $from < 0;
  return $from > $#$c ? 0 : sum0(@$c[$from .. $#$c]);
}

# At most ~1000 points of the cumulative distribution: [seconds, fraction at or below it], as
# the k-th smallest value (its bucket's highest) at fraction k/n.
sub cdf_points {
  my ($h) = @_;
  my $n = hist_count($h);
  return [] unless $n;
  my ($off, $c) = @$h;
  my $step = $n > 1000 ? $n / 1000 : 1;
  my @pts;
  my ($i, $seen) = (0, 0);
  for (my $k = 1; $k <= $n; $k += $step) {
    my $rank = int $k;
    while ($seen < $rank) {
      $seen += $c->[$i] // 0;
      $i++;
    }
    push @pts, [bucket_high($off + $i - 1) / 1e6, $rank / $n];
  }
  push @pts, [bucket_high(top_bucket($h)) / 1e6, 1] if $pts[-1][1] < 1;
  return \@pts;
}

1;
