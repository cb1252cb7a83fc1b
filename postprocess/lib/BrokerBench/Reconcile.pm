package BrokerBench::Reconcile;
# Every request accounted for (issue 16): what each emulator says it sent or received, against
# what its files say became of it (postprocess/README.md, "Reconciliation").
#
# Each emulator's totals come from its end-of-run record beside its mix log (MIXLOG.md, "The
# end-of-run record": mix-ce-<pid>.end, mix-mee.end), never from its log lines.
#
# Customer emulators: a record's "sent" counts the requests it handed to the Brokerage House;
# each ends in exactly one mix row (a reply, a net_error when its connection broke, a timeout at
# the stop), but for those still in flight when an error ended the run ("in_flight"). Sent must
# equal the rows of the customer emulators' mix logs: ok + rollback + warning + invalid + errors
# (retry_exhausted, db_error) + lost in flight (net_error) + timed out (timeout), + in flight at
# an error stop.
#
# Market emulator: its record's "orders_received". Every order ends as one of: completed (its
# Trade-Result answered ok: a TR row with outcome ok), failed (a TR line of failed-trades.csv:
# refused, lost in flight, answered other than ok, not sent by the stop), pending at the end
# (pending-trades.csv) or, a limit order whose limit the curve reached, triggered
# ("limit_orders_triggered"): its end in the market emulator is a trigger entry in the ticker,
# and the Brokerage House sends it back as a second order with the same trade id, which then
# ends as one of the others (as EGen's market emulator does). Re-sent Trade-Results keep a row
# per attempt; only the last can be ok.
#
# An emulator that never reached its end (killed, died) wrote no record and no STOP marker:
# what it had in hand then is unknown from it. That is said, with what is known: the rows it
# wrote and the trades the database left open after the run (db/after/open-trades.csv), which
# hold a market emulator's pending orders. A mix log with its STOP marker but no record comes
# from a kit older than the records (or the record could not be written): not checked.
use strict;
use warnings;
use Exporter 'import';
use List::Util qw(sum0);
use BrokerBench::EndRecord qw(record_path read_end_record);
use BrokerBench::Spec qw(@CE_CODES @OUTCOMES);

our @EXPORT_OK = qw(reconcile);

# The customer emulators' outcomes as the reconciliation line groups them.
our @CE_TERMS = (['ok', ['ok']], ['rollback', ['rollback']], ['warning', ['warning']],
                 ['invalid', ['invalid']], ['errors', [qw(retry_exhausted db_error)]],
                 ['lost in flight', ['net_error']], ['timed out', ['timeout']]);

# reconcile($r, $aggregates) -> ({ ce => ..., mee => ... }, @mismatches): the figures for the
# report and results.json, and one text per emulator side that does not add up (the verdict's
# reasons). Needs $r->{inputs} (the mix logs read), $r->{mee} (end_of_run_trades) and
# $r->{db_trade_count} (the open trades).
sub reconcile {
  my ($r, $g) = @_;
  my @why;
  my $ce  = customer_emulators($r, $g, \@why);
  my $mee = market_emulators($r, $g, \@why);
  return ({ ce => $ce, mee => $mee }, @why);
}

# The rows of CODES by outcome, over the whole run, from the mix log reader's counts
# (Aggregates.pm: per code, status and outcome, in and outside the MI): { outcome => rows }.
sub outcome_counts {
  my ($g, @codes) = @_;
  my %want = map { $_ => 1 } @codes;
  my %n = map { $_ => 0 } @OUTCOMES;
  for my $x (grep { $want{ $g->{x_code}[$_] } } 0 .. $#{ $g->{x_code} }) {
    $n{ $OUTCOMES[ $g->{x_oi}[$x] ] } += ($g->{cnt}[2 * $x] // 0) + ($g->{cnt}[2 * $x + 1] // 0);
  }
  return \%n;
}

# Each mix log of ROLE (ce or mee) with its end-of-run record: { dir (the emulator's
# directory), file (the mix log), record (the record's name), rows, status, rec }, status
# 'finished' (rec holds the record), 'unfinished' (no record and no STOP marker: killed or
# died), 'no record' (no record but a STOP marker: an older kit) or 'bad record' (why says).
sub emulator_records {
  my ($r, $role) = @_;
  my @out;
  for my $f (sort { $a->{file} cmp $b->{file} } @{ $r->{inputs}{files} // [] }) {
    next unless ($f->{role} // '') eq $role && !$f->{refused};
    my $record = record_path($f->{file});
    my $h = { dir => ($f->{file} =~ m{\A(.*)/[^/]*\z} ? $1 : '.'), file => $f->{file},
              record => $record, rows => $f->{rows} };
    my ($rec, $bad) = read_end_record("$r->{results_dir}/$record");
    if ($rec) {
      @$h{qw(status rec)} = ('finished', $rec);
    } elsif (defined $bad) {
      @$h{qw(status why)} = ('bad record', "$record: $bad");
    } else {
      $h->{status} = @{ $f->{stops} // [] } ? 'no record' : 'unfinished';
    }
    push @out, $h;
  }
  return @out;
}

# The text of "not checked" for records that are not there or not readable, or undef.
sub records_missing {
  my (@hosts) = @_;
  my @bad = grep { $_->{status} eq 'bad record' } @hosts;
  my @old = grep { $_->{status} eq 'no record' } @hosts;
  return join('; ', map { $_->{why} } @bad) if @bad;
  return join(', ', map { $_->{file} } @old) . (@old == 1 ? ' has' : ' have') . ' a STOP marker '
         . 'but no end-of-run record beside it (an older kit, or the record could not be '
         . 'written)' if @old;
  return undef;
}

sub customer_emulators {
  my ($r, $g, $why) = @_;
  my $n = outcome_counts($g, @CE_CODES);
  my @terms = map { [$_->[0], sum0(map { $n->{$_} } @{ $_->[1] })] } @CE_TERMS;
  my $ce = { terms => [map { { name => $_->[0], rows => $_->[1] } } @terms],
             accounted => sum0(map { $_->[1] } @terms), hosts => [] };
  my @hosts = emulator_records($r, 'ce');
  unless (@hosts) {
    $ce->{status} = 'not available';
    $ce->{why} = 'no customer emulator mix log';
    return $ce;
  }
  for my $h (@hosts) {
    next unless $h->{status} eq 'finished';
    $h->{sent} = $h->{rec}{sent} + 0;
    $h->{in_flight} = $h->{rec}{in_flight} + 0;
    $h->{stop} = $h->{rec}{stop};
  }
  $ce->{hosts} = [map { my %c = %$_; delete $c{rec}; \%c } @hosts];
  if (defined(my $missing = records_missing(@hosts))) {
    $ce->{status} = 'not available';
    $ce->{why} = $missing;
    return $ce;
  }
  my @gone = grep { $_->{status} eq 'unfinished' } @hosts;
  if (@gone) {
    $ce->{status} = 'unknown';
    $ce->{unfinished} = [map { $_->{dir} } @gone];
    my $users = $r->{settings}{users};
    my $one = @gone == 1;
    push @$why, sprintf('the customer emulator%s %s never reached %s end (no end-of-run record '
                        . 'beside %s mix log: killed or died): what %s sent is unknown; %s %d '
                        . 'rows, and the requests in flight when %s stopped (at most %s) have '
                        . 'none',
                        $one ? '' : 's', join(', ', map { $_->{dir} } @gone),
                        $one ? 'its' : 'their', $one ? 'its' : 'their', $one ? 'it' : 'they',
                        $one ? 'its mix log holds' : 'their mix logs hold',
                        sum0(map { $_->{rows} } @gone), $one ? 'it' : 'they',
                        defined $users ? "$users users' requests and a Data-Maintenance"
                                       : 'one a user and a Data-Maintenance');
    return $ce;
  }
  $ce->{sent} = sum0(map { $_->{sent} } @hosts);
  # Requests in flight when an error ended a run have no row (the record counts them).
  $ce->{no_row} = sum0(map { $_->{in_flight} } @hosts);
  if ($ce->{no_row}) {
    push @terms, ['in flight at an error stop (no row)', $ce->{no_row}];
    push @{ $ce->{terms} }, { name => $terms[-1][0], rows => $ce->{no_row} };
    $ce->{accounted} += $ce->{no_row};
  }
  $ce->{holds} = $ce->{sent} == $ce->{accounted} ? 1 : 0;
  $ce->{status} = $ce->{holds} ? 'holds' : 'mismatch';
  unless ($ce->{holds}) {
    my @off = grep { $_->{sent} != $_->{rows} + $_->{in_flight} } @hosts;
    push @$why, sprintf('the customer emulators sent %d requests (their end-of-run records), '
                        . 'and their mix logs account for %d (%s): %s%s',
                        $ce->{sent}, $ce->{accounted}, terms_text(\@terms),
                        $ce->{sent} > $ce->{accounted}
                          ? ($ce->{sent} - $ce->{accounted}) . ' unaccounted'
                          : ($ce->{accounted} - $ce->{sent}) . ' rows more than requests',
                        @off ? '; ' . join(', ', map { "$_->{file}: sent $_->{sent}, rows $_->{rows}" } @off)
                             : '');
  }
  return $ce;
}

sub terms_text {
  my ($terms) = @_;
  return join(' + ', map { "$_->[1] $_->[0]" } @$terms);
}

sub market_emulators {
  my ($r, $g, $why) = @_;
  my $ft = $r->{mee}{failed_trades} // {};
  my $pt = $r->{mee}{pending_trades} // {};
  my $mee = { completed => outcome_counts($g, 'TR')->{ok},
              failed => $ft->{trade_results} // 0, hosts => [] };
  my @hosts = emulator_records($r, 'mee');
  unless (@hosts) {
    $mee->{status} = 'not available';
    $mee->{why} = 'no market emulator mix log';
    return $mee;
  }
  for my $h (@hosts) {
    next unless $h->{status} eq 'finished';
    @$h{qw(received triggered stop)} =
      ($h->{rec}{orders_received} + 0, $h->{rec}{limit_orders_triggered} + 0, $h->{rec}{stop});
  }
  $mee->{hosts} = [map { my %c = %$_; delete $c{rec}; \%c } @hosts];
  if (defined(my $missing = records_missing(@hosts))) {
    $mee->{status} = 'not available';
    $mee->{why} = $missing;
    return $mee;
  }
  my $open = $r->{db_trade_count}{open};
  $mee->{open_in_database} = { %$open, total => sum0(values %$open) } if $open;
  my @gone = grep { $_->{status} eq 'unfinished' } @hosts;
  if (!@gone && !$pt->{known}) {
    $mee->{status} = 'unknown';
    push @$why, 'the market emulator stopped, but its pending orders are unknown: no '
                . 'pending-trades.csv from ' . join(', ', @{ $pt->{hosts_unknown} // [] });
    return $mee;
  }
  if (@gone) {
    $mee->{status} = 'unknown';
    $mee->{unfinished} = [map { $_->{dir} } @gone];
    push @$why, sprintf('the market emulator%s %s never reached %s end (no end-of-run record '
                        . 'beside %s mix log: killed or died): the orders %s held then cannot '
                        . 'be reconciled%s',
                        @gone == 1 ? '' : 's', join(', ', map { $_->{dir} } @gone),
                        @gone == 1 ? 'its' : 'their', @gone == 1 ? 'its' : 'their',
                        @gone == 1 ? 'it' : 'they',
                        $open ? sprintf('; the database left %d trades open after the run '
                                        . '(db/after/open-trades.csv)',
                                        $mee->{open_in_database}{total})
                              : '');
    return $mee;
  }
  $mee->{received} = sum0(map { $_->{received} } @hosts);
  $mee->{triggered} = sum0(map { $_->{triggered} } @hosts);
  $mee->{pending} = $pt->{total} // 0;
  $mee->{accounted} = $mee->{completed} + $mee->{failed} + $mee->{pending} + $mee->{triggered};
  $mee->{holds} = $mee->{received} == $mee->{accounted} ? 1 : 0;
  $mee->{status} = $mee->{holds} ? 'holds' : 'mismatch';
  unless ($mee->{holds}) {
    my $d = $mee->{received} - $mee->{accounted};
    push @$why, sprintf('the market emulator received %d orders (its end-of-run record), and %d '
                        . 'are accounted for (%d completed + %d failed + %d pending at the end + '
                        . '%d limit orders triggered): %s',
                        $mee->{received}, $mee->{accounted},
                        @$mee{qw(completed failed pending triggered)},
                        $d > 0 ? "$d unaccounted" : -$d . ' more than received');
  }
  return $mee;
}

1;
