# bb-sweep-report: a table and a plot from the runs of a sweep.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use BBTest qw(row write_file tmpdir valid_run run_report T0);
use BrokerBench::Gnuplot qw(png_ok);

my $sweep = tmpdir();
my @lines;
# Three runs: 100 Trade-Results over 50, 25 and 20 s = 2, 4 and 5 tpsE.
for my $run ([4, 50], [8, 25], [16, 20]) {
  my ($users, $mi) = @$run;
  my $d = "$sweep/run-$users";
  # 8 users: 7 Trade-Results retried to exhaustion and one Trade-Order retried twice, in the MI.
  my $in_mi = T0 + 12_000_000;
  valid_run($d, mi_s => $mi, $users == 8
    ? (extra_mee => [map { row($in_mi + $_ * 1000, 'TR', 'retry_exhausted', 1000, retries => 3) } 1 .. 7],
       extra_ce  => [row($in_mi, 'TO', 'ok', 1000, retries => 2)])
    : ());
  is(run_report('--no-plots', '--quiet', $d)->{rc}, 0, "run with $users users reported");
  push @lines, "$users\t" . ($users == 8 ? "run-$users" : $d);   # one relative path
}
push @lines, "32\t$sweep/missing";
write_file("$sweep/runs.txt", join("\n", @lines) . "\n");

my $res = run_report('bb-sweep-report', $sweep);
is($res->{rc}, 0, 'exit 0');
is($res->{out}, "Sweep: $sweep/sweep.txt\nPlot: $sweep/sweep.png\n", 'prints the paths');
like($res->{err}, qr{\Q$sweep\E/missing/results\.json: cannot open}, 'a run without results.json is named');
my $txt = do { open my $fh, '<', "$sweep/sweep.txt" or die; local $/; <$fh> };
like($txt, qr/^Users  TRTPS measured  TR p90 \(ms\)  Errors  Invalid  Retries  Verdict\s+Results$/m,
     'the columns: errors, invalid and retries beside TRTPS and the verdict');
like($txt, qr/^\s+4\s+2\.00\s+20\.0\s+0\s+0\s+0\s+VALID\s+\S/m, '4 users: 2.00 tpsE, p90 20 ms, no error, VALID');
like($txt, qr/^\s+8\s+4\.00\s+20\.0\s+7\s+0\s+23\s+INVALID \(2\)\s+run-8$/m,
     '8 users (a relative path): 4.00 tpsE, 7 errors, 7 x 3 + 2 retries, INVALID for 2 reasons (throughput, errors)');
like($txt, qr/^\s+16\s+5\.00\s+/m, '16 users: 5.00 tpsE');
like($txt, qr/^\s+32\s+n\/a\s+n\/a\s+-\s+-\s+-\s+no report/m, '32 users: no report');
like($txt, qr/^Errors and invalid transactions in the MI:\n  8 users: TR retry_exhausted 7\n\n/m,
     'which errors, by type and outcome');
my $gp = do { open my $fh, '<', "$sweep/plot-data/sweep.gp" or die; local $/; <$fh> };
like($gp, qr/^set xtics \(4, 8, 16\)$/m, 'a tick at each run: whole numbers of users');
like($gp, qr/^set multiplot layout 3,1 /m, 'three panels');
like($gp, qr/using 1:4 with linespoints .* title 'errors'/, 'one draws the errors');
like($gp, qr/\$7 == 0 \? \$2 : NaN\) .* title 'INVALID'/, 'the verdict on the TRTPS points');
my $dat = do { open my $fh, '<', "$sweep/plot-data/sweep.dat" or die; local $/; <$fh> };
like($dat, qr/^8 4\.0000 20\.000 7 0 23 0$/m, 'the data of the 8-user run');
ok(png_ok("$sweep/sweep.png"), 'sweep.png is a PNG');
cmp_ok(-s "$sweep/sweep.png", '>', 5000, 'of a reasonable size');

# A results.json of format v1 (before issue 17): trtps.measured, p90_s.
my $old = tmpdir();
write_file("$old/r/results.json", '{"format":"brokerbench results v1","trtps":{"measured":3.5},'
  . '"transactions":{"TR":{"p90_s":0.0425,"errors":2,"invalid":0,"retries":4,'
  . '"error_outcomes":{"timeout":2}}},"verdict":{"text":"INVALID","reasons":[{"rule":"errors"}]}}');
write_file("$old/runs.txt", "3\tr\n");
is(run_report('bb-sweep-report', $old)->{rc}, 0, 'a sweep of v1 results');
like(BBTest::slurp("$old/sweep.txt"), qr/^\s+3\s+3\.50\s+42\.5\s+2\s+0\s+4\s+INVALID \(1\)\s+r\n.*^  3 users: TR timeout 2$/ms,
     'read as well');

is(run_report('bb-sweep-report', tmpdir())->{rc}, 1, 'no runs.txt: exit 1');
is(run_report('bb-sweep-report')->{rc}, 2, 'no argument: exit 2');
is(run_report('bb-sweep-report', '--help')->{rc}, 0, '--help: exit 0');

# The sweep's decision (controller/sweep): grew by more than the threshold, or beat the best.
{
  use BrokerBench::Sweep qw(progress);
  is_deeply([progress(10.6, 10, 5)], [1, 1], '10.6 over a best of 10 at 5 %: grew, and the new best');
  is_deeply([progress(10.4, 10, 5)], [0, 1], '10.4: not grown enough (flat), but the new best');
  is_deeply([progress(10.5, 10, 5)], [0, 1], 'exactly 5 % is not more than 5 %');
  is_deeply([progress(9.0, 10, 5)], [0, 0], '9.0: flat, the best stays');
  is_deeply([progress(0.01, 0, 5)], [1, 1], 'the first run grows over nothing');
  is_deeply([progress(10.04, 10, 0.5)], [0, 1], 'a decimal threshold: 0.5 % of 10 is 0.05, 0.04 is flat');
  is_deeply([progress(10.06, 10, 0.5)], [1, 1], 'and 0.06 grew');
}

done_testing();
