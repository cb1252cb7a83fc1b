package BrokerBench::Inputs;
# Reading and validating the inputs of a results directory: run.conf's settings, every mix log
# below it (which emulator wrote each), the run's own time range that every row must lie in,
# and the measurement interval the customer emulators' markers give (MIXLOG.md). Bad input is
# an input problem naming its file, line and value; the rest is read.
use strict;
use warnings;
use Exporter 'import';
use File::Find ();
use File::Spec;
use List::Util qw(max min sum0);
use BrokerBench::Csv qw(read_run_conf);
use POSIX qw(ceil);
use BrokerBench::MixLog qw(read_mix_log);
use BrokerBench::MixLogFormat qw(read_markers);
use BrokerBench::Aggregates qw(new_aggregates);
use BrokerBench::Throughput qw(steady_cuts);
use BrokerBench::Cpu qw(cpu_cuts);
use BrokerBench::Format qw(utc_time utc_us is_number fmt_s);
use BrokerBench::Result qw(add_reason add_note);
use BrokerBench::Spec qw($STEADY_RAMP_UP_S);

our @EXPORT_OK = qw(read_settings read_mix_logs measurement_interval);

my $US = 1_000_000;

# run.conf keys that must be numbers when present.
my @NUMERIC_SETTINGS =
  qw(format customers scale_factor initial_trade_days users ramp_up_s duration_s pacing_s
     seed db_workers);
# run --db-memory's figures (controller/lib/database.sh): numbers too, but empty where the
# machine does not give one (a cgroup v2 before Linux 5.19 has no memory.peak): then null.
my @DB_MEMORY_NUMBERS =
  qw(db_memory_bytes db_memory_database_bytes db_memory_cached_at_start_bytes
     db_memory_data_dir_bytes db_memory_peak_bytes db_memory_end_bytes db_memory_oom_kills);

# run.conf keys that are UTC times as the controller writes them (date -u +%FT%TZ).
my @TIME_SETTINGS = qw(started_utc finished_utc);

# The run's time range (run_range) is widened by this much on each side: for the clocks of
# other hosts, run.conf's whole seconds, the Trade-Cleanup before the ramp-up and the
# emulators' last rows after the STOP.
our $RANGE_SLACK_S = 600;
# No run of this kit lasts this long: a longer range or measurement interval comes from a
# broken marker or run.conf, and is not believed.
our $MAX_RANGE_S = 40 * 86400;

# --- run.conf ---------------------------------------------------------------------------

sub read_settings {
  my ($r) = @_;
  my $path = "$r->{results_dir}/run.conf";
  my %s;
  if (-e $path) {
    my ($conf, $problems, $line_of) = read_run_conf($path);
    for my $p (@$problems) {
      $r->{_problem}->({ %$p, file => 'run.conf', kind => 'other' });
    }
    %s = %$conf;
    my %may_be_empty = map { $_ => 1 } @DB_MEMORY_NUMBERS;
    for my $k (@NUMERIC_SETTINGS, @DB_MEMORY_NUMBERS) {
      next unless exists $s{$k};
      next if is_number($s{$k});
      if ($may_be_empty{$k} && $s{$k} eq '') {
        $s{$k} = undef;
        next;
      }
      $r->{_problem}->({ file => 'run.conf', line => $line_of->{$k} // 0, kind => 'other',
                         reason => "$k is not a number: '$s{$k}' (taken as unknown)",
                         text => "$k=$s{$k}" });
      delete $s{$k};
    }
    for my $k (grep { exists $s{$_} && !defined utc_us($s{$_}) } @TIME_SETTINGS) {
      $r->{_problem}->({ file => 'run.conf', line => $line_of->{$k} // 0, kind => 'other',
                         reason => "$k is not a UTC time YYYY-MM-DDTHH:MM:SSZ: '$s{$k}' "
                                   . '(taken as unknown)', text => "$k=$s{$k}" });
      delete $s{$k};
    }
    # Numbers as numbers in results.json.
    $s{$_} += 0 for grep { defined $s{$_} } @NUMERIC_SETTINGS, @DB_MEMORY_NUMBERS;
  } else {
    add_note($r, 'settings', 'run.conf is missing: every setting is unknown, and the checks '
                             . 'that need one are skipped');
  }
  $r->{settings} = \%s;
  if (defined $s{status} && $s{status} ne 'complete') {
    add_reason($r, 'run status', 'controller',
               "the controller did not finish the run: run.conf says status = '$s{status}'");
  } elsif (!defined $s{status}) {
    add_note($r, 'run status', 'run.conf has no status: whether the run completed is unknown');
  }
}

# --- mix logs ---------------------------------------------------------------------------

sub classify {
  my ($rel) = @_;
  my @parts = split m{/}, $rel;
  my $name  = pop @parts;
  for my $i (0 .. $#parts) {
    if ($parts[$i] eq 'ce' || $parts[$i] eq 'mee') {
      my $host = $i < $#parts ? $parts[$i + 1] : 'local';
      return ($parts[$i], $host);
    }
  }
  my $host = @parts ? $parts[-1] : 'local';
  return ('ce', $host)  if $name =~ /\Amix-ce-/;
  return ('mee', $host) if $name =~ /\Amix-mee/;
  return (undef, $host);
}

sub read_mix_logs {
  my ($r) = @_;
  my $dir = $r->{results_dir};
  my @found;
  File::Find::find({
    no_chdir => 1,
    wanted   => sub {
      my $name = (File::Spec->splitpath($File::Find::name))[2];
      push @found, $File::Find::name if $name =~ /\Amix-.*\.csv\z/ && -f $File::Find::name;
    },
  }, $dir);
  return (undef, "no mix log (mix-*.csv) anywhere below '$dir'") unless @found;

  my @logs = map { my $rel = File::Spec->abs2rel($_, $dir); [$_, $rel, classify($rel)] }
             sort @found;
  # A first look at the customer emulators' markers: the run's time range and the MI, which
  # the aggregates are made by, are known before any row is read.
  my @ce = map { { %{ read_markers($_->[0]) }, log => $_ } } grep { ($_->[2] // '') eq 'ce' } @logs;
  my $range = run_range($r, [map { @{ $_->{starts} } } @ce], [map { @{ $_->{stops} } } @ce]);
  my $plan = make_plan($r, $range, \@ce);
  my $g = new_aggregates($plan);

  my @files;
  for my $log (@logs) {
    my ($path, $rel, $role, $host) = @$log;
    unless ($role) {
      $r->{_problem}->({ file => $rel, line => 0, text => '',
                         reason => 'neither under ce/ or mee/ nor named mix-ce-*.csv or '
                                   . 'mix-mee*.csv: cannot tell which emulator wrote it; '
                                   . 'file skipped' });
      push @files, { file => $rel, host => $host, role => 'unknown', rows => 0,
                     refused => 'unknown emulator', starts => [], stops => [] };
      next;
    }
    push @files, read_mix_log(path => $path, rel => $rel, role => $role, host => $host,
                              aggregates => $g, problem => $r->{_problem}, range => $range);
  }
  $r->{inputs} = { files => \@files, rows_total => sum0(map { $_->{rows} } @files) };
  return ($g);
}

# The plan the aggregates are made by (Aggregates.pm): the run's time range, the MI as
# measurement_interval will find it (from the same markers, taken by read_markers before the
# rows, and left out by the range as read_mix_log leaves them out), the ticks of the time
# series, and the cuts of the steadiness check and of "Where the CPU went". A customer emulator
# log without a START or a STOP in the range makes the MI start at its first row or end at its
# last row's end (the run is then INVALID): that log is read once more, first, for those two.
sub make_plan {
  my ($r, $range, $ce) = @_;
  my %plan = (lo_us => $range ? $range->{start_us} : undef,
              hi_us => $range ? $range->{end_us} : undef, steady_cuts => [], cpu_cuts => []);
  my @logs;
  for my $m (grep { !$_->{refused} } @$ce) {
    my @keep = map { [grep { !$range || ($_ >= $range->{start_us} && $_ <= $range->{end_us}) }
                      @{ $m->{$_} }] } qw(starts stops);
    my $f = { starts => $keep[0], stops => $keep[1] };
    if (!@{ $keep[0] } || !@{ $keep[1] }) {
      my $scan = read_mix_log(path => $m->{log}[0], rel => $m->{log}[1], role => 'ce',
                              aggregates => new_aggregates({ steady_cuts => [], cpu_cuts => [] }),
                              problem => sub {}, range => $range);
      @$f{qw(first_start_us last_end_us)} = @$scan{qw(first_start_us last_end_us)};
    }
    push @logs, $f;
  }
  my ($start, $end) = mi_bounds(\@logs);
  if (defined $start && $end > $start && ($end - $start) / $US <= $MAX_RANGE_S) {
    @plan{qw(mi_start_us mi_end_us)} = ($start, $end);
    $plan{steady_cuts} = steady_cuts($start, $end);
    $plan{cpu_cuts} = cpu_cuts($r, $start, $end);
  }
  if ($range) {
    my $origin = $plan{mi_start_us} // $range->{start_us};
    my $len_s = defined $plan{mi_start_us} ? ($plan{mi_end_us} - $plan{mi_start_us}) / $US
                : ($range->{end_us} - $range->{start_us}) / $US - 2 * $RANGE_SLACK_S;
    $plan{tick_us} = ($len_s < 600 ? 10 : 60) * $US;
    $plan{base_us} = $origin - ceil(($origin - $range->{start_us}) / (60 * $US)) * 60 * $US;
  }
  return \%plan;
}

# The MI's bounds from the customer emulator logs (each { starts, stops, first_start_us,
# last_end_us }): the latest START (or a log's first row, when it has none) and the earliest
# STOP (or a log's last row's end); () when a log gives neither.
sub mi_bounds {
  my ($logs) = @_;
  my (@starts, @stops);
  for my $f (@$logs) {
    my $start = @{ $f->{starts} } ? max(@{ $f->{starts} }) : $f->{first_start_us};
    my $stop  = @{ $f->{stops} } ? min(@{ $f->{stops} }) : $f->{last_end_us};
    push @starts, $start if defined $start;
    push @stops, $stop if defined $stop;
  }
  return () unless @starts && @stops;
  return (max(@starts), min(@stops));
}

# The run's own time range, which every row and marker must lie in (read_mix_log leaves out
# and names one that does not), and which nothing in a row can move. It comes from the
# customer emulators' markers and run.conf:
# - run.conf's started_utc and finished_utc, which the controller writes before it starts
#   anything and after everything stopped, widened by $RANGE_SLACK_S on each side, bound the
#   markers: a START or STOP outside is not used (and read_mix_log names it).
# - The MI the other markers give (the latest START, the earliest STOP, as
#   measurement_interval takes them) gives the range: from its START less the ramp-up
#   (ramp_up_s; unknown, the MI's length) to its STOP plus the MI's length, widened by
#   $RANGE_SLACK_S, and kept within run.conf's bounds.
# - Without such an MI, run.conf's bounds are the range when it has both.
# - A range longer than $MAX_RANGE_S is not believed.
# Returns { start_us, end_us, start_utc, end_utc, from } or undef when the range is unknown
# (then rows are not checked against it and the time series are not made).
sub run_range {
  my ($r, $starts, $stops) = @_;
  my $s     = $r->{settings};
  my $slack = $RANGE_SLACK_S * $US;
  my $conf_lo = utc_us($s->{started_utc});
  my $conf_hi = utc_us($s->{finished_utc});
  $conf_lo -= $slack if defined $conf_lo;
  $conf_hi += $US + $slack if defined $conf_hi;    # finished_utc is in whole seconds
  my $inside = sub {
    (!defined $conf_lo || $_[0] >= $conf_lo) && (!defined $conf_hi || $_[0] <= $conf_hi);
  };
  my $start = max grep { $inside->($_) } @$starts;
  my $stop  = min grep { $inside->($_) } @$stops;
  my $min   = $RANGE_SLACK_S / 60;
  my ($lo, $hi, $from);
  if (defined $start && defined $stop && $start < $stop) {
    my $len  = $stop - $start;
    my $ramp = $s->{ramp_up_s};
    my $ramp_text = defined $ramp && $ramp >= 0 ? "ramp_up_s, $ramp s" : 'unknown: the MI length';
    $ramp = defined $ramp && $ramp >= 0 ? $ramp * $US : $len;
    # run.conf's times, where known, bound everything the run did (Trade-Cleanup before the
    # ramp-up can take longer than any margin on the markers); the markers bound the rest.
    $lo = $conf_lo // $start - $ramp - $slack;
    $hi = $conf_hi // $stop + $len + $slack;
    my @from;
    push @from, defined $conf_lo
      ? "run.conf's started_utc less $min min"
      : sprintf("the customer emulators' latest START less the ramp-up (%s) and %d min",
                $ramp_text, $min);
    push @from, defined $conf_hi
      ? "run.conf's finished_utc plus $min min"
      : sprintf('their earliest STOP plus the MI length (%s) and %d min', fmt_s($len / $US),
                $min);
    $from = join(', to ', @from);
  } elsif (defined $conf_lo && defined $conf_hi) {
    ($lo, $hi) = ($conf_lo, $conf_hi);
    $from = "run.conf's started_utc to finished_utc, widened by $min min (the customer "
            . 'emulator logs have no START before a STOP within them)';
  }
  my $why;
  if (!defined $from) {
    $why = "no customer emulator log has a START before a STOP, and run.conf has no "
           . 'started_utc and finished_utc';
  } elsif ($hi - $lo > $MAX_RANGE_S * $US) {
    $why = sprintf('%s gives %s to %s, %.0f days: longer than any run (%d days), so a marker '
                   . 'or run.conf is broken', $from, utc_time($lo), utc_time($hi),
                   ($hi - $lo) / ($US * 86400), $MAX_RANGE_S / 86400);
  }
  if ($why) {
    $r->{run_range} = { known => 0, why => $why };
    add_reason($r, 'run time range', 'MIXLOG.md',
               "the run's time range is unknown: $why; rows are not checked against it and "
               . 'the time series are not made');
    return undef;
  }
  my $range = { known => 1, start_us => $lo, end_us => $hi, start_utc => utc_time($lo),
                end_utc => utc_time($hi), from => $from };
  $r->{run_range} = $range;
  return $range;
}

# --- measurement interval ---------------------------------------------------------------

# The MI comes from the customer emulators only (MIXLOG.md; the market emulator's markers
# bracket its process lifetime): it starts at the latest START of all CE logs and ends at the
# earliest STOP. A log without a marker falls back to its first row's start or its last
# row's end, and the run is invalid.
sub measurement_interval {
  my ($r) = @_;
  my @ce = grep { $_->{role} eq 'ce' && !$_->{refused} } @{ $r->{inputs}{files} };
  my $mi = { start_us => undef, end_us => undef, seconds => 0, source => 'markers',
             ce_logs => [] };
  $r->{mi} = $mi;
  unless (@ce) {
    $mi->{source} = 'none';
    add_reason($r, 'measurement interval', '6.6',
               'no readable customer emulator mix log: there is no measurement interval');
    return;
  }
  my (@starts, @stops);
  for my $f (@ce) {
    my ($start, $stop);
    if (@{ $f->{starts} }) {
      $start = max @{ $f->{starts} };
      if (@{ $f->{starts} } > 1) {
        add_note($r, 'markers', sprintf('%s has %d START markers; the latest is used',
                                        $f->{file}, scalar @{ $f->{starts} }));
      }
    } elsif (defined $f->{first_start_us}) {
      $start = $f->{first_start_us};
      $mi->{source} = 'fallback';
      add_reason($r, 'markers', 'MIXLOG.md',
                 "$f->{file} has no START marker: the MI starts at its first row instead");
    } else {
      add_reason($r, 'markers', 'MIXLOG.md', "$f->{file} has no START marker and no rows");
    }
    if (@{ $f->{stops} }) {
      $stop = min @{ $f->{stops} };
      if (@{ $f->{stops} } > 1) {
        add_note($r, 'markers', sprintf('%s has %d STOP markers; the earliest is used',
                                        $f->{file}, scalar @{ $f->{stops} }));
      }
    } elsif (defined $f->{last_end_us}) {
      $stop = $f->{last_end_us};
      $mi->{source} = 'fallback';
      add_reason($r, 'markers', 'MIXLOG.md',
                 "$f->{file} has no STOP marker: the MI ends at its last row's end instead");
    } else {
      add_reason($r, 'markers', 'MIXLOG.md', "$f->{file} has no STOP marker and no rows");
    }
    push @starts, $start if defined $start;
    push @stops,  $stop  if defined $stop;
    push @{ $mi->{ce_logs} }, { file => $f->{file}, host => $f->{host}, start_us => $start,
                                stop_us => $stop, first_row_us => $f->{first_start_us} };
  }
  unless (@starts && @stops) {
    $mi->{source} = 'none';
    add_reason($r, 'measurement interval', '6.6',
               'the customer emulator logs give no start or no end: there is no measurement '
               . 'interval');
    return;
  }
  $mi->{start_us} = max @starts;
  $mi->{end_us}   = min @stops;
  $mi->{start_utc} = utc_time($mi->{start_us});
  $mi->{end_utc}   = utc_time($mi->{end_us});
  if ($mi->{end_us} <= $mi->{start_us}) {
    add_reason($r, 'measurement interval', '6.6',
               sprintf('the measurement interval is empty: the latest START (%s) is not '
                       . 'before the earliest STOP (%s)', $mi->{start_utc}, $mi->{end_utc}));
    $mi->{seconds} = 0;
    $mi->{empty}   = 1;
    return;
  }
  $mi->{seconds} = ($mi->{end_us} - $mi->{start_us}) / $US;
  # Only without a known run range (its rows unchecked) can the MI be this long; the checks
  # over its windows and buckets would then take all memory.
  if ($mi->{seconds} > $MAX_RANGE_S) {
    add_reason($r, 'measurement interval', '6.6',
               sprintf('the measurement interval (%s to %s) is %.0f days: longer than any run '
                       . '(%d days), so a marker or a row is broken; no measurement interval',
                       $mi->{start_utc}, $mi->{end_utc}, $mi->{seconds} / 86400,
                       $MAX_RANGE_S / 86400));
    @$mi{qw(start_us end_us start_utc end_utc seconds source)} =
      (undef, undef, undef, undef, 0, 'none');
    return;
  }

  # Ramp-up: from the first customer transaction to the start of the MI.
  my $first = min grep { defined } map { $_->{first_start_us} } @ce;
  $r->{ramp_up} = {
    configured_s => $r->{settings}{ramp_up_s},
    first_transaction_utc => utc_time($first),
    observed_s   => defined $first ? max(0, ($mi->{start_us} - $first) / $US) : undef,
  };
  # The configured ramp-up when run.conf has it; else the observed one, which is short of the
  # configured by the first user's dispatch (under a second).
  my $configured = $r->{ramp_up}{configured_s};
  my ($ramp, $slack) = is_number($configured) && $configured >= 0 ? ($configured, 0)
                     : ($r->{ramp_up}{observed_s}, 1);
  if (defined $ramp && $ramp + $slack < $STEADY_RAMP_UP_S) {
    $r->{ramp_up}{warning} =
      sprintf('the ramp-up was %.1f s, shorter than the %d s a limit order may take to trigger: '
              . 'fewer Trade-Results may have come back than Trade-Orders went out, which '
              . 'understates TRTPS (the default ramp-up, %d minutes, avoids it)',
              $ramp, $STEADY_RAMP_UP_S, $STEADY_RAMP_UP_S / 60);
  }
}

1;
