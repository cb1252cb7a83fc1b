# Inside the database (issue 17): "Where the database waited" from a hand-made waits.csv whose
# samples are known, "Top statements" from hand-made pg_stat_statements snapshots at the MI's
# start and end, and the profile's place in the report.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use BBTest qw(write_file tmpdir valid_run run_report read_json analyze_dir slurp);
use BrokerBench::Gnuplot qw(png_ok);

my $S = 1_000_000;

# waits.csv with a sample a second from $from_us to $to_us. Inside [$mi_from, $mi_to]: 12 client
# backends, 3 active on the CPU, 2 in LWLock:WALWrite, 6 idle, 1 idle in transaction; outside
# it 5 active waiting for a transactionid lock (which the MI figures must not see).
sub waits_csv {
  my ($path, $from_us, $to_us, $mi_from, $mi_to, %o) = @_;
  my $text = "time_us,state,wait_event_type,wait_event,backends\n";
  for (my $t = $from_us; $t <= $to_us; $t += $S) {
    if ($t >= $mi_from && $t <= $mi_to) {
      $text .= "$t,all,,,12\n$t,active,,,3\n$t,active,LWLock,WALWrite,2\n"
             . "$t,idle,Client,ClientRead,6\n$t,idle in transaction,Client,ClientRead,1\n";
    } else {
      $text .= "$t,all,,,5\n$t,active,Lock,transactionid,5\n";
    }
    $text .= "$t,active,IO,DataFileRead\n" if $o{bad} && $t == $from_us + 2 * $S;
  }
  write_file($path, $text);
}

subtest 'waits: shares of the active-backend samples inside the MI' => sub {
  my $d = tmpdir();
  my $run = valid_run($d);    # an MI of 50 s
  waits_csv("$d/sys/db1/waits.csv", $run->{start_us} - 5 * $S, $run->{end_us} + 5 * $S,
            $run->{start_us}, $run->{end_us}, bad => 1);
  my $r = analyze_dir($d);
  my ($h) = @{ $r->{waits}{hosts} };
  is($h->{host}, 'db1', 'the host');
  is($h->{samples_in_mi}, 51, 'the samples inside the MI (both ends included)');
  is($h->{active_samples}, 51 * 5, 'active backends summed over them');
  is(sprintf('%.2f', $h->{avg_active}), '5.00', '5 active on average');
  is(sprintf('%.2f', $h->{avg_backends}), '12.00', 'of 12 client backends');
  is(sprintf('%.2f', $h->{avg_by_state}{'idle in transaction'}), '1.00', 'one idle in transaction');
  is_deeply([map { [$_->{type}, $_->{event}, $_->{samples}, sprintf('%.1f', $_->{share_pct})] }
             @{ $h->{top} }],
            [['CPU', '', 153, '60.0'], ['LWLock', 'WALWrite', 102, '40.0']],
            'CPU (active, no wait event) 60 %, WALWrite 40 %; the lock waits outside the MI not at all');
  is(sprintf('%.2f', $h->{top}[1]{avg_backends}), '2.00', 'WALWrite: 2 backends on average');
  my @p = map { "$_->{file}:$_->{line}: $_->{reason}" } @{ $r->{problems} };
  ok((grep { m{^sys/db1/waits\.csv:\d+: 4 fields, not 5$} } @p), 'a short line is named')
    or diag explain \@p;
  is($r->{verdict}{text}, 'VALID', 'and does not make the run invalid');

  my $rep = run_report($d);
  is($rep->{rc}, 0, 'bb-report exits 0');
  my $txt = slurp("$d/report.txt");
  like($txt, qr/Where the database waited\n-+\n/, 'the section is in report.txt');
  like($txt, qr/^  LWLock\s+WALWrite\s+102\s+40\.0 %\s+2\.00$/m, 'with the top waits');
  like($txt, qr/of which 5\.00 active \(the others: idle 6\.00, idle in transaction 1\.00\)/,
       'and the states');
  ok(png_ok("$d/plots/db-waits.png"), 'the plot is drawn') or diag $rep->{err};
  my $dat = slurp("$d/plots/data/db-waits.dat");
  like($dat, qr/^# host db1: .*: CPU, LWLock, Lock$/m, 'stacked CPU first, then by type');
  like($dat, qr/^\S+ 3\.0000 5\.0000 5\.0000$/m, 'a bucket inside the MI: 3 CPU, +2 LWLock, +0 Lock');
  my $json = read_json("$d/results.json");
  is($json->{waits}{hosts}[0]{top}[0]{type}, 'CPU', 'results.json has the waits');
};

subtest 'waits: missing or empty' => sub {
  my $d = tmpdir();
  valid_run($d);
  my $r = analyze_dir($d);
  like($r->{waits}{why}, qr{no sys/<host>/waits\.csv}, 'no file: said why');
  write_file("$d/sys/db1/waits.csv", "time_us,state,wait_event_type,wait_event,backends\n");
  $r = analyze_dir($d);
  like($r->{waits}{hosts}[0]{why}, qr{no samples .*wait-sampler\.err}, 'only a header: points at the error file');
  write_file("$d/sys/db1/waits.csv", "time,what\n");
  $r = analyze_dir($d);
  ok((grep { $_->{file} eq 'sys/db1/waits.csv' && $_->{reason} =~ /not the header/ } @{ $r->{problems} }),
     'another header is a problem');
};

# A pg_stat_statements snapshot as db-snapshot writes it (psql --csv, PostgreSQL 15 columns,
# fewer of them). Rows: [queryid, query, calls, total_exec_time, rows, hit, read].
sub statements_csv {
  my ($path, $time, @rows) = @_;
  my $text = "snapshot_time,userid,dbid,toplevel,queryid,query,calls,total_exec_time,rows,"
             . "shared_blks_hit,shared_blks_read,mean_exec_time\n";
  for my $row (@rows) {
    my ($id, $q, @n) = @$row;
    (my $quoted = $q) =~ s/"/""/g;
    $text .= join(',', $time, 10, 16384, 't', $id, qq{"$quoted"}, @n, 0) . "\n";
  }
  write_file($path, $text);
}

subtest 'top statements: differences between the MI start and end' => sub {
  my $d = tmpdir();
  valid_run($d);
  write_file("$d/db/mi-start/pg_stat_statements.txt",
             "not reset (the figures are differences): ERROR:  permission denied\n");
  my $long = "select tpce_trade_result(\$1, \$2,\n       \$3) -- a comment, with \"quotes\" and"
             . ' words enough to be cut short in the table of the report';
  statements_csv("$d/db/mi-start/pg_stat_statements.csv", '2025-11-21 12:00:10+00',
                 [1, $long, 100, 1000.5, 100, 5000, 10],
                 [2, 'select 2', 50, 10, 50, 100, 0],
                 [3, 'select evicted', 1000, 9999, 1000, 0, 0],
                 [4, 'select idle', 7, 70, 7, 0, 0]);
  statements_csv("$d/db/mi-end/pg_stat_statements.csv", '2025-11-21 12:01:00+00',
                 [1, $long, 300, 4000.5, 300, 15000, 30],
                 [2, 'select 2', 60, 1010, 60, 300, 5],
                 [3, 'select evicted', 10, 500, 10, 1, 2],
                 [4, 'select idle', 7, 70, 7, 0, 0],
                 map { [100 + $_, "select $_ from t$_", $_, $_, $_, 0, 0] } 1 .. 9);
  my $r = analyze_dir($d);
  my $st = $r->{statements};
  ok($st->{available}, 'available') or diag explain $st;
  is($st->{statements}, 12, 'the statements that ran in between (not the idle one)');
  is($st->{calls}, 200 + 10 + 10 + 45, 'their calls');
  is(scalar @{ $st->{top} }, 10, 'the top 10');
  my $top = $st->{top}[0];
  is($top->{total_ms}, 3000, 'the first: 3000 ms in the MI (4000.5 - 1000.5)');
  is($top->{calls}, 200, '200 calls');
  is($top->{mean_ms}, 15, 'mean 15 ms');
  is_deeply([@$top{qw(rows shared_blks_hit shared_blks_read)}], [200, 10000, 20], 'rows, blocks');
  is($top->{text}, 'select tpce_trade_result($1, $2, $3) -- a com...',
     'the text on one line, cut to 48 characters');
  is($top->{query}, $long, 'the whole text kept');
  is(sprintf('%.2f', $top->{share_pct}), sprintf('%.2f', 100 * 3000 / (3000 + 1000 + 500 + 45)),
     'its share of all execution time');
  is_deeply([map { $_->{calls} } @{ $st->{top} }[1, 2]], [10, 10],
            'then select 2 (1000 ms), then the evicted one counted from zero (500 ms)');
  is($st->{top}[-1]{text}, 'select 3 from t3', 'the tenth');
  like($st->{reset}, qr/^not reset/, 'whether it was reset');
  my $rep = run_report('--no-plots', $d);
  is($rep->{rc}, 0, 'bb-report exits 0');
  my $txt = slurp("$d/report.txt");
  like($txt, qr/Top statements\n-+\n/, 'the section is in report.txt');
  like($txt, qr/^\s+3000\.0\s+66\.0 %\s+200\s+15\.000\s+200\s+10000\s+20\s+select tpce_trade_result/m,
       'the first row');
  like($txt, qr/from 2025-11-21 12:00:10\+00 to 2025-11-21 12:01:00\+00/, 'the window');
  is(read_json("$d/results.json")->{statements}{top}[0]{query}, $long, 'results.json: the whole text');
};

subtest 'top statements: old column names, not installed, missing' => sub {
  my $d = tmpdir();
  valid_run($d);
  my $r = analyze_dir($d);
  like($r->{statements}{why}, qr{db/mi-start/pg_stat_statements\.csv is missing}, 'no snapshots');
  for my $when (qw(mi-start mi-end)) {
    write_file("$d/db/$when/pg_stat_statements.csv",
               "snapshot_time,userid,dbid,queryid,query,calls,total_time,rows,shared_blks_hit,"
               . "shared_blks_read\nT,10,1,7,select 1," . ($when eq 'mi-end' ? '5,50.5' : '1,0.5')
               . ",1,0,0\n");
  }
  $r = analyze_dir($d);
  is($r->{statements}{top}[0]{total_ms}, 50, 'total_time (PostgreSQL 12 and before) is read');
  write_file("$d/db/mi-end/pg_stat_statements.csv", "snapshot_time,queryid,query\n");
  $r = analyze_dir($d);
  like($r->{statements}{why}, qr/lacks the columns calls, rows, shared_blks_hit, shared_blks_read, total_exec_time/,
       'missing columns are named');
  write_file("$d/db/mi-start/pg_stat_statements.txt", "not installed: pg_stat_statements is not an extension\n");
  $r = analyze_dir($d);
  like($r->{statements}{why}, qr/^pg_stat_statements is not installed in the database: a superuser runs CREATE EXTENSION pg_stat_statements; there \(it is not a trusted extension, so the database's owner cannot\)/,
       'not installed: said so, and who can install it');
  # Installed but not preloaded: the reset and the read failed, the csv is empty.
  write_file("$d/db/mi-start/pg_stat_statements.txt", "not reset (the figures are differences): "
             . "ERROR:  pg_stat_statements must be loaded via shared_preload_libraries\n");
  write_file("$d/db/$_/pg_stat_statements.csv", '') for qw(mi-start mi-end);
  $r = analyze_dir($d);
  like($r->{statements}{why}, qr/^the database answered: pg_stat_statements must be loaded .*next start/,
       "not preloaded: the database's answer, and what to do");
  is($r->{problems_total} // 0, 0, 'an empty snapshot with its reason is not an input problem');
};

subtest 'the profile in the report' => sub {
  my $d = tmpdir();
  valid_run($d);
  run_report('--no-plots', $d);
  like(slurp("$d/report.txt"), qr/CPU profile \(flame graph\)\n-+\n  Not recorded/,
       'none asked for: not recorded');
  write_file("$d/profile/db1/profile.txt", "recorded 50 s on db1: 9900 samples, flamegraph.svg\n");
  write_file("$d/profile/db1/flamegraph.svg", "<svg/>\n");
  write_file("$d/profile/db2/profile.txt",
             "not profiled: perf is not installed on db2 (Debian package linux-perf)\n");
  run_report('--no-plots', $d);
  my $txt = slurp("$d/report.txt");
  like($txt, qr/Host db1:\s+recorded 50 s on db1.*\n\s+Flame graph:\s+profile\/db1\/flamegraph\.svg/,
       'the flame graph is named');
  like($txt, qr/Host db2:\s+not profiled: perf is not installed on db2/, 'and why there is none');
};

done_testing();
