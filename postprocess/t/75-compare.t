# bb-compare: the verdicts on synthetic streams whose differences are known (the same stream,
# another seed, response times +20 % and -20 %, throughput -20 %, a busier harness), the three
# outputs and the plots, bad input, and ./brokerbench compare's output directory.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use BBTest qw(stream_run valid_run write_file write_log row marker tmpdir run_report read_json
              slurp T0);
use BrokerBench::Compare qw(load_run compare_runs);
use BrokerBench::Gnuplot qw(png_ok);

my @MIX = qw(BV CP MF MW SD TL TO TR TS TU);

# Each stream: 5 Trade-Results a second over an MI of 300 s (10 intervals of 30 s).
my %dir = map { $_ => tmpdir() } qw(base same seed2 slow fast fewer);
my %pg = (shared_buffers => 16384, work_mem => 4096);
stream_run($dir{base},  seed => 1, cpu => 0.1, pg => \%pg);
stream_run($dir{same},  seed => 1, cpu => 0.1, pg => \%pg);
stream_run($dir{seed2}, seed => 2, cpu => 0.1, pg => \%pg);
stream_run($dir{slow},  seed => 1, cpu => 0.1, rt_factor => 1.2, pg => { %pg, work_mem => 8192 });
stream_run($dir{fast},  seed => 1, cpu => 0.1, rt_factor => 0.8);
stream_run($dir{fewer}, seed => 1, cpu => 0.2, rate_factor => 0.8, comment => 'fewer');
# The live-metrics addresses controller/run records: other ports in every run, never a change.
my $port = 41000;
for my $d (values %dir) {
  open my $fh, '>>', "$d/run.conf" or die "$d/run.conf: $!";
  printf $fh "metrics=mee=http://127.0.0.1:%d/metrics ce1=http://127.0.0.1:%d/metrics\n",
    $port++, $port++;
  close $fh;
}

my ($base, $err) = load_run($dir{base});
ok($base, 'the base run loads') or BAIL_OUT($err);
my %run = map { my ($r, $e) = load_run($dir{$_}, thresholds => $base->{thresholds});
                ok($r, "$_ loads") or diag $e; ($_ => $r) } qw(same seed2 slow fast fewer);

# The comparison of the base with one run: { figure id => figure }, and the comparison.
sub compare_with {
  my ($name) = @_;
  my $cmp = compare_runs([$base, $run{$name}]);
  my $c = $cmp->{comparisons}[0];
  return ({ map { $_->{id} => $_ } @{ $c->{figures} } }, $c, $cmp);
}

# Every figure that got a verdict other than within noise, as "id verdict".
sub not_noise {
  my ($f) = @_;
  return [map { "$_ $f->{$_}{verdict}" } sort grep { my $v = $f->{$_}{verdict};
                                                     defined $v && $v ne 'within noise' } keys %$f];
}

subtest 'the same stream: within noise on everything' => sub {
  my ($f, $c) = compare_with('same');
  is($f->{trtps}{verdict}, 'within noise', 'TRTPS');
  is($f->{trtps}{change_pct}, 0, 'TRTPS unchanged');
  # Data-Maintenance, 5 in a 5-minute MI, is too few to judge: that is the only exception.
  is_deeply(not_noise($f), ['avg/DM not judged', 'p90/DM not judged'],
            'every other figure within noise');
  like($f->{'avg/DM'}{why}, qr/fewer than 5 intervals or groups with data \(\S+ 0 of 20 intervals/,
       'DM says why: its 5 rows fill no group of 10');
  is($f->{'cpu/harness'}{verdict}, 'within noise', 'the harness share is judged');
  cmp_ok($c->{family_size}, '>=', 30, 'a family of 30 figures or more');
  is($c->{counts}{worse} + $c->{counts}{better}, 0, 'counted: none better or worse');
};

subtest 'another seed, the same settings: within noise' => sub {
  my ($f) = compare_with('seed2');
  isnt($f->{trtps}{change_pct}, 0, 'the figures differ');
  is_deeply([grep { !/not judged/ } @{ not_noise($f) }], [], 'but none beyond the noise');
};

subtest 'every response time +20 %: worse on every type of the mix' => sub {
  my ($f) = compare_with('slow');
  for my $code (@MIX) {
    is($f->{"avg/$code"}{verdict}, 'worse', "$code average worse");
    is($f->{"p90/$code"}{verdict}, 'worse', "$code 90th percentile worse");
    cmp_ok(abs($f->{"avg/$code"}{change_pct} - 20), '<', 5, "$code average about +20 %");
  }
  is($f->{trtps}{verdict}, 'within noise', 'the throughput is not');
};

subtest 'every response time -20 %: better' => sub {
  my ($f) = compare_with('fast');
  is($f->{"avg/$_"}{verdict}, 'better', "$_ average better") for @MIX;
  is($f->{'p90/TR'}{verdict}, 'better', 'Trade-Result 90th percentile better');
};

subtest 'throughput -20 % and a busier harness: worse' => sub {
  my ($f, $c) = compare_with('fewer');
  is($f->{trtps}{verdict}, 'worse', 'TRTPS worse');
  cmp_ok($f->{trtps}{change_pct}, '<', -12, 'by about 20 %');
  is($f->{trtps}{test}{level}, 0.99, 'TRTPS judged at 99 %');
  cmp_ok($f->{'rate/TS'}{test}{level}, '>', 0.998, 'the family at 1 - 5 %/K each');
  is($f->{'rate/TS'}{verdict}, 'worse', 'Trade-Status throughput worse');
  is($f->{'cpu/harness'}{verdict}, 'worse', 'the harness share (10 % -> 20 %) worse');
  is(sprintf('%.0f', $f->{'cpu/harness'}{value}), 20, 'its value');
  ok(!defined $f->{'cpu/postgres'}{verdict}, 'the process groups are shown, not judged');
};

subtest 'errors: judged where a run has some' => sub {
  my $d = tmpdir();
  stream_run($d, seed => 1, error_p => 0.05);
  my ($r) = load_run($d, thresholds => $base->{thresholds});
  my $f = { map { $_->{id} => $_ } @{ compare_runs([$base, $r])->{comparisons}[0]{figures} } };
  is($f->{'errors/TS'}{base_count}, 0, 'none in the base');
  cmp_ok($f->{'errors/TS'}{count}, '>', 50, 'many in the run');
  is($f->{'errors/TS'}{verdict}, 'worse', 'worse');
  ok($f->{'errors/TS'}{test}, 'by the test');
  my ($g) = compare_with('same');
  ok(!$g->{'errors/TS'}{test}, 'no errors in either run: no test');
};

subtest 'bb-compare: the outputs' => sub {
  my $out = tmpdir() . '/cmp';
  my $res = run_report('bb-compare', '--out', $out, $dir{base}, $dir{slow}, $dir{fewer});
  is($res->{rc}, 0, 'exit 0') or diag $res->{err};
  my @lines = split /\n/, $res->{out};
  is(scalar @lines, 3, 'a line per compared run and the path');
  like($lines[0], qr/\Arun2 vs run1: TRTPS [\d.]+ vs [\d.]+ \([-+][\d.]+ %\): within noise\. Other figures: (\d+) worse, 0 better, \d+ within noise, \d+ not judged\.\z/,
       'the slower run: TRTPS within noise, the rest counted');
  like($lines[1], qr/\Arun3 vs run1: TRTPS .*: worse\./, 'the run with fewer: worse');
  is($lines[2], "Compare: $out/compare.txt", 'the path');
  my $txt = slurp("$out/compare.txt");
  like($txt, qr/^  TRTPS\s+TR\s+[\d.]+\s+[\d.]+\s+[-+][\d.]+ %\s+within noise\s+[\d.]+\s+[-+][\d.]+ %\s+worse$/m,
       'the TRTPS row: base, then each run with its change and verdict');
  like($txt, qr/^  Trade-Update\s+TU\s+[\d.]+\s+[\d.]+\s+\+\d\d\.\d %\s+worse\s/m,
       'a response-time row');
  like($txt, qr/How a change is judged\n-+\n.*Welch's t interval.*Bonferroni/s, 'the rule, stated');
  like($txt, qr/run2 vs run1: TRTPS at 99 %; the other \d+ judged figures each at 99\.\d+ %/,
       'and the levels of each comparison');
  like($txt, qr/^  pg_settings\s+work_mem\s+4096\s+8192\s+\(not set\)$/m,
       'a PostgreSQL setting that differs');
  unlike($txt, qr/^  pg_settings\s+shared_buffers/m, 'not one that is alike where recorded');
  like($txt, qr/^  run\.conf\s+comment\s+a synthetic stream\s+a synthetic stream\s+fewer$/m,
       'run.conf that differs');
  like($txt, qr/^  db\/settings\.csv\s+\(the file\)\s+present\s+present\s+missing or unreadable$/m,
       'a run without db/settings.csv');
  unlike($txt, qr/^  run\.conf\s+(?:started|finished)_utc/m, 'not the dates');
  unlike($txt, qr/^  run\.conf\s+metrics/m, 'nor the live-metrics addresses');
  my $html = slurp("$out/compare.html");
  like($html, qr/<title>brokerbench compare: run1 run2 run3<\/title>/, 'the page title');
  like($html, qr/Welch&#39;s|Welch's t interval/, 'the rule in the HTML');
  is(scalar(() = $html =~ /<img [^>]*src="data:image\/png;base64,/g), 2, 'two plots inline');
  my $j = read_json("$out/compare.json");
  is($j->{format}, 'brokerbench compare v1', 'compare.json');
  is(scalar @{ $j->{comparisons} }, 2, 'two comparisons');
  is($j->{runs}[0]{dir}, $dir{base}, 'the base');
  for my $p (qw(trtps rt-distribution)) {
    ok(png_ok("$out/plots/$p.png"), "$p.png");
    is($j->{plots}{$p}{status}, 'written', "$p written");
    ok(-s "$out/plots/data/$p.gp" && -s "$out/plots/data/$p.dat", "$p data and script kept");
  }
  like(slurp("$out/plots/data/trtps.dat"), qr/# run1:.*\n\n\n# run2:.*\n\n\n# run3:/s,
       'each run a curve');
};

subtest 'the database figures, side by side' => sub {
  my @d = map { tmpdir() } 1, 2;
  for my $i (0, 1) {
    stream_run($d[$i], seed => 1);
    write_file("$d[$i]/db/before/pg_stat_database.csv",
               "datname,xact_commit,blks_read,blks_hit\nbb,100,500,1000\n");
    write_file("$d[$i]/db/after/pg_stat_database.csv",
               "datname,xact_commit,blks_read,blks_hit\nbb,1100," . (1500 + 1000 * $i)
               . ",10000\n");
  }
  my ($r0) = load_run($d[0]);
  my ($r1) = load_run($d[1], thresholds => $r0->{thresholds});
  my %row = map { $_->{name} => $_ } @{ compare_runs([$r0, $r1])->{database}{rows} };
  is_deeply($row{blks_read}{values}, [1000, 2000], 'blks_read of each run');
  is($row{blks_read}{changes}[0], 100, '+100 %');
  is(sprintf('%.2f', $row{'buffer hit ratio (%)'}{values}[1]), '81.82', 'the hit ratio');
};

subtest 'bad input names the directory and what is missing' => sub {
  my $out = tmpdir() . '/never';
  my $check = sub {
    my ($dir, $re, $what) = @_;
    my $res = run_report('bb-compare', '--out', $out, $dir{base}, $dir);
    is($res->{rc}, 1, "$what: exit 1");
    like($res->{err}, $re, "$what: the message");
  };
  $check->('/nonexistent/bb', qr{\Abb-compare: '/nonexistent/bb' is not a directory; nothing compared\n\z},
           'a missing directory');
  my $empty = tmpdir();
  $check->($empty, qr/'\Q$empty\E' is not a results directory: it has no run\.conf and no mix log/,
           'an empty directory');
  my $conf_only = tmpdir();
  write_file("$conf_only/run.conf", "customers=1000\n");
  $check->($conf_only, qr/no mix log \(mix-\*\.csv\) anywhere below '\Q$conf_only\E'/,
           'no mix log');
  my $no_mee = tmpdir();
  valid_run($no_mee);
  unlink "$no_mee/mee/hostB/mix-mee.csv" or die $!;
  $check->($no_mee, qr/'\Q$no_mee\E' has no market emulator mix log \(mee\/<host>\/mix-mee\*\.csv\)/,
           'no market emulator log');
  my $no_ce = tmpdir();
  valid_run($no_ce);
  unlink "$no_ce/ce/hostA/mix-ce-1001.csv" or die $!;
  $check->($no_ce, qr/'\Q$no_ce\E' has no customer emulator mix log/, 'no customer emulator log');
  my $no_mi = tmpdir();
  valid_run($no_mi);
  write_log("$no_mi/ce/hostA/mix-ce-1001.csv", row(T0 + 1_000_000, 'TS', 'ok', 1000),
            marker(T0 + 20_000_000, 'START'), marker(T0 + 10_000_000, 'STOP'));
  $check->($no_mi, qr/'\Q$no_mi\E' has no measurement interval: the measurement interval is empty/,
           'an empty measurement interval');
  ok(!-e $out, 'and no output directory is made');

  is(run_report('bb-compare', '--help')->{rc}, 0, '--help: exit 0');
  my $u = run_report('bb-compare', '--out', $out, $dir{base});
  is($u->{rc}, 2, 'one directory: exit 2');
  like($u->{err}, qr/give two results directories or more \(the base first\), not only one/, 'says why');
  my $v = run_report('bb-compare', $dir{base}, $dir{same});
  is($v->{rc}, 2, 'no --out: exit 2');
  like($v->{err}, qr/no output directory given \(--out DIR\)/, 'says why');
};

subtest './brokerbench compare: names, a numbered output directory, none left on failure' => sub {
  my $data = tmpdir();
  my $res = "$data/results";
  mkdir $res or die "$res: $!";
  system('cp', '-r', $dir{base}, "$res/0007") == 0 or die 'cp';
  system('cp', '-r', $dir{fewer}, "$res/0008") == 0 or die 'cp';
  my $bb = "$FindBin::RealBin/../../brokerbench";
  my $run = sub {
    my $o = `BB_DATA_DIR='$data' '$bb' compare --no-plots --quiet @_ 2>&1`;
    return ($? >> 8, $o);
  };
  my ($rc, $out) = $run->('0007', '0008');
  is($rc, 0, 'exit 0') or diag $out;
  like($out, qr/^0008 vs 0007: TRTPS .*: worse\./m, 'names taken from the results directory');
  like($out, qr{^Compare: \Q$data\E/compare/0001/compare\.txt$}m, 'a numbered output directory');
  is(readlink("$data/compare/latest"), '0001', 'compare/latest points at it');
  ($rc, $out) = $run->('0007', '0009');
  is($rc, 1, 'a missing run: exit 1');
  like($out, qr/'0009' is not a directory/, 'named');
  ok(!-e "$data/compare/0002", 'no empty numbered directory is left');
  ($rc, $out) = $run->('0007');
  is($rc, 2, 'one run: exit 2');
};

done_testing();
