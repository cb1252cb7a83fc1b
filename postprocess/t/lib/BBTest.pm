package BBTest;
# Helpers for the post-processor's tests: write small results directories whose figures are
# known in advance, and run bb-report on them.
use strict;
use warnings;
use Exporter 'import';
use File::Path qw(make_path);
use File::Temp qw(tempdir);
use FindBin ();
use JSON::PP ();
use POSIX ();

our @EXPORT_OK = qw(row marker write_log write_log_v2 write_file write_conf valid_run stream_run
                    tmpdir run_report read_json analyze_dir slurp T0 DECK GOLDEN_INPUTS);

# A fixed wall-clock origin: 2025-11-21 12:00:00 UTC, in microseconds.
use constant T0 => 1763726400_000000;

# One exact mix of 1000 transactions (clause 6.3.1 targets): 4.9 % BV, 13 % CP, ...
use constant DECK => { BV => 49, CP => 130, MF => 10, MW => 180, SD => 140, TL => 80,
                       TO => 101, TR => 100, TS => 190, TU => 20 };

my $ROOT = "$FindBin::RealBin/..";

sub tmpdir { return tempdir('bb-report-test-XXXXXX', TMPDIR => 1, CLEANUP => 1) }

# The input variants of DECK's transactions in a golden v2 log (MIXLOG.md), per code: its
# dimensions, each a list of [token, rows]; rows beyond a dimension's total carry none of its
# tokens. Shares are the clause 6.4.1 targets as nearly as the counts allow (SD: 1 of 140 is
# 0.714 %, inside only a range scaled for a short run).
use constant GOLDEN_INPUTS => {
  CP => [[[cust => 65], [tax => 65]], [[hist => 65]]],
  MW => [[[industry => 9], [watch => 108], [acct => 63]]],
  SD => [[[lob => 1]]],
  TL => [[[f1 => 24], [f2 => 24], [f3 => 24], [f4 => 8]]],
  TO => [[[TMB => 30], [TMS => 30], [TLB => 20], [TLS => 10], [TSL => 11]],
         [[q100 => 25], [q200 => 25], [q400 => 25], [q800 => 26]],
         [[name => 40]], [[tp => 10]], [[margin => 8]], [[lifo => 35]]],
  TU => [[[f1 => 7], [f2 => 7], [f3 => 6]]],
};

# golden_inputs(\%dimensions_by_code, $code, $i, $n) -> the inputs text of the $i-th of $n rows
# of $code: each dimension assigns its tokens to consecutive rows, from a different offset.
sub golden_inputs {
  my ($dims, $code, $i, $n) = @_;
  my @tokens;
  my $d = 0;
  for my $dim (@{ $dims->{$code} // [] }) {
    my $p = ($i + 17 * $d++) % $n;
    for my $tc (@$dim) {
      if ($p < $tc->[1]) {
        push @tokens, $tc->[0];
        last;
      }
      $p -= $tc->[1];
    }
  }
  return join(' ', @tokens);
}

# row($start_us, $code, $outcome, $response_us, %more) -> a mix log line (no newline); with
# `inputs` (even ''), a v2 line.
sub row {
  my ($t, $code, $outcome, $resp, %o) = @_;
  my $status = $o{status} // ($outcome eq 'invalid' ? -911 : $outcome eq 'warning' ? 621 : 0);
  return join(',', $t, $code, $status, $outcome, $resp, $o{retries} // 0, $o{user} // 1,
              $o{wait} // 0, exists $o{inputs} ? $o{inputs} : ());
}

# marker($start_us, 'START' or 'STOP', $version (1 by default)).
sub marker {
  my ($t, $what, $version) = @_;
  return "$t,$what" . (',' x (($version // 1) >= 2 ? 7 : 6));
}

sub write_file {
  my ($path, $text) = @_;
  (my $dir = $path) =~ s{/[^/]+\z}{};
  make_path($dir);
  open my $fh, '>:raw', $path or die "$path: $!";
  print {$fh} $text;
  close $fh or die "$path: $!";
}

# write_log($path, @lines): header, column line, then the lines, each with a newline.
sub write_log {
  my ($path, @lines) = @_;
  write_file($path, join('', "# brokerbench mix log v1\n",
                         "start_us,code,spec_status,outcome,response_us,retries,user,wait_us\n",
                         map { "$_\n" } @lines));
}

sub write_log_v2 {
  my ($path, @lines) = @_;
  write_file($path, join('', "# brokerbench mix log v2\n",
                         "start_us,code,spec_status,outcome,response_us,retries,user,wait_us,inputs\n",
                         map { "$_\n" } @lines));
}

sub write_conf {
  my ($dir, %kv) = @_;
  write_file("$dir/run.conf",
             "# written by a test\n" . join('', map { "$_=$kv{$_}\n" } sort keys %kv));
}

# valid_run($dir, %opt) writes a run that is VALID by every rule: an MI of mi_s seconds
# (default 50) holding exactly one DECK (1000 valid transactions evenly spread, one
# Trade-Order roll-back), 100 Trade-Results = 2.00 tpsE against customers 1000 / scale
# factor 500; a few rows of ramp-up before the MI and ramp-down after it. Options:
#   mi_s, customers, scale_factor, initial_trade_days, status (run.conf), resp_us (every
#   response time), rollbacks (Trade-Orders that roll back, default 1), skew (put every
#   market emulator row in the first half of the MI), extra_ce / extra_mee (more lines for
#   the logs, array refs), seed_source (run.conf: 'fixed' or 'time of day'), no_conf, v2 (write
#   mix log v2 with the GOLDEN_INPUTS variants), inputs (v2 with these dimensions instead of
#   GOLDEN_INPUTS' for the codes named).
# Returns { ce => path, mee => path, rows => {code => count in MI}, lines => total rows }.
sub valid_run {
  my ($dir, %o) = @_;
  my $mi_s  = $o{mi_s} // 50;
  my $resp  = $o{resp_us} // 20_000;
  my $deck  = DECK;
  my @codes = map { ($_) x $deck->{$_} } sort keys %$deck;
  # Interleave the codes so every type is spread over the whole MI.
  my @order = map { $codes[($_ * 7919) % 1000] } 0 .. 999;
  my %seen;
  $seen{$_}++ for @order;
  die 'the interleave is not a permutation' if grep { $seen{$_} != $deck->{$_} } keys %$deck;
  my $start = T0 + 10_000_000;                  # the MI starts 10 s after T0
  my $end   = $start + $mi_s * 1_000_000;
  my $step  = ($end - $start - $resp) / 1000;
  my $v2    = $o{v2} || $o{inputs};
  my $ver   = $v2 ? 2 : 1;
  my $dims  = { %{ GOLDEN_INPUTS() }, %{ $o{inputs} // {} } };
  my %seq;
  # The inputs column of a row of $code (v2 only): the next golden variant of that code.
  my $in = sub {
    my ($code) = @_;
    return () unless $v2;
    return (inputs => golden_inputs($dims, $code, $seq{$code}++ // 0, $deck->{$code} // 1));
  };
  my (@ce, @mee);
  push @ce, row(T0, 'TC', 'ok', 150_000, $v2 ? (inputs => '') : ());
  push @ce, row(T0 + 1_000_000 + $_ * 1_000_000, 'TS', 'ok', $resp, $v2 ? (inputs => '') : ())
    for 0 .. 4;   # ramp-up
  push @mee, marker(T0, 'START', $ver);
  push @mee, row(T0 + 2_000_000 + $_ * 1_000_000, 'TR', 'ok', $resp, wait => 500,
                 $v2 ? (inputs => '') : ()) for 0 .. 2;
  push @ce, marker($start, 'START', $ver);
  my $rolled = 0;
  for my $i (0 .. 999) {
    my $t = int($start + $i * $step);
    my $c = $order[$i];
    my $oc = ($c eq 'TO' && $rolled++ < ($o{rollbacks} // 1)) ? 'rollback' : 'ok';
    if ($c eq 'TR' || $c eq 'MF') {
      $t = int($start + $i * $step / 2) if $o{skew};
      push @mee, row($t, $c, 'ok', $resp, user => 2, wait => 1000 + $i, $v2 ? (inputs => '') : ());
    } else {
      push @ce, row($t, $c, $oc, $resp, user => 1 + $i % 10, $in->($c));
    }
  }
  push @ce, marker($end, 'STOP', $ver);
  push @ce, row($end + 1_000_000 + $_ * 1_000_000, 'MW', 'ok', $resp,
                $v2 ? (inputs => 'watch') : ()) for 0 .. 2;  # ramp-down
  push @mee, row($end + 500_000, 'TR', 'ok', $resp, $v2 ? (inputs => '') : ());
  push @mee, marker($end + 5_000_000, 'STOP', $ver);
  push @ce,  @{ $o{extra_ce} // [] };
  push @mee, @{ $o{extra_mee} // [] };
  my $ce  = "$dir/ce/hostA/mix-ce-1001.csv";
  my $mee = "$dir/mee/hostB/mix-mee.csv";
  my $write = $v2 ? \&write_log_v2 : \&write_log;
  $write->($ce, @ce);
  $write->($mee, @mee);
  write_conf($dir, format => 1, customers => $o{customers} // 1000,
             scale_factor => $o{scale_factor} // 500,
             initial_trade_days => $o{initial_trade_days} // 10, users => 10,
             ramp_up_s => 10, duration_s => $mi_s, pacing_s => 0, seed => 1, db_workers => 4,
             db_name => 'bb', comment => 'a test run', started_utc => '2025-11-21T12:00:00Z',
             finished_utc => POSIX::strftime('%Y-%m-%dT%H:%M:%SZ',
                                             gmtime(($end + 10_000_000) / 1_000_000)),
             kit_commit => 'test', command => './brokerbench run',
             status => $o{status} // 'complete',
             $o{seed_source} ? (seed_source => $o{seed_source}) : ())
    unless $o{no_conf};
  write_file("$dir/readme.txt", "A test run written by t/lib/BBTest.pm.\n");
  return { ce => $ce, mee => $mee, start_us => $start, end_us => $end,
           lines => scalar(@ce) + scalar(@mee) };
}

# Mean response times (µs) of a synthetic stream, per type: about those of a default run.
use constant STREAM_RT_US => { BV => 3000, CP => 2000, MF => 7000, MW => 2000, SD => 2000,
                               TL => 4000, TO => 5000, TR => 5000, TS => 2000, TU => 17000,
                               DM => 4000 };

# stream_run($dir, %opt) writes a run whose rows are random but reproducible: each type of
# DECK arrives as a Poisson stream at its share of tps x 10 transactions a second (tps: the
# Trade-Results a second, default 5) over a ramp-up of 30 s, an MI of mi_s (default 300) and
# 10 s after it; response times are the type's STREAM_RT_US x rt_factor (default 1) x a uniform
# jitter of +-spread (default 0.5); Data-Maintenance every 60 s. Options: seed (default 1; the
# same seed and options give the same rows), rate_factor (every type's rate, default 1),
# error_p (the share of rows that end in db_error), cpu (write sys/db1/proc_cpu.csv: the
# harness's share of the busy CPU, 0..1, with a little noise), comment, pg (db/settings.csv
# rows: { name => setting }). Returns { start_us, end_us }.
sub stream_run {
  my ($dir, %o) = @_;
  my $mi_s  = $o{mi_s} // 300;
  my $tps   = $o{tps} // 5;
  my $rf    = $o{rt_factor} // 1;
  my $sp    = $o{spread} // 0.5;
  my $ramp  = 30;
  srand($o{seed} // 1);
  my $start = T0 + $ramp * 1_000_000;
  my $end   = $start + $mi_s * 1_000_000;
  my $last  = $end + 10_000_000;
  my $rt = sub { int(STREAM_RT_US->{ $_[0] } * $rf * (1 - $sp + 2 * $sp * rand())) };
  my $oc = sub { rand() < ($o{error_p} // 0) ? 'db_error' : 'ok' };
  my (@ce, @mee);
  for my $code (sort keys %{ DECK() }) {
    my $per_s = $tps * 10 * DECK->{$code} / 1000 * ($o{rate_factor} // 1);
    my $t = T0 + 1_000_000;
    while (1) {
      $t += int(-log(1 - rand()) / $per_s * 1_000_000) + 1;
      last if $t >= $last;
      my $line = row($t, $code, $oc->(), $rt->($code), user => 1 + int(rand 10));
      push @{ $code eq 'TR' || $code eq 'MF' ? \@mee : \@ce }, [$t, $line];
    }
  }
  for (my $t = $start + 30_000_000; $t < $last; $t += 60_000_000) {
    push @ce, [$t, row($t, 'DM', 'ok', $rt->('DM'))];
  }
  push @ce, [T0, row(T0, 'TC', 'ok', 150_000)], [$start, marker($start, 'START')],
            [$end, marker($end, 'STOP')];
  push @mee, [T0, marker(T0, 'START')], [$last + 1, marker($last + 1, 'STOP')];
  write_log("$dir/ce/hostA/mix-ce-1001.csv", map { $_->[1] } sort { $a->[0] <=> $b->[0] } @ce);
  write_log("$dir/mee/hostB/mix-mee.csv", map { $_->[1] } sort { $a->[0] <=> $b->[0] } @mee);
  write_conf($dir, format => 1, customers => $tps * 500, scale_factor => 500,
             initial_trade_days => 20, users => 10, ramp_up_s => $ramp, duration_s => $mi_s,
             pacing_s => 0, seed => $o{seed} // 1, db_workers => 4, db_name => 'bb',
             comment => $o{comment} // 'a synthetic stream', kit_commit => 'test',
             started_utc => '2025-11-21T12:00:00Z',
             finished_utc => POSIX::strftime('%Y-%m-%dT%H:%M:%SZ',
                                             gmtime(($last + 2_000_000) / 1_000_000)),
             command => './brokerbench run', status => 'complete');
  if (defined $o{cpu}) {
    # Cumulative µs each second: 1.5 cores busy; the harness its share with +-10 % noise,
    # PostgreSQL the rest.
    my $text = 'time_us,busy_us,total_us,softirq_us,'
               . join(',', map { "${_}_us" } qw(bh ce mee postgres monitor controller)) . "\n";
    my @acc = (0) x 9;
    for (my $t = T0; $t <= $last; $t += 1_000_000) {
      my $h = 1_500_000 * $o{cpu} * (0.9 + 0.2 * rand());
      my @inc = (1_500_000, 2_000_000, 10_000, $h * 0.6, $h * 0.3, $h * 0.1, 1_500_000 - $h, 0, 0);
      $acc[$_] += int $inc[$_] for 0 .. 8;
      $text .= join(',', $t, @acc) . "\n";
    }
    write_file("$dir/sys/db1/proc_cpu.csv", $text);
  }
  if ($o{pg}) {
    write_file("$dir/db/settings.csv", "name,setting,unit,source\n"
               . join('', map { "$_,$o{pg}{$_},,configuration file\n" } sort keys %{ $o{pg} }));
  }
  write_file("$dir/readme.txt", "brokerbench results test\n\ncontroller: testhost, 2 cores\n");
  return { start_us => $start, end_us => $end };
}

# analyze_dir($dir) -> the analysis result (problems collected, not printed).
sub analyze_dir {
  my ($dir) = @_;
  require BrokerBench::Analysis;
  my ($r, $err) = BrokerBench::Analysis::analyze(dir => $dir);
  die $err unless $r;
  return $r;
}

# run_report(@args) -> { rc, out, err }: runs bin bb-report (or another script of
# postprocess/) with the arguments.
sub run_report {
  my (@args) = @_;
  my $script = 'bb-report';
  $script = shift @args if @args && $args[0] =~ /\Abb-/;
  my $dir = tmpdir();
  my $cmd = join(' ', map { shell_quote($_) } ($^X, "$ROOT/$script", @args))
            . " >$dir/out 2>$dir/err";
  system($cmd);
  my $rc = $? >> 8;
  return { rc => $rc, out => slurp("$dir/out"), err => slurp("$dir/err") };
}

sub shell_quote {
  my ($s) = @_;
  $s =~ s/'/'\\''/g;
  return "'$s'";
}

sub slurp {
  my ($path) = @_;
  open my $fh, '<:raw', $path or return '';
  local $/;
  return scalar <$fh>;
}

sub read_json {
  my ($path) = @_;
  return JSON::PP->new->decode(slurp($path));
}

1;
