# bb-sweep-report on a sweep over memory (controller/sweep --db-memory LIST, issue 38 item 5):
# runs.txt names each run by its cap; the table and the plot come from the runs' results.json
# (written here with known figures, and one made by bb-report from run.conf's db_memory keys).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use JSON::PP ();
use BBTest qw(write_file tmpdir valid_run run_report slurp);
use BrokerBench::Gnuplot qw(png_ok);
use BrokerBench::Sweep qw(run_figures is_memory_cap);

my $DB = 1_000_000_000;   # the database's size at each run's start (bytes)

# A results.json with the figures a sweep over memory reads: the cap and the cgroup's peak
# (settings), TRTPS, the Trade-Result p90, errors, the verdict, the data device's reads and the
# buffer hit ratio (device_io).
sub results_json {
  my (%o) = @_;
  my $devices = $o{devices} // [
    { device => 'vda', role => 'data and WAL', reads_per_txn => $o{reads_per_txn},
      reads_per_s => $o{reads_per_s} },
    { device => 'vdb', role => 'WAL', reads_per_txn => 99, reads_per_s => 999 }];
  return JSON::PP->new->canonical->encode({
    format => 'brokerbench results v2',
    settings => { users => 10, pacing_s => 0.562, db_memory => $o{cap},
                  db_memory_bytes => $o{bytes}, db_memory_database_bytes => $DB,
                  db_memory_peak_bytes => $o{peak}, db_memory_oom_kills => $o{oom} // 0 },
    trtps => { measured_tpse => $o{trtps} },
    transactions => { TR => { response_time_p90_ms => $o{p90}, errors => $o{errors} // 0,
                              invalid => 0, retries => 0,
                              error_outcomes => { db_error => $o{errors} // 0 } } },
    verdict => { text => $o{verdict} // 'VALID', reasons => $o{reasons} // [] },
    device_io => { hosts => [{ host => 'db1', devices => $devices }],
                   postgres => { hit => { hit_ratio_pct => $o{hit} } } },
  });
}

my $sweep = tmpdir();
my %run = (
  '100%' => { cap => '100%', bytes => 1_000_000_000, trtps => 2.00, p90 => 12.5,
              reads_per_txn => 0.05, reads_per_s => 1.0, hit => 99.9, peak => 700_000_000 },
  '50%'  => { cap => '50%', bytes => 500_000_000, trtps => 1.98, p90 => 20.0,
              reads_per_txn => 1.5, reads_per_s => 30.0, hit => 98.0, peak => 500_000_000 },
  '8%'   => { cap => '8%', bytes => 80_000_000, trtps => 1.20, p90 => 480.25,
              reads_per_txn => 12.25, reads_per_s => 245.0, hit => 91.5, peak => 80_000_000,
              oom => 1, errors => 3, verdict => 'INVALID', reasons => [{}, {}] },
);
# Given in the sweep's order, not the cap's: 50 %, then 100 %, then 8 %.
for my $cap ('50%', '100%', '8%') {
  write_file("$sweep/runs/$cap/results.json", results_json(%{ $run{$cap} }));
}
write_file("$sweep/runs.txt", "50%\truns/50%\n100%\t$sweep/runs/100%\n8%\truns/8%\n25%\truns/none\n");

my $res = run_report('bb-sweep-report', $sweep);
is($res->{rc}, 0, 'exit 0') or diag $res->{err};
is($res->{out}, "Sweep: $sweep/sweep.txt\nPlot: $sweep/sweep.png\n", 'prints the paths');
like($res->{err}, qr{runs/none/results\.json: cannot open}, 'a run without results.json is named');
my $txt = slurp("$sweep/sweep.txt");
like($txt, qr/\AA sweep over the database's memory: .*at 10 users, pacing 0\.562 s \(the database 953\.7 MiB at the first run\)\.\n/s,
     'what was held fixed, from the runs');
like($txt, qr/^Cap\s+Cap \(MiB\)\s+Of DB\s+TRTPS\s+TR p90 \(ms\)\s+Reads\/txn\s+Reads\/s\s+Hit %\s+Peak \(MiB\)\s+OOM kills\s+Errors\s+Verdict\s+Results$/m,
     'the columns');
like($txt, qr/^50%\s+476\.8\s+50\.0 %\s+1\.98\s+20\.0\s+1\.50\s+30\.0\s+98\.00\s+476\.8\s+0\s+0\s+VALID\s+runs\/50%\n100%\s/m,
     '50 % first, as the sweep ran it: its cap, figures and verdict');
like($txt, qr/^100%\s+953\.7\s+100\.0 %\s+2\.00\s+12\.5\s+0\.05\s+1\.0\s+99\.90\s+667\.6\s+0\s+0\s+VALID\s/m,
     '100 %: the data device only (not the WAL device\'s reads)');
like($txt, qr/^8%\s+76\.3\s+8\.0 %\s+1\.20\s+480\.2\s+12\.25\s+245\.0\s+91\.50\s+76\.3\s+1\s+3\s+INVALID \(2\)\s/m,
     '8 %: an OOM kill, 3 errors, INVALID for 2 reasons');
like($txt, qr/^25%\s+n\/a\s+n\/a\s+n\/a\s.*\s-\s+no report\s+runs\/none$/m, '25 %: no report');
like($txt, qr/^Errors and invalid transactions in the MI:\n  8%: TR db_error 3\n/m, 'which errors');
like($txt, qr/^Reads\/txn and Reads\/s = read requests of the data directory's block device/m,
     'the columns explained');

my $dat = slurp("$sweep/plot-data/sweep.dat");
my @dat = grep { !/\A#/ } split /\n/, $dat;
is_deeply([map { (split ' ')[8] } @dat], ['8%', '50%', '100%'], 'the plot by cap, smallest first');
is($dat[0], '76.294 1.2000 480.250 12.2500 91.500 0 80000000 1 8%', 'the data of the 8 % run');
my $gp = slurp("$sweep/plot-data/sweep.gp");
like($gp, qr/^set xtics \("8%%\\n76 MiB" 76\.294, "50%%\\n477 MiB" 476\.837, "100%%\\n954 MiB" 953\.674\)$/m,
     'a tick at each cap, named by its --db-memory');
like($gp, qr/^set logscale x 2$/m, 'caps from 8 % to 100 %: a log scale');
like($gp, qr/^set multiplot layout 3,1 /m, 'three panels');
like($gp, qr/using 1:3 with linespoints .* title 'TR p90'/, 'one of the Trade-Result p90');
like($gp, qr/using 1:4 with linespoints .* title 'device reads\/txn'/, 'one of the device reads');
like($gp, qr/axes x1y2 .* title 'hit ratio %'/, 'the hit ratio beside them');
like($gp, qr/using 1:\(\$8 > 0 \? \$2 : NaN\) .* title 'OOM kill\(s\)'/, 'a run with OOM kills marked');
ok(png_ok("$sweep/sweep.png"), 'sweep.png is a PNG');
cmp_ok(-s "$sweep/sweep.png", '>', 5000, 'of a reasonable size');

# A run reported by bb-report from run.conf's db_memory keys (controller/lib/database.sh): its
# results.json gives the sweep the cap and the peak as numbers; no sys/: no device reads, said.
my $real = tmpdir();
valid_run("$real/r");
open my $fh, '>>', "$real/r/run.conf" or die $!;
print {$fh} "db_memory=25%\ndb_memory_bytes=268435456\ndb_memory_database_bytes=1073741824\n"
            . "db_memory_cgroup=v2 /sys/fs/cgroup/brokerbench-pg-1\ndb_memory_settings=\n"
            . "db_memory_peak_bytes=268431360\ndb_memory_oom_kills=0\n";
close $fh;
is(run_report('--no-plots', '--quiet', "$real/r")->{rc}, 0, 'bb-report on a capped run');
write_file("$real/runs.txt", "25%\tr\n");
$res = run_report('bb-sweep-report', $real);
is($res->{rc}, 0, 'a sweep of one reported run') or diag $res->{err};
like($res->{err}, qr/sweep\.png: no run has reads of a data device/, 'the plot says what it lacks');
$txt = slurp("$real/sweep.txt");
like($txt, qr/^25%\s+256\.0\s+25\.0 %\s+2\.00\s+20\.0\s+n\/a\s+n\/a\s+n\/a\s+256\.0\s+0\s+0\s+VALID\s+r$/m,
     'its row: cap and peak from run.conf, no device figures');
like($txt, qr/^No device reads:\n  25%: no sys\/<host>\/io-devices\.conf/m, 'and why not');
my $one = slurp("$real/plot-data/sweep.gp");
like($one, qr/^set multiplot layout 2,1 /m, 'two panels');
unlike($one, qr/OOM/, 'no OOM kill, no mark of one');
ok(png_ok("$real/sweep.png"), 'still a PNG');

# runs.txt: users and caps do not mix; a line that is neither is named.
my $mixed = tmpdir();
write_file("$mixed/r/results.json", results_json(%{ $run{'50%'} }));
write_file("$mixed/runs.txt", "50%\tr\n4\tr\n2x\tr\n");
$res = run_report('bb-sweep-report', $mixed);
is($res->{rc}, 0, 'a runs.txt with bad lines: the rest reported');
like($res->{err}, qr/runs\.txt:2: a run of a sweep over users in a sweep over memory: '4\tr'/,
     'a users line among caps named');
like($res->{err}, qr/runs\.txt:3: not 'users<TAB>results_dir' or 'cap<TAB>results_dir'.*: '2x\tr'/,
     'a line that is neither named');

# The figures of one results.json, and what a cap looks like.
{
  my $f = run_figures(JSON::PP::decode_json(results_json(%{ $run{'8%'} }, devices => [
    { device => 'sda', role => 'data', reads_per_txn => 2, reads_per_s => 20 },
    { device => 'sdb', role => 'data', reads_per_txn => 3, reads_per_s => 30 },
    { device => 'sdc', role => 'WAL', reads_per_txn => 5, reads_per_s => 50 }])));
  is_deeply([@$f{qw(dev_reads_per_txn dev_reads_per_s)}], [5, 50],
            'data on two devices: their reads added, the WAL device\'s not');
  is_deeply([@$f{qw(cap_request cap_bytes peak_bytes oom_kills hit_ratio_pct)}],
            ['8%', 80_000_000, 80_000_000, 1, 91.5], 'the cap, peak, OOM kills, hit ratio');
  my $g = run_figures({ device_io => { why => 'no sys/<host>/io-devices.conf: ...' } });
  is($g->{dev_why}, 'no sys/<host>/io-devices.conf: ...', 'no devices: why');
  ok(is_memory_cap($_), "$_ is a cap") for qw(8% 0.5% 100% 256M 1.5G 2GiB 1024MB);
  ok(!is_memory_cap($_), "$_ is not") for qw(8 256 % 8%% M 1.2.3G -1G);
}

done_testing();
