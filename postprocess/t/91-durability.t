# The durability recount (Durability.pm, ReportDurability.pm): acknowledged before the failure,
# found, lost (each named with what is missing), in flight, downtime and redo time, from a
# fixture results directory; and no verdict without a failure, a lookup or trade ids.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use BBTest qw(write_file tmpdir);
use BrokerBench::Durability qw(durability);
use BrokerBench::ReportDurability qw(durability_section durability_line);

my $F = 1_800_000_000_000_000;    # the failure, µs
my $COLS = 'start_us,code,spec_status,outcome,response_us,retries,user,wait_us,inputs,trade_id';
my $dir = tmpdir();

sub fixture {
  my ($d, %o) = @_;
  write_file("$d/durability/durability.conf", "failure=crash\nbefore_s=40\nafter_s=30\n"
             . ($o{no_failure} ? '' : "failure_us=$F\nkilled_processes=12\nreaped_us=" . ($F + 1_250_000) . "\n"));
  write_file("$d/ce/h/mix-ce-1.csv", join('', "# brokerbench mix log v3\n$COLS\n", map { "$_\n" }
    ($F - 9e6) . ',TO,0,ok,1000,0,1,0,TMB q100,101',        # acknowledged, found
    ($F - 8e6) . ',TO,0,ok,1000,0,1,0,TMB q100,102',        # acknowledged, then TR
    ($F - 7e6) . ',TO,0,ok,1000,0,1,0,TLB q100,103',        # acknowledged, lost
    ($F - 6e6) . ',TO,0,rollback,1000,0,1,0,TMB q100 rb,104',  # not acknowledged
    ($F - 1000) . ',TO,0,ok,5000,0,1,0,TMB q100,105',       # in flight (ended after)
    ($F - 500) . ',TS,0,db_error,5000,0,1,0,,',             # not TO/TR
    ($F + 2e6) . ',TS,0,ok,1000,0,1,0,,',                   # the first commit after: 2.001 s
    ($F + 5e6) . ',TO,0,ok,1000,0,1,0,TMB q100,106'));      # after the failure: not counted
  write_file("$d/mee/h/mix-mee.csv", join('', "# brokerbench mix log v3\n$COLS\n", map { "$_\n" }
    ($F - 5e6) . ',TR,0,ok,1000,0,1,0,,102',                # acknowledged, not completed
    ($F - 4e6) . ',TR,0,ok,1000,0,1,0,,101',                # acknowledged, complete
    ($F - 100) . ',TR,0,net_error,900,0,1,0,,107'));        # in flight
  write_file("$d/durability/lookup.csv", "trade_id,found,t_st_id,t_is_cash,settlement,cash_transaction\n"
             . "101,t,CMPT,t,t,t\n102,t,SBMT,t,f,f\n103,f,,,f,f\n") unless $o{no_lookup};
  write_file("$d/db/postgresql.log", join('', map { "$_\n" }
    '2027-01-15 08:00:01.000 UTC [1] LOG:  redo done at 0/1 system usage: CPU: user: 0.00 s, elapsed: 9.99 s',
    '2027-01-15 08:00:01.500 UTC [9] LOG:  database system was interrupted; last known up at x',
    '2027-01-15 08:00:01.600 UTC [9] LOG:  redo starts at 0/3A5F7C8',
    '2027-01-15 08:00:01.700 UTC [9] LOG:  redo done at 0/3B00000 system usage: CPU: user: 0.01 s, system: 0.00 s, elapsed: 0.12 s',
    '2027-01-15 08:00:01.900 UTC [1] LOG:  database system is ready to accept connections'));
}

subtest 'a crash with a lost Trade-Order and a lost Trade-Result' => sub {
  my $d = "$dir/lost";
  fixture($d);
  my $r = { results_dir => $d };
  durability($r);
  my $x = $r->{durability};
  is($x->{acknowledged_before}, 3, 'three trades acknowledged before the failure');
  is_deeply([@$x{qw(acknowledged_trade_orders acknowledged_trade_results)}], [3, 2], 'by type');
  is($x->{in_flight}, 2, 'two in flight');
  is($x->{lost}, 2, 'two lost');
  is($x->{found}, 1, 'one found');
  is_deeply([map { [$_->{trade_id}, $_->{code}, $_->{missing}] } @{ $x->{lost_trades} }],
            [[102, 'TR', "T_ST_ID 'SBMT', not 'CMPT'; no SETTLEMENT row; no CASH_TRANSACTION row (a cash trade)"],
             [103, 'TO', 'no TRADE row']], 'each lost trade named with what is missing');
  like($x->{lost_trades}[1]{acknowledged_utc}, qr/\A2027-01-15 07:59:53\.001 UTC\z/, 'when acknowledged');
  is($x->{verdict}, 'FAIL', 'FAIL');
  is($x->{downtime_s}, 2.001, 'downtime: to the end of the first commit after');
  is($x->{first_commit_code}, 'TS', '... a TS');
  is($x->{redo_s}, 0.12, 'redo time from the log, after the failure only');
  is($x->{ready_s}, 1.9, 'ready again');
  is($x->{reaped_s}, 1.25, 'the old postmaster gone (durability.conf reaped_us)');
  open my $fh, '<', "$d/durability/acknowledged.csv" or die;
  is(join('', <$fh>), "trade_id\n101\n102\n103\n", 'acknowledged.csv: the trades to look up');
  like(durability_line($x), qr/\ADurability: FAIL \(2 of 3 trades acknowledged as committed before the crash lost\)/, 'the line');
  my $s = durability_section($r);
  my ($table) = grep { $_->{t} eq 'table' } @{ $s->{blocks} };
  is(scalar @{ $table->{rows} }, 2, 'the section lists both');
  my ($kv) = grep { $_->{t} eq 'kv' } @{ $s->{blocks} };
  my ($gone) = grep { $_->[0] eq 'Old postmaster gone' } @{ $kv->{rows} };
  like($gone->[1] // '', qr/\A1\.250 s after the failure/, 'the section says when the old postmaster was gone');
};

subtest 'PASS when all are found; no verdict without a lookup, a failure or trade ids' => sub {
  my $d = "$dir/pass";
  fixture($d);
  write_file("$d/durability/lookup.csv", "trade_id,found,t_st_id,t_is_cash,settlement,cash_transaction\n"
             . "101,t,CMPT,t,t,t\n102,t,CMPT,f,t,f\n103,t,PNDG,t,f,f\n");
  my $r = { results_dir => $d };
  durability($r);
  is($r->{durability}{verdict}, 'PASS', 'PASS: a TO needs only its TRADE row, a margin TR no cash row');
  is($r->{durability}{lost}, 0, '0 lost');

  fixture("$dir/nolookup", no_lookup => 1);
  $r = { results_dir => "$dir/nolookup" };
  durability($r);
  is($r->{durability}{verdict}, undef, 'no verdict without a lookup');
  like($r->{durability}{why}, qr/not looked up/, '... and why');

  fixture("$dir/nofail", no_failure => 1);
  $r = { results_dir => "$dir/nofail" };
  durability($r);
  like(durability_line($r->{durability}), qr/no verdict: no failure was made/, 'no failure');

  $r = { results_dir => "$dir/none" };
  durability($r);
  ok(!exists $r->{durability}, 'nothing for a run without a failure');
  is_deeply([durability_section($r)], [], 'and no section');
};

# The lookup's holding rows (issue 39 item 2: a Trade-Result's trade as its frames left it):
# frame 2 writes at least one HOLDING_HISTORY row with HH_T_ID = the trade for every trade it
# completes, so a completed trade without one is incomplete, named as such; a Trade-Order needs
# none. A lookup.csv from before the column is still read, and says the rows were not looked up;
# one without a column the recount cannot do without gives no verdict and names the column.
my $LOOKUP_HEAD = "trade_id,found,t_st_id,t_is_cash,settlement,cash_transaction,holding_history\n";

subtest 'the holding rows of an acknowledged Trade-Result' => sub {
  my $d = "$dir/holding";
  fixture($d);
  # 101: completed with every row but its holding history; 102: all there; 103: a Trade-Order
  # whose trade no Trade-Result completed, no holding history (none is due).
  write_file("$d/durability/lookup.csv", $LOOKUP_HEAD
             . "101,t,CMPT,t,t,t,f\n102,t,CMPT,t,t,t,t\n103,t,PNDG,f,f,f,f\n");
  my $r = { results_dir => $d };
  durability($r);
  my $x = $r->{durability};
  is($x->{holding_history_looked_up}, 1, 'the holding rows were looked up');
  is($x->{lost}, 1, 'one lost');
  is_deeply([map { [$_->{trade_id}, $_->{code}, $_->{missing}] } @{ $x->{lost_trades} }],
            [[101, 'TR', 'no HOLDING_HISTORY row of the trade']],
            'the Trade-Result without its holding history, named with what is missing');
  is($x->{verdict}, 'FAIL', 'FAIL');
  is_deeply($x->{fail_reasons}, ['1 of 3 trades acknowledged as committed before the crash lost'],
            'the reason');
  my ($table) = grep { $_->{t} eq 'table' } @{ durability_section($r)->{blocks} };
  is_deeply($table->{rows}[0], [101, 'TR', '2027-01-15 07:59:56.001 UTC',
                                'no HOLDING_HISTORY row of the trade'], 'the section names it');

  write_file("$d/durability/lookup.csv", $LOOKUP_HEAD
             . "101,t,CMPT,t,t,t,t\n102,t,CMPT,f,t,f,t\n103,t,PNDG,f,f,f,f\n");
  $r = { results_dir => $d };
  durability($r);
  is($r->{durability}{verdict}, 'PASS', 'PASS with every row there (a margin trade: no cash row)');

  # Columns in another order: read by name.
  write_file("$d/durability/lookup.csv", "holding_history,trade_id,found,t_st_id,t_is_cash,"
             . "settlement,cash_transaction\nf,101,t,CMPT,t,t,t\nt,102,t,CMPT,t,t,t\n"
             . "f,103,t,SBMT,f,f,f\n");
  $r = { results_dir => $d };
  durability($r);
  is_deeply([map { $_->{trade_id} } @{ $r->{durability}{lost_trades} }], [101],
            'columns are read by their names');
};

subtest 'an older lookup.csv without holding_history, and one without a needed column' => sub {
  my $d = "$dir/oldlookup";
  fixture($d);
  write_file("$d/durability/lookup.csv", "trade_id,found,t_st_id,t_is_cash,settlement,"
             . "cash_transaction\n101,t,CMPT,t,t,t\n102,t,CMPT,t,t,t\n103,t,PNDG,f,f,f\n");
  my $r = { results_dir => $d };
  durability($r);
  my $x = $r->{durability};
  is($x->{holding_history_looked_up}, 0, 'read, the holding rows not looked up');
  is($x->{verdict}, 'PASS', 'judged by the rows it has');
  my ($kv) = grep { $_->{t} eq 'kv' } @{ durability_section($r)->{blocks} };
  my %row = map { $_->[0] => $_->[1] } @{ $kv->{rows} };
  like($row{'Holding rows'}, qr/\Anot looked up \(durability\/lookup\.csv has no holding_history /,
       'the section says the holding rows were not looked up');

  write_file("$d/durability/lookup.csv", "trade_id,found,t_st_id,t_is_cash,cash_transaction\n"
             . "101,t,CMPT,t,t\n");
  my @problems;
  $r = { results_dir => $d, _problem => sub { push @problems, $_[0] } };
  durability($r);
  $x = $r->{durability};
  is($x->{verdict}, undef, 'no verdict without the settlement column');
  like($x->{why}, qr{\Adurability/lookup\.csv has no column settlement \(its header: },
       'why: the file and the column');
  is($problems[0]{file}, 'durability/lookup.csv', 'an input problem naming the file');
  like(durability_line($x), qr/\ADurability: no verdict: durability\/lookup\.csv has no column settlement/,
       'the line says it');
};

# The consistency conditions after recovery (clause 7.3.2; CheckDb.pm): durability/check-db.txt
# as controller/lib/durability.sh's check_recovered writes it (bb-loader --check's lines, then
# "exit status: N").
sub check_db_text {
  my (%o) = @_;
  my @c = map { $o{"c$_"} // 'PASS' } 1 .. 3;
  my @lines = ('Auditing a database of 1000 customers, scale factor 500, 2 initial trade days',
               'PASS  rows: status_type = 5 (fixed)  [5 rows]',
               'SKIP  rows: trade = 57600 (ITD x 8 x 3600 x customers / SF)  [skipped: 4021 run-time trades since the load]',
               "$c[0]  7.3.2 condition 1: B_NUM_TRADES = completed trades of the broker's accounts  ["
                 . ($c[0] eq 'PASS' ? 'holds' : '2 rows break it') . ']',
               "$c[1]  7.3.2 condition 2: B_COMM_TOTAL = commission of those trades  [holds]",
               "$c[2]  7.3.2 condition 3: HS_QTY = sum of H_QTY per account and symbol  ["
                 . ($c[2] eq 'PASS' ? 'holds' : '3 rows break it') . ']',
               'SKIP  invariant: after a load every trade is completed  [skipped: 4021 run-time trades since the load]',
               'PASS  invariant: each trade\'s history fits its status (market: SBMT[, CMPT]; limit: PNDG[, SBMT[, CMPT]]; canceled: CNCL too)  [holds]',
               ($o{other_fail} ? 'FAIL' : 'PASS') . '  invariant: every lot has its creation history row (before 0, after its first quantity)  ['
                 . ($o{other_fail} ? '1 rows break it' : 'holds') . ']');
  my $failed = grep { $_ eq 'FAIL' } @c, $o{other_fail} ? 'FAIL' : ();
  push @lines, sprintf('%d passed, %d failed, 2 skipped', 6 - 2 - $failed + 2, $failed);
  @lines = @lines[0 .. $o{cut}] if defined $o{cut};
  push @lines, $o{said} if $o{said};
  push @lines, 'exit status: ' . ($o{exit} // ($failed ? 1 : 0));
  return join('', map { "$_\n" } @lines);
}

subtest 'consistency after recovery: PASS, a failed condition, not checked, an audit cut short' => sub {
  my $d = "$dir/consistency";
  fixture($d);
  write_file("$d/durability/lookup.csv", $LOOKUP_HEAD
             . "101,t,CMPT,t,t,t,t\n102,t,CMPT,t,t,t,t\n103,t,PNDG,f,f,f,f\n");
  write_file("$d/durability/check-db.txt", check_db_text());
  my $r = { results_dir => $d };
  durability($r);
  my $c = $r->{durability}{consistency};
  is($c->{result}, 'PASS', 'PASS');
  is_deeply([map { "$_->{condition} $_->{result}" } @{ $c->{conditions} }],
            ['1 PASS', '2 PASS', '3 PASS'], 'each of the three conditions');
  is_deeply($c->{others}, { passed => 3, failed => 0, skipped => 2 },
            'the other checks counted apart');
  is($c->{exit_status}, 0, 'the exit status');
  is($r->{durability}{verdict}, 'PASS', 'the verdict PASS');
  like(durability_line($r->{durability}),
       qr/\ADurability: PASS \(0 of 3 trades .* lost\); consistency after recovery: PASS; /,
       'the line says it');
  my ($kv) = grep { $_->{t} eq 'kv' } @{ durability_section($r)->{blocks} };
  my %row = map { $_->[0] => $_->[1] } @{ $kv->{rows} };
  like($row{'Consistency after recovery'}, qr/\APASS /, 'the section: PASS');
  like($row{'7.3.2 condition 3'}, qr/\APASS: HS_QTY = sum of H_QTY per account and symbol \[holds\]\z/,
       'the section: each condition');
  like($row{'Other checks'}, qr/\A3 passed, 0 failed, 2 skipped /, 'the section: the others');

  # Condition 3 fails: FAIL, though nothing was lost.
  write_file("$d/durability/check-db.txt", check_db_text(c3 => 'FAIL'));
  $r = { results_dir => $d };
  durability($r);
  my $x = $r->{durability};
  is($x->{lost}, 0, 'nothing lost');
  is($x->{consistency}{result}, 'FAIL', 'the consistency FAIL');
  is($x->{verdict}, 'FAIL', 'the verdict FAIL');
  is_deeply($x->{fail_reasons}, ['consistency after recovery: 7.3.2 condition 3: HS_QTY = sum of '
                                 . 'H_QTY per account and symbol FAIL (3 rows break it)'],
            'the reason names the condition and what broke it');
  like(durability_line($x), qr/\ADurability: FAIL \(0 of 3 trades .* lost\); consistency after recovery: FAIL \(7\.3\.2 condition 3: .*\(3 rows break it\)\); /,
       'the line names it');
  ($kv) = grep { $_->{t} eq 'kv' } @{ durability_section($r)->{blocks} };
  %row = map { $_->[0] => $_->[1] } @{ $kv->{rows} };
  like($row{'7.3.2 condition 3'}, qr/\AFAIL: .*\[3 rows break it\]\z/, 'the section: condition 3');
  like($row{'7.3.2 condition 1'}, qr/\APASS: /, 'the section: condition 1');

  # Another check fails: FAIL too, named.
  write_file("$d/durability/check-db.txt", check_db_text(other_fail => 1));
  $r = { results_dir => $d };
  durability($r);
  is($r->{durability}{verdict}, 'FAIL', 'another check failed: FAIL');
  like($r->{durability}{consistency}{why}, qr/\Ainvariant: every lot has its creation history row .* FAIL \(1 rows break it\)\z/,
       '... named');
  is($r->{durability}{consistency}{others}{failed}, 1, '... counted');

  # The audit stopped (no summary): FAIL with what it said.
  write_file("$d/durability/check-db.txt", check_db_text(cut => 3, exit => 1,
    said => 'bb-loader --check: connection to server on socket "/x/.s.PGSQL.5432" failed'));
  $r = { results_dir => $d };
  durability($r);
  is($r->{durability}{verdict}, 'FAIL', 'an audit cut short: FAIL');
  is($r->{durability}{consistency}{why}, 'the audit did not finish (exit status 1: bb-loader '
     . '--check: connection to server on socket "/x/.s.PGSQL.5432" failed)', '... with what it said');

  # A condition missing from a finished audit: FAIL.
  write_file("$d/durability/check-db.txt", join('', grep { !/condition 2/ } split /^/, check_db_text()));
  $r = { results_dir => $d };
  durability($r);
  is($r->{durability}{consistency}{why}, '7.3.2 condition 2 is not in durability/check-db.txt',
     'a condition not in the output: FAIL');

  # No check-db.txt (results from before the check): not checked, not a failure.
  unlink "$d/durability/check-db.txt";
  $r = { results_dir => $d };
  durability($r);
  $x = $r->{durability};
  is($x->{consistency}{result}, 'not checked', 'not checked');
  is($x->{verdict}, 'PASS', 'the verdict still PASS');
  like(durability_line($x), qr/; consistency after recovery: not checked; /, 'the line says so');
  ($kv) = grep { $_->{t} eq 'kv' } @{ durability_section($r)->{blocks} };
  %row = map { $_->[0] => $_->[1] } @{ $kv->{rows} };
  like($row{'Consistency after recovery'}, qr{\Anot checked: no durability/check-db\.txt },
       'the section says why');
  ok(!exists $row{'7.3.2 condition 1'}, 'and no condition rows');

  # A failed check with no recount (no lookup): FAIL all the same.
  write_file("$d/durability/check-db.txt", check_db_text(c1 => 'FAIL'));
  unlink "$d/durability/lookup.csv";
  $r = { results_dir => $d };
  durability($r);
  is($r->{durability}{verdict}, 'FAIL', 'no lookup, a failed condition: FAIL');
  like(durability_line($r->{durability}), qr/\ADurability: FAIL \(no recount: the acknowledged trades were not looked up/,
       'the line says both');
};

# Business recovery (Recovery.pm; clause 7.5), from a run of known figures: 10 Trade-Results a
# second for the 60 s before the failure (the MI's steady period; and 60 s earlier, outside it,
# 1 a second, which must not count); nothing for 5 s after it; 3 a second from 5 s to 30 s; 10 a
# second from 30 s on. The first 60-s window from the first commit on (second 5) at 95 % of 10:
# the window starting at k holds 3 x (30 - k) + 10 x (30 + k) = 390 + 7k >= 570 -> k >= 25.7:
# 26 s. During the outage: 4 net_error (TO 3, TR 1), 1 db_error TR with 2 retries; after it, to
# the recovery: 2 timeout TS and a TO ok after 3 retries; after the recovery: 1 db_error.
sub recovery_fixture {
  my ($d, %o) = @_;
  my $after = $o{after} // 120;
  write_file("$d/durability/durability.conf", "failure=crash\nbefore_s=60\nafter_s=$after\n"
             . "failure_us=$F\nkilled_processes=12\n");
  my @tr;
  for my $s (-120 .. $after - 1) {
    my $n = $s < -60 ? 1 : $s < 0 ? 10 : $s < 5 ? 0 : $s < 30 || $o{never} ? 3 : 10;
    # Started 2 ms before, ended within the second (by completion time); response 2 ms, but
    # 40 ms for the slow ones in [10 s, 20 s) (the p90 bucket 1).
    my $rt = $s >= 10 && $s < 20 ? 40000 : 2000;
    push @tr, map { ($F + $s * 1e6 + $_ * 1000 + 5000 - $rt) . ",TR,0,ok,$rt,0,1,0,,"
                    . (1000 + $s * 20 + $_) } 1 .. $n;
  }
  write_file("$d/mee/h/mix-mee.csv", join('', "# brokerbench mix log v3\n$COLS\n", map { "$_\n" } @tr,
    ($F + 1e6) . ',TR,0,db_error,1000,2,1,0,,7'));
  write_file("$d/ce/h/mix-ce-1.csv", join('', "# brokerbench mix log v3\n$COLS\n", map { "$_\n" }
    ($F - 2e6) . ',TO,0,ok,1000,0,1,0,TMB q100,1000',
    ($F - 1000) . ',TO,0,net_error,3000,0,1,0,TMB q100,',   # in flight, ended in the outage
    ($F + 1e6) . ',TO,0,net_error,1000,0,1,0,TMB q100,',
    ($F + 2e6) . ',TO,0,net_error,1000,0,1,0,TMB q100,',
    ($F + 3e6) . ',TR,0,net_error,1000,0,1,0,,8',
    ($F + 4.9e6) . ',TS,0,ok,1000,0,1,0,,',                 # the first commit: 4.901 s
    ($F + 6e6) . ',TS,0,timeout,1000,0,1,0,,',
    ($F + 7e6) . ',TS,0,timeout,1000,0,1,0,,',
    ($F + 8e6) . ',TO,0,ok,1000,3,1,0,TMB q100,900',
    ($F + 40e6) . ',TO,0,db_error,1000,0,1,0,TMB q100,'));
  # No lookup rows: every acknowledged trade lost (FAIL); the recovery does not depend on it.
  write_file("$d/durability/lookup.csv", "trade_id,found,t_st_id,t_is_cash,settlement,cash_transaction\n");
}

subtest 'business recovery: a dip and the recovery at a known second' => sub {
  my $d = "$dir/recovery";
  recovery_fixture($d);
  my $r = { results_dir => $d };
  durability($r);
  my $x = $r->{durability};
  is($x->{downtime_s}, 4.901, 'downtime: the first commit');
  is($x->{rate_before_tps}, 10, 'the rate before: the 60 s before the failure only');
  is($x->{recovery_threshold_tps}, 9.5, '95 % of it');
  is($x->{recovery_window_s}, 60, 'a 60-s window');
  is($x->{business_recovery_s}, 26, 'recovered 26 s after the failure');
  is($x->{recovery_window_tps}, 9.5333, "the window's rate: (3 x 4 + 10 x 56) / 60");
  is_deeply($x->{outage}{errors}, { net_error => { total => 4, TO => 3, TR => 1 },
                                    db_error => { total => 1, TR => 1 } },
            'errors in the outage by outcome and type (the one in flight included)');
  is_deeply($x->{outage}{retries}, { total => 2, TR => 2 }, 'retries in the outage');
  is_deeply($x->{until_recovery}{errors}, { net_error => { total => 4, TO => 3, TR => 1 },
                                            db_error => { total => 1, TR => 1 },
                                            timeout => { total => 2, TS => 2 } },
            'errors until the recovery (not the db_error after it)');
  is_deeply($x->{until_recovery}{retries}, { total => 5, TR => 2, TO => 3 }, 'retries until it');
  my $p90 = $r->{_durability_series}{p90_ms};
  ok(abs($p90->{1} - 40) <= 0.4 && abs($p90->{2} - 2) <= 0.02, 'the p90 series: 40 ms in '
     . "bucket 1 (10-20 s), 2 ms in bucket 2 (got $p90->{1}, $p90->{2})");
  is($r->{_durability_series}{trtps}{-61}, 1, 'the per-second series before the MI too');
  like(durability_line($x), qr/\ADurability: FAIL \(501 of 501 .*\); consistency after recovery: not checked; business recovery 26 s\z/, 'the line');
  my $s = durability_section($r);
  my ($kv) = grep { $_->{t} eq 'kv' } @{ $s->{blocks} };
  my %row = map { $_->[0] => $_->[1] } @{ $kv->{rows} };
  like($row{'Business recovery time'}, qr/\A26 s \(the 60-s window from then on averaged 9\.53 /,
       'the section: the recovery time');
  is($row{'Errors in the outage'}, '1 db_error (TR 1), 4 net_error (TO 3, TR 1); 2 retries (TR 2) '
     . '(ended in the 4.901 s from the failure to the first commit)', 'the section: the outage');
  like($row{'Errors until recovery'}, qr/2 timeout \(TS 2\); 5 retries \(TO 3, TR 2\) \(ended in the 26 s/,
       'the section: until the recovery');
  like($row{'Throughput before the failure'}, qr/\A10\.00 Trade-Results per second .*95 %: 9\.50/,
       'the section: the rate before');
};

subtest 'business recovery: a run that never recovers' => sub {
  my $d = "$dir/never";
  recovery_fixture($d, never => 1);
  my $r = { results_dir => $d };
  durability($r);
  my $x = $r->{durability};
  is($x->{business_recovery_s}, undef, 'no recovery time');
  like($x->{recovery_why}, qr/\Anot recovered within the period after the failure \(120 s/, 'why');
  is($x->{until_recovery}{to_s}, 120, 'errors counted to the end of the period after');
  is($x->{until_recovery}{errors}{db_error}{total}, 2, '... the late db_error too');
  like(durability_line($x), qr/; not recovered within the period after\z/, 'the line');
  my ($kv) = grep { $_->{t} eq 'kv' } @{ durability_section($r)->{blocks} };
  my %row = map { $_->[0] => $_->[1] } @{ $kv->{rows} };
  unlike($row{'Business recovery time'}, qr/\d+ s \(/, 'no number in the section');
  like($row{'Business recovery time'}, qr/not recovered within the period after/, 'but why');

  # A period after too short for one window: not recovered either, never a number.
  recovery_fixture("$dir/short", after => 50);
  $r = { results_dir => "$dir/short" };
  durability($r);
  is($r->{durability}{business_recovery_s}, undef, 'no 60-s window in 50 s: no number');
};

# The window starts at or after the first commit after the failure: never in the second before
# it, so the business recovery is never shorter than the downtime. 10 a second before; the first
# commit at 4.901 s, then 20 a second: the window starting at second 4 would already average 19.5
# (over 95 % of 10), but it starts before the first commit; the first one allowed starts at 5 s.
subtest 'business recovery: no window starts before the first commit' => sub {
  my $d = "$dir/early";
  write_file("$d/durability/durability.conf", "failure=crash\nbefore_s=60\nafter_s=120\n"
             . "failure_us=$F\n");
  my @tr;
  for my $s (-60 .. 119) {
    next if $s >= 0 && $s < 4;
    my @at = $s < 0 ? map { $_ * 50_000 } 1 .. 10
           : $s == 4 ? (901_000, 950_000) : map { $_ * 25_000 } 1 .. 20;
    push @tr, map { ($F + $s * 1e6 + $_ - 2000) . ",TR,0,ok,2000,0,1,0,,"
                    . (5000 + ($s + 60) * 40 + $_ / 25_000) } @at;
  }
  write_file("$d/mee/h/mix-mee.csv", join('', "# brokerbench mix log v3\n$COLS\n", map { "$_\n" } @tr));
  write_file("$d/ce/h/mix-ce-1.csv", "# brokerbench mix log v3\n$COLS\n");
  my $r = { results_dir => $d };
  durability($r);
  my $x = $r->{durability};
  is($x->{downtime_s}, 4.901, 'the first commit at 4.901 s');
  is($x->{business_recovery_s}, 5, 'recovered at 5 s, the first window from the first commit on');
  ok($x->{business_recovery_s} >= $x->{downtime_s}, 'never before the first commit');
  is($x->{recovery_window_tps}, 20, "the window's rate");
};

subtest 'the plot across the failure' => sub {
  plan skip_all => 'no gnuplot' unless grep { -x "$_/gnuplot" } split /:/, $ENV{PATH};
  my $d = "$dir/recovery";
  my $r = { results_dir => $d };
  durability($r);
  require BrokerBench::Gnuplot;
  require BrokerBench::DurabilityPlot;
  mkdir "$d/plots";
  mkdir "$d/plots/data";
  my $ctx = { r => $r, data => "$d/plots/data", out => $d, gnuplot => 'gnuplot',
              term => BrokerBench::Gnuplot::terminal('gnuplot') };
  my $res = BrokerBench::DurabilityPlot::plot_durability($ctx, 'durability');
  is($res->{status}, 'written', 'written') or diag($res->{note});
  ok(BrokerBench::Gnuplot::png_ok("$d/plots/durability.png"), 'a PNG');
  open my $fh, '<', "$d/plots/data/durability.gp" or die;
  my $gp = join '', <$fh>;
  like($gp, qr/set arrow 1 from 0\.000, graph 0 to 0\.000, graph 1 nohead .*'#c03030' dt 1\n/,
       'the failure marked at 0');
  like($gp, qr/set arrow 2 from 4\.901, graph 0 to 4\.901, graph 1 nohead .*'#806000' dt 2\n/,
       'the first commit at 4.901 s');
  like($gp, qr/set arrow 3 from 26\.000, graph 0 to 26\.000, graph 1 nohead .*'#207020' dt 4\n/,
       'the recovery marked at 26 s');
  like($gp, qr/NaN with lines lw 2 lc rgb '#c03030' dt 1 title 'failure \(crash\) at 0 s'/,
       'the failure named in the key, in its line\'s colour and dash');
  like($gp, qr/NaN with lines lw 2 lc rgb '#806000' dt 2 title 'first commit after it at \+4\.9 s'/,
       'the first commit named in the key');
  like($gp, qr/NaN with lines lw 2 lc rgb '#207020' dt 4 title 'business recovery at \+26 s'/,
       'the recovery named in the key');
  unlike($gp, qr/set label [1-3] /, 'no label beside the lines to collide with another');
  open $fh, '<', "$d/plots/data/durability.dat" or die;
  my %dat = map { (split)[0] => [split] } grep { !/^#/ } <$fh>;
  is($dat{'-5.000'}[1], '10.000', 'TRTPS before: 10');
  is($dat{'15.000'}[1], '3.000', 'TRTPS in the dip: 3');
  is($dat{'15.000'}[2] + 0 > 39, 1, 'the p90 of the slow bucket');

  $r = { results_dir => "$dir/never" };
  durability($r);
  $ctx->{r} = $r;
  ($ctx->{data}, $ctx->{out}) = ("$dir/never/plots/data", "$dir/never");
  mkdir "$dir/never/plots";
  mkdir "$dir/never/plots/data";
  $res = BrokerBench::DurabilityPlot::plot_durability($ctx, 'durability');
  is($res->{status}, 'written', 'written when not recovered');
  open $fh, '<', "$dir/never/plots/data/durability.gp" or die;
  $gp = join '', <$fh>;
  like($gp, qr/'not recovered within the period after'/, 'says so');
  unlike($gp, qr/business recovery at|set arrow 3 /, 'no recovery line');
};

subtest "a failover: the promoted standby's log, not the dead primary's" => sub {
  my $d = "$dir/failover";
  fixture($d);
  my $conf = "$d/durability/durability.conf";
  open my $c, '<', $conf or die;
  my $text = join '', <$c>;
  close $c;
  $text =~ s/\Afailure=crash/failure=failover/;
  write_file($conf, $text);
  write_file("$d/db/standby.log", join('', map { "$_\n" }
    '2027-01-15 08:00:00.100 UTC [7] LOG:  received promote request',
    '2027-01-15 08:00:00.200 UTC [7] LOG:  redo done at 0/5000000 system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.05 s',
    '2027-01-15 08:00:00.210 UTC [7] LOG:  selected new timeline ID: 2',
    '2027-01-15 08:00:00.400 UTC [6] LOG:  database system is ready to accept connections'));
  my $r = { results_dir => $d };
  durability($r);
  my $x = $r->{durability};
  is($x->{failure}, 'failover', 'a failover');
  is($x->{redo_s}, undef, "no redo time: the standby's is its whole life as a standby");
  is($x->{promote_s}, 0.3, 'the promotion: from its request to ready');
  is($x->{ready_s}, 0.4, "ready: the standby's end of recovery");
  my ($rows) = grep { $_->{t} eq 'kv' } @{ durability_section($r)->{blocks} };
  ok((grep { $_->[0] eq 'Promotion (PostgreSQL)' && $_->[1] =~ /\A0\.300 s/ } @{ $rows->{rows} }),
     'the section gives the promotion');
  ok((grep { /promote request/ } @{ $x->{recovery_log} }), 'the promotion among the log lines shown');
  like(durability_line($x), qr/before the failover lost/, 'the line names the failover');
};

done_testing;
