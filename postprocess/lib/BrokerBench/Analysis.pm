package BrokerBench::Analysis;
# Turns a results directory into one result hash: the measurement interval, per-type
# statistics, the reported throughput, the verdict with its reasons, the compliance notes,
# the database, system and market emulator figures, and the time series the plots draw.
# Everything in the hash except the `_series` key is plain data and goes into results.json.
#
# Clause numbers are those of the TPC-E specification v1.14.0.
use strict;
use warnings;
use Exporter 'import';
use File::Find ();
use File::Spec;
use List::Util qw(max min sum0);
use POSIX qw(floor ceil strftime);
use Time::Local qw(timegm);
use BrokerBench::Spec qw(
  @MIX_CODES @ALL_CODES %NAME %MIX_RANGE %RT_LIMIT @OUTCOMES @ERROR_OUTCOMES
  $DM_GAP_MIN_S $DM_GAP_MAX_S $DM_MAX_S $TO_ROLLBACK_P @TO_ROLLBACK_RANGE @INPUT_VARIANTS
  $MI_MIN_S $MIN_CUSTOMERS $SCALE_FACTOR $INITIAL_TRADE_DAYS $TRTPS_LOW $TRTPS_HIGH
  $STEADY_LONG_WINDOW_S $STEADY_LONG_SLIDE_S $STEADY_LONG_TOL
  $STEADY_SHORT_WINDOW_S $STEADY_SHORT_SLIDE_S $STEADY_SHORT_TOL $STEADY_MIN_WINDOW_S
  $STEADY_FALSE_ALARM $STEADY_DISPERSION_BUCKET_S $NOT_COMPARABLE);
use BrokerBench::Stats qw(nearest_rank mean summary normal_upper_quantile t_upper_quantile
                           PERCENTILE_METHOD);
use BrokerBench::Csv qw(parse_csv read_csv read_run_conf);
use BrokerBench::MixLog qw(new_store read_mix_log read_markers B_START B_RESP B_OUTCOME
                           B_RETRIES B_WAIT B_INPUTS B_VARIANTS);
use BrokerBench::Cpu qw(cpu_stats);
use BrokerBench::BhStats qw(bh_stats);
use BrokerBench::Waits qw(wait_stats);
use BrokerBench::Statements qw(statement_stats);
use BrokerBench::Reconcile qw(reconcile);

our @EXPORT_OK = qw(analyze utc_time floor2);

# Problems listed per file; the rest are counted. Keeps a report of a badly broken log short.
our $MAX_PROBLEMS_PER_FILE = 50;

my $US = 1_000_000;

# run.conf keys that must be numbers when present.
my @NUMERIC_SETTINGS =
  qw(format customers scale_factor initial_trade_days users ramp_up_s duration_s pacing_s
     seed db_workers);

# run.conf keys that are UTC times as the controller writes them (date -u +%FT%TZ).
my @TIME_SETTINGS = qw(started_utc finished_utc);

# The outcome digits of valid transactions: ok, rollback, warning (see Spec.pm).
my $LAST_VALID = 2;

# The run's time range (run_range) is widened by this much on each side: for the clocks of
# other hosts, run.conf's whole seconds, the Trade-Cleanup before the ramp-up and the
# emulators' last rows after the STOP.
our $RANGE_SLACK_S = 600;
# No run of this kit lasts this long: a longer range or measurement interval comes from a
# broken marker or run.conf, and is not believed.
our $MAX_RANGE_S = 40 * 86400;

sub utc_time {
  my ($us) = @_;
  return 'unknown' unless defined $us;
  my $s = floor($us / $US);
  return strftime('%Y-%m-%d %H:%M:%S', gmtime $s) . sprintf('.%03d UTC', ($us - $s * $US) / 1000);
}

# Rounds down to 2 decimals (clause 6.7.1: the reported throughput is truncated). The small
# epsilon keeps 1.95 from becoming 1.94 through binary representation.
sub floor2 {
  my ($x) = @_;
  return floor($x * 100 + 1e-9) / 100;
}

# A finite number: '1e999' or 400 digits would be inf, and inf - inf is NaN.
sub is_number {
  return 0 unless defined $_[0] && $_[0] =~ /\A-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\z/;
  my $x = $_[0] + 0;
  return $x - $x == 0;
}

# 'YYYY-MM-DDTHH:MM:SSZ' (UTC) -> microseconds since the epoch, or undef.
sub utc_us {
  my ($text) = @_;
  return undef unless defined $text
    && $text =~ /\A(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)Z\z/;
  my $s = eval { timegm($6, $5, $4, $3, $2 - 1, $1) };
  return defined $s ? $s * $US : undef;
}

# analyze(dir => $dir, problem_hook => sub {...}, keep_store => 1) -> ($result) or (undef,
# $error) when no report can be made. problem_hook, if given, sees each input problem as it is
# found (for printing on stderr). keep_store leaves the mix log rows (MixLog.pm's store) in
# $result->{_store}, for a caller that needs more of them than the result holds (Compare.pm).
sub analyze {
  my (%opt) = @_;
  my $dir = $opt{dir};
  return (undef, "'$dir' is not a directory") unless -d $dir;
  opendir(my $dh, $dir) or return (undef, "cannot read the directory '$dir': $!");
  closedir $dh;
  $dir = File::Spec->rel2abs($dir);
  $dir =~ s{/+\z}{} unless $dir eq '/';

  my $r = {
    # results.json's format. v2: each figure is named with what it is and its unit
    # (response_time_p90_ms, wait_p90_ms, measured_tpse, ...); reasons and notes are in the
    # verdict only.
    format            => 'brokerbench results v2',
    results_dir       => $dir,
    generated_utc     => strftime('%Y-%m-%d %H:%M:%S UTC', gmtime),
    percentile_method => PERCENTILE_METHOD,
    statement         => $NOT_COMPARABLE,
    problems          => [],
    problems_total    => 0,
    mix_problems      => 0,
    reasons           => [],
    notes             => [],
  };
  my %listed_per_file;
  my $hook = $opt{problem_hook};
  $r->{_problem} = sub {
    my ($p) = @_;
    $p->{kind} //= 'mix';
    $r->{problems_total}++;
    $r->{mix_problems}++ if $p->{kind} eq 'mix';
    my $k = $p->{file};
    if (++$listed_per_file{$k} <= $MAX_PROBLEMS_PER_FILE) {
      push @{ $r->{problems} }, $p;
      $hook->($p) if $hook;
    } elsif ($listed_per_file{$k} == $MAX_PROBLEMS_PER_FILE + 1) {
      $hook->({ %$p, reason => "more problems in this file are counted but not listed",
                line => $p->{line}, text => '' }) if $hook;
    }
  };

  read_settings($r);
  my ($store, $err) = read_mix_logs($r);
  return (undef, $err) if $err;
  measurement_interval($r);
  transaction_stats($r, $store);
  throughput($r);
  steadiness($r);
  data_maintenance($r);
  rollback_check($r);
  error_checks($r);
  mix_and_response_checks($r);
  input_variants($r, $store);
  compliance($r);
  database($r);
  database_trade_count($r);
  system_stats($r);
  cpu_stats($r, $store);
  wait_stats($r);
  statement_stats($r);
  profile($r);
  bh_stats($r);
  market_emulator($r, $store);
  reconciliation($r, $store);
  verdict($r);
  delete $r->{_problem};
  $r->{_store} = $store if $opt{keep_store};
  return ($r);
}

sub add_reason {
  my ($r, $rule, $clause, $text) = @_;
  push @{ $r->{reasons} }, { rule => $rule, clause => $clause, text => $text };
}

sub add_note {
  my ($r, $rule, $text) = @_;
  push @{ $r->{notes} }, { rule => $rule, text => $text };
}

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
    for my $k (@NUMERIC_SETTINGS) {
      next unless exists $s{$k};
      next if is_number($s{$k});
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
    $s{$_} += 0 for grep { exists $s{$_} } @NUMERIC_SETTINGS;
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

  my @logs = map { [$_, File::Spec->abs2rel($_, $dir)] } sort @found;
  my (@starts, @stops);
  for my $log (grep { ((classify($_->[1]))[0] // '') eq 'ce' } @logs) {
    my ($s, $e) = read_markers($log->[0]);
    push @starts, @$s;
    push @stops, @$e;
  }
  my $range = run_range($r, \@starts, \@stops);

  my $store = new_store();
  my @files;
  for my $log (@logs) {
    my ($path, $rel) = @$log;
    my ($role, $host) = classify($rel);
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
                              store => $store, problem => $r->{_problem}, range => $range);
  }
  $r->{inputs} = { files => \@files, rows_total => sum0(map { $_->{rows} } @files) };
  return ($store);
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
}

sub mi_ok {
  my ($r) = @_;
  return defined $r->{mi}{start_us} && !$r->{mi}{empty};
}

# --- per-type statistics ----------------------------------------------------------------

sub transaction_stats {
  my ($r, $store) = @_;
  my $mi     = $r->{mi};
  my $have   = mi_ok($r);
  my $mi_s   = $have ? $mi->{start_us} : 0;
  my $mi_e   = $have ? $mi->{end_us} : -1;

  # The time axis of the plots: seconds from the MI start (or from the first row when there
  # is no MI). Buckets are aligned to that origin; $base lies a whole number of minutes
  # before it, at or before the first row, so bucket indices are never negative. Every row
  # lies in the run's time range (read_mix_log left out the others), which bounds the
  # indices; without a known range there is no time axis.
  my @files = grep { defined $_->{first_start_us} } @{ $r->{inputs}{files} };
  @files = () unless $r->{run_range}{known};
  my $span_start = min map { $_->{first_start_us} } @files;
  my $span_end   = max map { $_->{last_end_us} } @files;
  my $origin = $have ? $mi_s : $span_start;
  my ($bucket_s, $base);
  if (defined $span_start) {
    my $span_s = ($span_end - $span_start) / $US;
    $bucket_s = $span_s < 600 ? 10 : 60;
    my $back  = max(0, ceil(($origin - $span_start) / (60 * $US)));
    $base     = $origin - $back * 60 * $US;
  }
  my $bw = ($bucket_s // 60) * $US;
  my %series = (origin_us => $origin, base_us => $base, bucket_s => $bucket_s,
                span_start_us => $span_start, span_end_us => $span_end);

  my %types;
  my $mix_total = 0;
  for my $code (@ALL_CODES) {
    my $bk = $store->{$code};
    my ($S, $R, $O) = ($bk->[B_START], $bk->[B_RESP], $bk->[B_OUTCOME]);
    my $n = scalar @$S;
    # Trade-Cleanup runs once before the measured run: its row covers the whole log.
    my $whole = $code eq 'TC';
    my ($lo, $hi) = $whole ? (0, 9e18) : ($mi_s, $mi_e);
    my @in  = (0) x @OUTCOMES;
    my @out = (0) x @OUTCOMES;
    my @valid;            # response_us of valid rows in scope
    my @in_flag;          # row index -> in scope (for retries)
    my (@done, @rt);      # plot buckets: completions by end time, response times by start
    my @tr_sec;           # Trade-Result completions per second (TR only)
    my @tr_end;           # Trade-Result completion times in the MI (TR only)
    my $is_tr = $code eq 'TR';
    my $b0 = $base // 0;    # unused without a base
    # The hot loop of the post-processor: one pass over every row of this type.
    for my $i (0 .. $n - 1) {
      my $s = $S->[$i];
      my $t = $R->[$i];
      my $e = $s + $t;
      my $o = substr($O, $i, 1);
      if ($s >= $lo && $e <= $hi) {
        $in[$o]++;
        $in_flag[$i] = 1;
        if ($o <= $LAST_VALID) {
          push @valid, $t;
          push @tr_end, $e if $is_tr;
        }
      } else {
        $out[$o]++;
      }
      next if $o > $LAST_VALID || !defined $base;
      $done[ ($e - $b0) / $bw ]++;
      push @{ $rt[ ($s - $b0) / $bw ] }, $t;
      $tr_sec[ ($e - $b0) / $US ]++ if $is_tr;
    }
    # Array indices truncate like int(); the series become sparse hashes for the plots.
    my %done   = defined $base ? (map { $_ => $done[$_] } grep { $done[$_] } 0 .. $#done) : ();
    my %rt     = defined $base ? (map { $_ => $rt[$_] } grep { $rt[$_] } 0 .. $#rt) : ();
    my %tr_sec = defined $base ? (map { $_ => $tr_sec[$_] } grep { $tr_sec[$_] } 0 .. $#tr_sec) : ();
    my $retries = 0;
    while (my ($i, $k) = each %{ $bk->[B_RETRIES] }) {
      $retries += $k if $in_flag[$i];
    }
    @valid = sort { $a <=> $b } @valid;
    my %oc_in  = map { $OUTCOMES[$_] => $in[$_] } 0 .. $#OUTCOMES;
    my %oc_out = map { $OUTCOMES[$_] => $out[$_] } 0 .. $#OUTCOMES;
    my $t = {
      code            => $code,
      name            => $NAME{$code},
      in_mix          => (exists $MIX_RANGE{$code} ? 1 : 0),
      scope           => $whole ? 'whole log' : 'MI',
      count           => scalar @valid,
      rows            => $n,
      rows_in_mi      => sum0(@in),
      rows_outside_mi => sum0(@out),
      ok              => $oc_in{ok},
      rollbacks       => $oc_in{rollback},
      warnings        => $oc_in{warning},
      invalid         => $oc_in{invalid},
      errors          => sum0(map { $oc_in{$_} } @ERROR_OUTCOMES),
      error_outcomes  => { map { $_ => $oc_in{$_} } @ERROR_OUTCOMES },
      outcomes_in_mi  => \%oc_in,
      outcomes_outside_mi => \%oc_out,
      retries         => $retries,
      response_times_ms(\@valid),
      response_time_limit_ms => (defined $RT_LIMIT{$code} ? 1000 * $RT_LIMIT{$code} : undef),
      mix_range       => $MIX_RANGE{$code},
    };
    $types{$code} = $t;
    $mix_total += $t->{count} if $t->{in_mix};
    $series{done}{$code} = \%done;
    $series{rt}{$code}   = \%rt;
    $series{cdf}{$code}  = cdf_points(\@valid);
    if ($is_tr) {
      $series{tr_sec} = \%tr_sec;
      $r->{_tr_end}   = [sort { $a <=> $b } @tr_end];
    }
    if ($code eq 'DM') {
      $r->{_dm_rows} = [sort { $a->[0] <=> $b->[0] }
                        map { [$S->[$_], $R->[$_], $OUTCOMES[substr($O, $_, 1)]] } 0 .. $n - 1];
    }
  }
  # Mix percentages over the valid transactions of the ten mix types in the MI, computed to
  # 4 decimals and shown to 3 (clause 6.3.2).
  for my $code (@MIX_CODES) {
    my $t = $types{$code};
    $t->{mix_pct} = $mix_total ? sprintf('%.4f', 100 * $t->{count} / $mix_total) + 0 : undef;
  }
  $r->{mix_total}    = $mix_total;
  $r->{transactions} = \%types;
  $r->{_series}      = \%series;
}

# The response-time figures of a type (milliseconds; undef when it has none): minimum,
# average, the 50th, 90th, 95th and 99th percentiles (nearest rank) and maximum of the sorted
# response times in microseconds. The 90th percentile and the average are judged (clause 6.5.1).
sub response_times_ms {
  my ($sorted) = @_;
  my %f = (min => $sorted->[0], avg => mean($sorted), max => $sorted->[-1],
           map { ("p$_" => nearest_rank($sorted, $_)) } 50, 90, 95, 99);
  return map { ("response_time_${_}_ms" => defined $f{$_} ? $f{$_} / 1000 : undef) } keys %f;
}

# At most ~1000 points of the empirical distribution: (seconds, fraction <= it).
sub cdf_points {
  my ($sorted) = @_;
  my $n = scalar @$sorted;
  return [] unless $n;
  my $step = $n > 1000 ? $n / 1000 : 1;
  my @pts;
  for (my $k = 1; $k <= $n; $k += $step) {
    my $i = int($k) - 1;
    push @pts, [$sorted->[$i] / $US, ($i + 1) / $n];
  }
  push @pts, [$sorted->[-1] / $US, 1] if $pts[-1][1] < 1;
  return \@pts;
}

# --- throughput (clauses 6.6.8, 6.7) -------------------------------------------

sub throughput {
  my ($r) = @_;
  my $s   = $r->{settings};
  my $tp  = { measured_tpse => undef, nominal_tpse => undef, measured_pct_of_nominal => undef,
              reported_tpse => undef, status => 'n/a',
              trade_results_in_mi => $r->{transactions}{TR}{count} };
  $r->{trtps} = $tp;
  if (is_number($s->{customers}) && is_number($s->{scale_factor}) && $s->{scale_factor} > 0) {
    $tp->{nominal_tpse} = $s->{customers} / $s->{scale_factor};
  }
  my $have_mee = grep { $_->{role} eq 'mee' && !$_->{refused} } @{ $r->{inputs}{files} };
  if (!mi_ok($r)) {
    $tp->{why} = 'no measurement interval';
  } elsif (!$have_mee) {
    $tp->{why} = 'no readable market emulator mix log, so no Trade-Result rows';
  }
  if ($tp->{why}) {
    $tp->{headline} = "TRTPS: n/a ($tp->{why})";
    add_reason($r, 'throughput', '6.6.8', "the throughput cannot be measured: $tp->{why}");
    return;
  }
  $tp->{measured_tpse} = $tp->{trade_results_in_mi} / $r->{mi}{seconds};
  my $m2 = sprintf('%.2f', floor2($tp->{measured_tpse}));
  unless (defined $tp->{nominal_tpse} && $tp->{nominal_tpse} > 0) {
    $tp->{why} = 'nominal unknown: run.conf lacks customers or scale_factor';
    $tp->{headline} = "TRTPS: n/a ($tp->{why}; measured $m2)";
    add_reason($r, 'throughput', '6.7',
               "the reported throughput cannot be determined without the nominal throughput "
               . "(customers / scale_factor); measured $m2 tpsE");
    return;
  }
  my $ratio = $tp->{measured_tpse} / $tp->{nominal_tpse};
  $tp->{measured_pct_of_nominal} = 100 * $ratio;
  my $n2 = sprintf('%.2f', $tp->{nominal_tpse});
  my $p1 = sprintf('%.1f', $tp->{measured_pct_of_nominal});
  if ($ratio >= $TRTPS_LOW && $ratio <= 1) {
    $tp->{reported_tpse} = floor2($tp->{measured_tpse});
    $tp->{status}   = 'measured';
    $tp->{headline} = "TRTPS: $m2 (nominal $n2, $p1 %)";
  } elsif ($ratio > 1 && $ratio <= $TRTPS_HIGH) {
    $tp->{reported_tpse} = $tp->{nominal_tpse};
    $tp->{status}   = 'nominal';
    $tp->{headline} = sprintf('TRTPS: %.2f (nominal %s, %s %%; measured %s)', $tp->{nominal_tpse},
                              $n2, $p1, $m2);
  } else {
    $tp->{status}   = 'out of range';
    $tp->{headline} = "TRTPS: $m2 (nominal $n2, $p1 %; outside 80-102 %, not reportable)";
    add_reason($r, 'throughput', '6.7',
               sprintf('measured throughput %s tpsE is %s %% of the nominal %s tpsE '
                       . '(customers %s / scale_factor %s); it must be 80-102 %%',
                       $m2, $p1, $n2, $s->{customers}, $s->{scale_factor}));
  }
}

# --- steady throughput (clause 6.6.3) -----------------------------------------

# The spec checks 1-hour windows sliding by 10 minutes (within 2 %) and 10-minute windows
# sliding by 1 minute (within 20 %) against the reported throughput; an MI of 2 hours or more
# is judged exactly so.
#
# A shorter MI has no rule in the spec. Ours scales the windows and slides by MI/7200 (no
# window under 30 s, no slide under 1 s) and lets each window deviate as far as the noise of a
# steady run's count allows, at a known error rate:
# - Noise. Trade-Result completions are burstier than Poisson: limit orders trigger in bunches
#   (a default run measured variance/mean 1.89 per 10 s, 1.44 per 30 s). A window expecting E
#   completions has a count of variance D x E, D the dispersion, which is estimated from the
#   run itself: over the n whole 10-s buckets c[1..n] of the MI, D = sum of (c[i+1] - c[i])^2
#   / (2 (n-1)) / mean c (successive differences, von Neumann). A change of throughput adds one
#   large difference where it begins and one where it ends, so a real drop hardly raises D
#   and cannot hide itself, as it would in the plain variance of the buckets. 10 s holds a
#   bunch whole (the measured dispersion falls from 10 s to 30 s, so it does not understate
#   the noise of longer windows) and still gives a 5-minute MI 30 buckets. D is never taken
#   below 1 (Poisson).
# - Error rate. A window fails when its deviation exceeds z standard deviations of its count,
#   so its tolerance is z sqrt(D / E). z is the upper q = 0.01 / (2 N) quantile for the N
#   windows of both sizes (Bonferroni: a steady run fails by chance with probability at most
#   1 % over all its windows together; less in fact, as overlapping windows are correlated),
#   of Student's t with 2 (n-1)^2 / (3n-4) degrees of freedom, the precision of the
#   successive-difference estimate from n buckets (normal counts): D is estimated, and a
#   5-minute run's 30 buckets can put it 40 % low by chance, which a normal quantile would
#   turn into too many false failures (simulated steady bursty 5-minute runs: 1.0-1.6 % of
#   them failed with a normal quantile; with this one at most 0.2 %, bunches of up to 15 s
#   included).
# What the rule can see follows: a drop lasting a whole window is caught at least 97 % of the
# time when it is deeper than the tolerance by 2 standard deviations; a shallower or shorter
# one passes. The report says how deep that is for the run.
sub steadiness {
  my ($r) = @_;
  my $st = { checks => [] };
  $r->{steadiness} = $st;
  my $tp = $r->{trtps};
  unless (mi_ok($r) && defined $tp->{measured_tpse} && $tp->{measured_tpse} > 0) {
    $st->{skipped} = 'no measured throughput';
    return;
  }
  my $ref = defined $tp->{reported_tpse} ? $tp->{reported_tpse} : $tp->{measured_tpse};
  $st->{reference_tpse} = $ref;
  $st->{reference} = defined $tp->{reported_tpse} ? 'reported throughput'
                                             : 'measured throughput (none is reportable)';
  my ($t0, $t1) = ($r->{mi}{start_us}, $r->{mi}{end_us});
  my $mi_len = $r->{mi}{seconds};
  my $scaled = $mi_len < $MI_MIN_S;
  my $scale  = $scaled ? $mi_len / $MI_MIN_S : 1;
  $st->{scaled} = $scaled ? 1 : 0;
  $st->{scale}  = $scale;
  my $ends = $r->{_tr_end};
  my $disp = dispersion($ends, $t0, $t1);
  $st->{dispersion} = $disp;
  my $D = $disp->{value};

  my @spec = (
    ['1-hour', $STEADY_LONG_WINDOW_S, $STEADY_LONG_SLIDE_S, $STEADY_LONG_TOL],
    ['10-minute', $STEADY_SHORT_WINDOW_S, $STEADY_SHORT_SLIDE_S, $STEADY_SHORT_TOL],
  );
  my @counts;    # per check: [window start us, Trade-Results in it] for each window
  for my $sp (@spec) {
    my ($label, $w0, $s0, $tol0) = @$sp;
    my $w  = $scaled ? max($STEADY_MIN_WINDOW_S, $w0 * $scale) : $w0;
    my $sl = $scaled ? max(1, $s0 * $scale) : $s0;
    my $exp = $ref * $w;
    my $c = { label => $label, window_s => $w, slide_s => $sl, tolerance => $tol0,
              spec_window_s => $w0, spec_slide_s => $s0, spec_tolerance => $tol0,
              expected_per_window => $exp, sd => sqrt($D / $exp), windows => 0, outside => 0,
              failed_windows => [], worst => undef };
    push @{ $st->{checks} }, $c;
    if ($w > $mi_len + 1e-9) {
      $c->{skipped} = sprintf('the MI (%s) is shorter than one window (%s)', fmt_s($mi_len),
                              fmt_s($w));
      add_note($r, 'steady throughput', "$label windows not checked: $c->{skipped}");
      push @counts, [];
      next;
    }
    push @counts, window_counts($ends, $t0, $t1, $w, $sl);
    $c->{windows} = scalar @{ $counts[-1] };
  }
  my $n_windows = sum0(map { $_->{windows} } @{ $st->{checks} });
  $st->{windows_total} = $n_windows;
  if ($scaled && $n_windows) {
    $st->{false_alarm} = $STEADY_FALSE_ALARM;
    my $q = $STEADY_FALSE_ALARM / (2 * $n_windows);
    $st->{z} = $disp->{dof} ? t_upper_quantile($q, $disp->{dof}) : normal_upper_quantile($q);
  }

  for my $i (0 .. $#{ $st->{checks} }) {
    my $c = $st->{checks}[$i];
    if ($scaled && defined $st->{z}) {
      $c->{tolerance} = $st->{z} * $c->{sd};
      $c->{detects}   = $c->{tolerance} + 2 * $c->{sd};
    }
    next if $c->{skipped};
    for my $wc (@{ $counts[$i] }) {
      my ($at, $n) = @$wc;
      my $rate = $n / $c->{window_s};
      my $dev  = $rate / $ref - 1;
      if (abs($dev) > $c->{tolerance} + 1e-12) {
        $c->{outside}++;
        # For the TRTPS plot, which marks them.
        push @{ $c->{failed_windows} }, { start_s => ($at - $t0) / $US,
                                          end_s => ($at - $t0) / $US + $c->{window_s},
                                          tpse => $rate };
      }
      if (!$c->{worst} || abs($dev) > abs($c->{worst}{deviation})) {
        $c->{worst} = { start_s => ($at - $t0) / $US, tpse => $rate, deviation => $dev };
      }
    }
    next unless $c->{outside};
    add_reason($r, 'steady throughput', '6.6.3',
               sprintf('%d of %d %s windows (%s), sliding %s, are outside +-%s of %.2f tpsE%s; '
                       . 'the worst, starting at MI+%s, ran at %.2f tpsE (%+.1f %%)',
                       $c->{outside}, $c->{windows}, fmt_s($c->{window_s}),
                       ($scaled ? "scaled from the spec's $c->{label} windows"
                                : "the spec's $c->{label} windows"),
                       fmt_s($c->{slide_s}), fmt_pct($c->{tolerance}), $ref,
                       ($scaled ? sprintf(' (%.2f standard deviations of a window\'s count at '
                                          . 'dispersion %.2f: a steady run fails by chance '
                                          . 'at most %s of the time)', $st->{z}, $D,
                                          fmt_pct($STEADY_FALSE_ALARM))
                                : ''),
                       fmt_s($c->{worst}{start_s}), $c->{worst}{tpse},
                       100 * $c->{worst}{deviation}));
  }
  $st->{text} = $scaled ? scaled_steadiness_text($st, $mi_len) : spec_steadiness_text($st);
}

# The dispersion as the report states it.
sub dispersion_text {
  my ($d) = @_;
  my $from = sprintf('the successive differences of %d %s buckets', $d->{buckets},
                     fmt_s($d->{bucket_s}));
  return "the dispersion D (variance/mean) of the Trade-Result counts is 1 (Poisson; too few "
         . "buckets to estimate it from $from)" unless defined $d->{estimate};
  return sprintf('the dispersion D (variance/mean) of the Trade-Result counts is 1 (Poisson; '
                 . '%s gave %.2f)', $from, $d->{estimate}) if $d->{value} > $d->{estimate};
  return sprintf('the dispersion D (variance/mean) of the Trade-Result counts is %.2f, from %s',
                 $d->{value}, $from);
}

sub spec_steadiness_text {
  my ($st) = @_;
  my ($long, $short) = @{ $st->{checks} };
  my $text = sprintf('as clause 6.6.3: 1-hour windows sliding by 10 minutes within 2 %%, '
                     . '10-minute windows sliding by 1 minute within 20 %% of the %s. For '
                     . 'scale: %s, so a steady run\'s 1-hour windows vary by %s and its '
                     . '10-minute windows by %s (one standard deviation) at this throughput',
                     $st->{reference}, dispersion_text($st->{dispersion}), fmt_pct($long->{sd}),
                     fmt_pct($short->{sd}));
  $text .= '; the spec\'s +-2 % is less than 3 of those, so a steady run at this throughput '
           . 'can fail it by chance' if $STEADY_LONG_TOL < 3 * $long->{sd};
  return "$text.";
}

sub scaled_steadiness_text {
  my ($st, $mi_len) = @_;
  my $checks = $st->{checks};
  my $text = sprintf('scaled for a short run: the MI (%s) is shorter than the 2 hours of clause '
                     . '6.6.1, so the windows and slides are scaled by MI/7200 = %.4f (no window '
                     . 'shorter than %d s): ', fmt_s($mi_len), $st->{scale}, $STEADY_MIN_WINDOW_S);
  $text .= join('; ', map {
    sprintf("%s windows (the spec's %s) sliding %s, %s", fmt_s($_->{window_s}), $_->{label},
            fmt_s($_->{slide_s}),
            $_->{skipped} ? "not checked: $_->{skipped}" : 'within +-' . fmt_pct($_->{tolerance}))
  } @$checks) . '.';
  return $text unless defined $st->{z};
  my $d = $st->{dispersion};
  $text .= sprintf(' Each tolerance is z sqrt(D / E) for a window expecting E Trade-Results, '
                   . 'where %s, and z = %.2f, so that a steady run fails by chance at most %s of '
                   . 'the time over all its %d windows (Bonferroni; %s).',
                   dispersion_text($d), $st->{z}, fmt_pct($st->{false_alarm}),
                   $st->{windows_total},
                   $d->{dof} ? sprintf("Student's t with %.1f degrees of freedom, as D is "
                                       . 'estimated', $d->{dof})
                             : 'normal quantile');
  my @sees;
  for my $c (grep { !$_->{skipped} } @$checks) {
    my $w = fmt_s($c->{window_s});
    push @sees, $c->{detects} < 1
      ? sprintf('a drop of %s or more lasting a whole %s window (caught at least 97 %% of the '
                . 'time)', fmt_pct($c->{detects}), $w)
      : $c->{tolerance} < 1 ? "only a stop (no Trade-Result) lasting a whole $w window"
      : "no drop at all in a $w window (its tolerance is over 100 %)";
  }
  $text .= ' What this run can detect: ' . join('; ', @sees) . '.';
  $text .= ' A shallower or shorter change passes.'
    if grep { !$_->{skipped} && $_->{tolerance} < 1 } @$checks;
  return $text;
}

# Trade-Results (by completion time, sorted) in windows [a, a + w) from the MI start, sliding
# by $sl seconds while they fit in the MI: [[a in us, count], ...]. Two indices walk the list.
sub window_counts {
  my ($ends, $t0, $t1, $w, $sl) = @_;
  my ($lo, $hi) = (0, 0);
  my $wus = $w * $US;
  my @out;
  for (my $k = 0; ; $k++) {
    my $at = $t0 + $k * $sl * $US;
    last if $at + $wus > $t1 + 1;
    $lo++ while $lo < @$ends && $ends->[$lo] < $at;
    $hi = $lo if $hi < $lo;
    $hi++ while $hi < @$ends && $ends->[$hi] < $at + $wus;
    push @out, [$at, $hi - $lo];
  }
  return \@out;
}

# The dispersion of the Trade-Result counts in whole buckets of the MI (see steadiness):
# { bucket_s, buckets, estimate (undef with fewer than 3 buckets or none completed),
#   value = max(1, estimate) }.
sub dispersion {
  my ($ends, $t0, $t1) = @_;
  my $bus = $STEADY_DISPERSION_BUCKET_S * $US;
  my $n = floor(($t1 - $t0) / $bus + 1e-9);
  my @c = (0) x max(0, $n);
  for my $e (@$ends) {
    my $i = floor(($e - $t0) / $bus);
    $c[$i]++ if $i >= 0 && $i < $n;
  }
  my $mean = $n > 0 ? sum0(@c) / $n : 0;
  my $d = { bucket_s => $STEADY_DISPERSION_BUCKET_S, buckets => max(0, $n), estimate => undef,
            value => 1 };
  return $d unless $n >= 3 && $mean > 0;
  my $ss = sum0(map { ($c[$_ + 1] - $c[$_]) ** 2 } 0 .. $n - 2);
  $d->{estimate} = $ss / (2 * ($n - 1)) / $mean;
  $d->{dof} = 2 * ($n - 1) ** 2 / (3 * $n - 4);
  $d->{value}    = max(1, $d->{estimate});
  return $d;
}

sub fmt_s {
  my ($s) = @_;
  return 'unknown' unless defined $s;
  return sprintf('%.0f s', $s) if abs($s - int($s)) < 0.05 || $s >= 100;
  return sprintf('%.1f s', $s);
}

sub fmt_pct {
  my ($x) = @_;
  my $p = 100 * $x;
  return sprintf('%.0f %%', $p) if abs($p - int($p + 0.5)) < 0.05;
  return sprintf('%.1f %%', $p);
}

# --- Data-Maintenance (clause 6.3.3) ------------------------------------------

# Every DM that starts inside the MI is checked (including one that runs past the MI's end):
# consecutive starts 58..62 s apart, the first no later than 62 s after the MI start and the
# last no earlier than 62 s before its end, and each done within 55 s.
sub data_maintenance {
  my ($r) = @_;
  my $dm = { checked => 0, gaps => [], too_slow => [], count_in_mi => 0 };
  $r->{data_maintenance} = $dm;
  return unless mi_ok($r);
  my ($t0, $t1) = ($r->{mi}{start_us}, $r->{mi}{end_us});
  my @rows = grep { $_->[0] >= $t0 && $_->[0] <= $t1 } @{ $r->{_dm_rows} };
  $dm->{count_in_mi} = scalar @rows;
  $dm->{checked}     = 1;
  my $mi_len = $r->{mi}{seconds};
  my @bad_gaps;
  if (@rows) {
    my $head = ($rows[0][0] - $t0) / $US;
    push @bad_gaps, sprintf('the first starts %s after the MI start', fmt_s($head))
      if $head > $DM_GAP_MAX_S;
    for my $i (1 .. $#rows) {
      my $gap = ($rows[$i][0] - $rows[$i - 1][0]) / $US;
      push @{ $dm->{gaps} }, $gap;
      next if $gap >= $DM_GAP_MIN_S && $gap <= $DM_GAP_MAX_S;
      push @bad_gaps, sprintf('%s between the ones at MI+%s and MI+%s', fmt_s($gap),
                              fmt_s(($rows[$i - 1][0] - $t0) / $US),
                              fmt_s(($rows[$i][0] - $t0) / $US));
    }
    my $tail = ($t1 - $rows[-1][0]) / $US;
    push @bad_gaps, sprintf('the last starts %s before the MI end', fmt_s($tail))
      if $tail > $DM_GAP_MAX_S;
  }
  for my $row (@rows) {
    my $s = $row->[1] / $US;
    push @{ $dm->{too_slow} }, sprintf('MI+%s took %.1f s', fmt_s(($row->[0] - $t0) / $US), $s)
      if $s > $DM_MAX_S;
  }
  $dm->{max_s} = @rows ? max(map { $_->[1] } @rows) / $US : undef;
  if (@{ $dm->{gaps} }) {
    $dm->{min_gap_s} = min @{ $dm->{gaps} };
    $dm->{max_gap_s} = max @{ $dm->{gaps} };
  }
  if (@rows < 2) {
    my $text = sprintf('%d Data-Maintenance transaction%s started in the MI of %s; the spec '
                       . 'wants one every 60 s', scalar @rows, @rows == 1 ? '' : 's',
                       fmt_s($mi_len));
    if ($mi_len >= 120) {
      add_reason($r, 'Data-Maintenance', '6.3.3', $text);
    } else {
      $dm->{not_judged} = "$text; not judged: the MI is shorter than 120 s";
      add_note($r, 'Data-Maintenance', "$text (not judged: the MI is shorter than 120 s)");
    }
  }
  if (@bad_gaps) {
    add_reason($r, 'Data-Maintenance', '6.3.3',
               'Data-Maintenance must run every 60 s, 58-62 s apart: ' . join('; ', @bad_gaps));
  }
  if (@{ $dm->{too_slow} }) {
    add_reason($r, 'Data-Maintenance', '6.3.3',
               "each Data-Maintenance must finish within $DM_MAX_S s: "
               . join('; ', @{ $dm->{too_slow} }));
  }
}

# --- Trade-Order roll-backs ---------------------------------------------------------------

# A clause's range (percent) widened for an MI shorter than the spec's 2 hours: its middle +-
# max(its half-width, 3 binomial standard deviations of a share at count $n), kept within
# 0-100 %. The mix, the input variants and the roll-backs share this rule. Returns the widened
# (lo, hi) and the 3 standard deviations, in percent.
sub widened_range {
  my ($lo, $hi, $n) = @_;
  my $p        = ($lo + $hi) / 200;
  my $three_sd = 300 * sqrt($p * (1 - $p) / $n);
  my $w        = max(($hi - $lo) / 2, $three_sd);
  return (max(0, 100 * $p - $w), min(100, 100 * $p + $w), $three_sd);
}

# The CE asks for a roll-back with probability 1/101; clause 6.4.1 wants the share
# of roll-backs among the valid Trade-Orders of the MI within 0.94-1.04 %. An MI of 2 hours or
# more is judged by that range as written. A shorter MI widens it as the mix ranges are widened
# (mix_and_response_checks): to its middle +- max(the spec's half-width, 3 binomial standard
# deviations of the share at this count), since a short run's few Trade-Orders scatter the
# share further than the range by chance alone.
sub rollback_check {
  my ($r) = @_;
  my $t  = $r->{transactions}{TO};
  my $n  = $t->{count};
  my $k  = $t->{rollbacks};
  my ($lo, $hi) = @TO_ROLLBACK_RANGE;
  my $rb = { expected_pct => 100 * $TO_ROLLBACK_P, count => $k, trade_orders => $n,
             spec_range_pct => [$lo, $hi] };
  $r->{trade_order_rollbacks} = $rb;
  unless ($n) {
    $rb->{skipped} = 'no valid Trade-Order in the MI';
    return;
  }
  my $scaled = $r->{mi}{seconds} < $MI_MIN_S;
  $rb->{scaled} = $scaled ? 1 : 0;
  $rb->{pct}    = 100 * $k / $n;
  my $spec = sprintf('%.3f-%.3f %%', $lo, $hi);
  if ($scaled) {
    my ($middle, $half) = (($lo + $hi) / 2, ($hi - $lo) / 2);
    ($lo, $hi, my $three_sd) = widened_range($lo, $hi, $n);
    $rb->{band_text} = sprintf('%.3f-%.3f %% (scaled for a short run: the MI (%s) is shorter '
                               . 'than the 2 hours of clause 6.6.1, so clause 6.4.1\'s %s is '
                               . 'widened to its middle %.3f %% +- max(its half-width %.3f %%, 3 '
                               . 'binomial standard deviations = %.3f %% at %d Trade-Orders))',
                               $lo, $hi, fmt_s($r->{mi}{seconds}), $spec, $middle, $half,
                               $three_sd, $n);
  } else {
    $rb->{band_text} = "$spec (clause 6.4.1, as written)";
  }
  $rb->{band_pct} = [$lo, $hi];
  unless ($rb->{pct} >= $lo - 1e-9 && $rb->{pct} <= $hi + 1e-9) {
    add_reason($r, 'Trade-Order roll-backs', '6.4.1',
               sprintf('%d of %d Trade-Orders rolled back (%.3f %%), outside %s', $k, $n,
                       $rb->{pct}, $rb->{band_text}));
  }
}

# --- errors and invalid transactions ------------------------------------------------------

sub error_checks {
  my ($r) = @_;
  my $T = $r->{transactions};
  my (%by_outcome, @invalid, @outside);
  for my $code (@ALL_CODES) {
    my $t = $T->{$code};
    for my $o (@ERROR_OUTCOMES) {
      my $n = $t->{error_outcomes}{$o};
      push @{ $by_outcome{$o} }, "$code $n" if $n;
      my $out = $t->{outcomes_outside_mi}{$o};
      push @outside, "$code $o $out" if $out && $code ne 'TC';
    }
    push @invalid, "$code $t->{invalid}" if $t->{invalid};
  }
  if (%by_outcome) {
    my $total = 0;
    my @parts;
    for my $o (@ERROR_OUTCOMES) {
      next unless $by_outcome{$o};
      my $n = sum0(map { (split / /)[1] } @{ $by_outcome{$o} });
      $total += $n;
      push @parts, "$o $n (" . join(', ', @{ $by_outcome{$o} }) . ')';
    }
    add_reason($r, 'errors', '3.2.1.8',
               "$total transaction" . ($total == 1 ? '' : 's') . ' failed with an error in the '
               . 'MI (errors are not roll-backs): ' . join('; ', @parts));
  }
  if (@invalid) {
    add_reason($r, 'invalid transactions', '3.2.1.8',
               'transactions ended with a negative (invalid) spec status in the MI, which '
               . 'invalidates the run: ' . join(', ', @invalid));
  }
  if (@outside) {
    add_note($r, 'errors outside the MI',
             'errors outside the MI (ramp-up or ramp-down; not judged): ' . join(', ', @outside));
  }
}

# --- mix ranges and response-time limits ---------------------------------------------------

sub mix_and_response_checks {
  my ($r) = @_;
  return unless mi_ok($r);
  my $T = $r->{transactions};
  unless ($r->{mix_total}) {
    add_reason($r, 'mix', '6.3.1', 'no valid transaction of the mix in the MI');
    return;
  }
  # The deck gives the exact mix only per 890 draws of each user, so a short run's mix drifts
  # by chance further than the spec's ranges (about +-0.5 % of each share) allow. As for
  # steadiness: an MI shorter than the spec's 2 hours widens each range to the target +-
  # max(the spec's half-width, 3 binomial standard deviations of the share at this count),
  # and says so; a 2-hour MI is judged by the ranges as written.
  my $n      = $r->{mix_total};
  my $scaled = $r->{mi}{seconds} < $MI_MIN_S;
  if ($scaled) {
    add_note($r, 'mix', sprintf('scaled for a short run: the MI (%s) is shorter than the 2 hours '
                                . 'of clause 6.6.1, so each mix range is widened to its target '
                                . '+- max(the spec\'s half-width, 3 binomial standard '
                                . 'deviations at %d transactions)', fmt_s($r->{mi}{seconds}), $n));
  }
  for my $code (@MIX_CODES) {
    my $t = $T->{$code};
    my ($lo, $hi) = @{ $MIX_RANGE{$code} };
    ($lo, $hi) = widened_range($lo, $hi, $n) if $scaled;
    $t->{mix_range_applied} = [ sprintf('%.3f', $lo) + 0, sprintf('%.3f', $hi) + 0 ];
    my $m = $t->{mix_pct};
    if ($m < $lo || $m > $hi) {
      $t->{mix_ok} = 0;
      add_reason($r, 'mix', '6.3.1',
                 sprintf('%s is %.3f %% of the mix (%d of %d), outside the %s %.3f-%.3f %%',
                         $NAME{$code}, $m, $t->{count}, $n,
                         $scaled ? 'range (scaled for a short run)' : 'required', $lo, $hi));
    } else {
      $t->{mix_ok} = 1;
    }
    next unless $t->{count};
    my $lim = $RT_LIMIT{$code};
    my @bad;
    my ($p90, $avg) = map { $t->{"response_time_${_}_ms"} / 1000 } qw(p90 avg);
    push @bad, sprintf('90th percentile %.3f s', $p90) if $p90 > $lim;
    push @bad, sprintf('average %.3f s', $avg)         if $avg > $lim;
    $t->{response_time_ok} = @bad ? 0 : 1;
    if (@bad) {
      add_reason($r, 'response time', '6.5.1',
                 sprintf('%s: %s over the %d s limit', $NAME{$code}, join(' and ', @bad), $lim));
    }
  }
}

# --- input variants (clause 6.4.1) -----------------------------------------------

# The share of each input variant among its type's valid transactions in the MI (the rows the
# mix counts) whose row logged its inputs (mix log v2; v1 rows have none and are left out).
# As for the mix, an MI shorter than the spec's 2 hours widens each range to its target +-
# max(the spec's half-width, 3 binomial standard deviations of the share at the type's count),
# and says so; a 2-hour MI is judged by the ranges as written.
sub input_variants {
  my ($r, $store) = @_;
  my $iv = { variants => [], scaled => 0 };
  $r->{input_variants} = $iv;
  unless (mi_ok($r)) {
    $iv->{skipped} = 'no measurement interval';
    return;
  }
  my ($t0, $t1) = ($r->{mi}{start_us}, $r->{mi}{end_us});
  my (@codes, %count);
  for my $code (map { $_->[0] } @INPUT_VARIANTS) {
    next if $count{$code};
    push @codes, $code;
    my $bk = $store->{$code};
    my ($S, $R, $O) = @$bk[B_START, B_RESP, B_OUTCOME];
    my @vi = unpack('N*', $bk->[B_INPUTS]);
    my @per = (0) x @{ $bk->[B_VARIANTS] };    # valid rows in the MI per distinct inputs
    for my $i (0 .. $#$S) {
      my $s = $S->[$i];
      $per[ $vi[$i] ]++
        if $s >= $t0 && $s + $R->[$i] <= $t1 && substr($O, $i, 1) <= $LAST_VALID;
    }
    my %tokens;
    for my $k (1 .. $#per) {
      $tokens{$_} += $per[$k] for split / /, $bk->[B_VARIANTS][$k];
    }
    $count{$code} = { logged => sum0(@per[1 .. $#per]), unlogged => $per[0],
                      tokens => \%tokens };
  }
  my @unlogged = map { "$_ $count{$_}{unlogged}" } grep { $count{$_}{unlogged} } @codes;
  unless (grep { $count{$_}{logged} } @codes) {
    $iv->{skipped} = @unlogged
      ? 'the mix logs do not log the inputs (mix log v1)'
      : 'no valid transaction of these types in the MI';
    add_note($r, 'input variants', "not judged: $iv->{skipped}");
    return;
  }
  add_note($r, 'input variants',
           'rows of mix logs v1 carry no inputs and are left out of the input variants: '
           . join(', ', @unlogged)) if @unlogged;
  my $scaled = $r->{mi}{seconds} < $MI_MIN_S;
  $iv->{scaled} = $scaled ? 1 : 0;
  $iv->{rule} = $scaled
    ? sprintf('scaled for a short run: the MI (%s) is shorter than the 2 hours of clause 6.6.1, '
              . 'so each range is widened to its target +- max(the spec\'s half-width, 3 '
              . 'binomial standard deviations of the share at its type\'s count)',
              fmt_s($r->{mi}{seconds}))
    : 'the ranges of clause 6.4.1 as written';
  add_note($r, 'input variants', $iv->{rule}) if $scaled;
  for my $v (@INPUT_VARIANTS) {
    my ($code, $token, $label, $lo, $hi) = @$v;
    my $n = $count{$code}{logged};
    my $k = $count{$code}{tokens}{$token} // 0;
    my $e = { code => $code, name => $NAME{$code}, token => $token, variant => $label,
              count => $k, of => $n, range => [$lo, $hi] };
    push @{ $iv->{variants} }, $e;
    unless ($n) {
      $e->{ok} = undef;
      next;
    }
    ($lo, $hi) = widened_range($lo, $hi, $n) if $scaled;
    $e->{range_applied} = [ sprintf('%.3f', $lo) + 0, sprintf('%.3f', $hi) + 0 ];
    $e->{pct} = sprintf('%.4f', 100 * $k / $n) + 0;
    $e->{ok} = $e->{pct} >= $lo && $e->{pct} <= $hi ? 1 : 0;
    next if $e->{ok};
    add_reason($r, 'input variants', '6.4.1',
               sprintf('%s %s is %.3f %% of its valid transactions in the MI (%d of %d), '
                       . 'outside the %s %.3f-%.3f %%', $NAME{$code}, $label, $e->{pct}, $k, $n,
                       $scaled ? 'range (scaled for a short run)' : 'required', $lo, $hi));
  }
}

# --- compliance (not part of the verdict) -------------------------------------------------

sub compliance {
  my ($r) = @_;
  my $s = $r->{settings};
  my @why;
  if (mi_ok($r) && $r->{mi}{seconds} < $MI_MIN_S) {
    push @why, sprintf('the measurement interval is %s, shorter than the 2 hours of clause '
                       . '6.6.1', fmt_s($r->{mi}{seconds}));
  }
  if (!is_number($s->{customers})) {
    push @why, 'the number of customers is unknown (clause 2.6.1.2 wants at least 5000)';
  } elsif ($s->{customers} < $MIN_CUSTOMERS) {
    push @why, "customers = $s->{customers}, fewer than the 5000 of clause 2.6.1.2";
  }
  if (!is_number($s->{initial_trade_days})) {
    push @why, 'initial_trade_days is unknown (clause 2.6.1.5 wants 300)';
  } elsif ($s->{initial_trade_days} < $INITIAL_TRADE_DAYS) {
    push @why, "initial_trade_days = $s->{initial_trade_days}, fewer than the 300 of clause "
               . '2.6.1.5';
  }
  if (!is_number($s->{scale_factor})) {
    push @why, 'scale_factor is unknown (clause 2.6.1.4 wants 500)';
  } elsif ($s->{scale_factor} != $SCALE_FACTOR) {
    push @why, "scale_factor = $s->{scale_factor}, not the 500 of clause 2.6.1.4";
  }
  # Clause 5.8.2: the run-time generators seed from the time of day; a fixed
  # seed replays a run for engineering. Runs from before seed_source was written say nothing.
  if (($s->{seed_source} // '') eq 'fixed') {
    push @why, 'fixed seed (--seed ' . ($s->{seed} // '?') . '): clause 5.8.2 wants the '
               . 'run-time generators seeded from the time of day';
  }
  $r->{compliance} = { compliant => (@why ? 0 : 1), reasons => \@why,
                       statement => $NOT_COMPARABLE };
}

# --- the metric counted in the database --------------------------------------------------

# How far the database's count of trades completed in the MI may be from the driver's count of
# valid Trade-Results (our rule: the two count the same commits, and differ only by the few
# Trade-Results in flight at the MI's edges, when the database's clock stamps T_DTS).
our $DB_COUNT_TOLERANCE = 0.005;

# A driver-independent check of the metric (clause 6.6.8 counts valid Trade-Results completed
# in the MI): controller/db-snapshot reads after the run the T_DTS of the CMPT trade history
# row of every trade the run completed, and how many trades are left submitted (SBMT) or
# pending (PNDG). A count in the database more than 0.5 % away from the mix logs' makes the
# run INVALID: Trade-Results the driver counted that the database does not hold, or the other
# way round.
sub database_trade_count {
  my ($r) = @_;
  my $x = { checked => 0 };
  $r->{db_trade_count} = $x;
  my ($open) = snapshot($r, 'after', 'open-trades');
  if ($open) {
    $x->{open}{ $_->{status} } = $_->{trades} for @{ $open->{rows} };
    $x->{open}{$_} //= 0 for qw(SBMT PNDG);
  }
  my $path = "$r->{results_dir}/db/after/completed-trades.csv";
  unless (-e $path) {
    $x->{skipped} = 'db/after/completed-trades.csv is missing';
    add_note($r, 'metric in the database', "not checked: $x->{skipped}");
    return;
  }
  my $driver = $r->{trtps}{trade_results_in_mi};
  unless (mi_ok($r) && defined $driver) {
    $x->{skipped} = 'no measurement interval or no Trade-Result count';
    return;
  }
  # One line a completed trade (a long run has hundreds of thousands): read as a stream, and a
  # bad line is an input problem naming its file and line, not a silent skip.
  my ($t0, $t1) = ($r->{mi}{start_us}, $r->{mi}{end_us});
  my $in = 0;
  my $file = 'db/after/completed-trades.csv';
  if (open my $fh, '<', $path) {
    my $head = <$fh>;
    unless (defined $head) {    # psql writes nothing when the query fails
      $x->{skipped} = "$file is empty (the query failed: see db/snapshot.err)";
      add_note($r, 'metric in the database', "not checked: $x->{skipped}");
      return;
    }
    $head =~ s/\r?\n\z//;
    if ($head ne 'trade_id,completed_us') {
      $r->{_problem}->({ file => $file, line => 1, kind => 'other',
                         reason => 'the header is not trade_id,completed_us', text => $head });
    }
    while (my $line = <$fh>) {
      if ($line =~ /\A\d+,(\d{1,19})\r?\n?\z/) {
        $in++ if $1 >= $t0 && $1 <= $t1;
      } else {
        $line =~ s/\r?\n\z//;
        $r->{_problem}->({ file => $file, line => $., kind => 'other',
                           reason => 'not trade_id,completed_us (two whole numbers)',
                           text => $line });
      }
    }
    close $fh;
  } else {
    $x->{skipped} = "$file: $!";
    add_note($r, 'metric in the database', "not checked: $x->{skipped}");
    return;
  }
  $x->{checked}    = 1;
  $x->{database}   = $in;
  $x->{driver}     = $driver;
  $x->{difference} = $in - $driver;
  $x->{relative}   = $driver ? ($in - $driver) / $driver : ($in ? 1 : 0);
  $x->{tolerance}  = $DB_COUNT_TOLERANCE;
  if (abs($x->{relative}) > $DB_COUNT_TOLERANCE) {
    add_reason($r, 'metric in the database', '6.6.8',
               sprintf('the database holds %d trades completed in the MI (T_DTS of their CMPT '
                       . "trade history rows), the market emulator's mix logs %d valid "
                       . 'Trade-Results: they differ by %+d (%+.2f %%), more than %s',
                       $in, $driver, $x->{difference}, 100 * $x->{relative},
                       fmt_pct($DB_COUNT_TOLERANCE)));
  }
}

# --- database (pg_stat_* snapshots before and after the run) --------------------------------

sub snapshot {
  my ($r, $which, $name) = @_;
  my $path = "$r->{results_dir}/db/$which/$name.csv";
  return (undef, "db/$which/$name.csv is missing") unless -e $path;
  my ($csv, $err) = read_csv($path);
  if ($err) {
    $err =~ s/\A\Q$r->{results_dir}\E\///;
    $r->{_problem}->({ file => "db/$which/$name.csv", line => 0, kind => 'other',
                       reason => $err, text => '' });
    return (undef, $err);
  }
  return ($csv);
}

sub num0 { is_number($_[0]) ? $_[0] : 0 }

sub database {
  my ($r) = @_;
  my $db = { available => 0 };
  $r->{database} = $db;
  my $name = $r->{settings}{db_name};

  my ($before, $eb) = snapshot($r, 'before', 'pg_stat_database');
  my ($after, $ea) = snapshot($r, 'after', 'pg_stat_database');
  if (!$before || !$after) {
    $db->{why} = $eb // $ea;
  } elsif (!defined $name) {
    $db->{why} = 'run.conf has no db_name, so the database row is unknown';
  } else {
    my ($rb) = grep { ($_->{datname} // '') eq $name } @{ $before->{rows} };
    my ($ra) = grep { ($_->{datname} // '') eq $name } @{ $after->{rows} };
    if (!$rb || !$ra) {
      $db->{why} = "no row for the database '$name' in pg_stat_database";
    } else {
      $db->{available} = 1;
      $db->{name} = $name;
      for my $k (qw(blks_read blks_hit xact_commit xact_rollback deadlocks temp_bytes
                    tup_returned tup_fetched tup_inserted tup_updated tup_deleted)) {
        next unless exists $ra->{$k};
        $db->{delta}{$k} = num0($ra->{$k}) - num0($rb->{$k});
      }
      my $d = $db->{delta};
      my $acc = ($d->{blks_hit} // 0) + ($d->{blks_read} // 0);
      $db->{hit_ratio_pct} = $acc ? 100 * ($d->{blks_hit} // 0) / $acc : undef;
    }
  }

  my ($bb) = snapshot($r, 'before', 'pg_stat_bgwriter');
  my ($ba) = snapshot($r, 'after', 'pg_stat_bgwriter');
  if ($bb && $ba && @{ $bb->{rows} } && @{ $ba->{rows} }) {
    my ($x, $y) = ($bb->{rows}[0], $ba->{rows}[0]);
    my @cols = grep { exists $y->{$_} } qw(buffers_checkpoint buffers_clean buffers_backend);
    if (@cols) {
      $db->{block_writes} = sum0(map { num0($y->{$_}) - num0($x->{$_}) } @cols);
      $db->{block_write_columns} = \@cols;
      if ($db->{available} && $db->{block_writes} > 0) {
        $db->{read_write_ratio} = $db->{delta}{blks_read} / $db->{block_writes};
      }
    }
  } else {
    $db->{bgwriter_why} = 'pg_stat_bgwriter snapshots are missing';
  }

  for my $kind (['tables', 'pg_statio_user_tables', 'heap_blks_read',
                 [qw(heap_blks_read heap_blks_hit idx_blks_read idx_blks_hit)]],
                ['indexes', 'pg_statio_user_indexes', 'idx_blks_read',
                 [qw(idx_blks_read idx_blks_hit)]]) {
    my ($label, $file, $key, $cols) = @$kind;
    my ($sb) = snapshot($r, 'before', $file);
    my ($sa) = snapshot($r, 'after', $file);
    next unless $sb && $sa;
    my $id = sub {
      my ($row) = @_;
      join '.', grep { defined && length } @$row{qw(schemaname relname)},
        ($label eq 'indexes' ? $row->{indexrelname} : ());
    };
    my %before = map { $id->($_) => $_ } @{ $sb->{rows} };
    my @list;
    for my $row (@{ $sa->{rows} }) {
      my $k = $id->($row);
      my $old = $before{$k} // {};
      push @list, { name => $k, map { $_ => num0($row->{$_}) - num0($old->{$_}) } @$cols };
    }
    @list = sort { $b->{$key} <=> $a->{$key} || $a->{name} cmp $b->{name} } @list;
    splice @list, 10 if @list > 10;
    $db->{"top_$label"} = \@list;
  }

  my $spath = "$r->{results_dir}/db/settings.csv";
  if (-e $spath) {
    my ($csv, $err) = read_csv($spath);
    if ($csv) {
      $db->{settings_not_default} = [
        map { { name => $_->{name}, setting => $_->{setting}, unit => $_->{unit} // '',
                source => $_->{source} // '' } }
        # 'client' and 'session' values are psql's own, not the server's configuration.
        grep { defined $_->{source} && $_->{source} !~ /\A(?:default|client|session)\z/ }
        @{ $csv->{rows} } ];
    } else {
      $r->{_problem}->({ file => 'db/settings.csv', line => 0, kind => 'other',
                         reason => $err =~ s/\A\Q$r->{results_dir}\E\///r, text => '' });
    }
  }
}

# --- profile (profile/<host>/, brokerbench run --profile) ------------------------------------

# $r->{profile} = { asked, hosts => [{ host, status (profile.txt's first line), svg, folded }] }.
sub profile {
  my ($r) = @_;
  my $p = { asked => ($r->{settings}{profile} // '') eq '1' ? 1 : 0, hosts => [] };
  $r->{profile} = $p;
  for my $dir (sort grep { -d } glob("$r->{results_dir}/profile/*")) {
    my ($host) = $dir =~ m{/profile/([^/]+)\z};
    my $h = { host => $host, status => 'the profiler left no profile.txt (it was stopped, or '
                                       . "died: see profile/$host/profile.log)" };
    if (open my $fh, '<', "$dir/profile.txt") {
      my $line = <$fh>;
      $h->{status} = $line =~ s/\s+\z//r if defined $line && $line =~ /\S/;
    }
    $h->{svg} = "profile/$host/flamegraph.svg" if -s "$dir/flamegraph.svg";
    $h->{folded} = "profile/$host/profile.folded" if -s "$dir/profile.folded";
    push @{ $p->{hosts} }, $h;
  }
}

# --- system (sys/<host>/sysstat.csv) ---------------------------------------------------------

my @SYS_COLS = qw(cpu_user_pct cpu_system_pct cpu_iowait_pct cpu_idle_pct disk_read_kb_s
                  disk_write_kb_s);
# Columns cpu-sampler added later, at the end: a file without them (an older kit's) is read
# without memory and network figures.
my @SYS_MORE = qw(mem_used_kb mem_cached_kb mem_free_kb net_rx_kb_s net_tx_kb_s);

sub system_stats {
  my ($r) = @_;
  my $sys = { hosts => [] };
  $r->{system} = $sys;
  my @paths = sort glob("$r->{results_dir}/sys/*/sysstat.csv");
  unless (@paths) {
    $sys->{why} = 'no sys/<host>/sysstat.csv';
    return;
  }
  for my $path (@paths) {
    my ($host) = $path =~ m{/sys/([^/]+)/sysstat\.csv\z};
    my $rel = "sys/$host/sysstat.csv";
    my ($csv, $err) = read_csv($path);
    if (!$csv) {
      $r->{_problem}->({ file => $rel, line => 0, kind => 'other',
                         reason => $err =~ s/\A\Q$r->{results_dir}\E\///r, text => '' });
      next;
    }
    my @missing = grep { my $c = $_; !grep { $_ eq $c } @{ $csv->{header} } } ('time_us', @SYS_COLS);
    if (@missing) {
      $r->{_problem}->({ file => $rel, line => 1, kind => 'other',
                         reason => 'missing columns: ' . join(', ', @missing), text => '' });
      next;
    }
    my %has = map { $_ => 1 } @{ $csv->{header} };
    my @more = (grep { !$has{$_} } @SYS_MORE) ? () : @SYS_MORE;
    my @cols = ('time_us', @SYS_COLS, @more);
    my @samples;
    my $line = 1;
    for my $row (@{ $csv->{rows} }) {
      $line++;
      my @bad = grep { !is_number($row->{$_}) } @cols;
      if (@bad) {
        $r->{_problem}->({ file => $rel, line => $line, kind => 'other',
                           reason => "not a number in $bad[0]: '$row->{$bad[0]}'",
                           text => join(',', map { $row->{$_} } @{ $csv->{header} }) });
        next;
      }
      push @samples, [map { $row->{$_} + 0 } @cols];
    }
    my $h = { host => $host, samples => scalar @samples, memory_and_network => @more ? 1 : 0 };
    my @in = mi_ok($r)
      ? grep { $_->[0] >= $r->{mi}{start_us} && $_->[0] <= $r->{mi}{end_us} } @samples
      : ();
    $h->{samples_in_mi} = scalar @in;
    if (@in) {
      for my $i (1 .. $#cols) {
        $h->{avg}{ $cols[$i] } = mean([map { $_->[$i] } @in]);
      }
    }
    push @{ $sys->{hosts} }, $h;
    $r->{_series}{sys}{$host} = \@samples;
  }
  $sys->{columns} = [@SYS_COLS, @SYS_MORE];
}

# --- market emulator ---------------------------------------------------------------------------

sub market_emulator {
  my ($r, $store) = @_;
  my $mee = {};
  $r->{mee} = $mee;
  my $have = mi_ok($r);
  my $base = $r->{_series}{base_us};
  my $bw   = ($r->{_series}{bucket_s} // 60) * $US;
  for my $code (qw(TR MF)) {
    my $bk = $store->{$code};
    my ($S, $R, $W) = ($bk->[B_START], $bk->[B_RESP], $bk->[B_WAIT]);
    my @in;
    my %bucket;
    for my $i (0 .. $#$S) {
      push @in, $W->[$i]
        if $have && $S->[$i] >= $r->{mi}{start_us} && $S->[$i] + $R->[$i] <= $r->{mi}{end_us};
      push @{ $bucket{ int(($S->[$i] - $base) / $bw) } }, $W->[$i] if defined $base;
    }
    my $sum = summary(\@in);
    $mee->{wait}{$code} = { rows_in_mi => $sum->{n},
                            wait_avg_ms => (defined $sum->{mean} ? $sum->{mean} / 1000 : undef),
                            map { ("wait_${_}_ms" => defined $sum->{$_} ? $sum->{$_} / 1000 : undef) }
                            qw(p50 p90 max) };
    $r->{_series}{wait}{$code} = \%bucket;
  }
  end_of_run_trades($r, $mee);
}

# Orders pending in an old failed-trades.csv (before pending-trades.csv existed, the market
# emulator wrote its pending orders there at its stop, with these reasons), and their states.
my %OLD_PENDING_REASON = (
  'limit trigger armed (curve has not reached the limit)' => 'limit trigger armed',
  'awaiting completion (processing delay)'                => 'in its completion delay',
);

# What each market emulator host left (postprocess/README.md): failed-trades.csv
# (trade_id,code,reason), opened at its start, and pending-trades.csv (trade_id,code,state),
# written whole at its end. A host with the first and not the second never reached its end
# (killed): what was pending then, and the failures it would have found at its end, are
# unknown. An old failed-trades.csv holding pending reasons was written at a stop, which makes
# its pending orders known.
sub end_of_run_trades {
  my ($r, $mee) = @_;
  my (%failed, %pending, %hosts);
  my $failed_tr = 0;
  for my $path (glob("$r->{results_dir}/mee/*/failed-trades.csv"),
                glob("$r->{results_dir}/mee/*/pending-trades.csv")) {
    my ($host, $kind) = $path =~ m{/mee/([^/]+)/(failed|pending)-trades\.csv\z} or next;
    my $rel = File::Spec->abs2rel($path, $r->{results_dir});
    my $text = '';
    if (open my $fh, '<', $path) {
      local $/;
      $text = <$fh> // '';
    }
    my ($records, $err) = parse_csv($text);
    if ($err) {
      $r->{_problem}->({ file => $rel, line => 0, kind => 'other', reason => $err, text => '' });
      next;
    }
    $hosts{$host}{$kind} = 1;
    # A header row (trade_id,code,reason or trade_id,code,state) is optional.
    shift @$records if @$records && ($records->[0][2] // '') =~ /\A(?:reason|state)\z/;
    for my $rec (@$records) {
      my $why = $rec->[2] // '';
      $why = '(none given)' if $why eq '';
      my $old = $kind eq 'failed' ? $OLD_PENDING_REASON{$why} : undef;
      $hosts{$host}{pending} = 1 if $old;
      if ($kind eq 'pending' || $old) {
        $pending{ $old // $why }++;
      } else {
        $failed{$why}++;
        $failed_tr++ if ($rec->[1] // '') eq 'TR';
      }
    }
  }
  my @unknown = sort grep { !$hosts{$_}{pending} } keys %hosts;
  $mee->{failed_trades} = { files => scalar(grep { $hosts{$_}{failed} } keys %hosts),
                            total => sum0(values %failed), by_reason => \%failed,
                            trade_results => $failed_tr,
                            complete => @unknown ? 0 : 1 };
  $mee->{pending_trades} = { hosts => scalar(keys %hosts), known => @unknown ? 0 : 1,
                             hosts_unknown => \@unknown, total => sum0(values %pending),
                             by_state => \%pending };
}

# --- every request accounted for (Reconcile.pm) -----------------------------------------------

sub reconciliation {
  my ($r, $store) = @_;
  my ($rec, @mismatches) = reconcile($r, $store);
  $r->{reconciliation} = $rec;
  add_reason($r, 'reconciliation', 'MIXLOG.md', $_) for @mismatches;
  for my $side (grep { $rec->{$_}{status} eq 'not available' } qw(ce mee)) {
    add_note($r, 'reconciliation', "not checked for the $side side: $rec->{$side}{why}");
  }
}

# --- verdict ----------------------------------------------------------------------------------

sub verdict {
  my ($r) = @_;
  if ($r->{mix_problems}) {
    # First: every other figure rests on the logs having been read.
    unshift @{ $r->{reasons} },
      { rule => 'input problems', clause => 'MIXLOG.md',
        text => sprintf('%d input problem%s in the mix logs (see "Input problems")',
                        $r->{mix_problems}, $r->{mix_problems} == 1 ? '' : 's') };
  }
  my $n = scalar @{ $r->{reasons} };
  $r->{verdict} = {
    valid   => $n ? 0 : 1,
    text    => $n ? 'INVALID' : 'VALID',
    reasons => $r->{reasons},
    notes   => $r->{notes},
    headline => $n ? sprintf('Verdict: INVALID (%d reason%s, see report)', $n, $n == 1 ? '' : 's')
                   : 'Verdict: VALID',
  };
  $r->{trtps}{headline} //= 'TRTPS: n/a';
}

1;
