package BrokerBench::SyntheticRun;
# A results directory shaped like a real run of the kit, for the tests and benchmarks that need
# many rows (t/99-bounded-memory.t, bb-bench-report): random but reproducible rows in mix log
# v2, with everything the report cross-checks them against. No code of the report is used, so
# the same directory can be read by another version of bb-report (a benchmark's "before").
#
# The run: a Trade-Cleanup, a ramp-up, the measurement interval (MI) between the customer
# emulator's START and STOP, and a few seconds after it. Customer transactions arrive as one
# Poisson stream drawn from the mix deck (clause 6.3.1), with the input variants drawn at the
# shares of clause 6.4.1 and Trade-Order's roll-back at 1 in 101; response times are
# log-normal around a default run's means with a tail (1 % of rows 5 to 20 times slower), so
# percentiles fall in every part of a histogram. Each committed Trade-Order becomes a Trade-Result
# after a delay (market orders about a second, limit orders up to 30 s); those due after the
# market emulator stopped are pending. Market-Feeds at 1 % of the mix; a Data-Maintenance
# every 60 s. Beside the mix logs: run.conf, the emulators' end-of-run records with their counts
# (so every request is accounted for), pending-trades.csv, failed-trades.csv, the trades the database
# completed (db/after/completed-trades.csv), and a CPU sampler's file.
use strict;
use warnings;
use Exporter 'import';
use File::Path qw(make_path);
use POSIX qw(strftime);

our @EXPORT_OK = qw(write_synthetic_run);

my $US = 1_000_000;
# 2025-11-21 12:00:00 UTC.
my $T0 = 1763726400 * $US;

# The deck of 890 customer transactions and the median response time of each type (µs).
my %DECK = (BV => 49, CP => 130, MW => 180, SD => 140, TL => 80, TO => 101, TS => 190, TU => 20);
my %MEDIAN_US = (BV => 3000, CP => 2000, MF => 7000, MW => 2000, SD => 2000, TL => 4000,
                 TO => 5000, TR => 5000, TS => 2000, TU => 17000, DM => 300_000);

# Input variants: per code a list of dimensions, each [[token, share]...]; a dimension whose
# shares add up to less than 1 is a flag (no token the rest of the time).
my %INPUTS = (
  CP => [[[cust => 0.5], [tax => 0.5]], [[hist => 0.5]]],
  MW => [[[industry => 0.05], [watch => 0.60], [acct => 0.35]]],
  SD => [[[lob => 0.01]]],
  TL => [[[f1 => 0.3], [f2 => 0.3], [f3 => 0.3], [f4 => 0.1]]],
  TO => [[[TMB => 0.3], [TMS => 0.3], [TLB => 0.2], [TLS => 0.1], [TSL => 0.1]],
         [[q100 => 0.25], [q200 => 0.25], [q400 => 0.25], [q800 => 0.25]],
         [[name => 0.4]], [[tp => 0.1]], [[margin => 0.08]], [[lifo => 0.35]],
         [[rb => 1 / 101]]],
  TU => [[[f1 => 0.33], [f2 => 0.33], [f3 => 0.34]]],
);

sub draw_inputs {
  my ($code) = @_;
  my @tokens;
  for my $dim (@{ $INPUTS{$code} // [] }) {
    my $u = rand();
    for my $tc (@$dim) {
      if ($u < $tc->[1]) {
        push @tokens, $tc->[0];
        last;
      }
      $u -= $tc->[1];
    }
  }
  return join(' ', @tokens);
}

# A log-normal response time around the type's median, with a tail.
sub response_us {
  my ($code) = @_;
  my $z = sqrt(-2 * log(1 - rand())) * cos(6.283185307179586 * rand());
  my $v = $MEDIAN_US{$code} * exp(0.5 * $z);
  $v *= 5 + 15 * rand() if rand() < 0.01;
  return 1 + int $v;
}

sub write_file {
  my ($path, $text) = @_;
  (my $dir = $path) =~ s{/[^/]+\z}{};
  make_path($dir);
  open my $fh, '>:raw', $path or die "$path: $!\n";
  print {$fh} $text;
  close $fh or die "$path: $!\n";
}

sub write_log {
  my ($path, $rows) = @_;
  (my $dir = $path) =~ s{/[^/]+\z}{};
  make_path($dir);
  open my $fh, '>:raw', $path or die "$path: $!\n";
  print {$fh} "# brokerbench mix log v2\n",
    "start_us,code,spec_status,outcome,response_us,retries,user,wait_us,inputs\n";
  # In completion order, as the emulators write them.
  print {$fh} "$_->[1]\n" for sort { $a->[0] <=> $b->[0] } @$rows;
  close $fh or die "$path: $!\n";
}

# An end-of-run record (MIXLOG.md) of [key, value] pairs; written here, not by the report's
# BrokerBench::EndRecord, so that the directory does not depend on the report's code.
sub record_text {
  return join('', "# brokerbench end-of-run record v1\n", map { "$_->[0]=$_->[1]\n" } @_);
}

sub utc { strftime('%Y-%m-%dT%H:%M:%SZ', gmtime($_[0] / $US)) }

# write_synthetic_run($dir, %opt) -> { rows, ce_rows, mee_rows, mi_start_us, mi_end_us }.
# Options: rate (customer transactions a second, default 1200), mi_s (default 120), ramp_s
# (default 30), users (default 50), seed (default 1), error_p (the share of customer
# transactions that end in an error: half db_error, half retry_exhausted; default 0).
sub write_synthetic_run {
  my ($dir, %o) = @_;
  my $rate  = $o{rate} // 1200;
  my $mi_s  = $o{mi_s} // 120;
  my $ramp  = $o{ramp_s} // 30;
  my $users = $o{users} // 50;
  my $err_p = $o{error_p} // 0;
  srand($o{seed} // 1);
  my $start = $T0 + (1 + $ramp) * $US;          # the CE's START marker
  my $stop  = $start + $mi_s * $US;             # its STOP
  my $last  = $stop + 5 * $US;                  # requests are sent until then
  my $mee_stop = $last + 2 * $US;
  my @cards = map { ($_) x $DECK{$_} } sort keys %DECK;

  my (@ce, @mee, @completed, @pending);
  my $sent = 0;
  my $received = 0;
  my $trade_id = 1000;
  my $ce_row = sub {
    my ($t, $code, $oc, $resp, $user, $inputs, $retries) = @_;
    my $status = $oc eq 'invalid' ? -911 : $oc eq 'warning' ? 621 : 0;
    push @ce, [$t + $resp, join(',', $t, $code, $status, $oc, $resp, $retries // 0, $user, 0,
                                $inputs)];
    $sent++;
  };
  $ce_row->($T0, 'TC', 'ok', 150_000, -1, '');
  for (my $t = $start + 20 * $US; $t < $last; $t += 60 * $US) {
    $ce_row->($t, 'DM', 'ok', response_us('DM'), -1, '');
  }
  for (my $t = $T0 + $US; ; ) {
    $t += 1 + int(-log(1 - rand()) / $rate * $US);
    last if $t >= $last;
    my $code = $cards[rand @cards];
    my $inputs = draw_inputs($code);
    my $resp = response_us($code);
    my $retries = rand() < 0.02 ? (rand() < 0.1 ? 2 : 1) : 0;
    my $oc = $inputs =~ /\brb\b/ ? 'rollback' : 'ok';
    if ($err_p && rand() < $err_p) {
      $oc = rand() < 0.5 ? 'db_error' : 'retry_exhausted';
      $retries = 3 if $oc eq 'retry_exhausted';
    }
    $ce_row->($t, $code, $oc, $resp, 1 + int(rand $users), $inputs, $retries);
    next unless $code eq 'TO' && $oc eq 'ok';
    # The order goes to the market emulator; its Trade-Result comes back after a delay.
    $received++;
    my $id = ++$trade_id;
    my $delay = $inputs =~ /\bTM[BS]\b/ ? (0.5 + rand()) : (1 + 29 * rand());
    my $due = $t + $resp + int($delay * $US);
    my $wait = int(-log(1 - rand()) * 300);
    if ($due + $wait >= $mee_stop) {
      push @pending, "$id,TR,in its completion delay";
      next;
    }
    my $tr = response_us('TR');
    push @mee, [$due + $wait + $tr, join(',', $due + $wait, 'TR', 0, 'ok', $tr,
                                         rand() < 0.01 ? 1 : 0, 1 + $id % 4, $wait, '')];
    push @completed, [$id, $due + $wait + $tr - 100];
  }
  # Market-Feeds: 10 for every 890 customer transactions.
  for (my $t = $T0 + $US; ; ) {
    $t += 1 + int(-log(1 - rand()) / ($rate * 10 / 890) * $US);
    last if $t >= $last;
    my ($resp, $wait) = (response_us('MF'), int(-log(1 - rand()) * 200));
    push @mee, [$t + $resp, join(',', $t, 'MF', 0, 'ok', $resp, 0, 1 + $t % 4, $wait, '')];
  }
  push @ce, [$start, "$start,START,,,,,,,"], [$stop, "$stop,STOP,,,,,,,"];
  push @mee, [$T0, "$T0,START,,,,,,,"], [$mee_stop, "$mee_stop,STOP,,,,,,,"];
  my $ce_rows  = $sent;
  my $mee_rows = @mee - 2;
  write_log("$dir/ce/hostA/mix-ce-1.csv", \@ce);
  write_log("$dir/mee/hostB/mix-mee.csv", \@mee);
  @ce = @mee = ();

  my $finished = $mee_stop + 3 * $US;
  my $tr_per_s = $rate * 100 / 890;
  write_file("$dir/run.conf", join('', map { "$_->[0]=$_->[1]\n" } (
    [format => 1], [customers => int($tr_per_s * 500 + 0.5)], [scale_factor => 500],
    [initial_trade_days => 20], [users => $users], [ramp_up_s => $ramp], [duration_s => $mi_s],
    [pacing_s => 0], [seed => $o{seed} // 1], [seed_source => 'fixed'], [db_workers => 4],
    [db_name => 'bb'], [comment => 'a synthetic run (BrokerBench::SyntheticRun)'],
    [kit_commit => 'synthetic'], [command => './brokerbench run'], [status => 'complete'],
    [started_utc => utc($T0)], [finished_utc => utc($finished + $US - 1)])));
  write_file("$dir/readme.txt", "A synthetic run written by BrokerBench::SyntheticRun.\n");
  # The emulators' end-of-run records (MIXLOG.md), as they write them at a clean stop.
  write_file("$dir/ce/hostA/mix-ce-1.end",
             record_text([program => 'bb-customer-emulator'], [mix_log => 'mix-ce-1.csv'],
                             [stop => 'duration'], [sent => $sent], [rows => $sent],
                             [replies => $sent], [errors => 0], [invalid => 0], [in_flight => 0],
                             [users => $users], [users_started => $users], [started => 1],
                             [measured_s => sprintf('%.3f', $mi_s)]));
  write_file("$dir/mee/hostB/mix-mee.end",
             record_text([program => 'bb-market-emulator'], [mix_log => 'mix-mee.csv'],
                             [stop => 'signal'], [orders_received => $received],
                             [limit_orders_triggered => 0], [orders_refused => 0],
                             [lost_in_flight => 0], [in_flight => 0],
                             [pending => scalar(@pending)], [unsent_at_stop => 0],
                             [failed_lines => 0]));
  write_file("$dir/mee/hostB/failed-trades.csv", "trade_id,code,reason\n");
  write_file("$dir/mee/hostB/pending-trades.csv",
             join('', "trade_id,code,state\n", map { "$_\n" } @pending));
  write_file("$dir/db/after/completed-trades.csv",
             join('', "trade_id,completed_us\n",
                  map { "$_->[0],$_->[1]\n" } sort { $a->[1] <=> $b->[1] } @completed));
  write_file("$dir/db/after/open-trades.csv",
             "status,trades\nSBMT,0\nPNDG," . scalar(@pending) . "\n");
  # A second-by-second CPU sampler: 1.5 cores busy, the harness a tenth of it.
  my $cpu = 'time_us,busy_us,total_us,softirq_us,'
            . join(',', map { "${_}_us" } qw(bh ce mee postgres monitor controller)) . "\n";
  my @acc = (0) x 9;
  for (my $t = $T0; $t <= $finished; $t += $US) {
    my @inc = (1_500_000, 2_000_000, 10_000, 90_000, 40_000, 20_000, 1_300_000, 1000, 1000);
    $acc[$_] += $inc[$_] for 0 .. 8;
    $cpu .= join(',', $t, @acc) . "\n";
  }
  write_file("$dir/sys/db1/proc_cpu.csv", $cpu);
  return { rows => $ce_rows + $mee_rows, ce_rows => $ce_rows, mee_rows => $mee_rows,
           mi_start_us => $start, mi_end_us => $stop };
}

1;
