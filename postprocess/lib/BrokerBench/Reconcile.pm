package BrokerBench::Reconcile;
# Every request accounted for (issue 16): what each emulator says it sent or received, against
# what its files say became of it (postprocess/README.md, "Reconciliation").
#
# Customer emulators: each ce/<dir>/ce.log ends with a summary line "... sent N, rows N, ..."
# (the requests it handed to the Brokerage House; each ends in exactly one mix row: a reply, a
# net_error when its connection broke, a timeout at the stop). Sent must equal the rows of the
# customer emulators' mix logs: ok + rollback + warning + invalid + errors (retry_exhausted,
# db_error) + lost in flight (net_error) + timed out (timeout).
#
# Market emulator: each mee/<dir>/mee.log ends with "stopped: N orders received (L limit orders
# triggered into the ticker), ..." Every order ends as one of: completed (its Trade-Result
# answered ok: a TR row with outcome ok), failed (a TR line of failed-trades.csv: refused, lost
# in flight, answered other than ok, not sent by the stop), pending at the end
# (pending-trades.csv) or, a limit order whose limit the curve reached, triggered: its end in
# the market emulator is a trigger entry in the ticker, and the Brokerage House sends it back
# as a second order with the same trade id, which then ends as one of the others (as EGen's
# market emulator does). Re-sent Trade-Results keep a row per attempt; only the last can be ok.
#
# An emulator that never reached its end (killed, died) wrote no such line: what it had in
# hand then is unknown from it. That is said, with what is known: the rows it wrote, the last
# summary line of a market emulator (its pending orders then) and the trades the database
# left open after the run (db/after/open-trades.csv), which hold its pending orders.
use strict;
use warnings;
use Exporter 'import';
use List::Util qw(sum0);
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

# The text of a log, or undef when it cannot be read.
sub slurp_log {
  my ($path) = @_;
  open my $fh, '<', $path or return undef;
  local $/;
  my $text = <$fh>;
  return $text // '';
}

# Each emulator directory of ROLE (ce or mee) with a LOG, and the rows of its mix logs.
sub emulator_dirs {
  my ($r, $role, $log) = @_;
  my %rows;
  for my $f (@{ $r->{inputs}{files} // [] }) {
    next unless ($f->{role} // '') eq $role && $f->{file} =~ m{\A(\Q$role\E/[^/]+)/};
    $rows{$1} += $f->{rows};
  }
  my %dirs = map { ("$role/" . (m{/\Q$role\E/([^/]+)/\Q$log\E\z})[0] => 1) }
             glob("$r->{results_dir}/$role/*/$log");
  return map { { dir => $_, rows => $rows{$_} // 0 } } sort keys %dirs;
}

sub customer_emulators {
  my ($r, $g, $why) = @_;
  my $n = outcome_counts($g, @CE_CODES);
  my @terms = map { [$_->[0], sum0(map { $n->{$_} } @{ $_->[1] })] } @CE_TERMS;
  my $ce = { terms => [map { { name => $_->[0], rows => $_->[1] } } @terms],
             accounted => sum0(map { $_->[1] } @terms), hosts => [] };
  my @dirs = emulator_dirs($r, 'ce', 'ce.log');
  unless (@dirs) {
    $ce->{status} = 'not available';
    $ce->{why} = 'no ce/<host>/ce.log';
    return $ce;
  }
  for my $d (@dirs) {
    my $text = slurp_log("$r->{results_dir}/$d->{dir}/ce.log") // '';
    my ($summary) = $text =~ /^(summary: [^\n]*)$/m;
    my $h = { dir => $d->{dir}, rows => $d->{rows} };
    if (!defined $summary) {
      $h->{status} = 'unfinished';
    } elsif ($summary =~ /; sent (\d+), rows (\d+),/) {
      @$h{qw(status sent)} = ('finished', $1 + 0);
    } else {
      $h->{status} = 'no count';    # a kit from before the count of requests sent
    }
    push @{ $ce->{hosts} }, $h;
  }
  my @hosts = @{ $ce->{hosts} };
  if (my @old = grep { $_->{status} eq 'no count' } @hosts) {
    $ce->{status} = 'not available';
    $ce->{why} = join(', ', map { "$_->{dir}/ce.log" } @old) . ' has no count of the requests '
                 . 'sent (an older kit)';
    return $ce;
  }
  my @gone = grep { $_->{status} eq 'unfinished' } @hosts;
  if (@gone) {
    $ce->{status} = 'unknown';
    $ce->{unfinished} = [map { $_->{dir} } @gone];
    my $users = $r->{settings}{users};
    my $one = @gone == 1;
    push @$why, sprintf('the customer emulator%s %s never reached %s end (no summary line in '
                        . '%s ce.log: killed or died): what %s sent is unknown; %s %d rows, and '
                        . 'the requests in flight when %s stopped (at most %s) have none',
                        $one ? '' : 's', join(', ', map { $_->{dir} } @gone),
                        $one ? 'its' : 'their', $one ? 'its' : 'their', $one ? 'it' : 'they',
                        $one ? 'its mix log holds' : 'their mix logs hold',
                        sum0(map { $_->{rows} } @gone), $one ? 'it' : 'they',
                        defined $users ? "$users users' requests and a Data-Maintenance"
                                       : 'one a user and a Data-Maintenance');
    return $ce;
  }
  $ce->{sent} = sum0(map { $_->{sent} } @hosts);
  $ce->{holds} = $ce->{sent} == $ce->{accounted} ? 1 : 0;
  $ce->{status} = $ce->{holds} ? 'holds' : 'mismatch';
  unless ($ce->{holds}) {
    my @off = grep { $_->{sent} != $_->{rows} } @hosts;
    push @$why, sprintf('the customer emulators sent %d requests (the summary lines of their '
                        . 'ce.log), and their mix logs account for %d (%s): %s%s',
                        $ce->{sent}, $ce->{accounted}, terms_text(\@terms),
                        $ce->{sent} > $ce->{accounted}
                          ? ($ce->{sent} - $ce->{accounted}) . ' unaccounted'
                          : ($ce->{accounted} - $ce->{sent}) . ' rows more than requests',
                        @off ? '; ' . join(', ', map { "$_->{dir}: sent $_->{sent}, rows $_->{rows}" } @off)
                             : '');
  }
  return $ce;
}

sub terms_text {
  my ($terms) = @_;
  return join(' + ', map { "$_->[1] $_->[0]" } @$terms);
}

# A market emulator's last summary line: its time and figures, or undef.
sub last_mee_summary {
  my ($text) = @_;
  my $last;
  while ($text =~ /^(\S+ \S+) \S+ info: pending (\d+) \(timers (\d+), triggers (\d+)\), due-unsent (\d+), in flight (\d+), .*?\breceived (\d+), refused (\d+)/mg) {
    $last = { time => $1, pending => $2 + 0, timers => $3 + 0, triggers => $4 + 0,
              due => $5 + 0, in_flight => $6 + 0, received => $7 + 0, refused => $8 + 0 };
  }
  return $last;
}

sub market_emulators {
  my ($r, $g, $why) = @_;
  my $ft = $r->{mee}{failed_trades} // {};
  my $pt = $r->{mee}{pending_trades} // {};
  my $mee = { completed => outcome_counts($g, 'TR')->{ok},
              failed => $ft->{trade_results} // 0, hosts => [] };
  my @dirs = emulator_dirs($r, 'mee', 'mee.log');
  unless (@dirs) {
    $mee->{status} = 'not available';
    $mee->{why} = 'no mee/<host>/mee.log';
    return $mee;
  }
  for my $d (@dirs) {
    my $text = slurp_log("$r->{results_dir}/$d->{dir}/mee.log") // '';
    my $h = { dir => $d->{dir} };
    if ($text =~ /^\S+ \S+ \S+ info: stopped: (\d+) orders received \((\d+) limit orders triggered/m) {
      @$h{qw(status received triggered)} = ('finished', $1 + 0, $2 + 0);
    } elsif ($text =~ /^\S+ \S+ \S+ info: stopped: \d+ orders received,/m) {
      $h->{status} = 'no count';    # a kit from before the count of limit orders triggered
    } else {
      $h->{status} = 'unfinished';
      $h->{last_summary} = last_mee_summary($text);
    }
    push @{ $mee->{hosts} }, $h;
  }
  if (my @old = grep { $_->{status} eq 'no count' } @{ $mee->{hosts} }) {
    $mee->{status} = 'not available';
    $mee->{why} = join(', ', map { "$_->{dir}/mee.log" } @old) . ' has no count of the limit '
                  . 'orders triggered (an older kit)';
    return $mee;
  }
  my $open = $r->{db_trade_count}{open};
  $mee->{open_in_database} = { %$open, total => sum0(values %$open) } if $open;
  my @gone = grep { $_->{status} eq 'unfinished' } @{ $mee->{hosts} };
  if (!@gone && !$pt->{known}) {
    $mee->{status} = 'unknown';
    push @$why, 'the market emulator stopped, but its pending orders are unknown: no '
                . 'pending-trades.csv from ' . join(', ', @{ $pt->{hosts_unknown} // [] });
    return $mee;
  }
  if (@gone) {
    $mee->{status} = 'unknown';
    $mee->{unfinished} = [map { $_->{dir} } @gone];
    my @said = map {
      my $s = $_->{last_summary};
      $s ? sprintf('%s: at its last summary line (%s) %d received, %d pending, %d due, %d in '
                   . 'flight', $_->{dir}, $s->{time}, $s->{received}, $s->{pending}, $s->{due},
                   $s->{in_flight})
         : "$_->{dir}: no summary line"
    } @gone;
    push @$why, sprintf('the market emulator%s %s never reached %s end (killed or died): the '
                        . 'orders %s held then cannot be reconciled (%s)%s',
                        @gone == 1 ? '' : 's', join(', ', map { $_->{dir} } @gone),
                        @gone == 1 ? 'its' : 'their', @gone == 1 ? 'it' : 'they',
                        join('; ', @said),
                        $open ? sprintf('; the database left %d trades open after the run '
                                        . '(db/after/open-trades.csv)',
                                        $mee->{open_in_database}{total})
                              : '');
    return $mee;
  }
  $mee->{received} = sum0(map { $_->{received} } @{ $mee->{hosts} });
  $mee->{triggered} = sum0(map { $_->{triggered} } @{ $mee->{hosts} });
  $mee->{pending} = $pt->{total} // 0;
  $mee->{accounted} = $mee->{completed} + $mee->{failed} + $mee->{pending} + $mee->{triggered};
  $mee->{holds} = $mee->{received} == $mee->{accounted} ? 1 : 0;
  $mee->{status} = $mee->{holds} ? 'holds' : 'mismatch';
  unless ($mee->{holds}) {
    my $d = $mee->{received} - $mee->{accounted};
    push @$why, sprintf('the market emulator received %d orders (mee.log), and %d are accounted '
                        . 'for (%d completed + %d failed + %d pending at the end + %d limit '
                        . 'orders triggered): %s',
                        $mee->{received}, $mee->{accounted},
                        @$mee{qw(completed failed pending triggered)},
                        $d > 0 ? "$d unaccounted" : -$d . ' more than received');
  }
  return $mee;
}

1;
