package BrokerBench::ReportRun;
# The report's sections on what the run measured and how it was judged: the transactions
# tables (also the console's, bb-report --table), the input variants, errors,
# every request accounted for, throughput, the measurement interval, the verdict with its
# checks and reasons, and compliance. Each returns a section for Render.pm.
use strict;
use warnings;
use Exporter 'import';
use BrokerBench::Spec qw(@MIX_CODES @ALL_CODES @ERROR_OUTCOMES);
use BrokerBench::Format qw(utc_time f3 f1 pct unknown duration);
use BrokerBench::Render qw(text_table);

our @EXPORT_OK = qw(transactions_section transactions_text input_variants_section errors_section
                    reconciliation_section throughput_section interval_section verdict_section
                    compliance_section run_warnings);

sub transactions_section {
  my ($r) = @_;
  my $T = $r->{transactions};
  my (@mix, @rt);
  for my $code (@MIX_CODES, 'DM', 'TC') {
    my $t = $T->{$code};
    my $name = $t->{name} . ($code eq 'TC' ? ' (log)' : '');
    my $mix = $t->{in_mix} ? f3($t->{mix_pct}) . (defined $t->{mix_ok} && !$t->{mix_ok} ? '*' : ' ')
                           : '-';
    push @mix, [$name, $code, $mix, $t->{count}, $t->{rollbacks}, $t->{warnings}, $t->{invalid},
                $t->{errors}, $t->{retries}];
    # The judged figures (clause 6.5.1) carry the mark of the verdict.
    my $mark = defined $t->{response_time_ok} && !$t->{response_time_ok} ? '*' : ' ';
    my $ms = sub { f1($t->{"response_time_$_[0]_ms"}) };
    push @rt, [$name, $code, $t->{count}, $ms->('min'), $ms->('avg') . $mark, $ms->('p50'),
               $ms->('p90') . $mark, $ms->('p95'), $ms->('p99'), $ms->('max'),
               defined $t->{response_time_limit_ms} ? $t->{response_time_limit_ms} : '-'];
  }
  my @foot = (
    'Count = valid transactions (ok, rollback, warning) whose start and end lie inside the '
      . 'measurement interval; Invalid (negative spec status) and Errors (retry_exhausted + '
      . 'db_error + net_error + timeout) are counted apart and never as rollbacks. Retries = '
      . 'serialization failures or deadlocks the Brokerage House retried.',
    "Mix % = share of the $r->{mix_total} valid transactions of the ten mix types (clause "
      . '6.3.2; Data-Maintenance and Trade-Cleanup are not in the mix). * = outside the '
      . 'required mix range, or the 90th percentile or the average over the limit of clause '
      . '6.5.1 (see the verdict). Trade-Cleanup runs once before the measured run: its row '
      . 'covers the whole log.',
    'Response times in milliseconds over the valid transactions counted above; p50 ... p99 = '
      . "percentiles by $r->{percentile_method}; $r->{percentile_error}{text}.",
  );
  return { id => 'transactions', title => 'Transactions in the measurement interval',
           blocks => [{ t => 'table',
                        head => ['Transaction', 'Code', 'Mix %', 'Count', 'Rollbacks',
                                 'Warnings', 'Invalid', 'Errors', 'Retries'],
                        align => [qw(l l r r r r r r r)], rows => \@mix, rule_before => [10] },
                      { t => 'table',
                        head => ['Response time (ms)', 'Code', 'Count', 'Min', 'Avg', 'p50',
                                 'p90', 'p95', 'p99', 'Max', 'Limit'],
                        align => [qw(l l r r r r r r r r r)], rows => \@rt, rule_before => [10] },
                      map { { t => 'p', text => $_ } } @foot] };
}

# The transactions tables as report.txt has them, with their title, for the console
# (bb-report --table): the mix and response times of the measurement interval, judged once,
# here.
sub transactions_text {
  my ($r) = @_;
  my $s = transactions_section($r);
  return "$s->{title} (* = outside its mix range or over its response-time limit):\n"
         . join("\n", map { text_table($_) } grep { $_->{t} eq 'table' } @{ $s->{blocks} });
}

sub input_variants_section {
  my ($r) = @_;
  my $iv = $r->{input_variants};
  my $title = 'Input variants: measured vs required';
  if ($iv->{skipped}) {
    return { id => 'input-variants', title => $title,
             blocks => [{ t => 'p', text => "Not judged: $iv->{skipped}." }] };
  }
  my $range = sub { sprintf('%.3f-%.3f', @{ $_[0] }) };
  my @rows = map {
    [$_->{name}, $_->{variant}, $_->{token}, $_->{count}, $_->{of}, f3($_->{pct}),
     $range->($_->{range}), $_->{range_applied} ? $range->($_->{range_applied}) : '-',
     !defined $_->{ok} ? 'not judged' : $_->{ok} ? 'pass' : 'FAIL']
  } @{ $iv->{variants} };
  return { id => 'input-variants', title => $title, blocks => [
    { t => 'table', head => ['Transaction', 'Variant', 'Token', 'Count', 'Of', 'Measured %',
                             'Required %', 'Applied %', 'Result'],
      align => [qw(l l l r r r r r l)], rows => \@rows },
    { t => 'p', text => 'Each variant of the inputs the customer emulator sent (the inputs '
                        . 'column of the mix log, MIXLOG.md) as a share of its type\'s valid '
                        . 'transactions in the MI, the rows the mix counts (Of); Required = '
                        . 'the range of clause 6.4.1; Applied = the range judged: '
                        . "$iv->{rule}. Trade-Order's roll_it_back is judged by its roll-backs "
                        . '(see the verdict).' },
  ] };
}

sub errors_section {
  my ($r) = @_;
  my $T = $r->{transactions};
  my @rows;
  for my $code (@ALL_CODES) {
    my $t = $T->{$code};
    next unless $t->{errors} || $t->{invalid};
    push @rows, [$t->{name}, $t->{invalid}, map { $t->{error_outcomes}{$_} } @ERROR_OUTCOMES];
  }
  my @blocks;
  if (@rows) {
    push @blocks, { t => 'table', head => ['Transaction', 'invalid', @ERROR_OUTCOMES],
                    align => [qw(l r r r r r)], rows => \@rows };
  } else {
    push @blocks, { t => 'p', text => 'No transaction in the MI ended invalid or with an error.' };
  }
  my @outside;
  for my $code (@ALL_CODES) {
    my $o = $T->{$code}{outcomes_outside_mi};
    my @e = grep { $o->{$_} } ('invalid', @ERROR_OUTCOMES);
    push @outside, "$code: " . join(', ', map { "$_ $o->{$_}" } @e) if @e && $code ne 'TC';
  }
  push @blocks, { t => 'p', text => 'Outside the MI (not judged): ' . join('; ', @outside) }
    if @outside;
  return { id => 'errors', title => 'Invalid and failed transactions by outcome',
           blocks => \@blocks };
}

# Every request accounted for (Reconcile.pm): one line a side.
sub reconciliation_section {
  my ($r) = @_;
  my $rec = $r->{reconciliation} // {};
  my @kv;
  my $ce = $rec->{ce};
  if ($ce) {
    my $terms = join(' + ', map { "$_->{rows} $_->{name}" } @{ $ce->{terms} });
    push @kv, ['Customer emulators',
      $ce->{status} eq 'not available' ? "not checked ($ce->{why})"
      : $ce->{status} eq 'unknown'
        ? 'requests sent unknown: ' . join(', ', @{ $ce->{unfinished} }) . ' never reached its '
          . 'end (no end-of-run record beside its mix log: killed or died). Its mix log '
          . 'accounts for '
          . "$ce->{accounted} = $terms; requests in flight when it stopped have no row."
      : "$ce->{sent} requests sent = $terms"
        . ($ce->{holds} ? ': holds.'
                        : ": does NOT hold ($ce->{accounted} accounted for; see the verdict).")];
  }
  my $m = $rec->{mee};
  if ($m) {
    my $known = "$m->{completed} completed + $m->{failed} failed";
    my $open = $m->{open_in_database};
    my $open_text = $open ? sprintf(' The database left %d trades open after the run '
                                    . '(db/after/open-trades.csv: %d SBMT, %d PNDG), which '
                                    . 'hold its pending orders.', $open->{total},
                                    $open->{SBMT} // 0, $open->{PNDG} // 0)
                          : ' The database\'s open trades are not known (no '
                            . 'db/after/open-trades.csv).';
    my $text;
    if ($m->{status} eq 'not available') {
      $text = "not checked ($m->{why})";
    } elsif ($m->{status} eq 'unknown' && @{ $m->{unfinished} // [] }) {
      $text = 'orders received unknown: ' . join(', ', @{ $m->{unfinished} }) . ' never reached '
              . 'its end (no end-of-run record beside its mix log: killed or died; the last '
              . "lines of its mee.log may say more). Known: $known so far.$open_text";
    } elsif ($m->{status} eq 'unknown') {
      $text = "pending at the end unknown (no pending-trades.csv). Known: $known.$open_text";
    } else {
      $text = "$m->{received} orders received = $known + $m->{pending} pending at the end + "
              . "$m->{triggered} limit orders triggered"
              . ($m->{holds} ? ': holds.'
                             : ": does NOT hold ($m->{accounted} accounted for; see the verdict).");
    }
    push @kv, ['Market emulator', $text];
  }
  return { id => 'reconciliation', title => 'Every request accounted for', blocks => [
    { t => 'kv', rows => \@kv },
    { t => 'p', text => 'Over the whole run, ramp-up included. Customer emulators: the requests '
                        . 'each says it sent (its end-of-run record) against the rows '
                        . 'of their mix logs by outcome (errors = retry_exhausted + db_error; '
                        . 'lost in flight = net_error: the connection broke or the Brokerage '
                        . 'House refused it; timed out = no reply by the stop). Market emulator: '
                        . 'the orders it received (its end-of-run record) against those it '
                        . 'completed '
                        . '(Trade-Result answered ok), failed (failed-trades.csv), held at its '
                        . 'end (pending-trades.csv) and, limit orders whose limit the price '
                        . 'curve reached, triggered into the ticker: the Brokerage House sends '
                        . 'each back as a second order, counted again.' },
  ] };
}

sub throughput_section {
  my ($r) = @_;
  my $tp = $r->{trtps};
  my $s  = $r->{settings};
  my @kv = (['Headline', $tp->{headline}]);
  if (defined $tp->{measured_tpse}) {
    push @kv, ['Measured', sprintf('%d valid Trade-Results completed in the MI of %.1f s = %.4f tpsE',
                                   $tp->{trade_results_in_mi}, $r->{mi}{seconds}, $tp->{measured_tpse})];
  }
  push @kv, ['Nominal', defined $tp->{nominal_tpse}
               ? sprintf('customers %s / scale_factor %s = %.2f tpsE', $s->{customers},
                         $s->{scale_factor}, $tp->{nominal_tpse})
               : 'unknown (run.conf lacks customers or scale_factor)'];
  push @kv, ['Measured / nominal', sprintf('%.1f %%', $tp->{measured_pct_of_nominal})] if defined $tp->{measured_pct_of_nominal};
  my $x = $r->{db_trade_count};
  push @kv, ['In the database', $x->{checked}
               ? sprintf('%d trades completed in the MI (T_DTS of their CMPT trade history '
                         . 'rows), %+d (%+.2f %%) against the mix logs, which had %d more '
                         . 'in flight at the MI\'s edges and %d in doubt (no reply)',
                         $x->{database}, $x->{difference}, 100 * $x->{relative},
                         $x->{at_edges}, $x->{in_doubt})
               : 'not checked: ' . ($x->{skipped} // 'unknown')];
  push @kv, ['Left open at the end', sprintf('%d trades submitted to the market (SBMT), %d '
                                             . 'limit orders pending (PNDG)',
                                             @{ $x->{open} }{qw(SBMT PNDG)})] if $x->{open};
  my %said = (measured => 'the measured throughput, rounded down to 2 decimals (80-100 % of '
                          . 'nominal)',
              nominal  => 'the nominal throughput (measured is 100-102 % of nominal)',
              'out of range' => 'none: the measured throughput is outside 80-102 % of nominal, '
                                . 'so the run is invalid',
              'n/a' => 'none: ' . ($tp->{why} // 'not computed'));
  push @kv, ['Reported', (defined $tp->{reported_tpse} ? sprintf('%.2f tpsE, ', $tp->{reported_tpse}) : '')
                         . $said{ $tp->{status} }];
  return { id => 'throughput', title => 'Throughput (TRTPS)', blocks => [
    { t => 'kv', rows => \@kv },
    { t => 'p', text => 'Rule (clauses 6.6.8 and 6.7): measured throughput = valid '
                        . 'Trade-Results completed in the MI / MI seconds; nominal = customers / '
                        . 'scale factor; 80-100 % of nominal reports the measured figure rounded '
                        . 'down, 100-102 % reports the nominal, anything else is invalid.' },
  ] };
}

sub interval_section {
  my ($r) = @_;
  my $mi = $r->{mi};
  my $ru = $r->{ramp_up} // {};
  my @kv;
  push @kv, ['Ramp-up', sprintf('configured %s; observed %s (from the first customer '
                                . 'transaction, %s, to the MI start)',
                                defined $ru->{configured_s} ? "$ru->{configured_s} s" : 'unknown',
                                duration($ru->{observed_s}), $ru->{first_transaction_utc} // 'unknown')];
  push @kv, ['MI start', $mi->{start_utc} // 'unknown'];
  push @kv, ['MI end', $mi->{end_utc} // 'unknown'];
  push @kv, ['MI length', duration($mi->{seconds})];
  my %src = (markers  => 'the latest START and the earliest STOP of the customer emulator logs',
             fallback => 'markers where present; a log without one gave its first row or its '
                         . 'last row instead (the run is invalid)',
             none     => 'nothing: there is no measurement interval');
  push @kv, ['MI from', $src{ $mi->{source} }];
  my $rr = $r->{run_range} // {};
  push @kv, ["Run's time range", $rr->{known}
               ? "$rr->{start_utc} to $rr->{end_utc}: $rr->{from}; a row or marker outside it "
                 . 'is an input problem and left out'
               : 'unknown: ' . ($rr->{why} // 'no mix log')];
  my @rows = map { [$_->{file}, map { utc_time($_) }
                                  @$_{qw(start_us stop_us first_row_us)}] } @{ $mi->{ce_logs} };
  my @blocks = ({ t => 'kv', rows => \@kv });
  push @blocks, { t => 'table', head => ['Customer emulator log', 'START (or fallback)',
                                         'STOP (or fallback)', 'first row'],
                  align => [qw(l l l l)], rows => \@rows } if @rows;
  push @blocks, { t => 'p', text => 'A transaction counts in the MI when it starts at or after '
                                    . 'the MI start and ends at or before the MI end. The '
                                    . "market emulator's own START/STOP only bracket its "
                                    . 'process and are not used.' };
  return { id => 'interval', title => 'Ramp-up and measurement interval (MI)', blocks => \@blocks };
}

# One line per check, whether it passed, failed or could not be made.
sub checks_rows {
  my ($r) = @_;
  my %fail;
  $fail{ $_->{rule} }++ for @{ $r->{reasons} };
  my $mi_ok = defined $r->{mi}{start_us} && !$r->{mi}{empty};
  my $T = $r->{transactions};
  my @rows;
  my $row = sub {
    my ($rule, $clause, $ok_text, $skip) = @_;
    my $res = $fail{$rule} ? 'FAIL' : defined $skip ? 'not checked' : 'pass';
    push @rows, [$rule, $clause, $res, $fail{$rule} ? 'see the reasons above' : $skip // $ok_text];
  };
  $row->('input problems', 'MIXLOG.md', 'every line of every mix log was read');
  $row->('run status', 'controller', 'run.conf says status = complete',
         defined $r->{settings}{status} ? undef : 'run.conf has no status');
  $row->('run time range', 'MIXLOG.md', 'known; every row and marker inside it');
  $row->('markers', 'MIXLOG.md', 'every customer emulator log has START and STOP');
  $row->('measurement interval', '6.6', 'START before STOP');
  $row->('throughput', '6.7', sprintf('%.1f %% of nominal', $r->{trtps}{measured_pct_of_nominal} // 0),
         defined $r->{trtps}{measured_pct_of_nominal} ? undef : 'no throughput');
  $row->('mix', '6.3.1', 'all ten types inside their required ranges', $mi_ok ? undef : 'no MI');
  $row->('response time', '6.5.1', '90th percentile and average of each type within its limit',
         $mi_ok ? undef : 'no MI');
  $row->('errors', '3.2.1.8', 'no error rows in the MI');
  $row->('invalid transactions', '3.2.1.8', 'no invalid (negative status) rows in the MI');
  my $iv = $r->{input_variants};
  my @judged = grep { defined $_->{ok} } @{ $iv->{variants} };
  $row->('input variants', '6.4.1',
         sprintf('%d variants inside their %s', scalar @judged,
                 $iv->{scaled} ? 'ranges (scaled for a short run)' : 'required ranges'),
         $iv->{skipped});
  my $rb = $r->{trade_order_rollbacks};
  $row->('Trade-Order roll-backs', '6.4.1',
         sprintf('%.3f %% of %d, inside %s%.3f-%.3f %%', $rb->{pct} // 0, $rb->{trade_orders},
                 $rb->{scaled} ? 'the scaled ' : '', @{ $rb->{band_pct} // [0, 0] }),
         $rb->{skipped});
  my $dm = $r->{data_maintenance};
  my $dm_text = sprintf('%d in the MI', $dm->{count_in_mi});
  $dm_text .= sprintf(', %.1f-%.1f s apart', $dm->{min_gap_s}, $dm->{max_gap_s})
    if defined $dm->{min_gap_s};
  $dm_text .= sprintf(', longest %.3f s', $dm->{max_s}) if defined $dm->{max_s};
  $row->('Data-Maintenance', '6.3.3', $dm_text,
         !$dm->{checked} ? 'no MI' : $dm->{not_judged} ? "$dm_text (MI under 120 s)" : undef);
  my $st = $r->{steadiness};
  my $st_text = join('; ', map {
    $_->{skipped} ? "$_->{label}: not checked ($_->{skipped})"
                  : sprintf('%d windows of %.0f s (the spec\'s %s), %d outside +-%.1f %%',
                            $_->{windows}, $_->{window_s}, $_->{label}, $_->{outside},
                            100 * $_->{tolerance})
  } @{ $st->{checks} });
  $row->('steady throughput', '6.6.3', $st_text, $st->{skipped});
  my @unchecked = grep { ($r->{reconciliation}{$_}{status} // '') eq 'not available' } qw(ce mee);
  $row->('reconciliation', 'MIXLOG.md', 'every request sent and order received accounted for',
         @unchecked == 2 ? 'no end-of-run records' : undef);
  my $x = $r->{db_trade_count};
  $row->('metric in the database', '6.6.8',
         $x->{checked} ? sprintf('%d trades completed in the MI, %+d against the mix logs '
                                 . '(allowed: the %d in flight at its edges, the %d in doubt, '
                                 . '+-%.1f %%)', $x->{database}, $x->{difference},
                                 $x->{at_edges}, $x->{in_doubt}, 100 * $x->{tolerance})
                       : undef, $x->{skipped});
  return \@rows;
}

# run_warnings($result) -> what makes the result understate the database, shown beside the
# verdict: the harness's share of the database host's CPU and a ramp-up too short for steady
# state.
sub run_warnings {
  my ($r) = @_;
  return grep { $_ } ($r->{cpu}{warning}, $r->{ramp_up}{warning});
}

sub verdict_section {
  my ($r) = @_;
  my $v = $r->{verdict};
  my @blocks = ({ t => 'headline',
                  lines => [$v->{headline}, map { "Warning: $_" } run_warnings($r)] });
  if (@{ $v->{reasons} }) {
    push @blocks, { t => 'list', ordered => 1,
                    items => [map { "[$_->{rule}, clause $_->{clause}] $_->{text}" }
                              @{ $v->{reasons} }] };
  } else {
    push @blocks, { t => 'p', text => 'Every rule below holds.' };
  }
  push @blocks, { t => 'table', head => ['Check', 'Clause', 'Result', 'Detail'],
                  align => [qw(l l l l)], rows => checks_rows($r) };
  push @blocks, { t => 'p', text => "Steady throughput: $r->{steadiness}{text}" }
    if $r->{steadiness}{text};
  push @blocks, { t => 'p', text => "Trade-Order roll-backs: accepted band $r->{trade_order_rollbacks}{band_text}." }
    if $r->{trade_order_rollbacks}{band_text};
  if (@{ $v->{notes} }) {
    push @blocks, { t => 'p', text => 'Notes (not reasons):' };
    push @blocks, { t => 'list', items => [map { "[$_->{rule}] $_->{text}" } @{ $v->{notes} }] };
  }
  push @blocks, { t => 'p', text => 'The verdict judges the run by the rules of the TPC-E '
                                    . 'specification at its own settings; the next section '
                                    . 'lists what makes it non-compliant anyway.' };
  return { id => 'verdict', title => 'Verdict', blocks => \@blocks };
}

sub compliance_section {
  my ($r) = @_;
  my $c = $r->{compliance};
  my @blocks;
  if (@{ $c->{reasons} }) {
    push @blocks, { t => 'list', items => $c->{reasons} };
  } else {
    push @blocks, { t => 'p', text => 'Nothing in the run settings breaks the sizing and '
                                      . 'duration rules checked here (MI >= 2 h, customers '
                                      . '>= 5000, initial_trade_days >= 300, scale_factor = '
                                      . '500).' };
  }
  push @blocks, { t => 'p', text => $c->{statement} };
  return { id => 'compliance', title => 'Not TPC-E compliant because', blocks => \@blocks };
}

1;
