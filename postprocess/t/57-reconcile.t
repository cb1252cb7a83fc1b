# Every request accounted for (issue 16): the customer emulators' requests sent against their
# mix logs' rows by outcome, the market emulator's orders received against completed + failed +
# pending; a mismatch makes the run INVALID naming the numbers; an emulator that never reached
# its end (killed) is said, with its last summary line and the trades the database left open,
# never taken for "nothing missing".
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use BBTest qw(write_file tmpdir valid_run analyze_dir slurp row T0);
use BrokerBench::Report qw(write_reports);

my $END = T0 + 60_000_000;    # valid_run's STOP (an MI of 50 s from T0 + 10 s)

# After the STOP (outside the MI, so the verdict's error checks do not see them): one row of
# each outcome the valid run lacks, and a second lost in flight.
my @CE_EXTRA = map { row($END + 4_000_000 + 1000 * $_->[0], $_->[1], $_->[2], 5000) }
  ([0, 'TS', 'warning'], [1, 'TS', 'invalid'], [2, 'TO', 'retry_exhausted'],
   [3, 'TS', 'db_error'], [4, 'SD', 'net_error'], [5, 'MW', 'net_error'], [6, 'TL', 'timeout']);
# A Trade-Result the Brokerage House rolled back (re-sent: its later row is ok) and one lost in
# flight (failed-trades.csv has it).
my @MEE_EXTRA = (row($END + 600_000, 'TR', 'retry_exhausted', 3000),
                 row($END + 700_000, 'TR', 'net_error', 3000));

# The rows of a mix log by outcome, counted here from the file.
sub rows_by_outcome {
  my ($path, $code) = @_;
  my %n;
  for (split /\n/, slurp($path)) {
    my @f = split /,/;
    next unless @f > 4 && $f[1] =~ /\A[A-Z]{2}\z/ && $f[1] ne 'ST';
    next if defined $code && $f[1] ne $code;
    $n{ $f[3] }++;
  }
  return \%n;
}

sub ce_log { "2025-11-21 12:00:00.000001 ce info: users 10\n" . ($_[0] // '') }
sub ce_summary {
  my ($sent, $rows) = @_;
  return "summary: users started 10, measured 50.0 s, 890 user transactions in it (17.8/s); "
         . "sent $sent, rows $rows, replies $rows, errors 5, invalid 1\n";
}
sub mee_summary {
  my ($time, $pending, $received) = @_;
  return "2025-11-21 $time mee info: pending $pending (timers 3, triggers "
         . ($pending - 3) . "), due-unsent 1, in flight 2, TR/s 2.0, TR p90 4.0 ms, MF/s 0.2, "
         . "received $received, refused 1, errors 2, lost in flight 1, busy 0, re-sent 1, "
         . "links up 4/4\n";
}
sub mee_stopped {
  my ($received, $triggered) = @_;
  return "2025-11-21 12:01:10.000000 mee info: stopped: $received orders received ("
         . ($triggered // 0) . " limit orders triggered into the ticker), 1 refused, "
         . "105 Trade-Results and 10 Market-Feeds delivered, 2 lost in flight; pending at stop "
         . "2 (1 limit triggers armed, 1 in their completion delay; in pending-trades.csv); 3 "
         . "lines in failed-trades.csv\n";
}
my $FAILED = "trade_id,code,reason\n7,TR,lost in flight (the link broke)\n"
           . "8,TR,refused: the pending cap\n0,MF,lost in flight (the link broke)\n";
my $PENDING = "trade_id,code,state\n9,TR,limit trigger armed\n10,TR,in its completion delay\n";

# A run with the extra rows and FILES (path under the run => text); returns the analysis, the
# reconciliation section of report.txt (spaces folded), the verdict's reasons and the counts.
sub run_with {
  my (%files) = @_;
  my $d = tmpdir();
  my $v = valid_run($d, extra_ce => \@CE_EXTRA, extra_mee => \@MEE_EXTRA);
  write_file("$d/$_", $files{$_}) for keys %files;
  my $r = analyze_dir($d);
  write_reports($r, undef);
  my $txt = slurp("$d/report.txt");
  my ($section) = $txt =~ /\nEvery request accounted for\n-+\n(.*?)\n\n\S[^\n]*\n-+\n/s;
  $section //= '';
  $section =~ s/\s+/ /g;
  my @reasons = map { $_->{text} } grep { $_->{rule} eq 'reconciliation' } @{ $r->{reasons} };
  return { r => $r, text => $section, reasons => \@reasons, dir => $d,
           ce => rows_by_outcome($v->{ce}), tr => rows_by_outcome($v->{mee}, 'TR') };
}

my %COMPLETE = ('ce/hostA/ce.log' => '', 'mee/hostB/failed-trades.csv' => $FAILED,
                'mee/hostB/pending-trades.csv' => $PENDING);

subtest 'every request and order accounted for: the lines hold, the run stays VALID' => sub {
  my $probe = run_with();
  my $ce = $probe->{ce};
  my $sent = 0;
  $sent += $_ for values %$ce;
  # completed + failed (TR lines) + pending + limit orders triggered
  my $received = $probe->{tr}{ok} + 2 + 2 + 7;
  my $x = run_with(%COMPLETE, 'ce/hostA/ce.log' => ce_log(ce_summary($sent, $sent)),
                   'mee/hostB/mee.log' => mee_summary('12:00:50.000000', 30, 90)
                                          . mee_stopped($received, 7));
  my $errors = ($ce->{retry_exhausted} // 0) + ($ce->{db_error} // 0);
  like($x->{text}, qr/Customer emulators: \Q$sent\E requests sent = \Q$ce->{ok}\E ok \+ \Q$ce->{rollback}\E rollback \+ 1 warning \+ 1 invalid \+ \Q$errors\E errors \+ 2 lost in flight \+ 1 timed out: holds\./,
       'the customer emulators\' line, by outcome');
  like($x->{text}, qr/Market emulator: \Q$received\E orders received = \Q$probe->{tr}{ok}\E completed \+ 2 failed \+ 2 pending at the end \+ 7 limit orders triggered: holds\./,
       'the market emulator\'s line: an MF lost in flight is no order, a rolled-back attempt no completion');
  is_deeply($x->{reasons}, [], 'no reason');
  is($x->{r}{verdict}{text}, 'VALID', 'the run stays VALID');
  is($x->{r}{reconciliation}{ce}{sent}, $sent, 'results.json: sent');
  is($x->{r}{reconciliation}{mee}{holds}, 1, 'results.json: the market side holds');
  my $json = slurp("$x->{dir}/results.json");
  like($json, qr/"reconciliation"/, 'results.json has it');
  like(slurp("$x->{dir}/report.html"), qr/Every request accounted for/, 'report.html has it');
};

subtest 'a request sent with no row, an order with no end: INVALID, naming the numbers' => sub {
  my $probe = run_with();
  my $rows = 0;
  $rows += $_ for values %{ $probe->{ce} };
  my $received = $probe->{tr}{ok} + 4;
  my $x = run_with(%COMPLETE, 'ce/hostA/ce.log' => ce_log(ce_summary($rows + 3, $rows)),
                   'mee/hostB/mee.log' => mee_stopped($received + 5));
  like($x->{text}, qr/\Q${\($rows + 3)}\E requests sent = .*: does NOT hold \(\Q$rows\E accounted for; see the verdict\)/,
       'the customer emulators\' line says it does not hold');
  like($x->{text}, qr/\Q${\($received + 5)}\E orders received = .*: does NOT hold \(\Q$received\E accounted for/,
       'and the market emulator\'s');
  is($x->{r}{verdict}{text}, 'INVALID', 'INVALID');
  is(scalar @{ $x->{reasons} }, 2, 'a reason each');
  like($x->{reasons}[0], qr/the customer emulators sent \Q${\($rows + 3)}\E requests .* their mix logs account for \Q$rows\E .*: 3 unaccounted; ce\/hostA: sent \Q${\($rows + 3)}\E, rows \Q$rows\E/,
       'the numbers and the emulator');
  like($x->{reasons}[1], qr/the market emulator received \Q${\($received + 5)}\E orders \(mee\.log\), and \Q$received\E are accounted for \(\Q$probe->{tr}{ok}\E completed \+ 2 failed \+ 2 pending at the end \+ 0 limit orders triggered\): 5 unaccounted/,
       'the numbers of the market emulator');
};

subtest 'a killed customer emulator: what it sent is unknown, and said so' => sub {
  my $x = run_with(%COMPLETE, 'ce/hostA/ce.log' => ce_log("2025-11-21 12:00:30.0 ce info: elapsed 30 s\n"),
                   'mee/hostB/mee.log' => mee_stopped(0));
  like($x->{text}, qr/Customer emulators: requests sent unknown: ce\/hostA never reached its end \(no summary line in its ce\.log: killed or died\)\. Its mix log accounts for \d+ = /,
       'unknown, with what its log holds');
  like($x->{reasons}[0], qr/the customer emulator ce\/hostA never reached its end .* its mix log holds \d+ rows, and the requests in flight when it stopped \(at most 10 users' requests and a Data-Maintenance\) have none/,
       'a reason naming it');
  is($x->{r}{verdict}{text}, 'INVALID', 'INVALID');
};

subtest 'a killed market emulator: its pending orders from its last summary line and the database' => sub {
  my $x = run_with('mee/hostB/failed-trades.csv' => $FAILED,
                   'mee/hostB/mee.log' => mee_summary('12:00:40.000000', 50, 80)
                                          . mee_summary('12:00:50.000000', 66, 99),
                   'db/after/open-trades.csv' => "status,trades\nPNDG,60\nSBMT,9\n");
  like($x->{text}, qr/Market emulator: orders received unknown: mee\/hostB never reached its end \(killed or died\)\. Known: \d+ completed \+ 2 failed so far\. Its last summary line \(2025-11-21 12:00:50\.000000\): 99 received, 66 pending \(3 timers, 63 triggers\), 1 due, 2 in flight\. The database left 69 trades open after the run \(db\/after\/open-trades\.csv: 9 SBMT, 60 PNDG\), which hold its pending orders\./,
       'the last summary line (not an earlier one) and the open trades');
  like($x->{reasons}[-1], qr/the market emulator mee\/hostB never reached its end \(killed or died\): the orders it held then cannot be reconciled \(mee\/hostB: at its last summary line \(2025-11-21 12:00:50\.000000\) 99 received, 66 pending, 1 due, 2 in flight\); the database left 69 trades open/,
       'a reason naming the pending orders');
  my $mee = slurp("$x->{dir}/report.txt") =~ s/\s+/ /gr;
  like($mee, qr/Pending at the end: unknown: .* At its last summary line \(2025-11-21 12:00:50\.000000\) it held 66 pending, 1 due and 2 in flight\. The database left 69 trades open/,
       'the market emulator section says it too');
  unlike($mee, qr/Failed trades: none/, 'never "none"');
};

subtest 'no emulator logs (an old results directory): not checked, a note, no reason' => sub {
  my $x = run_with();
  like($x->{text}, qr/Customer emulators: not checked \(no ce\/<host>\/ce\.log\)/, 'said');
  is_deeply($x->{reasons}, [], 'no reason');
  is($x->{r}{verdict}{text}, 'VALID', 'VALID');
  ok((grep { $_->{rule} eq 'reconciliation' } @{ $x->{r}{notes} }), 'a note');
  $x = run_with('ce/hostA/ce.log' => ce_log("summary: users started 10, measured 50.0 s, 890 "
                                            . "user transactions in it (17.8/s); rows 5, replies "
                                            . "5, errors 0, invalid 0\n"));
  like($x->{text}, qr/not checked \(ce\/hostA\/ce\.log has no count of the requests sent/,
       'a summary line from before the count');
  $x = run_with('mee/hostB/mee.log' => "2025-11-21 12:01:10.000000 mee info: stopped: 9 orders "
                                       . "received, 0 refused, 9 Trade-Results and 0 Market-Feeds "
                                       . "delivered, 0 lost in flight; pending at stop 0\n");
  like($x->{text}, qr/Market emulator: not checked \(mee\/hostB\/mee\.log has no count of the limit orders triggered/,
       'a market emulator\'s line from before the count of limit orders triggered');
  is_deeply($x->{reasons}, [], 'no reason');
};

done_testing();
