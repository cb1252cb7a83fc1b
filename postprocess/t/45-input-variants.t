# The input variants of clause 6.4.1 from the inputs column of mix log v2: a golden
# v2 run passes, a variant out of range makes the run INVALID naming the clause, the variant,
# its share and the range, short runs widen the ranges by a stated rule, a 2-hour MI does not,
# and v1 logs are still read (the variants are then not judged).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use BBTest qw(row marker write_log tmpdir valid_run analyze_dir run_report read_json T0
              GOLDEN_INPUTS);

my $S = 1_000_000;

sub slurp { open my $fh, '<:raw', $_[0] or return ''; local $/; return scalar <$fh> }
sub reasons_of { my ($r, $rule) = @_; return grep { $_->{rule} eq $rule } @{ $r->{reasons} } }
sub notes_of { my ($r, $rule) = @_; return grep { $_->{rule} eq $rule } @{ $r->{notes} } }
sub variant {
  my ($r, $code, $token) = @_;
  my ($v) = grep { $_->{code} eq $code && $_->{token} eq $token } @{ $r->{input_variants}{variants} };
  return $v;
}

subtest 'a golden v2 run: every variant passes, the run is VALID' => sub {
  my $d = tmpdir();
  valid_run($d, v2 => 1);
  like(slurp("$d/ce/hostA/mix-ce-1001.csv"), qr/\A# brokerbench mix log v2\n/, 'the log is v2');
  my $r = analyze_dir($d);
  is($r->{verdict}{text}, 'VALID', 'VALID') or diag explain $r->{reasons};
  my $iv = $r->{input_variants};
  is(scalar @{ $iv->{variants} }, 26, 'all 26 variants of clause 6.4.1 but roll_it_back');
  is(scalar(grep { $_->{ok} } @{ $iv->{variants} }), 26, 'each passes');
  is($iv->{scaled}, 1, 'a 50 s MI: the ranges are scaled');
  my $tp = variant($r, TO => 'tp');
  is_deeply([@$tp{qw(count of pct)}], [10, 101, 9.901], 'TO third-party executor: 10 of 101');
  is_deeply($tp->{range}, [9.5, 10.5], 'its required range, from Spec.pm');
  my $watch = variant($r, MW => 'watch');
  is_deeply([@$watch{qw(count of pct)}], [108, 180, 60], 'MW watch list: 108 of 180 = 60 %');
  is_deeply($watch->{range_applied}, [46.7, 73.3],
            'scaled: 60 +- 3.64 binomial standard deviations at 180 (13.300)');
  my $tu = variant($r, TU => 'f3');
  is_deeply([@$tu{qw(count of)}], [6, 20], 'TU frame 3: 6 of 20');
  ok((notes_of($r, 'input variants'))[0]{text} =~ /\Ascaled for a short run: the MI \(50 s\)/,
     'the note states the short-run rule');
};

subtest 'a variant out of range: INVALID, naming clause, variant, share and range' => sub {
  my $d = tmpdir();
  my @to = @{ GOLDEN_INPUTS->{TO} };
  $to[3] = [[tp => 30]];       # 30 third-party executors of 101 Trade-Orders
  valid_run($d, inputs => { TO => \@to });
  my $r = analyze_dir($d);
  is($r->{verdict}{text}, 'INVALID', 'INVALID');
  is(scalar @{ $r->{reasons} }, 1, 'one reason') or diag explain $r->{reasons};
  my ($why) = reasons_of($r, 'input variants');
  is($why->{clause}, '6.4.1', 'clause 6.4.1');
  # 10 % +- 364.22 * sqrt(0.1 * 0.9 / 101) = 10.873 % at 101 Trade-Orders.
  is($why->{text}, 'Trade-Order third-party executor is 29.703 % of its valid transactions in '
                   . 'the MI (30 of 101), outside the range (scaled for a short run) '
                   . '0.000-20.873 %', 'the reason');
  is(variant($r, TO => 'tp')->{ok}, 0, 'the variant is marked');
  is(variant($r, TO => 'name')->{ok}, 1, 'the others pass');

  my $res = run_report('--no-plots', $d);
  is($res->{rc}, 0, 'bb-report exits 0') or diag $res->{err};
  my $txt = slurp("$d/report.txt");
  like($txt, qr/\nInput variants: measured vs required\n-+\n/, 'report.txt has the table');
  like($txt, qr/Trade-Order\s+third-party executor\s+tp\s+30\s+101\s+29\.703\s+9\.500-10\.500\s+0\.000-20\.873\s+FAIL/,
       'its row: count, of, measured, required and applied range, FAIL');
  like($txt, qr/Trade-Order\s+is_lifo\s+lifo\s+35\s+101\s+34\.65\d\s+33\.000-37\.000\s+\S+\s+pass/,
       'a passing row');
  like($txt, qr/input variants\s+6\.4\.1\s+FAIL/, 'the check table');
  like($txt, qr/\[input variants, clause 6\.4\.1\] Trade-Order third-party executor is 29\.703 %/,
       'the reason in the verdict');
  my $html = slurp("$d/report.html");
  like($html, qr/<h2>Input variants: measured vs required<\/h2>/, 'report.html has the table');
  like($html, qr/<td>tp<\/td>.*?<td class="fail">FAIL<\/td>/, 'with FAIL marked');
  my $json = read_json("$d/results.json");
  my ($j) = grep { $_->{code} eq 'TO' && $_->{token} eq 'tp' } @{ $json->{input_variants}{variants} };
  is_deeply([@$j{qw(count of ok)}], [30, 101, 0], 'results.json has the variant');
};

subtest 'only valid rows in the MI count' => sub {
  my $d = tmpdir();
  # Outside the MI, an error in it, and an invalid one in it: none counts.
  valid_run($d, v2 => 1, extra_ce => [
    row(T0 + 1 * $S, 'SD', 'ok', 1000, inputs => 'lob'),
    row(T0 + 11 * $S, 'SD', 'timeout', 1000, inputs => 'lob'),
    row(T0 + 12 * $S, 'SD', 'invalid', 1000, inputs => 'lob'),
  ]);
  my $r = analyze_dir($d);
  my $lob = variant($r, SD => 'lob');
  is_deeply([@$lob{qw(count of)}], [1, 140], 'SD access_lob: still 1 of 140');
  is($r->{transactions}{SD}{count}, $lob->{of}, 'the same rows as the mix');
};

subtest 'a 2-hour MI is judged by the ranges as written' => sub {
  my $d = tmpdir();
  valid_run($d, v2 => 1, mi_s => 7200);
  my $r = analyze_dir($d);
  is($r->{input_variants}{scaled}, 0, 'not scaled');
  # The golden counts cannot all hit the narrow ranges: 1 of 140, 11 of 101, 6 of 20.
  my @why = reasons_of($r, 'input variants');
  is_deeply([map { $_->{code} . ' ' . $_->{token} } grep { defined $_->{ok} && !$_->{ok} }
             @{ $r->{input_variants}{variants} }], ['SD lob', 'TO TSL', 'TU f3'],
            'three variants fail') or diag explain \@why;
  is($why[0]{text}, 'Security-Detail access_lob is 0.714 % of its valid transactions in the MI '
                    . '(1 of 140), outside the required 0.900-1.100 %',
     '1 of 140 is outside 0.9-1.1 % once the range is not widened');
  is(scalar @why, 3, 'a reason each');
  is_deeply(variant($r, MW => 'watch')->{range_applied}, [57, 63], 'ranges as written');
};

subtest 'v1 logs: read as before, variants not judged' => sub {
  my $d = tmpdir();
  valid_run($d);
  my $r = analyze_dir($d);
  is($r->{verdict}{text}, 'VALID', 'a v1 run is still VALID');
  is($r->{mix_total}, 1000, 'every row read');
  like($r->{input_variants}{skipped}, qr/mix log v1/, 'the variants are not judged, saying why');
  ok((grep { $_->{text} =~ /not judged: the mix logs do not log the inputs/ }
      notes_of($r, 'input variants')), 'a note says so');

  # A v1 log beside the v2 ones: its rows are left out of the variants, and a note says so.
  $d = tmpdir();
  valid_run($d, v2 => 1);
  write_log("$d/ce/hostC/mix-ce-2002.csv", marker(T0, 'START'),
            row(T0 + 20 * $S, 'TO', 'ok', 1000), row(T0 + 21 * $S, 'TO', 'ok', 1000),
            marker(T0 + 100 * $S, 'STOP'));
  $r = analyze_dir($d);
  is($r->{transactions}{TO}{count}, 103, 'the v1 Trade-Orders count in the mix');
  is(variant($r, TO => 'tp')->{of}, 101, 'but not in the variants');
  ok((grep { $_->{text} =~ /rows of mix logs v1 carry no inputs .*: TO 2\z/ }
      notes_of($r, 'input variants')), 'a note counts them');
  ok(!reasons_of($r, 'input variants'), 'no variant fails');
};

done_testing();
