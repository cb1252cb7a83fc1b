# bb-sweep-report: a table and a plot from the runs of a sweep.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use BBTest qw(write_file tmpdir valid_run run_report);
use BrokerBench::Plots qw(png_ok);

my $sweep = tmpdir();
my @lines;
# Three runs: 100 Trade-Results over 50, 25 and 20 s = 2, 4 and 5 tpsE.
for my $run ([4, 50], [8, 25], [16, 20]) {
  my ($users, $mi) = @$run;
  my $d = "$sweep/run-$users";
  valid_run($d, mi_s => $mi);
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
like($txt, qr/^\s+4\s+2\.00\s+0\.020\s+VALID/m, '4 users: 2.00 tpsE, p90 0.020 s, VALID');
like($txt, qr/^\s+8\s+4\.00\s+0\.020\s+INVALID/m, '8 users: 4.00 tpsE (relative path), INVALID (200 % of nominal)');
like($txt, qr/^\s+16\s+5\.00\s+/m, '16 users: 5.00 tpsE');
like($txt, qr/^\s+32\s+n\/a\s+n\/a\s+no report/m, '32 users: no report');
ok(png_ok("$sweep/sweep.png"), 'sweep.png is a PNG');
cmp_ok(-s "$sweep/sweep.png", '>', 5000, 'of a reasonable size');

is(run_report('bb-sweep-report', tmpdir())->{rc}, 1, 'no runs.txt: exit 1');
is(run_report('bb-sweep-report')->{rc}, 2, 'no argument: exit 2');
is(run_report('bb-sweep-report', '--help')->{rc}, 0, '--help: exit 0');

done_testing();
