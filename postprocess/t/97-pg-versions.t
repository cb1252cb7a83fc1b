# Statistics that mean the same on every PostgreSQL version (PgStats.pm): the snapshots of one
# workload, made by the real servers 14 to 18 (t/fixtures/make-pg-fixtures.sh remakes them),
# give the same block writes, and every figure is read from the view and column its version
# keeps it in, or says in words why there is none. Also the role's privileges in the report
# (Privileges.pm) and the server's version in the report and the comparison.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use File::Copy qw(copy);
use File::Find qw(find);
use File::Path qw(make_path);
use List::Util qw(max min);
use Test::More;
use BBTest qw(valid_run write_file tmpdir run_report read_json slurp);
use BrokerBench::Csv qw(read_csv read_run_conf);
use BrokerBench::Database qw(database);
use BrokerBench::PgStats qw(server_version);
use BrokerBench::Privileges qw(privileges);
use BrokerBench::Statements qw(statement_stats);
use BrokerBench::ReportDatabase qw(database_section);
use BrokerBench::Render qw(render_text);
use BrokerBench::Compare qw(load_run compare_runs);

my $FIX = "$FindBin::RealBin/fixtures/pg-stats";
my @VERSIONS = (14, 15, 16, 17, 18);

# Block writes of the same workload may differ between versions by this share: measured, the
# largest difference is 78 blocks of 12 150 (0.64 %): 14 and 15 count some 60 blocks fewer
# for their backends than pg_stat_io does on 16 to 18. Every wrong sum is far outside it: the
# background writer's alone (what the old formula left on 17 and 18) is 0, the checkpointer's
# alone about 5 420 (-55 %), 16's pg_stat_bgwriter trio 8 194 (-33 %).
my $TOLERANCE = 0.01;

# A copy of a fixture, to change without touching it.
sub copy_fixture {
  my ($name) = @_;
  my $dst = tmpdir();
  my $src = "$FIX/$name";
  find({ no_chdir => 1, wanted => sub {
    (my $rel = $File::Find::name) =~ s/\A\Q$src\E\/?//;
    return if $rel eq '';
    if (-d $_) { make_path("$dst/$rel") } else { copy($_, "$dst/$rel") or die "$rel: $!" }
  } }, $src);
  return $dst;
}

# The database side of the analysis of a results-like directory: ($r, [problems]).
sub analyze_db {
  my ($dir) = @_;
  my ($conf) = -e "$dir/run.conf" ? read_run_conf("$dir/run.conf") : ({});
  my @problems;
  my $r = { results_dir => $dir, settings => $conf, _problem => sub { push @problems, $_[0] } };
  server_version($r);
  database($r);
  privileges($r);
  statement_stats($r);
  return ($r, \@problems);
}

sub fig {
  my ($r, $key) = @_;
  my ($f) = grep { $_->{key} eq $key } @{ $r->{database}{figures} };
  return $f // {};
}

# The difference of a column of a one-row view between the fixture's snapshots.
sub raw_delta {
  my ($dir, $view, $col) = @_;
  my @v = map { (read_csv("$dir/db/$_/$view.csv"))[0]{rows}[0]{$col} } qw(before after);
  return $v[1] - $v[0];
}

my %r = map { $_ => [analyze_db("$FIX/pg$_")]->[0] } @VERSIONS;

subtest 'the same workload gives the same block writes on every version' => sub {
  my %bw = map { $_ => fig($r{$_}, 'block_writes')->{value} } @VERSIONS;
  ok(defined $bw{$_}, "PostgreSQL $_: block writes given") or diag fig($r{$_}, 'block_writes')->{why}
    for @VERSIONS;
  my @v = map { $_ // 0 } values %bw;
  my $mid = (sort { $a <=> $b } @v)[2];
  cmp_ok($mid, '>', 10_000, 'the workload wrote over 10 000 blocks');
  cmp_ok((max(@v) - min(@v)) / $mid, '<=', $TOLERANCE,
         'within 1 % of each other: ' . join(', ', map { "$_: " . ($bw{$_} // 'none') } @VERSIONS));
  is($r{$_}{database}{block_writes}, $bw{$_}, "PostgreSQL $_: the plain number for results.json")
    for @VERSIONS;
  # The sums that are wrong are not what is shown.
  my $d17 = "$FIX/pg17";
  my $bgwriter_only = raw_delta($d17, 'pg_stat_bgwriter', 'buffers_clean');
  cmp_ok(abs($bw{17} - $bgwriter_only), '>', $TOLERANCE * $mid,
         "17: not the background writer's alone ($bgwriter_only)");
  my $trio16 = raw_delta("$FIX/pg16", 'pg_stat_bgwriter', 'buffers_checkpoint')
             + raw_delta("$FIX/pg16", 'pg_stat_bgwriter', 'buffers_clean')
             + raw_delta("$FIX/pg16", 'pg_stat_bgwriter', 'buffers_backend');
  cmp_ok(abs($bw{16} - $trio16) / $mid, '>', 0.1,
         "16: not pg_stat_bgwriter's trio ($trio16), which counts extensions, not blocks");
  my $ckpt = raw_delta($d17, 'pg_stat_checkpointer', 'buffers_written');
  cmp_ok(abs($bw{17} - $ckpt), '>', $TOLERANCE * $mid, "17: not the checkpointer's alone ($ckpt)");
  # Each version from its own view; its parts add up.
  like(fig($r{$_}, 'block_writes')->{source}, qr/\Apg_stat_bgwriter: buffers_checkpoint \+ buffers_clean \+ buffers_backend/,
       "$_: from pg_stat_bgwriter") for 14, 15;
  like(fig($r{$_}, 'block_writes')->{source}, qr/\Apg_stat_io, object relation, every process: \(writes \+ extends\) x op_bytes/,
       "$_: from pg_stat_io, in op_bytes") for 16, 17;
  like(fig($r{18}, 'block_writes')->{source}, qr/\(write_bytes \+ extend_bytes\) \/ block_size/,
       '18: from pg_stat_io, in bytes');
  for my $v (@VERSIONS) {
    my $f = fig($r{$v}, 'block_writes');
    my $sum = 0;
    $sum += $_->[1] for @{ $f->{parts} };
    is($sum, $f->{value}, "$v: the parts add up to the total");
    my ($ck) = map { $_->[1] } grep { $_->[0] eq 'checkpointer' } @{ $f->{parts} };
    cmp_ok($ck, '>', 5000, "$v: the checkpointer's part ($ck)");
  }
};

subtest 'pg_stat_io is not there before 16: said in words' => sub {
  for my $v (14, 15) {
    my $f = fig($r{$v}, 'block_extends');
    ok(!defined $f->{value}, "$v: no number for the blocks added to files");
    like($f->{why}, qr/not counted apart before PostgreSQL 16: pg_stat_io is not available/,
         "$v: and why");
  }
  cmp_ok(fig($r{$_}, 'block_extends')->{value}, '>', 4000, "$_: blocks added to files")
    for 16, 17, 18;
};

subtest 'checkpoints and WAL from the right columns' => sub {
  for my $v (@VERSIONS) {
    my $req = fig($r{$v}, 'checkpoints_requested');
    is($req->{value}, 2, "$v: the workload's two CHECKPOINTs");
    is($req->{source}, $v >= 17 ? 'pg_stat_checkpointer.num_requested'
                                : 'pg_stat_bgwriter.checkpoints_req', "$v: from $req->{source}");
    cmp_ok(fig($r{$v}, 'checkpoint_sync_time_ms')->{value}, '>', 0, "$v: checkpoint sync time");
    cmp_ok(fig($r{$v}, 'wal_records')->{value}, '>', 100_000, "$v: WAL records");
    cmp_ok(fig($r{$v}, 'wal_fpi')->{value}, '>', 500, "$v: full-page images after a checkpoint");
    cmp_ok(fig($r{$v}, 'wal_bytes')->{value}, '>', 40e6, "$v: WAL bytes");
    for my $k (qw(wal_writes wal_syncs wal_write_time_ms wal_sync_time_ms)) {
      cmp_ok(fig($r{$v}, $k)->{value} // 0, '>', 0, "$v: $k") or diag fig($r{$v}, $k)->{why};
    }
    like(fig($r{$v}, 'wal_syncs')->{source},
         $v >= 18 ? qr/\Apg_stat_io, object wal, context normal: fsyncs/ : qr/\Apg_stat_wal\.wal_sync\z/,
         "$v: WAL syncs from " . fig($r{$v}, 'wal_syncs')->{source});
  }
  is(fig($r{18}, 'checkpoints_done')->{value}, 2, '18: checkpoints completed (num_done)');
  like(fig($r{$_}, 'checkpoints_done')->{why}, qr/not counted before PostgreSQL 18/,
       "$_: no completed count, in words") for 14 .. 17;
};

subtest 'no figure from a column its version lacks' => sub {
  my %not = (14 => qr/pg_stat_io|pg_stat_checkpointer|num_|write_bytes|extend_bytes/,
             15 => qr/pg_stat_io|pg_stat_checkpointer|num_|write_bytes|extend_bytes/,
             16 => qr/pg_stat_checkpointer|buffers_backend|num_|write_bytes/,
             17 => qr/buffers_backend|buffers_checkpoint|checkpoints_req|write_bytes|num_done/,
             18 => qr/buffers_backend|buffers_checkpoint|op_bytes|wal_write\b|wal_sync\b|checkpoints_req/);
  for my $v (@VERSIONS) {
    my @bad = grep { ($_->{source} // '') =~ $not{$v} } @{ $r{$v}{database}{figures} };
    ok(!@bad, "$v: none") or diag join("\n", map { "$_->{key}: $_->{source}" } @bad);
  }
  # A 17 run whose pg_stat_io snapshot is lost: no number, and not the bgwriter's columns.
  my $d = copy_fixture('pg17');
  unlink "$d/db/after/pg_stat_io.csv" or die $!;
  my ($r) = analyze_db($d);
  my $f = fig($r, 'block_writes');
  ok(!defined $f->{value}, 'pg_stat_io missing on 17: no block writes');
  like($f->{why}, qr{db/after/pg_stat_io\.csv is missing}, 'and why');
  ok(!exists $r->{database}{block_writes}, 'no number in results.json either');
  like(fig($r, 'read_write_ratio')->{why}, qr/block writes not available/, 'nor a ratio');
  is(fig($r, 'checkpoints_requested')->{value}, 2, 'the rest is there');
  # A column gone from a snapshot is named.
  $d = copy_fixture('pg18');
  my $io = slurp("$d/db/before/pg_stat_io.csv") =~ s/write_bytes/written_bytes/r;
  write_file("$d/db/before/pg_stat_io.csv", $io);
  ($r) = analyze_db($d);
  like(fig($r, 'block_writes')->{why}, qr{db/before/pg_stat_io\.csv has no column write_bytes},
       'a missing column is named');
};

subtest 'the version: run.conf, db/settings.csv, the columns' => sub {
  is($r{$_}{server}{major}, $_, "$_: from run.conf") for @VERSIONS;
  is($r{18}{server}{version}, '18.4', '18: its text');
  like($r{15}{server}{version}, qr/\A15\.\d+/, "15: Debian's text");
  my $d = copy_fixture('pg18');
  write_file("$d/run.conf", "db_name=bb\n");
  my ($r) = analyze_db($d);
  is($r->{server}{from}, 'db/settings.csv', 'without it in run.conf: db/settings.csv');
  my $s = slurp("$d/db/settings.csv") =~ s/^server_version.*\n//mgr;
  write_file("$d/db/settings.csv", $s);
  ($r) = analyze_db($d);
  is($r->{server}{major}, 18, 'without either: told by the columns');
  like($r->{server}{version}, qr/18 or later \(from the snapshots' columns\)/, 'and says so');
  is(fig($r, 'block_writes')->{value}, fig($r{18}, 'block_writes')->{value}, 'the same figures');
  $d = copy_fixture('pg17');
  write_file("$d/run.conf", "db_name=bb\nserver_version_num=17.x\n");
  my $problems;
  ($r, $problems) = analyze_db($d);
  like($problems->[0]{reason}, qr/server_version_num is not a PostgreSQL version number such as 180004: '17\.x'/,
       'a bad server_version_num is an input problem naming its value');
  is($problems->[0]{file}, 'run.conf', 'and its file');
  is($r->{server}{major}, 17, 'db/settings.csv serves instead');
  # Statistics reset during the run: not a negative number.
  $d = copy_fixture('pg17');
  my $cp = slurp("$d/db/after/pg_stat_checkpointer.csv");
  $cp =~ s/^([^,\n]+,\d+,)\d+,/${1}0,/m;
  write_file("$d/db/after/pg_stat_checkpointer.csv", $cp);
  ($r) = analyze_db($d);
  like(fig($r, 'checkpoints_requested')->{why}, qr/num_requested went down .*reset during the run/,
       'a counter that went down: the statistics were reset');
};

subtest 'statement block times from the columns the extension has' => sub {
  for my $v (@VERSIONS) {
    my $st = $r{$v}{statements};
    ok($st->{available}, "$v: statements read") or diag $st->{why};
    my $want = $v >= 17 ? 'shared_blk_read_time' : 'blk_read_time';
    like($st->{block_times}{source}, qr/\Apg_stat_statements\.$want and /, "$v: $want");
    my ($scan) = grep { $_->{text} =~ /from big/ } @{ $st->{top} };
    cmp_ok($scan->{read_ms}, '>', 0, "$v: the scan of big spent time reading");
    cmp_ok($scan->{shared_blks_read}, '>', 1000, "$v: and read its blocks");
  }
  my $d = copy_fixture('pg17');
  write_file("$d/db/settings.csv", slurp("$d/db/settings.csv") =~ s/^track_io_timing,on/track_io_timing,off/mr);
  my ($r) = analyze_db($d);
  like($r->{statements}{block_times}{why}, qr/not measured: track_io_timing was off/,
       'timing off: said, not zeros');
  ok(!exists $r->{statements}{top}[0]{read_ms}, 'and no column of zeros');
};

subtest 'the role\'s privileges in the report' => sub {
  for my $v (14, 18) {
    my ($r) = analyze_db("$FIX/pg$v-role");
    my $p = $r->{privileges};
    ok($p->{available} && !$p->{superuser}, "$v: a role that is not a superuser");
    my $txt = render_text([database_section($r)]) =~ s/\s+/ /gr;
    like($txt, qr/pg_read_all_stats \(or pg_monitor\): GRANT pg_monitor TO "bench"; It gives the wait events/,
         "$v: missing pg_monitor: the GRANT and what it gives");
    like($txt, qr/GRANT pg_read_all_settings TO "bench";/, "$v: the settings' GRANT");
    my $fn = $v >= 17 ? 'oid,oid,bigint,boolean' : 'oid,oid,bigint';
    like($txt, qr/GRANT EXECUTE ON FUNCTION pg_stat_statements_reset\(\Q$fn\E\) TO "bench";/,
         "$v: the reset's GRANT names this version's function");
    like($txt, qr/and owns the database/, "$v: it owns its database");
    unlike($txt, qr/CREATE EXTENSION/, "$v: the extension is there: not asked for");
  }
  my ($r14) = analyze_db("$FIX/pg14-role");
  like(render_text([database_section($r14)]) =~ s/\s+/ /gr,
       qr/pg_checkpoint \(nothing grants it before PostgreSQL 15, where only a superuser may run CHECKPOINT\)/,
       '14: no pg_checkpoint to grant');
  my $txt = render_text([database_section($r{18})]) =~ s/\s+/ /gr;
  like($txt, qr/The run's role "brokerbench" is a superuser/, 'a superuser: said once');
  unlike($txt, qr/GRANT/, 'and nothing to grant');
  # The extension missing: who can install it, in the database section and in Top statements.
  my $d = copy_fixture('pg18-role');
  write_file("$d/db/privileges.csv", slurp("$d/db/privileges.csv")
             =~ s/^(bench,f,owned,bench,(?:[tf]?,){4})t,t,,f,"[^"]*"/${1}t,f,,,/mr);
  write_file("$d/db/mi-start/pg_stat_statements.txt", "not installed: no\n");
  my ($r) = analyze_db($d);
  $txt = render_text([database_section($r)]) =~ s/\s+/ /gr;
  like($txt, qr/the pg_stat_statements extension in the database: CREATE EXTENSION pg_stat_statements; in the database, by a superuser \(it is not a trusted extension: the database's owner cannot\)/,
       'not installed: the statement and who runs it');
  like($r->{statements}{why}, qr/in the database 'owned': a superuser runs CREATE EXTENSION/,
       'Top statements says who can install it');
  # A bad value is an input problem naming the file and the column.
  $d = copy_fixture('pg18-role');
  write_file("$d/db/privileges.csv", slurp("$d/db/privileges.csv") =~ s/^bench,f,/bench,maybe,/mr);
  my $problems;
  ($r, $problems) = analyze_db($d);
  like($problems->[0]{reason}, qr/superuser is not t, f or empty: 'maybe'/, 'a bad value is named');
  is($problems->[0]{file}, 'db/privileges.csv', 'with its file');
  ($r) = analyze_db("$FIX/pg17");
  unlink "$d/db/privileges.csv";
  ($r) = analyze_db($d);
  like(render_text([database_section($r)]), qr/not recorded \(db\/privileges\.csv is missing/,
       'no file: not recorded, said so');
};

# A whole run with a fixture's database side.
sub run_with {
  my ($v) = @_;
  my $d = tmpdir();
  valid_run($d);
  my $src = copy_fixture("pg$v");
  system('cp', '-r', "$src/db", $d) == 0 or die 'cp failed';
  my $conf = slurp("$d/run.conf") =~ s/^db_name=.*\n//mr;
  write_file("$d/run.conf", $conf . slurp("$src/run.conf"));
  return $d;
}

subtest 'the report and results.json name the version and the sources' => sub {
  my $d = run_with(18);
  my $res = run_report('--no-plots', $d);
  is($res->{rc}, 0, 'bb-report exit 0') or diag $res->{err};
  my $txt = slurp("$d/report.txt");
  like($txt, qr/^  PostgreSQL:\s+18\.4 \(the server's own, from run\.conf\)$/m, 'the version at the top');
  my $flat = $txt =~ s/\s+/ /gr;
  like($flat, qr/block writes: 12\d\d\d blocks \(pg_stat_io, object relation, every process: \(write_bytes \+ extend_bytes\) \/ block_size\)/,
       'block writes with their source');
  like($flat, qr/checkpoints completed: 2 \(pg_stat_checkpointer\.num_done\)/, 'checkpoints');
  like($flat, qr/WAL syncs: \d+ \(pg_stat_io, object wal, context normal: fsyncs/, 'WAL');
  like($flat, qr/Read ms Write ms Statement/, 'the statements\' block times');
  my $j = read_json("$d/results.json");
  is($j->{server}{version}, '18.4', 'results.json: server.version');
  is($j->{server}{version_num}, 180004, 'server.version_num');
  cmp_ok($j->{database}{block_writes}, '>', 12000, 'database.block_writes');
  my ($f) = grep { $_->{key} eq 'wal_syncs' } @{ $j->{database}{figures} };
  like($f->{source}, qr/pg_stat_io/, 'database.figures with their sources');
  $d = run_with(15);
  run_report('--no-plots', $d);
  $flat = slurp("$d/report.txt") =~ s/\s+/ /gr;
  like($flat, qr/block writes: 12\d\d\d blocks \(pg_stat_bgwriter: buffers_checkpoint/, '15: pg_stat_bgwriter');
  like($flat, qr/of them, added to files: not available: not counted apart before PostgreSQL 16: pg_stat_io is not available/,
       '15: what it lacks, in words');
};

subtest 'compare names the version difference' => sub {
  my ($base) = load_run(run_with(15));
  my ($run) = load_run(run_with(18), thresholds => $base->{thresholds});
  my $cmp = compare_runs([$base, $run]);
  my ($v) = grep { $_->{name} eq 'PostgreSQL version' } @{ $cmp->{settings} };
  ok($v, 'the server version among the settings that differ');
  like($v->{values}[0], qr/\A15\.\d+/, 'the base: 15');
  is($v->{values}[1], '18.4', 'the run: 18.4');
  ok(!grep({ $_->{name} =~ /\Aserver_version/ } @{ $cmp->{settings} }), 'once, not per source');
  my %row = map { $_->{name} => $_ } @{ $cmp->{database}{rows} };
  my $bw = $row{'block writes (blocks)'};
  ok($bw && defined $bw->{values}[0] && defined $bw->{values}[1], 'block writes in both');
  cmp_ok(abs($bw->{changes}[0]), '<', 100 * $TOLERANCE, 'and alike: ' . sprintf('%+.2f %%', $bw->{changes}[0]));
  like($bw->{sources}[0], qr/pg_stat_bgwriter/, 'the base from pg_stat_bgwriter');
  like($bw->{sources}[1], qr/pg_stat_io/, 'the run from pg_stat_io');
  is($row{'checkpoints completed'}{values}[0], undef, '15 has no completed count');
  like($row{'checkpoints completed'}{whys}[0], qr/not counted before PostgreSQL 18/, 'and why');
};

done_testing;
