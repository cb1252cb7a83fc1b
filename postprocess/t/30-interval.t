# The measurement interval: from the customer emulator logs only (latest START, earliest
# STOP), rows straddling its edges left out, missing markers falling back and invalidating.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use BBTest qw(row marker write_log write_conf tmpdir analyze_dir T0);

my $S = 1_000_000;

# The wall clock at T0 + $s seconds, in whole microseconds.
sub at { return T0 + int($_[0] * $S + 0.5) }

sub conf { write_conf($_[0], customers => 1000, scale_factor => 500, initial_trade_days => 300,
                      db_name => 'bb', status => 'complete') }

subtest 'two customer emulator logs: latest START, earliest STOP' => sub {
  my $d = tmpdir();
  conf($d);
  write_log("$d/ce/h1/mix-ce-1.csv",
    row(at(5), 'TS', 'ok', 1000),                  # ramp-up: outside
    marker(at(10), 'START'),
    row(at(11.9), 'TS', 'ok', 200_000),            # starts before the MI: outside
    row(at(12), 'TS', 'ok', 0),                    # starts at the MI start: inside
    row(at(30), 'TS', 'ok', 1000),                 # inside
    row(at(64.9), 'TS', 'ok', 100_000),            # ends at the MI end: inside
    row(at(64.95), 'TS', 'ok', 100_000),           # ends after the MI: outside
    marker(at(70), 'STOP'));
  write_log("$d/ce/h2/mix-ce-2.csv",
    marker(at(12), 'START'),
    row(at(40), 'TS', 'db_error', 1000),           # inside, an error
    row(at(66), 'TS', 'ok', 1000),                 # after the earliest STOP: outside
    marker(at(65), 'STOP'));
  write_log("$d/mee/h3/mix-mee.csv",
    marker(T0, 'START'),                                 # the MEE's markers are not used
    row(at(1), 'TR', 'ok', 1000),                  # outside
    row(at(20), 'TR', 'ok', 1000),                 # inside
    row(at(64.999), 'TR', 'ok', 2000),             # ends after the MI: outside
    marker(at(100), 'STOP'));
  my $r = analyze_dir($d);
  is($r->{mi}{start_us}, at(12), 'MI start = the latest START (second log)');
  is($r->{mi}{end_us}, at(65), 'MI end = the earliest STOP (second log)');
  is($r->{mi}{seconds}, 53, 'MI length 53 s');
  is($r->{mi}{source}, 'markers', 'from markers');
  my $ts = $r->{transactions}{TS};
  is($ts->{count}, 3, 'three valid Trade-Status rows inside: at the start, inside, ending at the end');
  is($ts->{errors}, 1, 'the db_error counts as an error in the MI');
  is($ts->{rows_outside_mi}, 4, 'four rows outside (ramp-up, two straddling, after STOP)');
  is($ts->{rows_in_mi} + $ts->{rows_outside_mi}, 8, 'every Trade-Status row is in or out');
  is($r->{transactions}{TR}{count}, 1, 'one Trade-Result inside');
  is($r->{trtps}{trade_results_in_mi}, 1, 'TRTPS counts that one');
  ok(!grep({ $_->{rule} eq 'markers' } @{ $r->{reasons} }), 'no marker complaint');
  cmp_ok(abs($r->{ramp_up}{observed_s} - 7), '<', 1e-9, 'ramp-up observed: first row at +5 s to MI start at +12 s');
  like($r->{ramp_up}{warning}, qr/\Athe ramp-up was 7\.0 s, shorter than the 900 s a limit order may take to trigger: .* understates TRTPS/,
       'a 7 s ramp-up is warned of');
};

subtest 'a ramp-up of 900 s or more: no warning; shorter: warned' => sub {
  # [configured ramp_up_s (undef: not in run.conf), START (first row at 0), warning or not]
  for my $case ([900, 900, undef], [1200, 1200, undef], [899, 899, qr/the ramp-up was 899\.0 s,/],
                [900, 899.5, undef],      # the configured one counts when known
                [undef, 899.5, undef],    # else the observed, short by a dispatch: under 1 s
                [undef, 898.5, qr/the ramp-up was 898\.5 s,/]) {
    my ($conf, $start, $want) = @$case;
    my $d = tmpdir();
    write_conf($d, customers => 1000, scale_factor => 500, initial_trade_days => 300,
               (defined $conf ? (ramp_up_s => $conf) : ()), db_name => 'bb', status => 'complete');
    write_log("$d/ce/h1/mix-ce-1.csv",
      row(at(0), 'TS', 'ok', 1000),
      marker(at($start), 'START'),
      row(at($start + 1), 'TS', 'ok', 1000),
      marker(at($start + 1000), 'STOP'));
    my $r = analyze_dir($d);
    my $name = sprintf('ramp_up_s %s, START at %s s', $conf // 'unknown', $start);
    if ($want) {
      like($r->{ramp_up}{warning}, $want, "$name: warned");
    } else {
      ok(!exists $r->{ramp_up}{warning}, "$name: no warning");
    }
  }
};

subtest 'missing START and STOP: fallback to rows, INVALID' => sub {
  my $d = tmpdir();
  conf($d);
  write_log("$d/ce/h1/mix-ce-1.csv",
    row(at(3), 'TS', 'ok', 1000),
    row(at(20), 'TS', 'ok', 500_000));             # ends at +20.5 s
  write_log("$d/ce/h1/mix-ce-2.csv",
    marker(at(2), 'START'),
    row(at(4), 'TS', 'ok', 1000),
    row(at(30), 'TS', 'ok', 1000),
    marker(at(40), 'STOP'));
  my $r = analyze_dir($d);
  is($r->{mi}{source}, 'fallback', 'the MI is a fallback');
  is($r->{mi}{start_us}, at(3), 'start: the first row of the log without START (later than +2 s)');
  is($r->{mi}{end_us}, at(20.5), 'end: the last row end of the log without STOP');
  my @m = grep { $_->{rule} eq 'markers' } @{ $r->{reasons} };
  is(scalar @m, 2, 'two marker reasons');
  like($m[0]{text}, qr{ce/h1/mix-ce-1\.csv has no START marker}, 'the missing START is named with its file');
  like($m[1]{text}, qr{ce/h1/mix-ce-1\.csv has no STOP marker}, 'the missing STOP is named with its file');
  ok(!$r->{verdict}{valid}, 'INVALID');
};

subtest 'START after STOP: an empty MI' => sub {
  my $d = tmpdir();
  conf($d);
  write_log("$d/ce/a/mix-ce-1.csv", marker(at(50), 'START'), row(at(51), 'TS', 'ok', 1),
            marker(at(60), 'STOP'));
  write_log("$d/ce/b/mix-ce-2.csv", marker(T0, 'START'), row(at(1), 'TS', 'ok', 1),
            marker(at(40), 'STOP'));
  write_log("$d/mee/c/mix-mee.csv", row(at(45), 'TR', 'ok', 1));
  my $r = analyze_dir($d);
  ok($r->{mi}{empty}, 'the MI is empty');
  ok((grep { $_->{text} =~ /measurement interval is empty/ } @{ $r->{reasons} }), 'said so');
  like($r->{trtps}{headline}, qr/\ATRTPS: n\/a \(no measurement interval\)\z/, 'TRTPS: n/a with the reason');
  is($r->{transactions}{TS}{count}, 0, 'nothing counted');
};

subtest 'only a market emulator log: no MI' => sub {
  my $d = tmpdir();
  conf($d);
  write_log("$d/mee/c/mix-mee.csv", marker(T0, 'START'), row(at(45), 'TR', 'ok', 1),
            marker(at(90), 'STOP'));
  my $r = analyze_dir($d);
  is($r->{mi}{start_us}, undef, 'no MI from the market emulator markers');
  ok((grep { $_->{text} =~ /no readable customer emulator mix log/ } @{ $r->{reasons} }), 'said so');
  is($r->{verdict}{text}, 'INVALID', 'INVALID');
};

subtest 'no Trade-Results log: TRTPS n/a' => sub {
  my $d = tmpdir();
  conf($d);
  write_log("$d/ce/a/mix-ce-1.csv", marker(T0, 'START'), row(at(1), 'TS', 'ok', 1),
            marker(at(40), 'STOP'));
  my $r = analyze_dir($d);
  like($r->{trtps}{headline}, qr/\ATRTPS: n\/a \(no readable market emulator mix log/, 'n/a, and why');
};

# The run's time range (Inputs.pm, run_range): every row and marker must lie in it.
subtest "the run's time range: run.conf's times, widened" => sub {
  my $d = tmpdir();
  write_conf($d, customers => 1000, scale_factor => 500, ramp_up_s => 10,
             started_utc => '2025-11-21T12:00:00Z', finished_utc => '2025-11-21T12:01:40Z');
  my $lo = T0 - 600 * $S;            # run.conf's start less 10 min (a Trade-Cleanup may begin
                                     # long before the START less the ramp-up)
  my $hi = at(100 + 1 + 600);        # run.conf's finish (+ its second) and 10 min, before
                                     # the STOP + the MI length + 10 min (+720 s)
  write_log("$d/ce/h1/mix-ce-1.csv",
    row($lo, 'TS', 'ok', 1000),                    # line 3: kept
    row($lo - 1, 'TS', 'ok', 1000),                # line 4: named
    marker(T0 - 601 * $S, 'START'),                   # line 5: before run.conf's start - 10 min
    marker(at(20), 'START'),
    marker(at(70), 'STOP'),
    row(at(700), 'TS', 'ok', 1_000_000),           # line 8: ends at the range's end: kept
    row(at(700), 'TS', 'ok', 1_000_001));          # line 9: named
  my @p;
  require BrokerBench::Analysis;
  my ($r) = BrokerBench::Analysis::analyze(dir => $d, problem_hook => sub { push @p, $_[0] });
  is($r->{run_range}{start_us}, $lo, "the range starts at run.conf's started_utc less 10 min");
  is($r->{run_range}{end_us}, $hi, "and ends at run.conf's finished_utc + 1 s + 10 min");
  is_deeply([map { "$_->{line}: $_->{reason}" } @p],
            ["4: start_us @{[$lo - 1]} is before the run's time range (which starts "
             . "2025-11-21 11:50:00.000 UTC); row left out",
             "5: START marker at @{[T0 - 601 * $S]} is before the run's time range (which starts "
             . "2025-11-21 11:50:00.000 UTC); marker left out",
             "9: response_us 1000001 ends the row after the run's time range (which ends "
             . "2025-11-21 12:11:41.000 UTC); row left out"],
            'the rows and the marker outside are named; those at its edges are kept');
  is($r->{mi}{start_us}, at(20), 'the MI from the START inside');
  is($r->{transactions}{TS}{rows}, 2, 'two rows kept');
  is($r->{mix_problems}, 3, 'three input problems');
};

subtest "the run's time range without run.conf's times" => sub {
  my $d = tmpdir();
  conf($d);
  write_log("$d/ce/h1/mix-ce-1.csv", marker(at(10), 'START'), row(at(30), 'TS', 'ok', 1000),
            marker(at(70), 'STOP'));
  my $r = analyze_dir($d);
  is($r->{run_range}{start_us}, T0 - 650 * $S, 'from the START less the MI length (no '
                                                   . 'ramp_up_s) and 10 min');
  is($r->{run_range}{end_us}, at(70 + 60 + 600), 'to the STOP plus the MI length and 10 min');
  like($r->{run_range}{from}, qr/ramp-up \(unknown: the MI length\)/, 'and says so');
};

done_testing();
