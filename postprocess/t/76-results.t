# bb-results and ./brokerbench results: the list of results directories, newest first, from
# each one's results.json; "no report" without one; an unreadable one named.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use BBTest qw(valid_run write_file write_conf tmpdir run_report);

my $data = tmpdir();
my $res  = "$data/results";
# 0001: a reported run (VALID, 2.00 tpsE); 0002: a run that failed before its report; 0010: a
# broken results.json; 0003: an empty directory. Not runs: latest, notes, 12 (too short).
valid_run("$res/0001");
is(run_report('--quiet', '--no-plots', "$res/0001")->{rc}, 0, '0001 reported');
write_conf("$res/0002", started_utc => '2025-11-22T08:30:00Z', comment => 'died early',
           kit_commit => 'abc1234', status => 'failed');
valid_run("$res/0010");
write_file("$res/0010/results.json", "{\"trtps\": ");
mkdir "$res/$_" for qw(0003 notes 12);
symlink('0010', "$res/latest") or die $!;

my $r = run_report('bb-results', $res);
is($r->{rc}, 0, 'exit 0');
my @lines = split /\n/, $r->{out};
like($lines[0], qr/\AResults\s+Started \(UTC\)\s+TRTPS\s+Verdict\s+Kit\s+Comment\z/, 'the head');
like($lines[1], qr/\A-+  -+/, 'a rule');
is(scalar @lines, 6, 'four runs');
like($lines[2], qr/\A0010\s+2025-11-21 12:00:00\s+-\s+unreadable report\s+test\s+a test run\z/,
     'newest first: the unreadable report, dated from run.conf');
like($lines[3], qr/\A0003\s+-\s+-\s+no report\s+-\s+-\z/, 'an empty directory: no report');
like($lines[4], qr/\A0002\s+2025-11-22 08:30:00\s+-\s+no report \(status failed\)\s+abc1234\s+died early\z/,
     'a failed run: no report, its status, from run.conf');
like($lines[5], qr/\A0001\s+2025-11-21 12:00:00\s+2\.00\s+VALID\s+test\s+a test run\z/,
     'the reported run: TRTPS and verdict from results.json');
like($r->{err}, qr{\Abb-results: \Q$res\E/0010/results\.json: cannot be read: not valid JSON: .* expected}, 'the broken file named');

my $bb = "$FindBin::RealBin/../../brokerbench";
my $out = `BB_DATA_DIR='$data' '$bb' results 2>/dev/null`;
is($?, 0, './brokerbench results: exit 0');
is($out, $r->{out}, 'the same list from the kit\'s results directory');
$out = `'$bb' results --results-dir '$res' 2>/dev/null`;
is($out, $r->{out}, '--results-dir');
my $none = tmpdir();
$out = `BB_DATA_DIR='$none' '$bb' results`;
is($?, 0, 'no results yet: exit 0');
like($out, qr/No results yet: \Q$none\E\/results does not exist/, 'and says so');
mkdir "$none/results";
is(run_report('bb-results', "$none/results")->{out}, "No results directories (NNNN) in $none/results.\n",
   'an empty results directory');
my $bad = run_report('bb-results', "$none/missing");
is($bad->{rc}, 1, 'an unreadable directory: exit 1');
like($bad->{err}, qr/cannot read the directory '\Q$none\E\/missing'/, 'named');
is(run_report('bb-results')->{rc}, 2, 'no argument: exit 2');
`'$bb' results --bogus 2>/dev/null`;
is($? >> 8, 2, './brokerbench results --bogus: exit 2');

done_testing();
