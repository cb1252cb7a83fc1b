package BrokerBench::Waits;
# "Where the database waited": the database's client backends as pg_stat_activity showed them
# once a second (sys/<host>/waits.csv, controller/wait-sampler), over the measurement interval.
# Each active backend in a sample counts once, under its wait event; an active backend with no
# wait event counts as CPU, as is usual (it runs, or waits where PostgreSQL has no wait event).
# A wait's share is its part of all active-backend samples; divided by the number of samples it
# is the average number of backends in it ("average active sessions").
use strict;
use warnings;
use Exporter 'import';
use POSIX qw(floor);

our @EXPORT_OK = qw(wait_stats);

# The top waits listed in the report.
our $TOP = 15;
# The plot's stacking order: CPU, then PostgreSQL's wait event types as its manual lists them;
# a type not known here comes after them.
my @TYPE_ORDER = qw(CPU LWLock Lock BufferPin Activity Extension Client IPC Timeout IO);
my @COLS = qw(time_us state wait_event_type wait_event backends);

# Reads one waits.csv: ({ time_us => { 'all' => n, active => { 'type\tevent' => n } } }, undef)
# or (undef, $reason). Bad lines are reported through $problem.
sub read_samples {
  my ($path, $rel, $problem) = @_;
  open my $fh, '<', $path or return (undef, "cannot read: $!");
  my $head = <$fh>;
  return (undef, 'empty file') unless defined $head;
  $head =~ s/\r?\n\z//;
  return (undef, "not the header '" . join(',', @COLS) . "': '$head'") if $head ne join(',', @COLS);
  my %at;
  my $line = 1;
  while (my $text = <$fh>) {
    $line++;
    $text =~ s/\r?\n\z//;
    my @f = split /,/, $text, -1;
    my $why = @f != @COLS ? sprintf('%d fields, not %d', scalar @f, scalar @COLS)
            : $f[0] !~ /\A\d{1,20}\z/ ? "not a time in time_us: '$f[0]'"
            : $f[4] !~ /\A\d{1,9}\z/ ? "not a count in backends: '$f[4]'"
            : undef;
    if ($why) {
      $problem->({ file => $rel, line => $line, kind => 'other', text => $text, reason => $why });
      next;
    }
    my ($t, $state, $type, $event, $n) = @f;
    my $s = $at{$t} //= { all => undef, active => {} };
    if ($state eq 'all') {
      $s->{all} = $n;
    } elsif ($state eq 'active') {
      my $k = $type eq '' ? "CPU\t" : "$type\t$event";
      $s->{active}{$k} += $n;
    } else {
      $s->{states}{$state} += $n;
    }
  }
  return (\%at, undef);
}

# wait_stats($r): sets $r->{waits} = { hosts => [...] } and $r->{_series}{waits}{host} =
# { types => [...], rows => [[time_us, backends of each type]] } (one row per bucket_s).
sub wait_stats {
  my ($r) = @_;
  my $w = { hosts => [], top => $TOP };
  $r->{waits} = $w;
  my @paths = sort glob("$r->{results_dir}/sys/*/waits.csv");
  unless (@paths) {
    $w->{why} = 'no sys/<host>/waits.csv: the database was not sampled (a run made before '
                . 'this version, or no system monitor on its host)';
    return;
  }
  my $mi = $r->{mi} // {};
  my $have_mi = defined $mi->{start_us} && defined $mi->{end_us} && $mi->{end_us} > $mi->{start_us};
  for my $path (@paths) {
    my ($host) = $path =~ m{/sys/([^/]+)/waits\.csv\z};
    my $rel = "sys/$host/waits.csv";
    my ($at, $err) = read_samples($path, $rel, $r->{_problem});
    if (!$at) {
      $r->{_problem}->({ file => $rel, line => 0, kind => 'other', reason => $err, text => '' });
      next;
    }
    # A sample is a time with its "all" line; lines without one belong to a sample cut short.
    my @times = sort { $a <=> $b } grep { defined $at->{$_}{all} } keys %$at;
    my $h = { host => $host, samples => scalar @times };
    push @{ $w->{hosts} }, $h;
    $r->{_series}{waits}{$host} = series($r, $at, \@times);
    if (!@times) {
      $h->{why} = "no samples in $rel (the sampler could not connect? see "
                  . "sys/$host/wait-sampler.err)";
      next;
    }
    unless ($have_mi) {
      $h->{why} = 'no measurement interval';
      next;
    }
    my @in = grep { $_ >= $mi->{start_us} && $_ <= $mi->{end_us} } @times;
    $h->{samples_in_mi} = scalar @in;
    unless (@in) {
      $h->{why} = 'no sample inside the measurement interval';
      next;
    }
    my (%by_wait, %by_type, %states, $backends, $active);
    for my $t (@in) {
      my $s = $at->{$t};
      $backends += $s->{all};
      while (my ($k, $n) = each %{ $s->{active} }) {
        $by_wait{$k} += $n;
        $by_type{ (split /\t/, $k)[0] } += $n;
        $active += $n;
      }
      $states{$_} += $s->{states}{$_} for keys %{ $s->{states} // {} };
    }
    $active //= 0;
    my $n = @in;
    $h->{active_samples} = $active;
    $h->{avg_backends}   = $backends / $n;
    $h->{avg_active}     = $active / $n;
    $h->{avg_by_state}   = { map { $_ => $states{$_} / $n } keys %states };
    my $entry = sub {
      my ($count, %more) = @_;
      return { %more, samples => $count, avg_backends => $count / $n,
               share_pct => $active ? 100 * $count / $active : undef };
    };
    my @waits = sort { $by_wait{$b} <=> $by_wait{$a} || $a cmp $b } keys %by_wait;
    $h->{waits_seen} = scalar @waits;
    splice @waits, $TOP if @waits > $TOP;
    $h->{top} = [map { my ($type, $event) = split /\t/, $_, 2;
                       $entry->($by_wait{$_}, type => $type, event => $event) } @waits];
    $h->{by_type} = [map { $entry->($by_type{$_}, type => $_) }
                     sort { $by_type{$b} <=> $by_type{$a} || $a cmp $b } keys %by_type];
  }
}

# Active backends by wait type, averaged over the samples of each bucket_s bucket (one
# second's count is a handful of backends: too jagged to read).
sub series {
  my ($r, $at, $times) = @_;
  my $ser = $r->{_series} // {};
  my $width = ($ser->{bucket_s} // 10) * 1_000_000;
  my $base = $ser->{base_us} // ($times->[0] // 0);
  my (%sum, %samples, %types);
  for my $t (@$times) {
    my $k = floor(($t - $base) / $width);
    $samples{$k}++;
    while (my ($wait, $n) = each %{ $at->{$t}{active} }) {
      my $type = (split /\t/, $wait)[0];
      $sum{$k}{$type} += $n;
      $types{$type} = 1;
    }
  }
  my %rank;
  @rank{@TYPE_ORDER} = 0 .. $#TYPE_ORDER;
  my @types = sort { ($rank{$a} // 99) <=> ($rank{$b} // 99) || $a cmp $b } keys %types;
  my @rows;
  for my $k (sort { $a <=> $b } keys %samples) {
    push @rows, [$base + ($k + 0.5) * $width, map { ($sum{$k}{$_} // 0) / $samples{$k} } @types];
  }
  return { types => \@types, rows => \@rows };
}

1;
