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
             . ($o{no_failure} ? '' : "failure_us=$F\nkilled_processes=12\n"));
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
  open my $fh, '<', "$d/durability/acknowledged.csv" or die;
  is(join('', <$fh>), "trade_id\n101\n102\n103\n", 'acknowledged.csv: the trades to look up');
  like(durability_line($x), qr/\ADurability: FAIL \(2 of 3 trades acknowledged as committed before the crash lost\)/, 'the line');
  my $s = durability_section($r);
  my ($table) = grep { $_->{t} eq 'table' } @{ $s->{blocks} };
  is(scalar @{ $table->{rows} }, 2, 'the section lists both');
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

done_testing;
