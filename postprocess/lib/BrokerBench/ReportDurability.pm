package BrokerBench::ReportDurability;
# The report's "Durability" section (Durability.pm's recount; TPC-E clause 7.5): only for a run
# that crossed a failure (brokerbench durability).
use strict;
use warnings;
use Exporter 'import';
use BrokerBench::Recovery ();

our @EXPORT_OK = qw(durability_section durability_line);

sub secs { defined $_[0] ? sprintf('%.3f s', $_[0]) : 'unknown' }

# Recovery.pm's errors_until: "12 net_error (TO 5, TR 7); 3 retries (TR 3)".
sub errors_text {
  my ($p) = @_;
  my $e = $p->{errors};
  my $by = sub {
    my ($h) = @_;
    my @c = grep { $_ ne 'total' } sort keys %$h;
    return @c ? ' (' . join(', ', map { "$_ $h->{$_}" } @c) . ')' : '';
  };
  my @parts = map { "$e->{$_}{total} $_" . $by->($e->{$_}) } sort keys %$e;
  my $errors = @parts ? join(', ', @parts) : 'no errors';
  my $n = $p->{retries}{total};
  return "$errors; $n retr" . ($n == 1 ? 'y' : 'ies') . $by->($p->{retries});
}

# The business recovery rows (clause 7.5; Recovery.pm).
sub recovery_rows {
  my ($d) = @_;
  return () unless defined $d->{rate_before_tps};
  my @rows = (['Throughput before the failure', sprintf('%.2f Trade-Results per second (the %d s '
               . 'before it); 95 %%: %.2f', $d->{rate_before_tps}, $d->{before_s},
               $d->{recovery_threshold_tps})]);
  push @rows, ['Business recovery time', defined $d->{business_recovery_s}
    ? sprintf('%d s (the %d-s window from then on averaged %.2f Trade-Results per second, at '
              . 'least 95 %% of the rate before)', $d->{business_recovery_s},
              $d->{recovery_window_s}, $d->{recovery_window_tps})
    : $d->{recovery_why}];
  push @rows, ['Errors in the outage', sprintf('%s (ended in the %.3f s from the failure to the '
               . 'first commit)', errors_text($d->{outage}), $d->{outage}{to_s})];
  push @rows, ['Errors until recovery', sprintf('%s (ended in the %s s from the failure to %s)',
               errors_text($d->{until_recovery}), $d->{until_recovery}{to_s},
               defined $d->{business_recovery_s} ? 'the recovery' : 'the end of the period after')];
  return @rows;
}

# The consistency check after recovery (CheckDb.pm), for the verdict line.
sub consistency_text {
  my ($c) = @_;
  return 'not checked' if !$c || $c->{result} eq 'not checked';
  return $c->{result} eq 'PASS' ? 'PASS' : "FAIL ($c->{why})";
}

# The verdict line of report.txt's top and of the section.
sub durability_line {
  my ($d) = @_;
  return undef unless $d;
  my $consistency = defined $d->{failure_us}
    ? '; consistency after recovery: ' . consistency_text($d->{consistency}) : '';
  my $recovery = defined $d->{business_recovery_s}
    ? "; business recovery $d->{business_recovery_s} s"
    : defined $d->{rate_before_tps} ? '; not recovered within the period after' : '';
  return "Durability: no verdict: $d->{why}$consistency$recovery" unless defined $d->{verdict};
  my $recount = defined $d->{lost}
    ? sprintf('%d of %d trades acknowledged as committed before the %s lost', $d->{lost},
              $d->{acknowledged_before}, $d->{failure})
    : "no recount: $d->{why}";
  return "Durability: $d->{verdict} ($recount)$consistency$recovery";
}

# The consistency rows (clause 7.3.2 after recovery; CheckDb.pm).
sub consistency_rows {
  my ($c) = @_;
  return (['Consistency after recovery', "not checked: $c->{why}"])
    if $c->{result} eq 'not checked';
  my @rows = (['Consistency after recovery', $c->{result} eq 'PASS'
    ? 'PASS (brokerbench check-db on the recovered database: durability/check-db.txt)'
    : "FAIL: $c->{why} (durability/check-db.txt)"]);
  for my $k (@{ $c->{conditions} }) {
    (my $what = $k->{name} // '') =~ s/\A7\.3\.2 condition \d: //;
    push @rows, ["7.3.2 condition $k->{condition}", $k->{result} eq 'missing'
                 ? 'not in check-db\'s output' : "$k->{result}: $what [$k->{detail}]"];
  }
  my $o = $c->{others};
  push @rows, ['Other checks', sprintf('%d passed, %d failed, %d skipped (row counts, trade ids '
               . 'and invariants; the skipped ones hold only after a fresh load)',
               @$o{qw(passed failed skipped)})];
  return @rows;
}

sub durability_section {
  my ($r) = @_;
  my $d = $r->{durability} or return ();
  my @blocks = ({ t => 'p', text => durability_line($d) });
  my $at = defined $d->{failure_utc} ? " at $d->{failure_utc}" : '';
  $at .= " ($d->{killed_processes} processes killed with SIGKILL)" if defined $d->{killed_processes};
  my @rows = (['Failure', "$d->{failure}$at, $d->{before_s} s into the measurement interval"]);
  if (defined $d->{failure_us}) {
    push @rows, ['Acknowledged before the failure', sprintf('%d trades (%d Trade-Orders and %d '
                 . 'Trade-Results ended ok)', $d->{acknowledged_before},
                 $d->{acknowledged_trade_orders}, $d->{acknowledged_trade_results})];
    push @rows, ['Found after recovery', $d->{found} // 'not looked up'];
    push @rows, ['Holding rows', 'not looked up (durability/lookup.csv has no holding_history '
                 . 'column: looked up before the kit asked for it)']
      if defined $d->{holding_history_looked_up} && !$d->{holding_history_looked_up};
    push @rows, ['Lost', $d->{lost} // 'not looked up'];
    push @rows, ['In flight at the failure', "$d->{in_flight} Trade-Orders and Trade-Results "
                 . '(started before it, ended after it: either way is right; not counted)'];
    push @rows, ['Downtime', defined $d->{downtime_s}
                 ? secs($d->{downtime_s}) . " (to the end of the first transaction completed "
                   . "after the failure, a $d->{first_commit_code})" : 'no transaction completed after the failure'];
    push @rows, ['Database ready again', secs($d->{ready_s}) . ' after the failure (its log)']
      if defined $d->{ready_s};
    if ($d->{failure} eq 'failover') {
      push @rows, ['Promotion (PostgreSQL)', defined $d->{promote_s}
                   ? secs($d->{promote_s}) . ' ("received promote request" to "ready to accept connections" in the standby\'s log)'
                   : 'not in the standby\'s log (db/standby.log)'];
    } else {
      push @rows, ['Old postmaster gone', secs($d->{reaped_s}) . ' after the failure (its pid released '
                   . 'by its reaper, PID 1 for an orphan: no new postmaster may start before)']
        if defined $d->{reaped_s};
      push @rows, ['Redo (PostgreSQL)', defined $d->{redo_s} ? secs($d->{redo_s}) . ' ("redo done at" in its log)'
                   : 'not in the server log (db/postgresql.log)'];
    }
    push @rows, consistency_rows($d->{consistency}) if $d->{consistency};
    push @rows, recovery_rows($d);
  }
  push @blocks, { t => 'kv', rows => \@rows };
  if (@{ $d->{lost_trades} // [] }) {
    push @blocks, { t => 'table', head => ['Trade id', 'Acknowledged by', 'Acknowledged at', 'Missing'],
                    align => [qw(r l l l)],
                    rows => [map { [$_->{trade_id}, $_->{code}, $_->{acknowledged_utc}, $_->{missing}] }
                             @{ $d->{lost_trades} }] };
  }
  push @blocks, { t => 'pre', text => join("\n", @{ $d->{recovery_log} }) }
    if @{ $d->{recovery_log} // [] };
  push @blocks, { t => 'p', text => 'Clause 7.5: no committed transaction may be lost across a '
                  . 'failure. The kit\'s own record is the mix logs (v3): each Trade-Order and '
                  . 'Trade-Result ended ok before the failure with its trade id; after the run each '
                  . 'is looked up in the database (durability/lookup.csv): a Trade-Order\'s TRADE '
                  . 'row; a Trade-Result\'s trade completed (CMPT) with its SETTLEMENT row, for '
                  . 'a cash trade its CASH_TRANSACTION row, and a HOLDING_HISTORY row of the trade, '
                  . 'as its frames write them. Clause 7.3.2\'s three consistency conditions must '
                  . 'hold after recovery as after a load: brokerbench check-db audits the '
                  . 'recovered database (durability/check-db.txt). PASS when no trade is missing '
                  . 'and no check failed; FAIL names why. The business recovery time (clause '
                  . '7.5, in the kit\'s reading: the clause\'s text on it was not at hand) runs '
                  . 'from the failure to the start of the first window, starting at or after the '
                  . 'first commit after the failure, whose Trade-Results per second (by '
                  . 'completion time) average at least 95 % of the rate in the steady period '
                  . "before the failure; the windows are $BrokerBench::Recovery::WINDOW_S s long "
                  . 'and slide by 1 s. Errors are the mix '
                  . 'logs\' outcomes other than ok, retries their retries column, of the rows that '
                  . 'ended in the period. Plot: plots/durability.png.' };
  return { id => 'durability', title => 'Durability', blocks => \@blocks };
}

1;
