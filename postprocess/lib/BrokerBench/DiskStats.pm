package BrokerBench::DiskStats;
# The block devices' counters of a host (sys/<host>/diskstats.csv, postprocess/bb-cpu-sampler
# --diskstats: /proc/diskstats as the kernel prints it, one row per device and second, raw and
# cumulative since boot) read, and differenced into what happened between two samples.
#
# The counters wrap. The kernel prints the request and sector counts as unsigned long (32 bits
# on a 32-bit kernel, 64 on a 64-bit one) and the millisecond fields as unsigned int (32 bits on
# every kernel: read_ms, summed over requests, wraps after 49.7 days of request time). So a
# counter that goes down between two samples while its earlier value fits in 32 bits has wrapped
# once: its step is the new value + 2^32 - the old. Samples are a second apart, so a real wrap
# gives a small step; one that would come to 2^31 or more (or a counter already past 32 bits
# going down) is no wrap but the device made anew (a device-mapper device removed and created
# again counts from 0): that step of that device is not counted, and is said.
# A device missing from a sample (gone from /proc/diskstats for that second) makes the step
# between its samples around the gap longer: counted whole, as the counters kept counting, and
# the missing samples are said.
use strict;
use warnings;
use Exporter 'import';
use BrokerBench::Csv qw(is_count);

our @EXPORT_OK = qw(read_diskstats interval_steps sum_steps @COUNTERS $SECTOR_BYTES);

our @COUNTERS = qw(reads read_sectors read_ms writes write_sectors write_ms io_ms);
# /proc/diskstats counts sectors of 512 bytes whatever the device's own sector size.
our $SECTOR_BYTES = 512;

my $WRAP = 2**32;
my @HEADER = ('time_us', 'device', @COUNTERS);


# read_diskstats($path, $rel, $problem) -> ({ devices => { name => [[time_us, counters...]] } })
# or (undef, $why). A bad line is reported through
# $problem ({ file, line, kind, reason, text }) and skipped.
sub read_diskstats {
  my ($path, $rel, $problem) = @_;
  open my $fh, '<', $path or return (undef, "cannot read: $!");
  my $head = <$fh>;
  return (undef, 'empty file (not even a header)') unless defined $head;
  $head =~ s/\r?\n\z//;
  return (undef, "the header is not '" . join(',', @HEADER) . "': '$head'")
    unless $head eq join(',', @HEADER);
  my (%devices, %last);
  while (my $text = <$fh>) {
    $text =~ s/\r?\n\z//;
    my @f = split /,/, $text, -1;
    my $bad = sub {
      $problem->({ file => $rel, line => $., kind => 'other', reason => $_[0], text => $text });
    };
    if (@f != @HEADER) {
      $bad->(sprintf('%d fields, not %d', scalar @f, scalar @HEADER));
      next;
    }
    my ($t, $dev, @c) = @f;
    if (!is_count($t)) {
      $bad->("not a time in microseconds in time_us: '$t'");
      next;
    }
    if ($dev !~ /\A[\w.+:-]+\z/) {
      $bad->("not a device name in device: '$dev'");
      next;
    }
    my ($i) = grep { !is_count($c[$_]) } 0 .. $#c;
    if (defined $i) {
      $bad->("not a count in $COUNTERS[$i]: '$c[$i]'");
      next;
    }
    if (defined $last{$dev} && $t <= $last{$dev}) {
      $bad->("time_us $t is not after the device's previous sample ($last{$dev})");
      next;
    }
    $last{$dev} = $t;
    push @{ $devices{$dev} }, [$t + 0, map { $_ + 0 } @c];
  }
  close $fh;
  return ({ devices => \%devices });
}

# interval_steps(\@samples, $from_us, $to_us) -> the steps between consecutive samples of one
# device that both lie in [from, to]: each { from_us, to_us, d => [a delta per counter],
# wraps } or { from_us, to_us, restart => 1 } (see the head of this file).
sub interval_steps {
  my ($samples, $from, $to) = @_;
  my @in = grep { $_->[0] >= $from && $_->[0] <= $to } @$samples;
  my @steps;
  for my $k (1 .. $#in) {
    my ($a, $b) = @in[ $k - 1, $k ];
    my $step = { from_us => $a->[0], to_us => $b->[0], wraps => 0 };
    my @d;
    for my $i (1 .. $#$b) {
      my $d = $b->[$i] - $a->[$i];
      if ($d < 0) {
        if ($a->[$i] < $WRAP && $d + $WRAP < $WRAP / 2) {
          $d += $WRAP;
          $step->{wraps}++;
        } else {
          $step->{restart} = 1;
          last;
        }
      }
      push @d, $d;
    }
    if ($step->{restart}) {
      delete $step->{wraps};
    } else {
      $step->{d} = \@d;
    }
    push @steps, $step;
  }
  return \@steps;
}

# sum_steps(\@steps) -> { seconds (of the steps counted), steps, wraps, restarts,
# restart_seconds, and each counter's total }.
sub sum_steps {
  my ($steps) = @_;
  my %s = (seconds => 0, steps => 0, wraps => 0, restarts => 0, restart_seconds => 0,
           map { $_ => 0 } @COUNTERS);
  for my $st (@$steps) {
    my $sec = ($st->{to_us} - $st->{from_us}) / 1e6;
    if ($st->{restart}) {
      $s{restarts}++;
      $s{restart_seconds} += $sec;
      next;
    }
    $s{steps}++;
    $s{seconds} += $sec;
    $s{wraps} += $st->{wraps};
    $s{ $COUNTERS[$_] } += $st->{d}[$_] for 0 .. $#COUNTERS;
  }
  return \%s;
}

1;
