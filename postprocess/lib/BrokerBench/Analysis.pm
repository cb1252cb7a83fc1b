package BrokerBench::Analysis;
# Turns a results directory into one result hash: the measurement interval, per-type
# statistics, the reported throughput, the verdict with its reasons, the compliance notes,
# the database, system and market emulator figures, and the time series the plots draw.
# Everything in the hash except the keys that start with _ is plain data and goes into
# results.json.
# This module only runs the parts in order and collects the input problems; each concern is a
# module of its own:
#   Inputs.pm        run.conf, the mix logs, the run's time range, the measurement interval
#   Transactions.pm  per-type counts, response times and percentiles, the plots' series
#   Throughput.pm    TRTPS and its steadiness
#   Verdict.pm       the checks that give the verdict's reasons, compliance, the verdict
#   Database.pm      the database snapshots and the metric counted in the database
#   PgStats.pm       which server version keeps which statistic where; the server's version
#   Privileges.pm    the run's role: the optional privileges it lacks and how to grant them
#   System.pm        the hosts' samples and the CPU profile
#   MarketEmulator.pm  the market emulator's waits and the trades it left
#   Cpu.pm, Waits.pm, Statements.pm, BhStats.pm  where the CPU went, waits, top statements,
#                    the Brokerage House's totals
#   DeviceIo.pm      the database's block devices in the MI (DiskStats.pm) and PostgreSQL's
#                    view of its I/O (PgIo.pm)
#   BlockTrace.pm    the data device's block trace in the MI (run --block-trace): the I/O
#                    study's request sizes and locality
#   Result.pm, Format.pm  what they share: reasons and notes, number and time formats
#
# Clause numbers are those of the TPC-E specification v1.14.0.
use strict;
use warnings;
use Exporter 'import';
use File::Spec;
use POSIX qw(strftime);
use BrokerBench::Spec qw($NOT_COMPARABLE);
use BrokerBench::Stats qw(PERCENTILE_METHOD);
use BrokerBench::Histogram qw(HISTOGRAM_METHOD $EXACT_BELOW $RELATIVE_ERROR);
use BrokerBench::Inputs qw(read_settings read_mix_logs measurement_interval);
use BrokerBench::Transactions qw(transaction_stats);
use BrokerBench::Throughput qw(throughput steadiness);
use BrokerBench::Verdict qw(data_maintenance rollback_check error_checks mix_and_response_checks
                            input_variants compliance reconciliation verdict);
use BrokerBench::Database qw(database database_trade_count);
use BrokerBench::System qw(profile system_stats);
use BrokerBench::MarketEmulator qw(market_emulator);
use BrokerBench::Cpu qw(cpu_stats);
use BrokerBench::BhStats qw(bh_stats);
use BrokerBench::Waits qw(wait_stats);
use BrokerBench::Statements qw(statement_stats);
use BrokerBench::DeviceIo qw(device_io);
use BrokerBench::BlockTrace qw(block_trace);
use BrokerBench::Durability qw(durability);
use BrokerBench::PgStats qw(server_version);
use BrokerBench::Privileges qw(privileges);
use BrokerBench::Result qw(add_reason mi_ok);

our @EXPORT_OK = qw(analyze);

# Problems listed per file; the rest are counted. Keeps a report of a badly broken log short.
our $MAX_PROBLEMS_PER_FILE = 50;

# analyze(dir => $dir, problem_hook => sub {...}, keep_aggregates => 1) -> ($result) or
# (undef, $error) when no report can be made. problem_hook, if given, sees each input problem
# as it is found (for printing on stderr). keep_aggregates leaves the mix log reader's
# aggregates (Aggregates.pm: per-tick histograms among them) in $result->{_agg}, for a caller
# that needs more of them than the result holds (Compare.pm).
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
    # The percentiles' resolution (Histogram.pm): exact below exact_below_us, above at most
    # max_relative_error over the true value, never below it.
    percentile_error  => { exact_below_us => $EXACT_BELOW, max_relative_error => $RELATIVE_ERROR,
                           text => HISTOGRAM_METHOD },
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
  server_version($r);
  my ($agg, $err) = read_mix_logs($r);
  return (undef, $err) if $err;
  measurement_interval($r);
  same_interval($r, $agg->{plan});
  transaction_stats($r, $agg);
  throughput($r);
  steadiness($r);
  data_maintenance($r);
  rollback_check($r);
  error_checks($r);
  mix_and_response_checks($r);
  input_variants($r, $agg);
  compliance($r);
  database($r);
  database_trade_count($r);
  system_stats($r);
  cpu_stats($r, $agg);
  wait_stats($r);
  privileges($r);
  statement_stats($r);
  device_io($r);
  block_trace($r);
  durability($r);
  # The snapshots and settings PgStats.pm read, once each: not part of the result.
  delete @$r{qw(_pg_snapshots _pg_settings)};
  profile($r);
  bh_stats($r);
  market_emulator($r, $agg);
  reconciliation($r, $agg);
  verdict($r);
  delete @$r{qw(_problem _tr_seg _dm_rows)};
  $r->{_agg} = $agg if $opt{keep_aggregates};
  return ($r);
}

# The aggregates were made by the MI the markers gave before the rows were read (Inputs.pm,
# make_plan); measurement_interval finds it again from what the reader took. They are the same
# by construction; if they were not, every figure of the MI would be wrong, and the report says
# so rather than print them.
sub same_interval {
  my ($r, $plan) = @_;
  my $mi = $r->{mi};
  my @now  = mi_ok($r) ? @$mi{qw(start_us end_us)} : ();
  my @plan = defined $plan->{mi_start_us} ? @$plan{qw(mi_start_us mi_end_us)} : ();
  return if "@now" eq "@plan";
  add_reason($r, 'measurement interval', '6.6',
             sprintf('internal error: the rows were aggregated by the measurement interval %s, '
                     . 'but the logs give %s (please report it); the figures of the MI are '
                     . 'wrong', @plan ? "@plan" : 'none', @now ? "@now" : 'none'));
}

1;
