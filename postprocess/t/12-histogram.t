# The response-time histograms (Histogram.pm): the buckets are exact below 2048 us and at most
# 1/1024 of their lowest value wide above; a percentile read from them is the exact nearest-rank
# value or at most 1/1024 above it; packing loses nothing; rows above a percentile are counted
# exactly.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use BrokerBench::Stats qw(nearest_rank);
use BrokerBench::Histogram qw(bucket_of bucket_low bucket_high pack_hist unpack_hist add_into
                              hist_count hist_percentile hist_summary count_above
                              signed_summary $EXACT_BELOW $RELATIVE_ERROR);

subtest 'buckets' => sub {
  is(bucket_of($_), $_, "$_ us has a bucket of its own") for 0, 1, 999, 2047;
  my ($bad_width, $bad_edge, $prev) = (0, 0, -1);
  # Every bucket's edges from 2048 us to past the table (4.19 s), and some far beyond.
  for my $v (2048 .. 70_000, map { int(1.37 ** $_) } 30 .. 80) {
    my $b = bucket_of($v);
    my ($lo, $hi) = (bucket_low($b), bucket_high($b));
    $bad_edge++ unless $lo <= $v && $v <= $hi && bucket_of($lo) == $b && bucket_of($hi) == $b
                       && bucket_of($hi + 1) == $b + 1;
    $bad_width++ if $hi - $lo + 1 > $lo * $RELATIVE_ERROR;
  }
  is($bad_edge, 0, 'every value lies between its bucket\'s edges, and the buckets are contiguous');
  is($bad_width, 0, 'no bucket is wider than 1/1024 of its lowest value');
  is(bucket_of(4_194_303) + 1, bucket_of(4_194_304), 'the table and the arithmetic meet');
};

subtest 'percentiles against the exact nearest rank' => sub {
  srand(7);
  for my $case ([100, 3_000], [1000, 20_000], [5000, 2_000_000], [37, 1_500]) {
    my ($n, $scale) = @$case;
    my @v = map { int($scale * exp(rand(3)) / 5) } 1 .. $n;
    my @h;
    $h[ bucket_of($_) ]++ for @v;
    my $span = unpack_hist(pack_hist(\@h));
    is(hist_count($span), $n, "$n values counted");
    my @sorted = sort { $a <=> $b } @v;
    for my $p (1, 50, 90, 95, 99, 100) {
      my ($exact, $got) = (nearest_rank(\@sorted, $p), scalar hist_percentile($span, $n, $p));
      my $ok = $exact < $EXACT_BELOW ? $got == $exact
                                     : $got >= $exact && $got <= $exact * (1 + $RELATIVE_ERROR);
      ok($ok, "p$p of $n values up to ~$scale us: $got for $exact");
      is(count_above($span, $got), scalar(grep { $_ > $got } @v),
         "p$p: the rows above it counted exactly");
    }
    my $s = hist_summary($span, sum => eval { my $t = 0; $t += $_ for @v; $t }, min => $sorted[0],
                         max => $sorted[-1]);
    ok($s->{p99} <= $sorted[-1], 'no percentile above the maximum');
  }
};

subtest 'packing and adding' => sub {
  my @a;
  @a[3000, 3001, 9000] = (2, 1, 5);
  my $p = pack_hist(\@a);
  is_deeply(unpack_hist($p), [3000, [2, 1, (0) x 5998, 5]], 'leading empty buckets as an offset');
  my @b;
  @b[10, 3001] = (1, 4);
  my $sum = add_into(add_into(undef, unpack_hist($p)), unpack_hist(pack_hist(\@b)));
  is($sum->[0], 10, 'the sum starts at the lower first bucket');
  is(hist_count($sum), 13, 'and holds both');
  is($sum->[1][3001 - 10], 5, 'a bucket of both added');
  is_deeply(unpack_hist(pack_hist([])), [0, []], 'an empty histogram');
};

subtest 'values of either sign' => sub {
  my (@pos, @neg);
  $pos[ bucket_of($_) ]++ for 10, 20, 30;
  $neg[ bucket_of($_) ]++ for 5, 40;    # -5 and -40
  my $s = signed_summary(unpack_hist(pack_hist(\@pos)), unpack_hist(pack_hist(\@neg)), sum => 15);
  is_deeply([@$s{qw(n min p50 max mean)}], [5, -40, 10, 30, 3], '-40 -5 10 20 30');
};

done_testing();
