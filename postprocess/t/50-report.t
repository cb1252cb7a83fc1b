# bb-report end to end: exit codes, the headline, the three outputs, the plots, and the
# database, system and market emulator sections from small hand-made inputs.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use BBTest qw(row marker write_log write_file tmpdir valid_run run_report read_json analyze_dir T0);
use BrokerBench::Plots qw(write_plots);
use BrokerBench::Gnuplot qw(png_ok);
use BrokerBench::Report qw(write_reports);
use BrokerBench::Render qw(write_atomic);
use BrokerBench::Spec ();

my $S = 1_000_000;

sub slurp { open my $fh, '<:raw', $_[0] or return ''; local $/; return scalar <$fh> }

subtest 'usage and exit codes' => sub {
  my $h = run_report('--help');
  is($h->{rc}, 0, '--help exits 0');
  like($h->{out}, qr/bb-report \[--quiet\] \[--no-plots\] \[--table\] RESULTS_DIR/, '--help shows the synopsis');
  like($h->{out}, qr/EXIT STATUS/, '--help is the whole POD');
  my $u = run_report();
  is($u->{rc}, 2, 'no argument exits 2');
  like($u->{err}, qr/no results directory given/, 'and says why');
  is(run_report('a', 'b')->{rc}, 2, 'two directories exit 2');
  is(run_report('--bogus', 'a')->{rc}, 2, 'an unknown option exits 2');
  my $n = run_report('/nonexistent/bb-results');
  is($n->{rc}, 1, 'a missing directory exits 1');
  like($n->{err}, qr{'/nonexistent/bb-results' is not a directory}, 'naming it');
  my $e = tmpdir();
  write_file("$e/run.conf", "customers=1000\n");
  my $m = run_report($e);
  is($m->{rc}, 1, 'no mix log exits 1');
  like($m->{err}, qr/no mix log \(mix-\*\.csv\) anywhere below '\Q$e\E'/, 'naming the directory');
  ok(!-e "$e/report.txt", 'and writes no report');
};

my $d = tmpdir();
my $run = valid_run($d);
# System samples, one per second over the whole run, on one host.
my $SYS_HEAD = 'time_us,cpu_user_pct,cpu_system_pct,cpu_iowait_pct,cpu_idle_pct,disk_read_kb_s,'
               . 'disk_write_kb_s';
# ... with memory (2 GiB used, 1 GiB cached, 512 MiB free) and network (10 KiB/s in, 20 out).
write_file("$d/sys/hostA/sysstat.csv",
  "$SYS_HEAD,mem_used_kb,mem_cached_kb,mem_free_kb,net_rx_kb_s,net_tx_kb_s\n"
  . join('', map { join(',', T0 + $_ * $S, 30, 10, 5, 55, 100, 200, 2097152, 1048576, 524288, 10,
                        20) . "\n" } 0 .. 70));
# Database snapshots: 1000 blocks read, 9000 hit, 100 written.
write_file("$d/db/before/pg_stat_database.csv",
  "datid,datname,xact_commit,xact_rollback,blks_read,blks_hit,deadlocks,temp_bytes\n"
  . "1,template1,5,0,1,1,0,0\n16384,bb,100,1,500,1000,0,0\n,,7,0,3,3,0,0\n");
write_file("$d/db/after/pg_stat_database.csv",
  "datid,datname,xact_commit,xact_rollback,blks_read,blks_hit,deadlocks,temp_bytes\n"
  . "1,template1,9,0,1,1,0,0\n16384,bb,1100,11,1500,10000,2,8192\n,,7,0,3,3,0,0\n");
write_file("$d/db/before/pg_stat_bgwriter.csv",
  "checkpoints_timed,buffers_checkpoint,buffers_clean,buffers_backend\n1,10,5,5\n");
write_file("$d/db/after/pg_stat_bgwriter.csv",
  "checkpoints_timed,buffers_checkpoint,buffers_clean,buffers_backend\n2,70,25,25\n");
write_file("$d/db/before/pg_statio_user_tables.csv",
  "relid,schemaname,relname,heap_blks_read,heap_blks_hit,idx_blks_read,idx_blks_hit\n"
  . "1,public,trade,10,10,0,0\n2,public,\"odd, name\",0,0,0,0\n");
write_file("$d/db/after/pg_statio_user_tables.csv",
  "relid,schemaname,relname,heap_blks_read,heap_blks_hit,idx_blks_read,idx_blks_hit\n"
  . "1,public,trade,110,50,0,0\n2,public,\"odd, name\",500,0,0,0\n3,public,new_one,7,0,0,0\n");
write_file("$d/db/settings.csv", "name,setting,unit,source\nshared_buffers,16384,8kB,configuration file\n"
  . "work_mem,4096,kB,default\n");
write_file("$d/mee/hostB/failed-trades.csv", "trade_id,code,reason\n17,TR,db_error 40001\n18,TR,db_error 40001\n19,MF,timeout\n");
write_file("$d/mee/hostB/pending-trades.csv", "trade_id,code,state\n20,TR,limit trigger armed\n"
  . "21,TR,limit trigger armed\n22,TR,in its completion delay\n");
# One corrupt line in the middle of the customer emulator log.
{
  my @lines = split /\n/, slurp($run->{ce});
  splice @lines, 40, 0, '1763726410000000,TS,0,ok,12x,0,1,0';
  write_file($run->{ce}, join("\n", @lines) . "\n");
}

my $res = run_report($d);
subtest 'the headline and the outputs' => sub {
  is($res->{rc}, 0, 'exit 0 for an INVALID run') or diag $res->{err};
  my @out = split /\n/, $res->{out};
  is(scalar @out, 3, 'three lines on stdout');
  is($out[0], 'TRTPS: 2.00 (nominal 2.00, 100.0 %)', 'TRTPS line');
  is($out[1], 'Verdict: INVALID (1 reason, see report)', 'verdict line: the corrupt line');
  is($out[2], "Report: $d/report.txt", 'report line with the absolute path');
  like($res->{err}, qr{ce/hostA/mix-ce-1001\.csv:41: response_us is not a non-negative integer: '12x' \('1763726410000000,TS,0,ok,12x,0,1,0'\)},
       'stderr names the file, the line, the reason and the text');
  for my $f (qw(report.txt report.html results.json)) {
    ok(-s "$d/$f", "$f written");
  }
  my $txt = slurp("$d/report.txt");
  like($txt, qr/\A.*\n=+\n  TRTPS: 2\.00/s, 'report.txt starts with the headline');
  like($txt, qr/Transaction\s+Code\s+Mix %\s+Count\s+Rollbacks\s+Warnings\s+Invalid\s+Errors\s+Retries\n/,
       'the mix and outcomes table');
  like($txt, qr/Trade-Result\s+TR\s+10\.000\s+100\s+0\s+0\s+0\s+0\s+0\n/, 'a row of it');
  like($txt, qr/Response time \(ms\)\s+Code\s+Count\s+Min\s+Avg\s+p50\s+p90\s+p95\s+p99\s+Max\s+Limit\n/,
       'the response-time table, in milliseconds');
  like($txt, qr/Trade-Result\s+TR\s+100(?:\s+20\.0){7}\s+2000\n/, 'a row of it: every row took 20 ms');
  like($txt, qr/Input problems\n-+\n.*mix-ce-1001\.csv:41: response_us/s, 'the problem in report.txt');
  like($txt, qr/nearest rank/, 'the percentile method is named');
  like($txt, qr/not comparable with published TPC-E results/, 'the standing sentence');
  # The headline, the verdict and the plots first; the settings last.
  my @order = map { index($txt, $_) } ("  TRTPS: 2.00", "\nVerdict\n", "\nPlots\n",
                                      'Transactions in the', 'Throughput (TRTPS)', 'Ramp-up and',
                                      'Not TPC-E compliant because', "Database\n",
                                      "System\n", "Market emulator\n", "Input problems\n",
                                      'Settings (run.conf)');
  ok(!(grep { $_ < 0 } @order), 'every section is there');
  is_deeply(\@order, [sort { $a <=> $b } @order], 'in the agreed order');
  my $html = slurp("$d/report.html");
  my @h2 = $html =~ /<h2>([^<]+)<\/h2>/g;
  is_deeply([@h2[0, 1]], ['Verdict', 'Plots'], 'report.html: the verdict and the plots first');
  is($h2[-2], 'Settings (run.conf)', 'the settings last (then readme.txt)');
  like($html, qr/<h1>[^<]+<\/h1>\n<div class="headline">/, 'after the headline');
};

my $j = read_json("$d/results.json");
subtest 'results.json' => sub {
  is($j->{verdict}{text}, 'INVALID', 'verdict');
  is($j->{trtps}{measured_tpse}, 2, 'measured TRTPS');
  is($j->{trtps}{trade_results_in_mi}, 100, 'of 100 Trade-Results');
  is($j->{problems}[0]{file}, 'ce/hostA/mix-ce-1001.csv', 'problem file');
  is($j->{problems}[0]{line}, 41, 'problem line');
  # Every data row of the input (all lines minus the markers; the corrupt line is not a row).
  my $markers = 4;
  is($j->{inputs}{rows_total}, $run->{lines} - $markers, 'rows read = the rows written');
  my $in_out = 0;
  $in_out += $_->{rows_in_mi} + $_->{rows_outside_mi} for values %{ $j->{transactions} };
  is($in_out, $j->{inputs}{rows_total}, 'every row is counted in or outside the MI, once');
  my $count = 0;
  $count += $j->{transactions}{$_}{count} for qw(BV CP MF MW SD TL TO TR TS TU);
  is($count, $j->{mix_total}, 'the mix total is the sum of the counts');
  is($j->{mix_total}, 1000, '1000 in the MI');
  is($j->{settings}{customers}, 1000, 'settings');
  is($j->{mi}{seconds}, 50, 'MI length');
  ok(!exists $j->{_series}, 'no internal keys');
  ok(!exists $j->{reasons} && !exists $j->{notes}, 'the reasons and notes only in the verdict');
  is(scalar @{ $j->{verdict}{reasons} }, 1, 'which has them');
  is($j->{format}, 'brokerbench results v2', 'the format: figures named with their units');
  my $raw = slurp("$d/results.json");
  like($raw, qr/"measured_tpse" : 2,\n/, 'TRTPS measured as a plain number');
  like($raw, qr/"reported_tpse" : 2,\n/, 'and reported');
  is($j->{transactions}{TR}{response_time_p90_ms}, 20, 'a response time in ms');
};

subtest 'database, system and market emulator sections' => sub {
  my $db = $j->{database};
  is($db->{delta}{blks_read}, 1000, 'blks_read delta of the bb row');
  is($db->{delta}{xact_commit}, 1000, 'xact_commit delta');
  is($db->{delta}{deadlocks}, 2, 'deadlocks delta');
  is($db->{block_writes}, 100, 'block writes = checkpoint + clean + backend deltas');
  is($db->{read_write_ratio}, 10, 'read:write 1000:100');
  cmp_ok(abs($db->{hit_ratio_pct} - 90), '<', 1e-9, 'hit ratio 9000 / 10000');
  is($db->{top_tables}[0]{name}, 'public.odd, name', 'top table by heap_blks_read (a quoted name)');
  is($db->{top_tables}[1]{heap_blks_read}, 100, 'second: trade, 100 blocks');
  is($db->{top_tables}[2]{heap_blks_read}, 7, 'a table new since the first snapshot');
  is_deeply([map { $_->{name} } @{ $db->{settings_not_default} }], ['shared_buffers'], 'non-default settings');
  my $txt = slurp("$d/report.txt");
  like($txt, qr/read:write blocks:\s+10\.0:1 .*9\.7:1/, 'the ratio with the I/O study note');
  my ($h) = @{ $j->{system}{hosts} };
  is($h->{host}, 'hostA', 'system host');
  is($h->{samples_in_mi}, 51, 'samples inside the MI (10..60 s)');
  is($h->{avg}{cpu_user_pct}, 30, 'average user CPU');
  is($h->{avg}{disk_write_kb_s}, 200, 'average writes');
  is($h->{memory_and_network}, 1, 'memory and network sampled');
  is($h->{avg}{mem_used_kb}, 2097152, 'average memory used');
  is($h->{avg}{net_tx_kb_s}, 20, 'average sent');
  like($txt, qr/^  hostA\s+2048\.0\s+1024\.0\s+512\.0\s+10\.0\s+20\.0$/m,
       'the memory (MiB) and network (KB/s) table');
  is($j->{mee}{failed_trades}{total}, 3, 'failed trades');
  is($j->{mee}{failed_trades}{by_reason}{'db_error 40001'}, 2, 'by reason');
  is($j->{mee}{pending_trades}{total}, 3, 'pending trades');
  my $flat = $txt =~ s/\s+/ /gr;  # paragraphs are wrapped
  like($flat, qr/Pending at the end: 3 \(limit orders whose trigger price was not reached: 2; orders within their completion delay \(at most 5 s\): 1\)/,
       'pending at the end, by state, limit orders first');
  like($flat, qr/Failed trades: 3, by reason:/, 'failed trades apart');
  is($j->{mee}{wait}{TR}{rows_in_mi}, 100, 'wait over the 100 Trade-Results of the MI');
  # valid_run's Trade-Results in the MI wait 1000 + i us for the i-th row of 1000 (TR every
  # tenth or so): the median of their waits lies within a row's gap of the middle.
  cmp_ok(abs($j->{mee}{wait}{TR}{wait_p50_ms} - 1.5), '<', 0.05, 'the median wait in ms');
};

subtest 'plots' => sub {
  for my $p (qw(trtps throughput rt-distribution rt-over-time cpu io memory network mee-wait)) {
    my $png = "$d/plots/$p.png";
    ok(png_ok($png), "$p.png is a PNG");
    cmp_ok(-s $png, '>', 5000, "$p.png is not trivially small");
    ok(-s "$d/plots/data/$p.gp", "$p.gp kept for re-plotting");
    is($j->{plots}{$p}{status}, 'written', "$p written");
  }
  ok(-s "$d/plots/data/trtps-10s.dat", 'a short run also gets the 10-second TRTPS series');
  # A panel per transaction type, titled with its code and name, on every per-type plot.
  for my $p (qw(throughput rt-distribution rt-over-time)) {
    my $gp = slurp("$d/plots/data/$p.gp");
    like($gp, qr/^set multiplot layout 5,2 title '[^']+'$/m, "$p: ten panels in two columns");
    my @panels = $gp =~ /^set title '([A-Z][A-Z] [A-Za-z-]+)'$/mg;
    is_deeply(\@panels, [map { "$_ $BrokerBench::Spec::NAME{$_}" } @BrokerBench::Spec::MIX_CODES],
              "$p: one panel per type, titled");
    my @plots = $gp =~ /^plot /mg;
    is(scalar @plots, 10, "$p: each with its plot");
    like($gp, qr/^set xlabel '[^']+\((?:s|min|ms, log scale)\)'$/m, "$p: the x axis with its unit");
    like($gp, qr/^set ylabel '[^']+'$/m, "$p: the y axis labelled");
  }
  like(slurp("$d/plots/data/rt-over-time.gp"), qr/^     2000 with lines dt 2 .*notitle$/m,
       "rt-over-time: a type's limit (clause 6.5.1) in ms");
  like(slurp("$d/plots/data/rt-distribution.gp"), qr/^set label 1 'p90 20\.0 ms' at 20, /m,
       "rt-distribution: the type's 90th percentile marked");
  # The TRTPS plot marks the MI where it is, the measured figure, the nominal, the 80 % and
  # 102 % bounds.
  my $gp = slurp("$d/plots/data/trtps.gp");
  like($gp, qr/^set object 1 rect from 0\.000, graph 0 to 50\.000, graph 1 /m, 'the MI shaded, 0-50 s');
  like($gp, qr/^set arrow 1 from 0\.000, graph 0 to 0\.000, graph 1 nohead/m, 'its start marked');
  like($gp, qr/^set arrow 2 from 50\.000, graph 0 to 50\.000, graph 1 nohead/m, 'its end marked');
  like($gp, qr/^set label 1 'MI start' at 0\.000, /m, 'and labelled where they are');
  like($gp, qr/^\$measured << EOD\n0\.000 2\.0000\n50\.000 2\.0000\nEOD$/m, 'the measured TRTPS across the MI');
  like($gp, qr/^\s+2 with lines .* title 'nominal \(2\)'/m, 'the nominal');
  like($gp, qr/^\s+2\.0400 with lines .* title '102 % of nominal'/m, '102 % of it');
  like($gp, qr/^\s+1\.6000 with lines .* title '80 % of nominal'/m, '80 % of it');
  unlike($gp, qr/failing the steadiness check/, 'no failed window in a steady run');
  # Re-plotting by hand works from plots/data.
  unlink "$d/plots/trtps.png";
  is(system("cd '$d/plots/data' && gnuplot trtps.gp 2>/dev/null"), 0, 'the script re-runs by hand');
  ok(png_ok("$d/plots/trtps.png"), 'and makes the PNG again');
};

subtest 'a sysstat.csv of an older kit: no memory or network, the rest as before' => sub {
  my $e = tmpdir();
  valid_run($e);
  write_file("$e/sys/hostA/sysstat.csv", "$SYS_HEAD\n"
    . join('', map { join(',', T0 + $_ * $S, 30, 10, 5, 55, 100, 200) . "\n" } 0 .. 70));
  is(run_report('--quiet', $e)->{rc}, 0, 'reported');
  my $j = read_json("$e/results.json");
  is($j->{problems_total}, 0, 'no input problem');
  my ($h) = @{ $j->{system}{hosts} };
  is($h->{avg}{cpu_user_pct}, 30, 'the CPU');
  is($h->{memory_and_network}, 0, 'no memory and network');
  ok(!exists $h->{avg}{mem_used_kb}, 'so no average of them');
  is($j->{plots}{cpu}{status}, 'written', 'cpu.png written');
  like($j->{plots}{$_}{note} // '', qr/no such columns \(an older kit\)/, "$_.png not, and why")
    for qw(memory network);
  like(slurp("$e/report.txt") =~ s/\s+/ /gr, qr/No memory or network figures for hostA: its sysstat\.csv is from a kit that did not sample them\./,
       'the report says so');
};

subtest 'the TRTPS plot marks the windows that failed the steadiness check' => sub {
  my $e = tmpdir();
  valid_run($e, skew => 1, mi_s => 300);    # every Trade-Result in the first half of the MI
  is(run_report('--quiet', $e)->{rc}, 0, 'reported');
  my $st = read_json("$e/results.json")->{steadiness};
  my @failed = map { @{ $_->{failed_windows} } } @{ $st->{checks} };
  ok(@failed, 'some windows failed') or return;
  my $gp = slurp("$e/plots/data/trtps.gp");
  my ($block) = $gp =~ /^\$failed << EOD\n(.*?)^EOD$/ms;
  is_deeply([split /\n/, $block // ''],
            [map { sprintf('%.3f %.3f %.4f', $_->{start_s}, $_->{end_s} - $_->{start_s}, $_->{tpse}) }
             @failed], 'each failed window: its start, length and rate');
  like($gp, qr/^\s+\$failed using 1:3:2:\(0\) with vectors nohead .* title '\d+ windows? failing the steadiness check'$/m,
       'drawn as a bar at its rate, in the key');
  ok(png_ok("$e/plots/trtps.png"), 'trtps.png written');
};

subtest 'a plot without data is not written; a failing gnuplot keeps the report' => sub {
  my $e = tmpdir();
  valid_run($e);
  my $r = run_report('--quiet', $e);
  is($r->{rc}, 0, 'exit 0');
  ok(!-e "$e/plots/cpu.png", 'no cpu.png without sysstat.csv');
  like(slurp("$e/report.txt"), qr/cpu\.png not written: no system samples/, 'the report says why');
  unlike($r->{err}, qr/plot cpu/, '--quiet does not print skipped plots');

  my $res = analyze_dir($e);
  my $plots = write_plots($res, gnuplot => '/bin/false');
  is($plots->{trtps}{status}, 'failed', 'a failing gnuplot is reported');
  like($plots->{trtps}{note}, qr/gnuplot exited with 1/, 'with its exit status');
  ok(!-e "$e/plots/trtps.png", 'and no stale PNG is left');
  ok(write_reports($res, $plots), 'the text report is still written');
  like(slurp("$e/report.txt"), qr/trtps\.png FAILED: gnuplot exited with 1/, 'and tells the failure');
};

subtest '--table: the transactions table of report.txt, then the headline' => sub {
  my $t = run_report('--quiet', '--no-plots', '--table', $d);
  is($t->{rc}, 0, 'exit 0') or diag $t->{err};
  my ($title, $table, $head) =
    $t->{out} =~ /\A(Transactions in the measurement interval \(\* = [^\n]*\n)(.*?)\n(TRTPS: .*)\z/s;
  ok(defined $table, 'a titled table, a blank line, the headline') or return diag $t->{out};
  like($table, qr/Mix %.*Count.*Rollbacks/, 'the mix columns');
  like($table, qr/Min.*Avg.*p50.*p90.*p95.*p99.*Max/, 'the response-time columns');
  like($table, qr/Trade-Result\s+TR\s+10\.000 /, 'a row');
  ok(index(slurp("$d/report.txt"), $table) >= 0, 'the very table of report.txt: one judge of the mix');
  like($head, qr/\ATRTPS: 2\.00 .*\nVerdict: INVALID .*\nReport: \Q$d\E\/report\.txt\n\z/, 'then the headline');
};

# Each output goes through a temporary file and a rename. A failed write (a full file system:
# the temporary file is a link to /dev/full, which works as root too) or rename leaves no
# temporary file and dies naming the file and the error.
subtest 'a failed write leaves no temporary file' => sub {
  my $dir  = tmpdir();
  my $path = "$dir/report.txt";
  my $tmp  = "$path.tmp$$";
  write_atomic($path, "first\n");
  is(slurp($path), "first\n", 'written');
  ok(!-e $tmp, 'through a temporary file that is gone');

  SKIP: {
    skip 'no /dev/full', 4 unless -c '/dev/full';
    symlink('/dev/full', $tmp) or die "symlink $tmp: $!";
    ok(!eval { write_atomic($path, "second\n" x 1000); 1 }, 'a write to a full device dies');
    like($@, qr/\Acannot write \Q$path\E \(through \Q$tmp\E\): No space left on device\n\z/,
         'naming the file and the error');
    ok(!-l $tmp && !-e $tmp, 'the temporary file is removed');
    is(slurp($path), "first\n", 'the old report is left as it was');
  }

  my $busy = "$dir/report.html";
  mkdir $busy or die $!;
  write_file("$busy/keep", "x");    # a directory that is not empty: rename cannot replace it
  ok(!eval { write_atomic($busy, "html\n"); 1 }, 'a failed rename dies');
  like($@, qr/\Acannot rename \Q$busy.tmp$$\E to \Q$busy\E: \S/, 'naming both files and the error');
  ok(!-e "$busy.tmp$$", 'the temporary file is removed');
};

done_testing();
