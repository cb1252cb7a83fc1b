# The market emulator's end of run in the report: pending orders (pending-trades.csv) are not
# failures; a market emulator that never reached its end (no pending-trades.csv) leaves them
# unknown, never "none"; an old results directory, whose failed-trades.csv held the pending
# orders, still reads right.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use BBTest qw(write_file tmpdir valid_run analyze_dir slurp);
use BrokerBench::Report qw(write_reports);

# The market emulator section of report.txt for a run whose mee/hostB holds FILES.
sub mee_text {
  my (%files) = @_;
  my $d = tmpdir();
  valid_run($d);
  write_file("$d/mee/hostB/$_", $files{$_}) for keys %files;
  my $r = analyze_dir($d);
  write_reports($r, undef);
  my ($section) = slurp("$d/report.txt") =~ /\nMarket emulator\n-+\n(.*?)\n\n\S[^\n]*\n-+\n/s;
  ok(defined $section, 'report.txt has the market emulator section') or return ($r, '');
  $section =~ s/\s+/ /g;  # paragraphs are wrapped
  return ($r, $section);
}

my $FAILED = "trade_id,code,reason\n";
my $PENDING = "trade_id,code,state\n";

subtest 'limit orders pending at the end are pending, not failed' => sub {
  my ($r, $t) = mee_text('failed-trades.csv' => $FAILED,
                         'pending-trades.csv' => $PENDING . join('', map { "$_,TR,limit trigger armed\n" } 1 .. 88)
                                                  . "89,TR,in its completion delay\n");
  like($t, qr/Pending at the end: 89 \(limit orders whose trigger price was not reached: 88; orders within their completion delay \(at most 5 s\): 1\)\. Not failures/,
       'pending, by state');
  like($t, qr/Failed trades: none\./, 'and no failure');
  is($r->{mee}{pending_trades}{known}, 1, 'known');
  is($r->{mee}{failed_trades}{total}, 0, 'nothing failed');
};

subtest 'nothing pending, some failed' => sub {
  my ($r, $t) = mee_text('failed-trades.csv' => "${FAILED}7,TR,lost in flight (the link broke)\n"
                                                . "8,TR,Trade-Result due but not sent\n",
                         'pending-trades.csv' => $PENDING);
  like($t, qr/Pending at the end: none\./, 'none pending');
  like($t, qr/Failed trades: 2, by reason: Reason Trades -+ -+ Trade-Result due but not sent 1 lost in flight \(the link broke\) 1/,
       'the failures by reason');
};

subtest 'a market emulator killed before its end: pending unknown, failures incomplete' => sub {
  my ($r, $t) = mee_text('failed-trades.csv' => "${FAILED}7,TR,lost in flight (the link broke)\n");
  like($t, qr/Pending at the end: unknown: the market emulator on hostB wrote no pending-trades\.csv/,
       'pending is unknown, naming the host');
  unlike($t, qr/Failed trades: none/, 'never "none"');
  like($t, qr/Failed trades: 1 recorded before the market emulator on hostB stopped without reaching its end/,
       'the failures are what was recorded');
  is($r->{mee}{pending_trades}{known}, 0, 'results.json: not known');
  is_deeply($r->{mee}{pending_trades}{hosts_unknown}, ['hostB'], 'which host');
  is($r->{mee}{failed_trades}{complete}, 0, 'failures incomplete');

  ($r, $t) = mee_text('failed-trades.csv' => $FAILED);
  like($t, qr/Failed trades: none recorded before the market emulator on hostB stopped/,
       'an empty file of a killed emulator does not say "none" alone');
};

subtest 'an old results directory: pending orders in failed-trades.csv' => sub {
  my ($r, $t) = mee_text('failed-trades.csv' => $FAILED
    . join('', map { "$_,TR,limit trigger armed (curve has not reached the limit)\n" } 1 .. 88)
    . "89,TR,awaiting completion (processing delay)\n90,TR,Trade-Result due but not sent\n");
  like($t, qr/Pending at the end: 89 \(limit orders whose trigger price was not reached: 88; orders within their completion delay \(at most 5 s\): 1\)/,
       'the old pending reasons count as pending');
  like($t, qr/Failed trades: 1, by reason:/, 'the rest failed');
  is($r->{mee}{failed_trades}{complete}, 1, 'the old emulator reached its end');
};

subtest 'no market emulator files' => sub {
  my ($r, $t) = mee_text();
  like($t, qr/Pending and failed trades: not available/, 'not available');
};

done_testing();
