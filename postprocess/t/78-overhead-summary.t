# bb-bench-summary's tables of bench overhead: --vs-pgbench's medians per frames mode and
# connections from made-up runs whose medians are known, the per-run lines made from what pgbench,
# bb-netbench and the CPU samplers measured, and bad lines named with their file, line and value.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use BBTest qw(write_file tmpdir);
use BrokerBench::OverheadSummary qw(pgbench_table pgbench_run_line bh_run_line overhead_tables);

my $PROGRAM = "$FindBin::RealBin/../bb-bench-summary";
my $dir = tmpdir();

subtest 'pgbench: medians per frames mode and connections' => sub {
  write_file("$dir/runs.txt", <<'RUNS');
frames=server connections=1 pair=1 driver=pgbench tps=3000.0 txns=60000 seconds=20 driver_us=28.00 pg_us=300.00
frames=server connections=1 pair=1 driver=bh tps=2400.0 txns=48000 errors=0 bh_us=87.00 client_us=20.00 driver_us=107.00 pg_us=310.00
frames=server connections=1 pair=2 driver=bh tps=2500.0 txns=50000 errors=0 bh_us=85.00 client_us=21.00 driver_us=106.00 pg_us=305.00
frames=server connections=1 pair=2 driver=pgbench tps=3100.0 txns=62000 seconds=20 driver_us=30.00 pg_us=296.00
frames=client connections=4 pair=1 driver=pgbench tps=5000.0 txns=100000 seconds=20 driver_us=60.00 pg_us=300.00
frames=client connections=4 pair=1 driver=bh tps=4000.0 txns=80000 errors=0 bh_us=130.00 client_us=20.00 driver_us=150.00 pg_us=330.00
frames=client connections=4 pair=2 driver=bh tps=3000.0 txns=60000 errors=0 bh_us=140.00 client_us=10.00 driver_us=150.00 pg_us=360.00
frames=client connections=4 pair=2 driver=pgbench tps=7000.0 txns=140000 seconds=20 driver_us=50.00 pg_us=340.00
frames=client connections=4 pair=3 driver=pgbench tps=6000.0 txns=120000 seconds=20 driver_us=40.00 pg_us=320.00
frames=client connections=4 pair=3 driver=bh tps=3500.0 txns=70000 errors=0 bh_us=135.00 client_us=30.00 driver_us=165.00 pg_us=345.00
RUNS
  my $t = pgbench_table("$dir/runs.txt");
  my @rows = map { join ' ', (split ' ')[0, 1] } grep { /^(server|client) / } split /\n/, $t;
  is_deeply(\@rows, ['server 1', 'client 4'], "one line per frames mode and connections, in the runs' order");
  # server 1: two runs each: pgbench 3050/s, 29.0 us, PG 298.0; BH 2450/s, 86.0 + 20.5 = 106.5 us, PG 307.5.
  like($t, qr/^server +1 +3050\.0 +2450\.0 +0\.80x +29\.0 +86\.0 +20\.5 +106\.5 +3\.67x +298\.0 +307\.5 +1\.03x$/m,
       'medians of two runs, and their ratios');
  # client 4: three runs each: pgbench 6000/s, 50.0 us, PG 320.0; BH 3500/s, 135.0 + 20.0 = 150.0, PG 345.0.
  like($t, qr/^client +4 +6000\.0 +3500\.0 +0\.58x +50\.0 +135\.0 +20\.0 +150\.0 +3\.00x +320\.0 +345\.0 +1\.08x$/m,
       'medians of three runs, and their ratios');
  my $out = qx{$^X $PROGRAM pgbench $dir/runs.txt 2>&1};
  is($? >> 8, 0, 'bb-bench-summary pgbench exits 0');
  is($out, $t, 'and prints the same table');
};

subtest 'pgbench: bad lines are named' => sub {
  write_file("$dir/bad.txt", "frames=server connections=1 pair=1 driver=pgbench tps=3000.0 driver_us=28.00 pg_us=300.00\n"
             . "frames=server connections=1 pair=1 driver=bh tps=2,400 driver_us=1 pg_us=1\n");
  my $out = qx{$^X $PROGRAM pgbench $dir/bad.txt 2>&1};
  is($? >> 8, 1, 'a malformed figure: exit 1');
  like($out, qr{\Abb-bench-summary: \Q$dir\E/bad\.txt:2: tps: '2,400' is not a number$}m,
       'it names the file, the line, the field and the value');
  write_file("$dir/bad2.txt", "frames=server connections=1 driver=psql tps=1\n");
  like(qx{$^X $PROGRAM pgbench $dir/bad2.txt 2>&1}, qr{bad2\.txt:1: driver: 'psql' is neither pgbench nor bh},
       'an unknown driver is named');
};

subtest 'pgbench-run: one pgbench run from its report' => sub {
  my $report = <<'PGBENCH';
pgbench (15.8 (Debian 15.8-0+deb12u1))
transaction type: ts-server.sql
scaling factor: 1
query mode: prepared
number of clients: 1
number of threads: 1
duration: 20 s
number of transactions actually processed: 60000
latency average = 0.333 ms
tps = 3000.123456 (without initial connection time)
PGBENCH
  # pgbench's CPU 1m0.500s + 0m1.500s = 62 s over 60000 transactions = 1033.33 us; PostgreSQL
  # 18 000 000 us / 60000 = 300.00 us.
  is(pgbench_run_line($report, '1m0.500s 0m1.500s', 18_000_000),
     "tps=3000.1 txns=60000 seconds=20 driver_us=1033.33 pg_us=300.00\n", 'the line');
  write_file("$dir/pgbench.out", $report);
  is(qx{$^X $PROGRAM pgbench-run --pg-us 18000000 --times '1m0.500s 0m1.500s' - <$dir/pgbench.out 2>&1},
     "tps=3000.1 txns=60000 seconds=20 driver_us=1033.33 pg_us=300.00\n", 'bb-bench-summary pgbench-run');
  ok(!eval { pgbench_run_line($report, '1.5s 2s', 1); 1 }, 'a times line of another shape is refused');
  like($@, qr/--times: '1\.5s 2s' is not the shell's `times` line/, 'and named');
  ok(!eval { pgbench_run_line("pgbench: error: connection refused\n", '0m0.1s 0m0.1s', 1); 1 },
     'a failed pgbench is refused');
  like($@, qr/no 'number of transactions actually processed: N' line/, 'saying what is missing');
  ok(!eval { pgbench_run_line($report, '0m0.1s 0m0.1s', '12.5'); 1 }, 'a bad --pg-us is refused');
  like($@, qr/--pg-us: '12\.5' is not a number of microseconds/, 'and named');
};

subtest 'bh-run: one Brokerage House run from bb-netbench client' => sub {
  my $line = 'mode=bh connections=4 threads=1 seconds=20.00 requests=70010 completed=70000 rps=3500 '
           . 'p50_us=900 p99_us=2000 max_us=9000 request_bytes=60 reply_bytes=80 client_cpu_cores=0.10 '
           . 'client_cpu_us_per_req=20.00 errors=0';
  # BH 9 450 000 us / 70000 = 135.00; + 20.00 = 155.00; PostgreSQL 24 150 000 / 70000 = 345.00.
  is(bh_run_line($line, 9_450_000, 24_150_000),
     "tps=3500.0 txns=70000 errors=0 bh_us=135.00 client_us=20.00 driver_us=155.00 pg_us=345.00\n", 'the line');
  is(qx{echo '$line' | $^X $PROGRAM bh-run --bh-us 9450000 --pg-us 24150000 - 2>&1},
     "tps=3500.0 txns=70000 errors=0 bh_us=135.00 client_us=20.00 driver_us=155.00 pg_us=345.00\n",
     'bb-bench-summary bh-run');
  (my $none = $line) =~ s/completed=70000/completed=0/;
  like(bh_run_line($none, 7_001_000, 0), qr/txns=70010 .* bh_us=100\.00 /, 'none completed: per request sent');
  (my $bad = $line) =~ s/rps=3500/rps=fast/;
  ok(!eval { bh_run_line($bad, 1, 1); 1 }, 'a malformed figure is refused');
  like($@, qr/rps: 'fast' is not a number/, 'and named');
};

subtest 'overhead: a bad records line is named' => sub {
  write_file("$dir/records.tsv", "server\t1\t/nowhere\n");
  my $out = qx{$^X $PROGRAM overhead $dir/records.tsv 2>&1};
  is($? >> 8, 1, 'exit 1');
  like($out, qr{records\.tsv:1: 'server\t1\t/nowhere' is not variant<TAB>run<TAB>results directory<TAB>pidstat file},
       'it names the file, the line and the line');
  write_file("$dir/records2.tsv", "server\t1\t$dir/no-run\t$dir/pidstat.txt\n");
  like(qx{$^X $PROGRAM overhead $dir/records2.tsv 2>&1}, qr{no-run/results\.json: No such file},
       'a results directory without results.json is named');
};

done_testing();
