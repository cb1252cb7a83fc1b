# bb-bench-summary: the tables of bench load and bench harness from hand-made figures files
# whose medians and ratios are worked out by hand below, and bad figure lines named with their
# file, line, field and value.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use BBTest qw(write_file tmpdir);
use BrokerBench::Stats qw(median);
use BrokerBench::BenchSummary qw(load_table harness_table read_figures ce_run_line mee_mix_figures);
use BrokerBench::EndRecord qw(end_record_text);

my $PROGRAM = "$FindBin::RealBin/../bb-bench-summary";
my $dir = tmpdir();

# A bb-loader --report with these phase seconds (prepare 0.1 and row counts 0.2 besides).
sub loader_report {
  my ($path, $gen, $keys, $analyze, $fk) = @_;
  my @p = (['prepare', 0.1], ['generate+COPY', $gen], ['row counts', 0.2],
           ['keys and indexes', $keys], ['analyze', $analyze], ['foreign keys', $fk]);
  write_file($path, '{"customers": 2000, "scale_factor": 500, "initial_trade_days": 2, "jobs": 2, '
             . '"phases": [' . join(', ', map {
               sprintf '{"name": "%s", "seconds": %.3f, "rows": 0, "bytes": 0, "steps": 0}', @$_ } @p)
             . "]}\n");
  return $path;
}

subtest 'median' => sub {
  is(median(3, 1, 2), 2, 'odd count: the middle value');
  is(median(4, 1, 3, 2), 2.5, 'even count: the mean of the two middle values');
  is(median(10, undef, 2), 6, 'undefined values are left out');
  is(median(), undef, 'no value: undef');
};

subtest 'bench load: three pairs' => sub {
  # Data phase 4.0, 5.0, 4.5 s against ceilings of 4, 4, 5 s: ratios 1.00, 1.25, 0.90 (median
  # 1.00). Full builds (every phase) 8.0, 9.0, 9.0 s: ratios 2.00, 2.25, 1.80 (median 2.00).
  my @r = (loader_report("$dir/l1.json", 4.0, 2.0, 0.4, 1.3),
           loader_report("$dir/l2.json", 5.0, 2.2, 0.5, 1.0),
           loader_report("$dir/l3.json", 4.5, 2.1, 0.6, 1.5));
  write_file("$dir/load.txt", "size customers=2000 days=2 rows=9000000 bytes=900000000\n"
             . "pair 1 report=$r[0] ceiling_ns=4000000000 db_bytes=1048576000\n"
             . "pair 2 report=$r[1] ceiling_ns=4000000000 db_bytes=2097152000\n"
             . "pair 3 report=$r[2] ceiling_ns=5000000000 db_bytes=1572864000\n");
  my $want = <<'TABLE';

== 2000 customers, 2 initial trade days: 9000000 rows, 900.0 MB of COPY text
phase                    seconds       rows/s      MB/s
generate+COPY               4.50      2000000     200.0
keys and indexes            2.10                       
analyze                     0.50                       
foreign keys                1.30                       
ceiling: COPY FROM file      4.00      2250000     225.0
loader data phase / ceiling: median of 3 pairs 1.00x (pairs: 4.00/4.00, 5.00/4.00, 4.50/5.00)
full build (every phase) / ceiling: median of 3 pairs 2.00x (pairs: 8.00/4.00, 9.00/4.00, 9.00/5.00)
database size after the load: 1500 MB (750 MB per 1000 customers)
TABLE
  is(load_table("$dir/load.txt"), $want, 'medians, rates, ratios and the size');
  my $out = qx{$^X $PROGRAM load $dir/load.txt 2>&1};
  is($? >> 8, 0, 'bb-bench-summary load exits 0');
  is($out, $want, 'bb-bench-summary load prints the same table');
};

subtest 'bench load: two pairs take the mean of the middle two' => sub {
  write_file("$dir/load2.txt", "size customers=1000 days=2 rows=100 bytes=1000\n"
             . "pair 1 report=$dir/l1.json ceiling_ns=4000000000 db_bytes=1048576000\n"
             . "pair 2 report=$dir/l2.json ceiling_ns=5000000000 db_bytes=2097152000\n");
  my $t = load_table("$dir/load2.txt");
  like($t, qr/^generate\+COPY +4\.50 /m, 'data phase: (4.0 + 5.0) / 2');
  like($t, qr/^ceiling: COPY FROM file +4\.50 /m, 'ceiling: (4 + 5) / 2');
  like($t, qr/median of 2 pairs 1\.00x \(pairs: 4\.00\/4\.00, 5\.00\/5\.00\)/, 'ratio: (1.00 + 1.00) / 2');
  like($t, qr/database size after the load: 1500 MB/, 'size: (1000 + 2000) / 2 MB');
};

# The error of bb-bench-summary on a file with $text, and its exit status.
sub failure {
  my ($what, $name, $text, @opts) = @_;
  write_file("$dir/$name", $text);
  my $out = qx{$^X $PROGRAM $what @opts $dir/$name 2>&1};
  return ($? >> 8, $out);
}

subtest 'bench load: bad input is named' => sub {
  my ($rc, $out) = failure('load', 'bad1.txt', "size customers=1000 days=2 rows=100 bytes=1000\n"
                           . "pair 1 report=$dir/l1.json ceiling_ns=4.2s db_bytes=1\n");
  is($rc, 1, 'a malformed figure: exit 1');
  like($out, qr{\Abb-bench-summary: \Q$dir\E/bad1\.txt:2: ceiling_ns: '4\.2s' is not a number$}m,
       'it names the file, the line, the field and the value');
  ($rc, $out) = failure('load', 'bad2.txt', "size customers=1000 days=2 rows=100\n");
  like($out, qr{bad2\.txt:1: size: no field bytes$}m, 'a missing field is named');
  ($rc, $out) = failure('load', 'bad3.txt', "size customers=1000 days=2 rows=100 bytes=1\n"
                        . "pair x report=$dir/l1.json ceiling_ns=1 db_bytes=1\n");
  like($out, qr{bad3\.txt:2: pair: 'x' is not a whole number$}m, 'a bad pair number is named');
  write_file("$dir/short.json", '{"phases": [{"name": "generate+COPY", "seconds": 1.0}]}');
  ($rc, $out) = failure('load', 'bad4.txt', "size customers=1000 days=2 rows=100 bytes=1\n"
                        . "pair 1 report=$dir/short.json ceiling_ns=1 db_bytes=1\n");
  like($out, qr{short\.json: no phase 'keys and indexes'$}m, 'a report without a phase is named');
  write_file("$dir/broken.json", '{"phases": [');
  ($rc, $out) = failure('load', 'bad5.txt', "size customers=1000 days=2 rows=100 bytes=1\n"
                        . "pair 1 report=$dir/broken.json ceiling_ns=1 db_bytes=1\n");
  like($out, qr{broken\.json: not a bb-loader report}m, 'a report that is not JSON is named');
  ($rc, $out) = failure('load', 'bad6.txt', "size customers=1000 days=2 rows=100 bytes=1\n");
  like($out, qr{bad6\.txt: no pair line}m, 'no pair at all is said');
  ($rc, $out) = failure('load', 'missing.txt', '');
  unlink "$dir/missing.txt";
  $out = qx{$^X $PROGRAM load $dir/missing.txt 2>&1};
  is($? >> 8, 1, 'a file that does not exist: exit 1');
  like($out, qr{missing\.txt: No such file}, 'and it is named');
};

# A bb-netbench client line plus the server's ticks.
sub run_line {
  my ($pair, $mode, $c, %f) = @_;
  return "pair $pair mode=$mode connections=$c threads=1 seconds=3.00 requests=$f{completed} "
       . "completed=$f{completed} rps=$f{rps} p50_us=$f{p50} p99_us=$f{p99} max_us=900 "
       . "request_bytes=60 reply_bytes=$f{reply} client_cpu_cores=$f{cores} "
       . "client_cpu_us_per_req=1.00 errors=0 server_ticks=$f{ticks} io_ticks=$f{io}\n";
}

subtest 'bench harness: medians per connections and the median of the pair ratios' => sub {
  # At 100 ticks a second. 1 connection, pair 1: BH 10000/s, 150 ticks (1.5 s) over 30000
  # replies = 50.0 us/req, I/O 90 ticks = 30.0 us, 0.50 cores over 3 s; echo 20000/s, 60
  # ticks over 60000 = 10.0 us, I/O 10.0, 0.20 cores. Pair 2 (echo first): BH 12000/s, 180
  # over 36000 = 50.0, I/O 108 = 30.0, 0.60 cores; echo 20000/s, 66 over 60000 = 11.0, I/O
  # 11.0, 0.22 cores. Medians of two: BH 11000/s, echo 20000/s, ratios 0.50 and 0.60 -> 55 %.
  my $runs = run_line(1, 'bh', 1, completed => 30000, rps => 10000, p50 => 90, p99 => 200,
                      reply => 80, cores => '0.50', ticks => 150, io => 90)
           . run_line(1, 'echo', 1, completed => 60000, rps => 20000, p50 => 40, p99 => 100,
                      reply => 60, cores => '0.40', ticks => 60, io => 60)
           . run_line(2, 'echo', 1, completed => 60000, rps => 20000, p50 => 50, p99 => 120,
                      reply => 60, cores => '0.50', ticks => 66, io => 66)
           . run_line(2, 'bh', 1, completed => 36000, rps => 12000, p50 => 100, p99 => 300,
                      reply => 80, cores => '0.60', ticks => 180, io => 108)
           . run_line(1, 'bh', 16, completed => 90000, rps => 30000, p50 => 500, p99 => 900,
                      reply => 80, cores => '0.90', ticks => 270, io => 180)
           . run_line(1, 'echo', 16, completed => 120000, rps => 40000, p50 => 400, p99 => 800,
                      reply => 60, cores => '0.80', ticks => 120, io => 120);
  write_file("$dir/runs.txt", $runs);
  my $t = harness_table("$dir/runs.txt", 100);
  like($t, qr{^    1      11000      20000     55%      50\.0      10\.5    30\.0/10\.5    0\.55/0\.21       95/250       45/110    0\.55/0\.45$}m,
       '1 connection: the medians of two pairs');
  like($t, qr{^   16      30000      40000     75%      30\.0      10\.0    20\.0/10\.0    0\.90/0\.40      500/900      400/800    0\.90/0\.80$}m,
       '16 connections: one pair');
  like($t, qr/\n    1 .*\n   16 /, 'the connections in the order of the runs');
  like($t, qr{^BH: 60-byte request, 80-byte reply; echo: 60-byte request, 60-byte reply\.$}m, 'the frame sizes');
  like($t, qr{^      1 connections: 10000/20000, 12000/20000$}m, 'the pairs of 1 connection, in round order');
  like($t, qr{^     16 connections: 30000/40000$}m, 'the pair of 16 connections');
  my $out = qx{$^X $PROGRAM harness --clock-ticks 100 $dir/runs.txt 2>&1};
  is($out, $t, 'bb-bench-summary harness prints the same table');
};

subtest 'bench harness: bad input is named' => sub {
  my ($rc, $out) = failure('harness', 'hbad1.txt',
                           run_line(1, 'bh', 1, completed => 30000, rps => 'abc', p50 => 90, p99 => 200,
                                    reply => 80, cores => '0.50', ticks => 150, io => 90),
                           '--clock-ticks', 100);
  is($rc, 1, 'a malformed figure: exit 1');
  like($out, qr{hbad1\.txt:1: rps: 'abc' is not a number$}m, 'it names the file, the line, the field and the value');
  ($rc, $out) = failure('harness', 'hbad2.txt',
                        run_line(1, 'bh', 1, completed => 30000, rps => 1, p50 => 90, p99 => 200,
                                 reply => 80, cores => '0.50', ticks => 150, io => 90),
                        '--clock-ticks', 100);
  like($out, qr{hbad2\.txt: 1 connections, pair 1: no echo run$}m, 'a pair without its echo run is named');
  ($rc, $out) = failure('harness', 'hbad3.txt', "pair 1 mode=bh connections=1 rps=1\n", '--clock-ticks', 100);
  like($out, qr{hbad3\.txt:1: pair: no field completed$}m, 'a missing field is named');
  ($rc, $out) = failure('harness', 'hbad4.txt', "", '--clock-ticks', 'x');
  like($out, qr{clock ticks per second: 'x' is not a positive number}, 'a bad --clock-ticks is named');
  ($rc, $out) = failure('harness', 'hbad5.txt', "");
  is($rc, 2, 'harness without --clock-ticks: exit 2');
  like($out, qr{harness: --clock-ticks is needed}, 'and says so');
  my $usage = qx{$^X $PROGRAM 2>&1};
  is($? >> 8, 2, 'no table named: exit 2');
  like($usage, qr{name a table: load, harness, overhead}, 'and says which');
};

subtest 'read_figures skips other kinds, blank lines and comments' => sub {
  write_file("$dir/mixed.txt", "# a comment\n\nnote free text here\nsize a=1 b=2\n");
  my @r = read_figures("$dir/mixed.txt", { size => ['a'] });
  is(scalar @r, 1, 'one record');
  is($r[0]{line}, 4, 'its line number');
  is($r[0]{f}{b}, 2, 'and its fields');
};

subtest 'bench ce: one emulator from its end-of-run record' => sub {
  write_file("$dir/ce.end", end_record_text([program => 'bb-customer-emulator'], [stop => 'duration'],
    [sent => 50010], [rows => 50005], [in_flight => 0], [errors => 3], [measured_s => '20.000'],
    [measured_transactions => 41000], [dispatch_lateness_p50_us => 120], [dispatch_lateness_p99_us => 900]));
  # 41000 / 20 s = 2050.0/s; 204800 kB / 100 users = 2048.0; 50005 rows - 50000 logged = 5 lost;
  # 1 000 100 us of CPU / 50005 rows = 20.00 us a row.
  my $want = "users=100 hwm_kb=204800 rss_kb=200000 kib_per_user=2048.0 tps=2050.0 measured_s=20.0 "
           . "errors=3 rows_lost=5 lateness_p50_us=120 lateness_p99_us=900 cpu_us_per_row=20.00\n";
  is(ce_run_line("$dir/ce.end", users => 100, hwm_kb => 204800, rss_kb => 200000, logged => 50000,
                 cpu_us => 1000100),
     $want, 'the line');
  is(qx{$^X $PROGRAM ce-run --users 100 --hwm-kb 204800 --rss-kb 200000 --logged-rows 50000 --cpu-us 1000100 $dir/ce.end 2>&1},
     $want, 'bb-bench-summary ce-run');
  my $out = qx{$^X $PROGRAM ce-run --users 100 --hwm-kb 2x --rss-kb 1 --logged-rows 1 --cpu-us 1 $dir/ce.end 2>&1};
  is($? >> 8, 1, 'a bad figure: exit 1');
  like($out, qr/--hwm-kb: '2x' is not a whole number/, 'named with its value');
  like(qx{$^X $PROGRAM ce-run --users 1 --hwm-kb 1 --rss-kb 1 --logged-rows 1 --cpu-us 1.5 $dir/ce.end 2>&1},
       qr/--cpu-us: '1\.5' is not a whole number/, 'a bad CPU figure named with its value');
  write_file("$dir/ce-bad.end", end_record_text([program => 'bb-customer-emulator'], [stop => 'duration'],
    [sent => 1], [rows => 1], [in_flight => 0], [errors => 0], [measured_s => 'twenty'],
    [measured_transactions => 1], [dispatch_lateness_p50_us => 1], [dispatch_lateness_p99_us => 1]));
  like(qx{$^X $PROGRAM ce-run --users 1 --hwm-kb 1 --rss-kb 1 --logged-rows 1 --cpu-us 1 $dir/ce-bad.end 2>&1},
       qr{ce-bad\.end: measured_s: 'twenty' is not a number}, 'a bad value of the record is named');
  like(qx{$^X $PROGRAM ce-run --users 1 --hwm-kb 1 --rss-kb 1 --logged-rows 1 --cpu-us 1 $dir/none.end 2>&1},
       qr{none\.end: no such record}, 'a missing record is named');
};

subtest 'bench mee: the figures of a mix log' => sub {
  # Trade-Results sent once a second from t = 0 to 20 s (21 rows, one of them a rollback), and
  # 5 Market-Feeds: TR ok 20, MF ok 5; the rate over 5..15 s: 11 rows / 10 s = 1.1 -> 1.
  my $log = "# brokerbench mix log v2\nstart_us,code,spec_status,outcome,response_us,retries,user,wait_us,inputs\n";
  my $t0 = 1_700_000_000_000_000;
  for my $i (0 .. 20) {
    $log .= sprintf "%d,TR,0,%s,%d,0,1,%d,\n", $t0 + $i * 1_000_000, $i == 7 ? 'rollback' : 'ok', 1000 + $i, 10 * $i;
  }
  $log .= sprintf "%d,MF,0,ok,%d,0,2,%d,\n", $t0 + $_ * 1_000_000, 5000 + $_, 500 + $_ for 1 .. 5;
  $log .= "$t0,STOP,0,ok,0,0,0,0,\n";
  write_file("$dir/mix-mee.csv", $log);
  # p99 of 26 values by nearest rank: the 26th, the largest: wait 505, response 5005.
  is(mee_mix_figures("$dir/mix-mee.csv"), "20 5 1 505 5005\n", 'TR, MF, TR/s, p99 wait, p99 response');
  is(qx{$^X $PROGRAM mee-mix $dir/mix-mee.csv 2>&1}, "20 5 1 505 5005\n", 'bb-bench-summary mee-mix');
  write_file("$dir/mix-empty.csv", "start_us,code,spec_status,outcome,response_us,retries,user,wait_us,inputs\n");
  is(mee_mix_figures("$dir/mix-empty.csv"), "0 0 0 - -\n", 'no rows: zeros and no percentile');
  write_file("$dir/mix-bad.csv", "start_us,code,spec_status,outcome,response_us,retries,user,wait_us,inputs\n"
             . "$t0,TR,0,ok,12ms,0,1,0,\n");
  my $out = qx{$^X $PROGRAM mee-mix $dir/mix-bad.csv 2>&1};
  is($? >> 8, 1, 'a malformed row: exit 1');
  like($out, qr{mix-bad\.csv:2: response_us: '12ms' is not a number}, 'named by file, line, field and value');
};

done_testing();
