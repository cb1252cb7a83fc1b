package BrokerBench::Compare;
# Compares results directories: the first is the base, each other run is compared with it.
# Each run is read by Analysis.pm (the report's own analysis), and its measurement interval is
# cut into intervals whose figures measure the run's own noise. Every change of a figure gets
# a verdict, "better", "worse" or "within noise" (or "not judged", saying why), by the rule
# in $RULE_TEXT; the database figures and the settings are set side by side without one.
# The result is plain data (compare.json); CompareReport.pm renders it and ComparePlots.pm
# draws the runs over each other.
#
# Why this rule (the report states it; this says why it is this one):
# - Per-interval figures ("batch means"), not a bootstrap of the rows. Rows that run at the same
#   time share the system's state (a checkpoint, autovacuum, a burst of triggered limit
#   orders), so they are not independent: resampling rows would take a run's slow minute for
#   chance spread over the run and call ordinary run-to-run noise "worse". Means over whole
#   intervals of 30 s or more are close to independent (a burst of limit orders lasts up to
#   about 15 s, see Throughput.pm's steadiness) and, by the central limit theorem, close to normal.
# - Welch's t interval over those means: no assumption that the two runs are equally noisy, exact
#   arithmetic, no resampling (so nothing random: the same inputs give the same verdicts).
# - The 90th percentile through the share of rows slower than the base's 90th percentile, not
#   through per-interval 90th percentiles: the nearest-rank percentile of a few rows is biased
#   by their number (of 10 exponential response times it averages 16 % under the true value),
#   so two runs at different throughputs would differ by that alone. A share is unbiased at any
#   count, and the percentile moves exactly when the share of rows beyond it moves away from
#   10 %.
# - Multiple comparisons: TRTPS, the metric, alone at 99 %. The other figures of a comparison,
#   some 40, as one family (Bonferroni): each at 1 - 5 %/K, so that two runs that differ only by
#   chance show any "better" or "worse" among them with at most 5 % probability. At 99 % each,
#   such a pair would show one false verdict every other comparison.
use strict;
use warnings;
use Exporter 'import';
use File::Basename qw(basename);
use List::Util qw(sum0 max);
use POSIX qw(ceil floor strftime);
use BrokerBench::Analysis qw(analyze);
use BrokerBench::Csv qw(read_csv);
use BrokerBench::Cpu qw(@CPU_GROUPS %CPU_GROUP_NAME);
use BrokerBench::Aggregates qw(code_index ERROR_SLOT);
use BrokerBench::Histogram qw(unpack_hist hist_count count_above);
use BrokerBench::Spec qw(@MIX_CODES %NAME $NOT_COMPARABLE);
use BrokerBench::Stats qw(welch);

our @EXPORT_OK = qw(load_run compare_runs interval_length $RULE_TEXT);

my $US = 1_000_000;

# The types judged: the mix and Data-Maintenance (Trade-Cleanup runs once, before the MI).
our @CODES = (@MIX_CODES, 'DM');
# A figure is judged only when each run has this many intervals with data.
our $MIN_INTERVALS = 5;
# A type's intervals are taken together in groups of consecutive ones that hold this many of
# its valid transactions on average: the mean, share or count of a few rows is too far from
# normal for Welch's interval at the family's level (of pairs of runs that differed only by
# chance, 8 % instead of 5 % showed a "better" or "worse", each on a rare type, with single
# 30 s intervals of 6 Market-Feeds).
our $MIN_ROWS = 10;
# TRTPS at 99 %; the other figures of a comparison share a family-wise 5 %.
our $PRIMARY_ALPHA = 0.01;
our $FAMILY_ALPHA  = 0.05;

my @HARNESS = qw(bh ce mee);

our $RULE_TEXT =
  'Each change is judged against the runs\' own noise. Each measurement interval (MI) is cut '
  . 'into whole intervals of 60 s (an MI of 10 minutes or more), 30 s (5 minutes or more) or '
  . '10 s (shorter); a transaction belongs to the interval in which it completed, as for the '
  . 'metric (clause 6.6.8). Per interval: the rate of each type\'s valid transactions (of '
  . 'Trade-Results: TRTPS), their average response time, the share of them slower than the '
  . 'base run\'s 90th percentile of the type (as its report gives it, within 0.1 %; the 90th '
  . 'percentile moves when this share moves away from 10 %), the rate of errors, and the harness\'s share of the database host\'s busy '
  . "CPU. A type's intervals are taken together in groups of consecutive ones that hold "
  . "$MIN_ROWS of its transactions or more on average (the figures of a few rows are too far "
  . 'from normal for the rule). For each figure, Welch\'s t interval for the difference of the two runs\' means over '
  . 'their intervals: the change is "better" or "worse" when the whole interval lies on one '
  . 'side of zero, else "within noise"; "not judged" when a run has fewer than '
  . "$MIN_INTERVALS intervals (or groups) with data. TRTPS, the metric, is judged at 99 %. The other K "
  . 'figures of a comparison are judged as one family (Bonferroni): each at 1 - 5 %/K, so that '
  . 'two runs that differ only by chance show any "better" or "worse" among them with at most '
  . '5 % probability. Errors are judged only when a run has some. The noise is each run\'s own '
  . 'variation from interval to interval: what differs between runs and stays the same within '
  . 'each (a colder cache, another database, another host) is not in it; repeat a run to see '
  . 'that.';

# The interval length for an MI of $seconds (see $RULE_TEXT).
sub interval_length {
  my ($seconds) = @_;
  return $seconds >= 600 ? 60 : $seconds >= 300 ? 30 : 10;
}

# --- one run -----------------------------------------------------------------------------------

# load_run($dir, thresholds => {code => us}) -> ($run) or (undef, $error naming the directory
# and what is missing). thresholds: the base run's 90th percentiles (the base itself: none
# given, its own are taken). $run = { dir, r (the analysis, rows dropped), intervals }.
sub load_run {
  my ($dir, %o) = @_;
  return (undef, "'$dir' is not a directory") unless -d $dir;
  my ($r, $err) = analyze(dir => $dir, keep_aggregates => 1);
  unless ($r) {
    return (undef, "'$dir' is not a results directory: it has no run.conf and no mix log "
                   . '(mix-*.csv) below it') unless -e "$dir/run.conf";
    return (undef, $err);
  }
  my %roles;
  $roles{ $_->{role} }++ for grep { !$_->{refused} } @{ $r->{inputs}{files} };
  return (undef, "'$dir' has no customer emulator mix log (ce/<host>/mix-ce-*.csv), so no "
                 . 'measurement interval') unless $roles{ce};
  return (undef, "'$dir' has no market emulator mix log (mee/<host>/mix-mee*.csv), so no "
                 . 'Trade-Results') unless $roles{mee};
  unless (defined $r->{mi}{start_us} && !$r->{mi}{empty}) {
    my ($why) = map { $_->{text} } grep { $_->{rule} eq 'measurement interval' }
                @{ $r->{reasons} };
    return (undef, "'$dir' has no measurement interval" . ($why ? ": $why" : ''));
  }
  my $thresholds = $o{thresholds} // {
    map { $_ => sprintf('%.0f', rt_s($r->{transactions}{$_}, 'p90') * $US) }
    grep { defined rt_s($r->{transactions}{$_}, 'p90') } @CODES };
  my $run = { dir => $r->{results_dir}, r => $r, thresholds => $thresholds,
              intervals => interval_figures($r, $thresholds) };
  # Only what the comparison and its plots use stays: the per-tick histograms are a run's
  # biggest part.
  delete $r->{_agg};
  delete @{ $r->{_series} }{qw(rt wait done sys)};
  return ($run);
}

# Per-interval figures of a run (see $RULE_TEXT): { length_s, count, types => { code => {
# group, rate, mean_s, over, errors } }, harness_pct }. A type's intervals are taken in groups
# of `group` (see $MIN_ROWS); rate and errors have one value per group, mean_s and over one per
# group with valid rows of the type.
sub interval_figures {
  my ($r, $thresholds) = @_;
  my ($t0, $t1) = @{ $r->{mi} }{qw(start_us end_us)};
  my $len = interval_length($r->{mi}{seconds});
  my $lus = $len * $US;
  my $n = floor(($t1 - $t0) / $lus + 1e-9);
  my $iv = { length_s => $len, count => $n, types => {} };
  # The reader's ticks (Aggregates.pm) divide the intervals and start a whole number of ticks
  # before the MI; their "in the MI" histograms, sums and errors hold the rows of the MI by
  # completion time. Without ticks (no time range) there are no intervals.
  my $g = $r->{_agg};
  my ($tick, $base) = @{ $g->{plan} }{qw(tick_us base_us)};
  $n = 0 unless $tick;
  my $m  = $n ? $lus / $tick : 0;
  my $k0 = $n ? ($t0 - $base) / $tick : 0;
  for my $code (@CODES) {
    my $ci = code_index($code);
    my $thr = $thresholds->{$code};
    my (@cnt, @sum, @over, @err);
    for my $k (0 .. $n - 1) {
      ($cnt[$k], $sum[$k], $over[$k], $err[$k]) = (0, 0, 0, 0);
      for my $tk ($k0 + $k * $m .. $k0 + ($k + 1) * $m - 1) {
        my $packed = ($g->{packed}[$tk] // [])->[2 * $ci + 1];
        if (defined $packed) {
          my $h = unpack_hist($packed);
          $cnt[$k]  += hist_count($h);
          $over[$k] += count_above($h, $thr) if defined $thr;
        }
        $sum[$k] += ($g->{sum}[$tk] // [])->[2 * $ci + 1] // 0;
        $err[$k] += ($g->{sum}[$tk] // [])->[ERROR_SLOT + $ci] // 0;
      }
    }
    my $total = sum0(@cnt);
    my $mg = $total ? max(1, ceil($MIN_ROWS * $n / $total - 1e-9)) : 1;
    my ($c, $u, $o, $e) = map { grouped($_, $mg) } \@cnt, \@sum, \@over, \@err;
    my @with = grep { $c->[$_] } 0 .. $#$c;
    $iv->{types}{$code} = {
      group  => $mg,
      rate   => [map { $_ / ($mg * $len) } @$c],
      mean_s => [map { $u->[$_] / $c->[$_] / $US } @with],
      over   => defined $thr ? [map { $o->[$_] / $c->[$_] } @with] : undef,
      errors => [map { $_ / ($mg * $len) } @$e],
    };
  }
  $iv->{harness_pct} = harness_intervals($r, $t0, $n, $lus);
  return $iv;
}

# Sums of $m consecutive values; a last group of fewer is left out.
sub grouped {
  my ($values, $m) = @_;
  return [map { sum0(@$values[$_ * $m .. $_ * $m + $m - 1]) } 0 .. int(@$values / $m) - 1];
}

# The harness's share (%) of the database host's busy CPU per interval, from the per-second
# samples Cpu.pm keeps for its plot ([time_us, cores of each group, the rest]); undef without
# a database host.
sub harness_intervals {
  my ($r, $t0, $n, $lus) = @_;
  my $host = $r->{cpu}{database_host};
  my $series = defined $host ? $r->{_series}{proc_cpu}{$host} : undef;
  return undef unless $series;
  my %col = map { $CPU_GROUPS[$_] => $_ + 1 } 0 .. $#CPU_GROUPS;
  my (@harness, @busy);
  for my $row (@$series) {
    # A sample covers the second before its time: that second must lie in the interval.
    my $from = $row->[0] - $US;
    next if $from < $t0;
    my $k = int(($from - $t0) / $lus);
    next if $k >= $n || int(($row->[0] - 1 - $t0) / $lus) != $k;
    $harness[$k] += sum0(map { $row->[ $col{$_} ] } @HARNESS);
    $busy[$k]    += sum0(@$row[1 .. $#$row]);
  }
  return [map { 100 * $harness[$_] / $busy[$_] } grep { $busy[$_] } 0 .. $n - 1];
}

# --- the comparison ----------------------------------------------------------------------------

# compare_runs(\@runs) -> the comparison as plain data (compare.json). $runs->[0] is the base.
sub compare_runs {
  my ($runs) = @_;
  my @labels = labels($runs);
  $runs->[$_]{label} = $labels[$_] for 0 .. $#$runs;
  my $base = $runs->[0];
  return {
    format        => 'brokerbench compare v1',
    generated_utc => strftime('%Y-%m-%d %H:%M:%S UTC', gmtime),
    statement     => $NOT_COMPARABLE,
    base          => $base->{label},
    runs          => [map { run_summary($_) } @$runs],
    rule          => { text => $RULE_TEXT, primary_alpha => $PRIMARY_ALPHA,
                       family_alpha => $FAMILY_ALPHA, min_intervals => $MIN_INTERVALS },
    comparisons   => [map { compare_pair($base, $_) } @{$runs}[1 .. $#$runs]],
    database      => database_rows($runs),
    settings      => settings_rows($runs),
  };
}

# Short names for the tables: each directory's own name (0007), or run1, run2, ... when two
# are alike or one is long.
sub labels {
  my ($runs) = @_;
  my @names = map { basename($_->{dir}) } @$runs;
  my %seen;
  $seen{$_}++ for @names;
  return @names unless grep { $seen{$_} > 1 || length $_ > 16 } @names;
  return map { "run$_" } 1 .. @$runs;
}

sub run_summary {
  my ($run) = @_;
  my $r = $run->{r};
  my $s = $r->{settings};
  my $iv = $run->{intervals};
  return { label => $run->{label}, dir => $run->{dir}, started_utc => $s->{started_utc},
           comment => $s->{comment}, kit_commit => $s->{kit_commit},
           verdict => $r->{verdict}{text}, reasons => scalar @{ $r->{verdict}{reasons} },
           trtps => $r->{trtps}{measured_tpse}, trtps_headline => $r->{trtps}{headline},
           mi_s => $r->{mi}{seconds}, interval_s => $iv->{length_s}, intervals => $iv->{count},
           problems => $r->{problems_total} };
}

# A type's response-time figure WHAT (avg, p90, ...) in seconds, from the analysis's
# milliseconds; undef when the type has none.
sub rt_s {
  my ($t, $what) = @_;
  my $ms = $t->{"response_time_${what}_ms"};
  return defined $ms ? $ms / 1000 : undef;
}

# Figures of one pair, before judging: [id, table, code, label, base value, value, base sample,
# sample, which way is better ('higher' or 'lower'), primary, note].
sub figures {
  my ($base, $run) = @_;
  my ($rb, $rr) = ($base->{r}, $run->{r});
  my ($ib, $ir) = ($base->{intervals}{types}, $run->{intervals}{types});
  my ($tb, $tr) = ($rb->{transactions}, $rr->{transactions});
  my @f;
  push @f, { id => 'trtps', table => 'throughput', code => 'TR', label => 'TRTPS',
             base => $rb->{trtps}{measured_tpse}, value => $rr->{trtps}{measured_tpse},
             samples => [$ib->{TR}{rate}, $ir->{TR}{rate}], better => 'higher', primary => 1,
             groups => [$ib->{TR}{group}, $ir->{TR}{group}] };
  for my $code (grep { $_ ne 'TR' && $_ ne 'DM' } @CODES) {
    push @f, { id => "rate/$code", table => 'throughput', code => $code, label => $NAME{$code},
               base => $tb->{$code}{count} / $rb->{mi}{seconds},
               value => $tr->{$code}{count} / $rr->{mi}{seconds},
               samples => [$ib->{$code}{rate}, $ir->{$code}{rate}], better => 'higher',
               groups => [$ib->{$code}{group}, $ir->{$code}{group}] };
  }
  for my $code (@CODES) {
    push @f, { id => "avg/$code", table => 'avg', code => $code, label => $NAME{$code},
               base => rt_s($tb->{$code}, 'avg'), value => rt_s($tr->{$code}, 'avg'),
               samples => [$ib->{$code}{mean_s}, $ir->{$code}{mean_s}], better => 'lower',
               groups => [$ib->{$code}{group}, $ir->{$code}{group}] };
  }
  for my $code (@CODES) {
    my $f = { id => "p90/$code", table => 'p90', code => $code, label => $NAME{$code},
              base => rt_s($tb->{$code}, 'p90'), value => rt_s($tr->{$code}, 'p90'),
              better => 'lower',
              groups => [$ib->{$code}{group}, $ir->{$code}{group}] };
    if (defined $base->{thresholds}{$code}) {
      $f->{samples} = [$ib->{$code}{over}, $ir->{$code}{over}];
      $f->{threshold_s} = $base->{thresholds}{$code} / $US;
    } else {
      $f->{why} = 'the base run has no valid transaction of this type in its MI';
    }
    push @f, $f;
  }
  for my $code (@CODES) {
    my ($eb, $er) = ($tb->{$code}{errors}, $tr->{$code}{errors});
    my $f = { id => "errors/$code", table => 'errors', code => $code, label => $NAME{$code},
              base_count => $eb, count => $er, base => $eb / $rb->{mi}{seconds},
              value => $er / $rr->{mi}{seconds},
              samples => [$ib->{$code}{errors}, $ir->{$code}{errors}], better => 'lower',
              groups => [$ib->{$code}{group}, $ir->{$code}{group}] };
    $f->{same} = 'no errors in either run' unless $eb || $er;
    push @f, $f;
  }
  my ($cb, $cr) = ($rb->{cpu}, $rr->{cpu});
  my $hf = { id => 'cpu/harness', table => 'cpu', code => 'harness',
             label => 'harness (Brokerage House + emulators)', base => $cb->{harness_share_pct},
             value => $cr->{harness_share_pct}, better => 'lower' };
  if ($base->{intervals}{harness_pct} && $run->{intervals}{harness_pct}) {
    $hf->{samples} = [$base->{intervals}{harness_pct}, $run->{intervals}{harness_pct}];
  } else {
    $hf->{why} = "the database host's CPU is unknown in "
                 . join(' and ', map { $_->{label} } grep { !$_->{intervals}{harness_pct} }
                                 $base, $run);
  }
  push @f, $hf;
  my ($db_b, $db_r) = map { db_host($_) } $cb, $cr;
  for my $g (@CPU_GROUPS) {
    push @f, { id => "cpu/$g", table => 'cpu', code => $g, label => $CPU_GROUP_NAME{$g},
               base => $db_b ? $db_b->{groups}{$g}{share_pct} : undef,
               value => $db_r ? $db_r->{groups}{$g}{share_pct} : undef, shown_only => 1 };
  }
  return \@f;
}

sub db_host {
  my ($cpu) = @_;
  my ($h) = grep { $_->{database_host} } @{ $cpu->{hosts} // [] };
  return $h;
}

# One comparison: every figure with its change and verdict.
sub compare_pair {
  my ($base, $run) = @_;
  my $figs = figures($base, $run);
  for my $f (@$figs) {
    next if $f->{why} || $f->{same} || $f->{shown_only};
    my ($xs, $ys) = @{ $f->{samples} };
    my @short = map { sprintf('%s %d%s', $_->[0], scalar @{ $_->[1] },
                              $_->[2] > 1 ? " of $_->[2] intervals" : '') }
                grep { @{ $_->[1] } < $MIN_INTERVALS }
                ([$base->{label}, $xs, $f->{groups}[0] // 1],
                 [$run->{label}, $ys, $f->{groups}[1] // 1]);
    $f->{why} = "fewer than $MIN_INTERVALS intervals or groups with data (" . join(', ', @short)
                . ')' if @short;
  }
  my @family = grep { !$_->{primary} && !$_->{why} && !$_->{same} && !$_->{shown_only} } @$figs;
  my $k = scalar @family;
  my %count = (better => 0, worse => 0, 'within noise' => 0, 'not judged' => 0);
  for my $f (@$figs) {
    $f->{change_pct} = change_pct($f->{base}, $f->{value});
    next if $f->{shown_only};
    if ($f->{same}) {
      $f->{verdict} = 'within noise';
    } elsif ($f->{why}) {
      $f->{verdict} = 'not judged';
    } else {
      my $alpha = $f->{primary} ? $PRIMARY_ALPHA : $FAMILY_ALPHA / $k;
      my $w = welch(@{ $f->{samples} }, $alpha);
      $f->{test} = { level => 1 - $alpha, %$w };
      $f->{verdict} = verdict($w, $f->{better});
    }
    $count{ $f->{verdict} }++ unless $f->{primary};
  }
  delete $_->{samples} for @$figs;
  my ($trtps) = grep { $_->{primary} } @$figs;
  return { run => $run->{label}, base => $base->{label}, family_size => $k,
           family_level => $k ? 1 - $FAMILY_ALPHA / $k : undef,
           primary_level => 1 - $PRIMARY_ALPHA, trtps => $trtps, counts => \%count,
           figures => $figs };
}

# The verdict of a Welch interval: better or worse when it lies wholly on one side of zero.
# An interval of width 0 (no spread in either run) judges by the difference alone; a
# difference that is rounding (the same figures summed in another order) is none.
sub verdict {
  my ($w, $better) = @_;
  my ($lo, $hi) = @$w{qw(lo hi)};
  if ($w->{se} == 0 && abs($w->{diff}) <= 1e-12 * max(abs($w->{mean_x}), abs($w->{mean_y}))) {
    return 'within noise';
  }
  my $up = $lo > 0 ? 1 : $hi < 0 ? -1 : 0;
  return 'within noise' unless $up;
  return ($up > 0) == ($better eq 'higher') ? 'better' : 'worse';
}

sub change_pct {
  my ($base, $value) = @_;
  return undef unless defined $base && defined $value && $base != 0;
  return 100 * ($value - $base) / $base;
}

# --- database figures and settings, side by side -------------------------------------------

# run --db-memory's measurements are figures, not settings: the database rows show them.
my @DB_MEMORY_FIGURES = (
  [db_memory_peak_bytes => "the memory cgroup's peak (bytes)"],
  [db_memory_end_bytes => "the memory cgroup's usage at the end (bytes)"],
  [db_memory_oom_kills => "the memory cgroup's OOM kills"],
  [db_memory_cached_at_start_bytes => 'the data directory in the page cache at the start (bytes)'],
  [db_memory_data_dir_bytes => 'the data directory at the start (bytes)'],
);
my @DB_DELTA_ORDER = qw(xact_commit xact_rollback blks_read blks_hit deadlocks temp_bytes
                        tup_returned tup_fetched tup_inserted tup_updated tup_deleted);
my %UNIT_LABEL = (blocks => ' (blocks)', ms => ' (ms)', bytes => ' (bytes)', '%' => ' (%)',
                  ':1' => ' (x:1)', count => '');

# Every figure of the report's database section (Database.pm): the pg_stat_database changes,
# then the figures whose view or column depends on the server's version (PgStats.pm), each
# with its value in every run, or why a run has none (whys), and where each run took it from
# (sources): [{ name, key, values => [...], changes => [...], whys, sources }].
sub database_rows {
  my ($runs) = @_;
  my @dbs = map { $_->{r}{database} // {} } @$runs;
  my %delta = map { %{ $_->{delta} // {} } } @dbs;
  my @deltas = ((grep { exists $delta{$_} } @DB_DELTA_ORDER),
                (sort grep { my $k = $_; !grep { $_ eq $k } @DB_DELTA_ORDER } keys %delta));
  my @rows;
  for my $k (@deltas) {
    push @rows, { name => $k, values => [map { $_->{delta}{$k} } @dbs] };
  }
  my (@figures, %seen);
  for my $db (@dbs) {
    push @figures, grep { !$seen{ $_->{key} }++ } @{ $db->{figures} // [] };
  }
  for my $f (@figures) {
    my @each = map {
      my $db = $_;
      my ($g) = grep { $_->{key} eq $f->{key} } @{ $db->{figures} // [] };
      $g // { why => 'not in this run' . ($db->{why} ? " ($db->{why})" : '') };
    } @dbs;
    push @rows, { name => $f->{name} . ($UNIT_LABEL{ $f->{unit} // 'count' } // ''),
                  key => $f->{key}, values => [map { $_->{value} } @each],
                  whys => [map { defined $_->{value} ? undef : $_->{why} } @each],
                  sources => [map { $_->{source} } @each] };
  }
  # The memory cgroup's figures (run --db-memory), where a run has them.
  my @conf = map { $_->{r}{settings} // {} } @$runs;
  for my $f (@DB_MEMORY_FIGURES) {
    my ($k, $name) = @$f;
    next unless grep { defined $_->{$k} } @conf;
    push @rows, { name => $name, key => $k, values => [map { $_->{$k} } @conf],
                  whys => [map { defined $_->{$k} ? undef : memory_why($_, $k) } @conf],
                  sources => [map { defined $_->{$k} ? "run.conf $k" : undef } @conf] };
  }
  for my $row (@rows) {
    my $b = $row->{values}[0];
    $row->{changes} = [map { change_pct($b, $row->{values}[$_]) } 1 .. $#dbs];
  }
  return { rows => \@rows, why => [map { $_->{why} } @dbs] };
}

# Why a run has no figure $key of the memory cgroup.
sub memory_why {
  my ($conf, $key) = @_;
  my $req = $conf->{db_memory};
  return 'no memory cap (a kit before run --db-memory)' unless defined $req;
  return 'no memory cap' if $req eq 'none';
  return "a --db server's memory is not known to the kit" if $req eq 'unknown';
  return exists $conf->{$key} ? 'not given by the kernel' : 'not recorded (the run did not end)';
}

# run.conf keys that differ in every run by nature (the runs table shows the dates; metrics has
# the emulators' live-metrics addresses, on ports the system picked).
# The server's version is the first row of its own (PgStats.pm: run.conf, else db/settings.csv,
# else the snapshots' columns), not three rows of run.conf and pg_settings.
my %CONF_SKIP = map { $_ => 1 } qw(started_utc finished_utc metrics server_version
                                   server_version_num), map { $_->[0] } @DB_MEMORY_FIGURES;
my %PG_SKIP = map { $_ => 1 } qw(server_version server_version_num);
# readme.txt lines that say on what the run ran (controller/run, write_readme).
my @README_KEYS = qw(controller uname compiler database host);

# The settings that differ between the runs: the server's version, run.conf (the kit's commit
# and the hosts among them), what readme.txt says of the machine, and PostgreSQL's
# (db/settings.csv, pg_settings before the run).
# [{ source, name, values => [one per run; undef = not set] }].
sub settings_rows {
  my ($runs) = @_;
  my @rows = ({ source => 'server', name => 'PostgreSQL version',
                values => [map { $_->{r}{server}{version} } @$runs] });
  my @conf = map { $_->{r}{settings} } @$runs;
  my %keys = map { %$_ } @conf;
  for my $k (sort grep { !$CONF_SKIP{$_} } keys %keys) {
    # The memory cgroup by its kind: its path may name the start (a systemd scope's unit).
    my $v = $k eq 'db_memory_cgroup' ? sub { defined $_[0] ? (split ' ', $_[0])[0] : undef }
                                     : sub { $_[0] };
    push @rows, { source => 'run.conf', name => $k, values => [map { $v->($_->{$k}) } @conf] };
  }
  my @readme = map { readme_fields("$_->{dir}/readme.txt") } @$runs;
  for my $k (@README_KEYS) {
    push @rows, { source => 'readme.txt', name => $k, values => [map { $_->{$k} } @readme] };
  }
  my @pg = map { pg_settings("$_->{dir}/db/settings.csv") } @$runs;
  if (grep { !$_ } @pg) {
    push @rows, { source => 'db/settings.csv', name => '(the file)',
                  values => [map { $_ ? 'present' : 'missing or unreadable' } @pg] };
  }
  my @have = grep { $_ } @pg;
  my %names = map { %$_ } @have;
  for my $k (sort grep { !$PG_SKIP{$_} } keys %names) {
    my @v = map { $_ ? $_->{$k} : undef } @pg;
    # Among the runs that recorded their settings; a run without the file says nothing.
    my %distinct = map { ($_ // "\0none") => 1 } map { $_->{$k} } @have;
    push @rows, { source => 'pg_settings', name => $k, values => \@v } if keys %distinct > 1;
  }
  return [grep { differ($_->{values}) } @rows];
}

sub differ {
  my ($values) = @_;
  my %d = map { ($_ // "\0none") => 1 } @$values;
  return keys %d > 1;
}

# readme.txt's "key: value" lines of @README_KEYS (a key given more than once: joined by '; ').
sub readme_fields {
  my ($path) = @_;
  my %f;
  open my $fh, '<', $path or return \%f;
  my %want = map { $_ => 1 } @README_KEYS;
  while (my $line = <$fh>) {
    last if $line =~ /\APostgreSQL settings/;
    next unless $line =~ /\A(\w+):\s+(.*?)\s*\z/ && $want{$1};
    $f{$1} = defined $f{$1} ? "$f{$1}; $2" : $2;
  }
  close $fh;
  return \%f;
}

# db/settings.csv -> { name => 'setting unit' } of the server's own settings (client and
# session ones are psql's), or undef when the file is missing or unreadable (its report names
# the problem).
sub pg_settings {
  my ($path) = @_;
  return undef unless -e $path;
  my ($csv) = read_csv($path);
  return undef unless $csv;
  return { map { $_->{name} => $_->{setting} . (length($_->{unit} // '') ? " $_->{unit}" : '') }
           grep { defined $_->{name} && ($_->{source} // '') !~ /\A(?:client|session)\z/ }
           @{ $csv->{rows} } };
}

1;
