# The Brokerage House's totals per type (bh/<host>/bh-stats.csv): round trips and statements
# per transaction in the report and results.json; a bad line is named.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use BBTest qw(write_file tmpdir valid_run run_report read_json analyze_dir);

my $HEAD = "type,requests,ok,rollback,warning,invalid,retry_exhausted,db_error,net_error,timeout,"
           . "retries,server_us,db_round_trips,db_statements\n";

my $d = tmpdir();
valid_run($d);
write_file("$d/bh/bh1/bh-stats.csv", $HEAD
           . "TS,200,190,0,0,10,0,0,0,0,0,300000,200,400\n"
           . "TR,50,50,0,0,0,0,0,0,0,7,150000,57,342\n"
           . "T?,1,1,0,0,0,0,0,0,0,0,1,1,1\n");
my $r = analyze_dir($d);
my ($h) = @{ $r->{bh}{hosts} };
is($h->{host}, 'bh1', 'the host');
is($h->{types}{TS}{round_trips_per_txn}, 1, 'Trade-Status: one round trip each');
is($h->{types}{TS}{statements_per_txn}, 2, 'and two statements');
is(sprintf('%.2f', $h->{types}{TR}{round_trips_per_txn}), '1.14', 'Trade-Result with its retries');
is($h->{types}{TR}{retries}, 7, 'the retries');
is(sprintf('%.1f', $h->{types}{TS}{server_ms_avg}), '1.5', 'average server time in ms');
my @p = map { "$_->{file}:$_->{line}: $_->{reason}" } @{ $r->{problems} };
is_deeply(\@p, ["bh/bh1/bh-stats.csv:4: not a transaction code: 'T?'"], 'the bad line is named');
is(run_report('--no-plots', $d)->{rc}, 0, 'bb-report exits 0');
my $txt = do { open my $fh, '<', "$d/report.txt"; local $/; <$fh> };
like($txt, qr/^  Trade-Result\s+TR\s+50\s+1\.14\s+6\.84\s+7\s+3\.000$/m, 'the report row');
is(read_json("$d/results.json")->{bh}{hosts}[0]{types}{TS}{requests}, 200, 'results.json');

my $none = tmpdir();
valid_run($none);
like(analyze_dir($none)->{bh}{why}, qr{no bh/<host>/bh-stats\.csv}, 'without the file it says so');

done_testing();
