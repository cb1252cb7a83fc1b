package BrokerBench::Cpu;
# "Where the CPU went": the CPU each process group used on each host during the measurement
# interval, from sys/<host>/proc_cpu.csv (postprocess/bb-cpu-sampler: cumulative CPU microseconds
# per group, sampled once a second). Per group: cores, share of the host's busy CPU and CPU
# microseconds per transaction (every mix log row that started in the interval, Trade-Result
# and Market-Feed included). The harness is the kit's three programs (Brokerage House,
# customer and market emulators); on the database's host its share says how much of the
# machine the kit took from the database it measures.
use strict;
use warnings;
use Exporter 'import';
use BrokerBench::Csv qw(is_count);

our @EXPORT_OK = qw(cpu_stats cpu_cuts @CPU_GROUPS %CPU_GROUP_NAME $HARNESS_WARN_PCT);

# Above this share of the database host's busy CPU the report warns that the result
# understates the database.
our $HARNESS_WARN_PCT = 10;

our @CPU_GROUPS = qw(bh ce mee postgres monitor controller);
our %CPU_GROUP_NAME = (
  bh         => 'Brokerage House',
  ce         => 'customer emulator',
  mee        => 'market emulator',
  postgres   => 'PostgreSQL',
  monitor    => 'system monitor',
  controller => 'run controller',
);
my @HARNESS = qw(bh ce mee);
my @COLS = ('time_us', 'busy_us', 'total_us', 'softirq_us', map { "${_}_us" } @CPU_GROUPS);


# Reads one proc_cpu.csv: (\@samples, undef) or (undef, $reason). A sample is [time_us, busy,
# total, softirq, one cumulative figure per group]. Bad lines are reported through $problem.
sub read_samples {
  my ($path, $rel, $problem) = @_;
  open my $fh, '<', $path or return (undef, "cannot read: $!");
  my $head = <$fh>;
  return (undef, 'empty file') unless defined $head;
  chomp $head;
  my @names = split /,/, $head;
  my %at;
  @at{@names} = 0 .. $#names;
  my @missing = grep { !exists $at{$_} } @COLS;
  return (undef, 'missing columns: ' . join(', ', @missing)) if @missing;
  my @samples;
  my $line = 1;
  while (my $text = <$fh>) {
    $line++;
    chomp $text;
    my @f = split /,/, $text, -1;
    my @v = map { $f[ $at{$_} ] } @COLS;
    my ($bad) = grep { !is_count($v[$_]) } 0 .. $#v;
    if (defined $bad || @f != @names) {
      $problem->({ file => $rel, line => $line, kind => 'other', text => $text,
                   reason => defined $bad ? "not a count in $COLS[$bad]: '" . ($v[$bad] // '') . "'"
                                          : sprintf('%d fields, not %d', scalar @f, scalar @names) });
      next;
    }
    push @samples, [map { $_ + 0 } @v];
  }
  return (\@samples, undef);
}

# The hosts' samples, read before the mix logs (cpu_cuts) and kept for cpu_stats: per file
# [path, host, rel, samples or undef, error, problems found in it].
sub samples_of {
  my ($r) = @_;
  return $r->{_cpu_samples} //= [map {
    my ($host) = m{/sys/([^/]+)/proc_cpu\.csv\z};
    my $rel = "sys/$host/proc_cpu.csv";
    my @problems;
    my ($samples, $err) = read_samples($_, $rel, sub { push @problems, $_[0] });
    [$_, $host, $rel, $samples, $err, \@problems]
  } sort glob("$r->{results_dir}/sys/*/proc_cpu.csv")];
}

# The first and the last sample of each host in [from, to] (the MI), when it has two.
sub sample_span {
  my ($samples, $from, $to) = @_;
  my @in = grep { $_->[0] >= $from && $_->[0] <= $to } @$samples;
  return @in < 2 ? () : ($in[0], $in[-1]);
}

# cpu_cuts($r, $mi_start_us, $mi_end_us) -> the points in time (sorted) between which the mix
# log reader counts the rows by start time (Aggregates.pm), so that the transactions of each
# host's span of samples in the MI are exact: its first sample's time and its last's + 1 us.
sub cpu_cuts {
  my ($r, $from, $to) = @_;
  my %cut;
  for my $f (grep { $_->[3] } @{ samples_of($r) }) {
    my ($first, $last) = sample_span($f->[3], $from, $to) or next;
    $cut{ $first->[0] } = $cut{ $last->[0] + 1 } = 1;
  }
  return [sort { $a <=> $b } keys %cut];
}

# The rows (every code and outcome) that started in [from, to], from the reader's counts
# between the cuts.
sub transactions_between {
  my ($g, $from, $to) = @_;
  my $cuts = $g->{plan}{cpu_cuts};
  my $n = 0;
  for my $j (0 .. $#$cuts - 1) {
    $n += $g->{cpu}[$j + 1] // 0 if $cuts->[$j] >= $from && $cuts->[$j + 1] <= $to + 1;
  }
  return $n;
}

sub figure {
  my ($cpu_us, $busy_us, $seconds, $txns) = @_;
  return { cpu_s      => $cpu_us / 1e6,
           cores      => $seconds > 0 ? $cpu_us / 1e6 / $seconds : undef,
           share_pct  => $busy_us > 0 ? 100 * $cpu_us / $busy_us : undef,
           us_per_txn => $txns > 0 ? $cpu_us / $txns : undef };
}

# cpu_stats($r, $aggregates): sets $r->{cpu} = { hosts => [...], database_host, harness_share_pct,
# warning } and $r->{_series}{proc_cpu}{host} = [[time_us, cores of each group..., other]].
sub cpu_stats {
  my ($r, $g) = @_;
  my $cpu = { hosts => [], groups => \@CPU_GROUPS, harness => \@HARNESS,
              warn_pct => $HARNESS_WARN_PCT };
  $r->{cpu} = $cpu;
  my $files = samples_of($r);
  delete $r->{_cpu_samples};
  unless (@$files) {
    $cpu->{why} = 'no sys/<host>/proc_cpu.csv';
    return;
  }
  my $mi = $r->{mi} // {};
  my $have_mi = defined $mi->{start_us} && defined $mi->{end_us} && $mi->{end_us} > $mi->{start_us};
  for my $f (@$files) {
    my ($path, $host, $rel, $samples, $err, $problems) = @$f;
    $r->{_problem}->($_) for @$problems;
    if (!$samples) {
      $r->{_problem}->({ file => $rel, line => 0, kind => 'other', reason => $err, text => '' });
      next;
    }
    my $h = { host => $host, samples => scalar @$samples };
    push @{ $cpu->{hosts} }, $h;
    # The plot: cores of each group per second, and the rest of the busy CPU.
    my @series;
    for my $i (1 .. $#$samples) {
      my ($a, $b) = @{$samples}[ $i - 1, $i ];
      my $dt = ($b->[0] - $a->[0]) / 1e6;
      next if $dt <= 0;
      my @d = map { my $v = $b->[$_] - $a->[$_]; $v < 0 ? 0 : $v / 1e6 / $dt } 1 .. $#$b;
      my $attributed = 0;
      $attributed += $d[$_] for 3 .. $#d;
      push @series, [$b->[0], @d[3 .. $#d], $d[0] - $attributed < 0 ? 0 : $d[0] - $attributed];
    }
    $r->{_series}{proc_cpu}{$host} = \@series;
    unless ($have_mi) {
      $h->{why} = 'no measurement interval';
      next;
    }
    $h->{samples_in_mi} = grep { $_->[0] >= $mi->{start_us} && $_->[0] <= $mi->{end_us} }
                          @$samples;
    my ($first, $last) = sample_span($samples, $mi->{start_us}, $mi->{end_us});
    unless ($first) {
      $h->{why} = 'fewer than two samples inside the measurement interval';
      next;
    }
    my $seconds = ($last->[0] - $first->[0]) / 1e6;
    my %d;
    @d{@COLS} = map { $last->[$_] - $first->[$_] } 0 .. $#COLS;
    my $busy = $d{busy_us};
    my $txns = transactions_between($g, $first->[0], $last->[0]);
    $h->{from_us}      = $first->[0];
    $h->{to_us}        = $last->[0];
    $h->{seconds}      = $seconds;
    $h->{transactions} = $txns;
    $h->{transactions_per_s} = $seconds > 0 ? $txns / $seconds : undef;
    $h->{cores}        = $seconds > 0 ? $d{total_us} / 1e6 / $seconds : undef;
    $h->{busy}         = figure($busy, $busy, $seconds, $txns);
    my $attributed = 0;
    for my $g (@CPU_GROUPS) {
      my $v = $d{"${g}_us"};
      $v = 0 if $v < 0;
      $h->{groups}{$g} = figure($v, $busy, $seconds, $txns);
      $attributed += $v;
    }
    my $harness = 0;
    $harness += ($d{"${_}_us"} > 0 ? $d{"${_}_us"} : 0) for @HARNESS;
    $h->{harness}      = figure($harness, $busy, $seconds, $txns);
    $h->{softirq}      = figure($d{softirq_us}, $busy, $seconds, $txns);
    my $rest = $busy - $attributed;
    $h->{unattributed} = figure($rest > 0 ? $rest : 0, $busy, $seconds, $txns);
    $h->{postgres_cpu_us} = $d{postgres_us};
  }
  # The database's host: where PostgreSQL used the most CPU.
  my ($db) = sort { ($b->{postgres_cpu_us} // 0) <=> ($a->{postgres_cpu_us} // 0) }
             grep { defined $_->{harness} } @{ $cpu->{hosts} };
  if ($db && ($db->{postgres_cpu_us} // 0) > 0) {
    $db->{database_host} = 1;
    $cpu->{database_host} = $db->{host};
    $cpu->{harness_share_pct} = $db->{harness}{share_pct};
    if (defined $db->{harness}{share_pct} && $db->{harness}{share_pct} > $HARNESS_WARN_PCT) {
      $cpu->{warning} = sprintf('the harness (Brokerage House + emulators) used %.1f %% of the '
                                . "database host's busy CPU (over %d %%): this result "
                                . 'understates the database (see "Where the CPU went")',
                                $db->{harness}{share_pct}, $HARNESS_WARN_PCT);
    }
  }
  delete $_->{postgres_cpu_us} for @{ $cpu->{hosts} };
}

1;
