package BrokerBench::BlockTrace;
# "Block trace": the locality figures of the TPC-E I/O study (Chen et al., "TPC-E vs. TPC-C:
# Characterizing the New TPC-E Benchmark via an I/O Comparison Study") from a trace of every
# request the database's data device was given (run --block-trace; controller/block-trace and
# BlockTraceCapture.pm make sys/<host>/block-trace.csv.gz and block-trace.conf), over the
# measurement interval:
#   - requests by size (8 KB, 16 KB, other) and kind (read, write), counts and shares: the
#     study's Table 2; the sizes seen most; flushes, discards and other requests apart;
#   - the share of the 8 KB blocks read in the MI that were read exactly once;
#   - read-reuse distance: the time between two consecutive reads of the same block;
#   - write-after-read distance: the time from a block's read to its next write (the first
#     write after that read);
#   - the share of requests that start where the one before them ended (sequential);
#   - flushes, discards and empty pre-flush writes (an fsync with no data to write: the device
#     counts it as a write of 0 bytes; the block layer issues a flush for it) apart.
# A block is 8 KB of the device (sectors / 16, relative to the traced device's start), so a
# 64 KB request touches 8 blocks; distances are per block. Both reads of a reuse, and the read
# and the write of a write-after-read, lie inside the MI. The distances go into Histogram.pm's
# log-linear buckets (a median at most 0.1 % above the true one) and into the study's coarse
# buckets, exactly.
#
# Memory: one hash entry per distinct 8 KB block read in the MI (its last read's time and two
# flags in one integer: about 140 bytes in Perl), so it is bounded by what was read on the
# device: for the database, at most its size / 8 KB (1000 x 300, 13.6 GB: 1.7 million blocks,
# about 240 MB), and by the trace's request limit (controller/block-trace). Nothing else grows
# with the trace: the rows are read once, as a stream (about 250000 a second).
#
# Beside it the trace's requests and bytes over the seconds Device I/O counted (DeviceIo.pm:
# between its first and last /proc/diskstats sample in the MI) against the device's counters:
# the trace issues what the device then completes, so the two agree within the requests in
# flight at either end, unless perf lost events. The device's writes are the trace's writes and
# its empty pre-flush writes.
use strict;
use warnings;
use Exporter 'import';
use IO::Uncompress::Gunzip qw($GunzipError);
use BrokerBench::Csv qw(read_run_conf);
use BrokerBench::Histogram qw(bucket_of hist_percentile);
use BrokerBench::Result qw(mi_ok);

our @EXPORT_OK = qw(block_trace trace_figures @DISTANCE_EDGES_S %STUDY);

# The study's figures for its data devices (TPC-E, memory at 8 % of the database).
our %STUDY = (read_pct => 90.69, write_pct => 9.31, kb8_pct => 98.97, read_once_pct => 92);
# The distance buckets' edges, in seconds: < 1, 1-10, 10-60, 60-300, >= 300.
our @DISTANCE_EDGES_S = (1, 10, 60, 300);

my $SECTORS_PER_BLOCK = 16;    # 8 KB
my $READ_AGAIN = 2;            # the flags beside a block's last read time
my $WRITTEN = 1;
my $HEADER = 'time_us,op,sector,sectors';

# block_trace($r): $r->{block_trace} = { asked, hosts => [...] } (each host's figures, or its
# why) or { asked, why }.
sub block_trace {
  my ($r) = @_;
  my $asked = ($r->{settings}{block_trace} // 0) eq '1' ? 1 : 0;
  my $bt = { asked => $asked, hosts => [] };
  $r->{block_trace} = $bt;
  my @confs = glob("$r->{results_dir}/sys/*/block-trace.conf");
  unless (@confs) {
    $bt->{why} = $asked ? 'asked for (--block-trace), but the system monitor of the database\'s '
                          . 'host wrote no sys/<host>/block-trace.conf (the run did not get that '
                          . 'far, or its database host is not known)'
                        : 'not asked for (brokerbench run --block-trace traces the data device)';
    return;
  }
  for my $conf (sort @confs) {
    my ($host) = $conf =~ m{/sys/([^/]+)/block-trace\.conf\z};
    push @{ $bt->{hosts} }, host_trace($r, $host);
  }
}

sub host_trace {
  my ($r, $host) = @_;
  my $dir = "$r->{results_dir}/sys/$host";
  my ($c, $problems) = read_run_conf("$dir/block-trace.conf");
  $r->{_problem}->({ file => "sys/$host/block-trace.conf", kind => 'other', %$_ }) for @$problems;
  my $h = { host => $host };
  $h->{$_} = $c->{$_} for grep { defined $c->{$_} }
    qw(device major_minor disk disk_major_minor first_sector max_requests limit_reached lost
       outside unparsed reissued perf_exit stopped_early why clock_offset_us clock_offset_end_us);
  $h->{$_} += 0 for grep { defined $h->{$_} && $h->{$_} =~ /\A-?\d+\z/ }
    qw(first_sector max_requests lost outside unparsed reissued perf_exit clock_offset_us
       clock_offset_end_us);
  $h->{requests_recorded} = $c->{requests} + 0 if ($c->{requests} // '') =~ /\A\d+\z/;
  if (($c->{traced} // '') ne 'yes') {
    $h->{why} //= 'block-trace.conf does not say it traced (traced=' . ($c->{traced} // '')
                  . ')';
    return $h;
  }
  delete $h->{why};
  my $rel = "sys/$host/block-trace.csv.gz";
  unless (-e "$dir/block-trace.csv.gz") {
    $h->{why} = "no $rel";
    return $h;
  }
  unless (mi_ok($r)) {
    $h->{why} = 'no measurement interval';
    return $h;
  }
  my ($data) = grep { $_->{device} eq ($h->{device} // '') && defined $_->{seconds} }
               map { @{ $_->{devices} } } grep { $_->{host} eq $host }
               @{ $r->{device_io}{hosts} // [] };
  my ($f, $err) = trace_figures("$dir/block-trace.csv.gz", $rel, $r->{_problem},
                                $r->{mi}{start_us}, $r->{mi}{end_us},
                                $data ? @$data{qw(from_us to_us)} : ());
  unless ($f) {
    $h->{why} = "$rel: $err";
    return $h;
  }
  %$h = (%$h, %$f);
  coverage($r, $h);
  against_diskstats($h, $data) if $data;
  return $h;
}

# The part of the MI the trace covers: it starts with the run, and ends at the MI's end unless
# its limit was reached or perf stopped early.
sub coverage {
  my ($r, $h) = @_;
  my ($from, $to) = @{ $r->{mi} }{qw(start_us end_us)};
  my $ended = ($h->{limit_reached} // '') eq 'yes' || $h->{stopped_early};
  my $first = defined $h->{first_us} && $h->{first_us} > $from ? $h->{first_us} : $from;
  my $last = $ended && defined $h->{last_us} && $h->{last_us} < $to ? $h->{last_us} : $to;
  $h->{covered_s} = $last > $first ? ($last - $first) / 1e6 : 0;
  $h->{mi_s} = ($to - $from) / 1e6;
  $h->{covered_pct} = $h->{mi_s} ? 100 * $h->{covered_s} / $h->{mi_s} : undef;
}

sub against_diskstats {
  my ($h, $d) = @_;
  my $k = $h->{check};
  $h->{diskstats} = { from_us => $d->{from_us}, to_us => $d->{to_us}, seconds => $d->{seconds},
                      map { ($_ => $d->{$_}) } qw(reads writes read_bytes write_bytes) };
  for my $x (qw(reads writes read_bytes write_bytes)) {
    $h->{diskstats}{"trace_${x}_pct"} = $d->{$x} ? 100 * $k->{$x} / $d->{$x} : undef;
  }
}

sub new_histogram { return { n => 0, counts => [], edges => [(0) x (@DISTANCE_EDGES_S + 1)] } }

sub add_distance {
  my ($hist, $us) = @_;
  $us = 0 if $us < 0;
  $hist->{n}++;
  $hist->{counts}[ bucket_of($us) ]++;
  my $i = 0;
  $i++ while $i < @DISTANCE_EDGES_S && $us >= $DISTANCE_EDGES_S[$i] * 1e6;
  $hist->{edges}[$i]++;
}

sub finish_histogram {
  my ($hist) = @_;
  my $n = $hist->{n};
  my @b;
  my @labels = ('under 1 s', '1-10 s', '10-60 s', '60-300 s', '300 s and more');
  for my $i (0 .. $#labels) {
    push @b, { bucket => $labels[$i], count => $hist->{edges}[$i],
               pct => $n ? 100 * $hist->{edges}[$i] / $n : undef };
  }
  no warnings 'uninitialized';
  my $median = $n ? hist_percentile([0, [map { $_ // 0 } @{ $hist->{counts} }]], $n, 50) : undef;
  return { n => $n, median_s => defined $median ? $median / 1e6 : undef, buckets => \@b };
}

# trace_figures($path, $rel, $problem, $from_us, $to_us[, $check_from_us, $check_to_us]) ->
# ({ figures }) or (undef, $why). Rows in [from, to] make the figures; R and W rows in
# (check_from, check_to] are counted apart (against_diskstats). A bad row is reported through
# $problem ({ file, line, kind, reason, text }) and skipped.
sub trace_figures {
  my ($path, $rel, $problem, $from, $to, $cfrom, $cto) = @_;
  my $z = IO::Uncompress::Gunzip->new($path, MultiStream => 1, Transparent => 1)
    or return (undef, "cannot read: $GunzipError");
  my %ops = map { $_ => 0 } qw(R W F D N E);
  my %bytes = (R => 0, W => 0);
  my %class;      # "R 8" -> count; classes 8, 16, other (KB)
  my %size;       # sectors -> [reads, writes]
  my %seq = (R => 0, W => 0);
  my (%blk, $prev_end, $prev_t);
  my ($rows, $out_of_order, $block_writes, $writes_unread) = (0, 0, 0, 0);
  my ($first_us, $last_us);
  my %check = (reads => 0, writes => 0, read_bytes => 0, write_bytes => 0, empty_writes => 0);
  my $reuse = new_histogram();
  my $war = new_histogram();
  my ($line_no, $rest, $buf, $eof, $head) = (0, '', '', 0, undef);
  while (1) {
    my $got = $z->read($buf, 1 << 16);
    if (!defined $got || $got < 0) {
      # A writer killed before it closed the file leaves it cut short: what is there counts.
      return (undef, "cannot read: $GunzipError") unless defined $head;
      $problem->({ file => $rel, line => $line_no + 1, kind => 'other', text => '',
                   reason => "the file ends early ($GunzipError): the rows before are used" });
      # Its last line is cut too: left out.
      ($got, $buf, $rest) = (0, '', '');
    }
    my @lines = split /\n/, $rest . $buf, -1;
    $rest = $got == 0 ? '' : pop @lines;
    last if $got == 0 && !@lines;
    for my $text (@lines) {
      $line_no++;
      if (!defined $head) {
        $head = $text;
        return (undef, "the header is not '$HEADER': '$text'") unless $text eq $HEADER;
        next;
      }
      next if $text eq '' && $got == 0;
      unless ($text =~ /\A(\d{1,19}),([RWFDNE]),(\d{1,20}),(\d{1,10})\z/) {
        $problem->({ file => $rel, line => $line_no, kind => 'other', text => $text,
                     reason => bad_row($text) });
        next;
      }
      my ($t, $op, $s, $n) = ($1 + 0, $2, $3 + 0, $4 + 0);
      $rows++;
      $first_us //= $t;
      $out_of_order++ if defined $prev_t && $t < $prev_t;
      $prev_t = $t;
      $last_us = $t if !defined $last_us || $t > $last_us;
      my $rw = $op eq 'R' || $op eq 'W';
      if (defined $cfrom && $t > $cfrom && $t <= $cto) {
        if ($rw) {
          my $k = $op eq 'R' ? 'read' : 'write';
          $check{"${k}s"}++;
          $check{"${k}_bytes"} += $n * 512;
        } elsif ($op eq 'E') {
          $check{writes}++;
          $check{empty_writes}++;
        }
      }
      next if $t < $from || $t > $to;
      $ops{$op}++;
      next unless $rw;
      $bytes{$op} += $n * 512;
      $class{"$op " . ($n == 16 ? 8 : $n == 32 ? 16 : 'other')}++;
      $size{$n}[ $op eq 'R' ? 0 : 1 ]++;
      $seq{$op}++ if defined $prev_end && $s == $prev_end;
      $prev_end = $s + $n;
      next unless $n;
      my $rel_t = $t - $from;
      for my $b (int($s / $SECTORS_PER_BLOCK) .. int(($s + $n - 1) / $SECTORS_PER_BLOCK)) {
        my $v = $blk{$b};
        if ($op eq 'R') {
          if (defined $v) {
            add_distance($reuse, $rel_t - ($v >> 2));
            $blk{$b} = ($rel_t << 2) | $READ_AGAIN;
          } else {
            $blk{$b} = $rel_t << 2;
          }
        } else {
          $block_writes++;
          if (defined $v && !($v & $WRITTEN)) {
            add_distance($war, $rel_t - ($v >> 2));
            $blk{$b} = $v | $WRITTEN;
          } else {
            $writes_unread++;
          }
        }
      }
    }
    last if $got == 0;
  }
  $z->close;
  return (undef, 'empty file (not even a header)') unless defined $head;
  my $blocks = keys %blk;
  my $once = 0;
  for (values %blk) { $once++ unless $_ & $READ_AGAIN }
  %blk = ();
  my $rw = $ops{R} + $ops{W};
  my $share = sub { $rw ? 100 * $_[0] / $rw : undef };
  my @table;
  for my $c (8, 16, 'other') {
    my ($r, $w) = map { $class{"$_ $c"} // 0 } qw(R W);
    push @table, { size => $c eq 'other' ? 'other' : "$c KB", reads => $r, writes => $w,
                   reads_pct => $share->($r), writes_pct => $share->($w),
                   total => $r + $w, total_pct => $share->($r + $w) };
  }
  my @top = (sort { $b->[1] <=> $a->[1] || $a->[0] <=> $b->[0] }
             map { [$_, ($size{$_}[0] // 0) + ($size{$_}[1] // 0)] } keys %size);
  splice @top, 5 if @top > 5;
  return ({
    rows => $rows, first_us => $first_us, last_us => $last_us, out_of_order => $out_of_order,
    requests => { reads => $ops{R}, writes => $ops{W}, flushes => $ops{F}, discards => $ops{D},
                  other => $ops{N}, empty_flush_writes => $ops{E} },
    read_bytes => $bytes{R}, write_bytes => $bytes{W},
    read_pct => $share->($ops{R}), write_pct => $share->($ops{W}),
    sizes => \@table,
    top_sizes => [map { { kb => $_->[0] / 2, requests => $_->[1], pct => $share->($_->[1]),
                          reads => $size{ $_->[0] }[0] // 0, writes => $size{ $_->[0] }[1] // 0 } }
                  @top],
    sequential_pct => $share->($seq{R} + $seq{W}),
    sequential_reads_pct => $ops{R} ? 100 * $seq{R} / $ops{R} : undef,
    sequential_writes_pct => $ops{W} ? 100 * $seq{W} / $ops{W} : undef,
    blocks_read => $blocks, blocks_read_once => $once,
    read_once_pct => $blocks ? 100 * $once / $blocks : undef,
    read_reuse => finish_histogram($reuse),
    block_writes => $block_writes, block_writes_without_read => $writes_unread,
    write_after_read => finish_histogram($war),
    check => \%check,
  });
}

# What is wrong with a row of the compact file.
sub bad_row {
  my ($text) = @_;
  my @f = split /,/, $text, -1;
  return sprintf('%d fields, not 4', scalar @f) unless @f == 4;
  return "not a time in microseconds in time_us: '$f[0]'" unless $f[0] =~ /\A\d{1,19}\z/;
  return "not an operation (R, W, F, D, N or E) in op: '$f[1]'" unless $f[1] =~ /\A[RWFDNE]\z/;
  return "not a sector number in sector: '$f[2]'" unless $f[2] =~ /\A\d{1,20}\z/;
  return "not a number of sectors in sectors: '$f[3]'";
}

1;
