# Hostile mix log rows (issue 16): a row far outside the run's own time range, or with a
# response time or wait longer than the run, is an input problem named FILE:LINE with its field
# and value, the run is INVALID, and bb-report still writes its report within a 1 GB address
# space (such a row used to size the time-indexed arrays: start_us=0 grew bb-report to 23 GB).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use BBTest qw(row marker tmpdir valid_run write_log_v2 write_file analyze_dir slurp T0);

my $S   = 1_000_000;
my $BIG = '9999999999999999999';    # the largest value the reader's \d{1,19} lets through
my $BB  = "$FindBin::RealBin/../bb-report";

# bb-report under ulimit -v (1 GB) and a time limit: { rc, out, err }.
sub capped_report {
  my (@args) = @_;
  my $o = tmpdir();
  my $q = join(' ', map { my $s = $_; $s =~ s/'/'\\''/g; "'$s'" } ($^X, $BB, @args));
  system('sh', '-c', "ulimit -v 1048576 && exec timeout 120 $q >'$o/out' 2>'$o/err'");
  return { rc => $? >> 8, out => slurp("$o/out"), err => slurp("$o/err") };
}

# The line number of the last line of a file.
sub last_line { my $n = () = slurp($_[0]) =~ /\n/g; return $n }

# A valid run (mix log v2) with one more line in the customer (ce) or market (mee) emulator's
# log; bb-report must name that line, its field and its value.
sub hostile {
  my ($name, $log, $line, $field, $value, @more) = @_;
  subtest $name => sub {
    my $d = tmpdir();
    my $run = valid_run($d, v2 => 1, ($log eq 'ce' ? 'extra_ce' : 'extra_mee') => [$line]);
    my $file = $log eq 'ce' ? 'ce/hostA/mix-ce-1001.csv' : 'mee/hostB/mix-mee.csv';
    my $at = "$file:" . last_line($run->{$log});
    my $res = capped_report(@more, $d);
    is($res->{rc}, 0, 'exit 0: an INVALID report was written') or diag $res->{err};
    like($res->{out}, qr/^Verdict: INVALID/m, 'the verdict is INVALID');
    my $txt = slurp("$d/report.txt");
    ok(length $txt, 'report.txt is written');
    ok($txt =~ /^\s*Verdict: INVALID/m, 'report.txt says INVALID');
    ok($txt =~ /^\s*input problems\s+MIXLOG\.md\s+FAIL/m, 'because of an input problem')
      or diag $txt =~ /(\n\s*input problems [^\n]*)/ ? $1 : '(no such check)';
    my $named = qr/\Q$at\E: \Q$field\E \Q$value\E /;
    like($res->{err}, $named, "stderr names $at, $field and $value");
    (my $flat = $txt) =~ s/\s+/ /g;    # the report wraps its lines
    ok($flat =~ $named, "and so does report.txt") or diag "report.txt lists: ", $flat =~ /Input problems -+ (.*?) Settings/ ? $1 : "(no section)";
    ok(!glob("$d/*.tmp*"), 'no temporary file is left');
  };
}

# Each row is otherwise valid: a Trade-Status (customer emulator) or a Trade-Result (market
# emulator) with the fields the reader checks.
my $ts = sub { row($_[0], 'TS', 'ok', $_[1] // 1000, inputs => '') };
my $tr = sub { row($_[0], 'TR', 'ok', $_[1] // 1000, wait => $_[2] // 500, inputs => '') };
my $mid = T0 + 30 * $S;    # inside the MI (T0 + 10 s .. T0 + 60 s)

hostile('start_us 0', ce => $ts->(0), start_us => 0);
hostile('start_us 0, with the plots', ce => $ts->(0), start_us => 0, '--quiet');
hostile("start_us $BIG", ce => $ts->($BIG), start_us => $BIG);
hostile("response_us $BIG", ce => $ts->($mid, $BIG), response_us => $BIG);
hostile('a row an hour before the run', ce => $ts->(T0 - 3600 * $S), start_us => T0 - 3600 * $S);
hostile('a row a day after the run', ce => $ts->(T0 + 86400 * $S), start_us => T0 + 86400 * $S);
hostile('a Trade-Result at start_us 0', mee => $tr->(0), start_us => 0, '--no-plots');
hostile("a Trade-Result at start_us $BIG", mee => $tr->($BIG), start_us => $BIG, '--no-plots');
hostile("a Trade-Result with response_us $BIG", mee => $tr->($mid, $BIG), response_us => $BIG,
        '--no-plots');
hostile("a Trade-Result with wait_us $BIG", mee => $tr->($mid, 1000, $BIG), wait_us => $BIG,
        '--no-plots');
hostile("a Trade-Result with wait_us -$BIG", mee => $tr->($mid, 1000, "-$BIG"),
        wait_us => "-$BIG", '--no-plots');
hostile('a START marker at 0', ce => marker(0, 'START', 2), 'START marker at' => 0, '--no-plots');
hostile("a STOP marker at $BIG", ce => marker($BIG, 'STOP', 2), 'STOP marker at' => $BIG, '--no-plots');
hostile("a market emulator STOP marker at $BIG", mee => marker($BIG, 'STOP', 2), 'STOP marker at' => $BIG,
        '--no-plots');

# Without run.conf and markers the run's time range is unknown: the rows cannot be checked,
# so none goes on a time axis, and an MI that the rows stretch over decades is not believed.
subtest 'no run.conf and no markers: start_us 0' => sub {
  my $d = tmpdir();
  write_log_v2("$d/ce/hostA/mix-ce-1.csv", $ts->(0), map { $ts->(T0 + $_ * $S) } 1 .. 50);
  write_log_v2("$d/mee/hostB/mix-mee.csv", map { $tr->(T0 + $_ * $S) } 1 .. 50);
  my $res = capped_report($d);
  is($res->{rc}, 0, 'exit 0: an INVALID report was written') or diag $res->{err};
  like($res->{out}, qr/^Verdict: INVALID/m, 'INVALID');
  (my $flat = slurp("$d/report.txt")) =~ s/\s+/ /g;
  ok($flat =~ /\[run time range, clause MIXLOG\.md\] the run's time range is unknown: no customer emulator log has a START before a STOP/,
     'the range is unknown, and why');
  ok($flat =~ /the measurement interval \(1970-01-01 00:00:00\.000 UTC to 2025-11-21 12:00:50\.001 UTC\) is 20414 days: longer than any run \(40 days\)/,
     'the MI from the rows is not believed');
  ok($flat =~ /trtps\.png not written: no time axis: the run's time range is unknown/, 'no plot over time');
};

# Numbers that Perl would make infinite (inf - inf is NaN, which no comparison or sort takes)
# are not numbers: in run.conf, the system samples and the database snapshots.
subtest 'values Perl would make infinite' => sub {
  my $d = tmpdir();
  valid_run($d);
  open my $fh, '>>', "$d/run.conf" or die $!;
  print {$fh} "scale_factor=1e999\n";
  close $fh;
  write_file("$d/sys/hostA/sysstat.csv",
             "time_us,cpu_user_pct,cpu_system_pct,cpu_iowait_pct,cpu_idle_pct,disk_read_kb_s,"
             . "disk_write_kb_s\n" . join(',', T0 + 20 * $S, 1, 1, 1, 97, 0, 0) . "\n"
             . join(',', T0 + 21 * $S, 1, ('9' x 400), 1, 97, 0, 0) . "\n");
  my $r = analyze_dir($d);
  my @p = map { "$_->{file}:$_->{line}: $_->{reason}" } @{ $r->{problems} };
  ok((grep { /\Arun\.conf:\d+: scale_factor is not a number: '1e999' \(taken as unknown\)\z/ } @p),
     'run.conf: scale_factor 1e999 is not a number') or diag explain \@p;
  ok((grep { m{\Asys/hostA/sysstat\.csv:3: not a number in cpu_system_pct: '9{400}'\z} } @p),
     'sysstat.csv: 400 nines are not a number') or diag explain \@p;
  is($r->{system}{hosts}[0]{samples}, 1, 'the other sample is kept');
  is($r->{trtps}{nominal_tpse}, undef, 'no nominal throughput from an infinite scale factor');
};

done_testing();
