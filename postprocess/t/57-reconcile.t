# Every request accounted for (issue 16): the customer emulators' requests sent against their
# mix logs' rows by outcome, the market emulator's orders received against completed + failed +
# pending; a mismatch makes the run INVALID naming the numbers; an emulator that never reached
# its end (killed: no end-of-run record beside its mix log) is said, with the trades the database
# left open, never taken for "nothing missing". The emulators' log lines are never read.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use BBTest qw(write_file tmpdir valid_run analyze_dir slurp row T0);
use BrokerBench::EndRecord qw(end_record_text);
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

# The emulators' end-of-run records (MIXLOG.md) beside valid_run's mix logs.
my ($CE_RECORD, $MEE_RECORD) = ('ce/hostA/mix-ce-1001.end', 'mee/hostB/mix-mee.end');
sub ce_record {
  my ($sent, $rows, %o) = @_;
  return end_record_text([program => 'bb-customer-emulator'], [mix_log => 'mix-ce-1001.csv'],
                         [stop => $o{stop} // 'duration'],
                         $o{error} ? ([error => $o{error}]) : (),
                         [sent => $sent], [rows => $rows], [replies => $rows], [errors => 5],
                         [invalid => 1], [in_flight => $o{in_flight} // 0],
                         [measured_s => '50.000']);
}
sub mee_record {
  my ($received, $triggered) = @_;
  return end_record_text([program => 'bb-market-emulator'], [mix_log => 'mix-mee.csv'],
                         [stop => 'signal'], [orders_received => $received],
                         [limit_orders_triggered => $triggered // 0], [orders_refused => 1],
                         [lost_in_flight => 2], [pending => 2]);
}
# The mix log at PATH as a killed emulator leaves it: no STOP marker.
sub drop_stop {
  my ($path) = @_;
  write_file($path, join('', grep { !/\A\d+,STOP,/ } split /^/, slurp($path)));
}
# The text of a mee.log that a killed market emulator leaves: periodic lines, never read.
my $MEE_LOG = "2025-11-21 12:00:50.000000 mee info: pending 66 (timers 3, triggers 63), "
            . "due-unsent 1, in flight 2, received 99, refused 1\n";
my $FAILED = "trade_id,code,reason\n7,TR,lost in flight (the link broke)\n"
           . "8,TR,refused: the pending cap\n0,MF,lost in flight (the link broke)\n";
my $PENDING = "trade_id,code,state\n9,TR,limit trigger armed\n10,TR,in its completion delay\n";

# A run with the extra rows and FILES (path under the run => text; KILLED => [mix logs to
# leave without their STOP marker]); returns the analysis, the reconciliation section of
# report.txt (spaces folded), the verdict's reasons and the counts.
sub run_with {
  my (%files) = @_;
  my $killed = delete $files{KILLED} // [];
  my $d = tmpdir();
  my $v = valid_run($d, extra_ce => \@CE_EXTRA, extra_mee => \@MEE_EXTRA);
  write_file("$d/$_", $files{$_}) for keys %files;
  drop_stop("$d/$_") for @$killed;
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

my %COMPLETE = ('mee/hostB/failed-trades.csv' => $FAILED,
                'mee/hostB/pending-trades.csv' => $PENDING);

subtest 'every request and order accounted for: the lines hold, the run stays VALID' => sub {
  my $probe = run_with();
  my $ce = $probe->{ce};
  my $sent = 0;
  $sent += $_ for values %$ce;
  # completed + failed (TR lines) + pending + limit orders triggered
  my $received = $probe->{tr}{ok} + 2 + 2 + 7;
  my $x = run_with(%COMPLETE, $CE_RECORD => ce_record($sent, $sent),
                   $MEE_RECORD => mee_record($received, 7));
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
  my $x = run_with(%COMPLETE, $CE_RECORD => ce_record($rows + 3, $rows),
                   $MEE_RECORD => mee_record($received + 5));
  like($x->{text}, qr/\Q${\($rows + 3)}\E requests sent = .*: does NOT hold \(\Q$rows\E accounted for; see the verdict\)/,
       'the customer emulators\' line says it does not hold');
  like($x->{text}, qr/\Q${\($received + 5)}\E orders received = .*: does NOT hold \(\Q$received\E accounted for/,
       'and the market emulator\'s');
  is($x->{r}{verdict}{text}, 'INVALID', 'INVALID');
  is(scalar @{ $x->{reasons} }, 2, 'a reason each');
  like($x->{reasons}[0], qr/the customer emulators sent \Q${\($rows + 3)}\E requests .* their mix logs account for \Q$rows\E .*: 3 unaccounted; ce\/hostA\/mix-ce-1001\.csv: sent \Q${\($rows + 3)}\E, rows \Q$rows\E/,
       'the numbers and the emulator');
  like($x->{reasons}[1], qr/the market emulator received \Q${\($received + 5)}\E orders \(its end-of-run record\), and \Q$received\E are accounted for \(\Q$probe->{tr}{ok}\E completed \+ 2 failed \+ 2 pending at the end \+ 0 limit orders triggered\): 5 unaccounted/,
       'the numbers of the market emulator');
};

subtest 'requests in flight when an error ended the run: counted from the record, no row' => sub {
  my $probe = run_with();
  my $rows = 0;
  $rows += $_ for values %{ $probe->{ce} };
  my $x = run_with(%COMPLETE, $MEE_RECORD => mee_record($probe->{tr}{ok} + 4),
                   $CE_RECORD => ce_record($rows + 2, $rows, stop => 'error', in_flight => 2,
                                           error => 'lost every connection'));
  like($x->{text}, qr/Customer emulators: \Q${\($rows + 2)}\E requests sent = .* \+ 1 timed out \+ 2 in flight at an error stop \(no row\): holds\./,
       'the two with no row are a term of their own');
  is_deeply($x->{reasons}, [], 'no reason from the reconciliation');
  $x = run_with(%COMPLETE, $MEE_RECORD => mee_record($probe->{tr}{ok} + 4),
                $CE_RECORD => ce_record($rows + 3, $rows, stop => 'error', in_flight => 2));
  like($x->{reasons}[0], qr/: 1 unaccounted; ce\/hostA\/mix-ce-1001\.csv: sent \Q${\($rows + 3)}\E, rows \Q$rows\E/,
       'one more than rows and in flight: a mismatch');
};

subtest 'a killed customer emulator: what it sent is unknown, and said so' => sub {
  my $x = run_with(%COMPLETE, $MEE_RECORD => mee_record(0), KILLED => ['ce/hostA/mix-ce-1001.csv'],
                   'ce/hostA/ce.log' => "summary: users started 10, measured 50.0 s, 890 user "
                                        . "transactions in it (17.8/s); sent 5, rows 5, replies "
                                        . "5, errors 0, invalid 0\n");
  like($x->{text}, qr/Customer emulators: requests sent unknown: ce\/hostA never reached its end \(no end-of-run record beside its mix log: killed or died\)\. Its mix log accounts for \d+ = /,
       'unknown, with what its log holds (a summary line in ce.log is not read)');
  like($x->{reasons}[0], qr/the customer emulator ce\/hostA never reached its end .* its mix log holds \d+ rows, and the requests in flight when it stopped \(at most 10 users' requests and a Data-Maintenance\) have none/,
       'a reason naming it');
  is($x->{r}{verdict}{text}, 'INVALID', 'INVALID');
};

subtest 'a killed market emulator: no record, its pending orders from the database' => sub {
  my $x = run_with('mee/hostB/failed-trades.csv' => $FAILED, 'mee/hostB/mee.log' => $MEE_LOG,
                   KILLED => ['mee/hostB/mix-mee.csv'],
                   'db/after/open-trades.csv' => "status,trades\nPNDG,60\nSBMT,9\n");
  like($x->{text}, qr/Market emulator: orders received unknown: mee\/hostB never reached its end \(no end-of-run record beside its mix log: killed or died; the last lines of its mee\.log may say more\)\. Known: \d+ completed \+ 2 failed so far\. The database left 69 trades open after the run \(db\/after\/open-trades\.csv: 9 SBMT, 60 PNDG\), which hold its pending orders\./,
       'unknown, and the open trades');
  like($x->{reasons}[-1], qr/the market emulator mee\/hostB never reached its end \(no end-of-run record beside its mix log: killed or died\): the orders it held then cannot be reconciled; the database left 69 trades open/,
       'a reason naming the open trades');
  my $mee = slurp("$x->{dir}/report.txt") =~ s/\s+/ /gr;
  like($mee, qr/Pending at the end: unknown: .* the last lines of its mee\.log may say more\)\. The database left 69 trades open/,
       'the market emulator section says it too');
  unlike($mee, qr/received 99|66 pending/, 'nothing is taken from its log lines');
  unlike($mee, qr/Failed trades: none/, 'never "none"');
};

subtest 'no end-of-run records beside mix logs that reached STOP (an older kit): not checked' => sub {
  my $x = run_with();
  like($x->{text}, qr/Customer emulators: not checked \(ce\/hostA\/mix-ce-1001\.csv has a STOP marker but no end-of-run record beside it \(an older kit, or the record could not be written\)\)/, 'said');
  like($x->{text}, qr/Market emulator: not checked \(mee\/hostB\/mix-mee\.csv has a STOP marker but no end-of-run record/,
       'for the market emulator too');
  is_deeply($x->{reasons}, [], 'no reason');
  is($x->{r}{verdict}{text}, 'VALID', 'VALID');
  ok((grep { $_->{rule} eq 'reconciliation' } @{ $x->{r}{notes} }), 'a note');
};

subtest 'a record that is not one: not checked, saying why' => sub {
  my $x = run_with(%COMPLETE, $CE_RECORD => "# brokerbench end-of-run record v9\nsent=5\n",
                   $MEE_RECORD => mee_record(5) =~ s/^orders_received=.*\n//mr);
  like($x->{text}, qr/Customer emulators: not checked \(ce\/hostA\/mix-ce-1001\.end: its first line is '# brokerbench end-of-run record v9', not '# brokerbench end-of-run record v1'\)/,
       'a version we do not know');
  like($x->{text}, qr/Market emulator: not checked \(mee\/hostB\/mix-mee\.end: it has no orders_received\)/,
       'a key missing');
  is_deeply($x->{reasons}, [], 'no reason');
  $x = run_with(%COMPLETE, $CE_RECORD => ce_record('many', 5));
  like($x->{text}, qr/not checked \(ce\/hostA\/mix-ce-1001\.end: sent 'many' not a whole number\)/,
       'a count that is not a number');
};

done_testing();
