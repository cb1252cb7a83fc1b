package BrokerBench::Analysis;
# Turns a results directory into one result hash: the measurement interval, per-type
# statistics, the reported throughput, the verdict with its reasons, the compliance notes,
# the database, system and market emulator figures, and the time series the plots draw.
# Everything in the hash except the `_series` key is plain data and goes into results.json.
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
use BrokerBench::PgStats qw(server_version);
use BrokerBench::Privileges qw(privileges);

our @EXPORT_OK = qw(analyze);

# Problems listed per file; the rest are counted. Keeps a report of a badly broken log short.
our $MAX_PROBLEMS_PER_FILE = 50;

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
  server_version($r);
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
  privileges($r);
  statement_stats($r);
  # The snapshots and settings PgStats.pm read, once each: not part of the result.
  delete @$r{qw(_pg_snapshots _pg_settings)};
  profile($r);
  bh_stats($r);
  market_emulator($r, $store);
  reconciliation($r, $store);
  verdict($r);
  delete $r->{_problem};
  $r->{_store} = $store if $opt{keep_store};
  return ($r);
}

1;
