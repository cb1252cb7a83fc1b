package BrokerBench::Report;
# Writes report.txt, report.html and results.json from an analysis result. The text and the
# HTML are rendered from one list of sections (build_sections), so they always say the same
# thing; the HTML adds the plots (inline, base64) and readme.txt.
use strict;
use warnings;
use Exporter 'import';
use JSON::PP ();
use MIME::Base64 qw(encode_base64);
use List::Util qw(max);
use POSIX qw(floor);
use Text::Wrap ();
use BrokerBench::Spec qw(@MIX_CODES @ALL_CODES %NAME @ERROR_OUTCOMES);
use BrokerBench::Plots qw(@PLOTS);
use BrokerBench::Analysis ();
use BrokerBench::Format qw(utc_time);
use BrokerBench::Cpu qw(%CPU_GROUP_NAME);

our @EXPORT_OK = qw(write_atomic build_sections render_text render_html write_reports json_data
                    transactions_text);

my $WIDTH = 100;

# --- small formatters ----------------------------------------------------------------------

sub f3 { defined $_[0] ? sprintf('%.3f', $_[0]) : '-' }
sub f1 { defined $_[0] ? sprintf('%.1f', $_[0]) : '-' }
sub pct { defined $_[0] ? sprintf('%.1f %%', $_[0]) : '-' }
sub unknown { !defined $_[0] ? 'unknown' : $_[0] eq '' ? '(empty)' : $_[0] }

sub duration {
  my ($s) = @_;
  return 'unknown' unless defined $s;
  my $txt = sprintf('%.1f s', $s);
  if ($s >= 60) {
    my $h = floor($s / 3600);
    my $m = floor(($s - 3600 * $h) / 60);
    my $r = $s - 3600 * $h - 60 * $m;
    $txt .= $h ? sprintf(' (%d h %02d min %02.0f s)', $h, $m, $r)
               : sprintf(' (%d min %02.0f s)', $m, $r);
  }
  return $txt;
}

sub plural { my ($n, $w) = @_; return "$n $w" . ($n == 1 ? '' : 's') }

# --- the sections -----------------------------------------------------------------------------

# Blocks: { t => 'p', text } | { t => 'kv', rows => [[k, v]] } | { t => 'list', items, ordered }
#         | { t => 'table', head, align ('l'/'r' per column), rows, foot }
#         | { t => 'pre', text } | { t => 'plot', name, title, status, note, file }
#         | { t => 'headline', lines }
sub build_sections {
  my ($r, $plots) = @_;
  my @s;
  push @s, { id => 'top', title => 'brokerbench report', blocks => [
    { t => 'headline', lines => headline_lines($r) },
    { t => 'kv', rows => [['Results directory', $r->{results_dir}],
                          ['Generated', $r->{generated_utc}],
                          ['Comment', unknown($r->{settings}{comment})]] },
    { t => 'p', text => $r->{statement} },
  ] };
  # What a reader looks at first: the verdict and the plots; the settings last.
  push @s, verdict_section($r);
  push @s, $plots ? plots_section($r, $plots)
                 : { id => 'plots', title => 'Plots',
                     blocks => [{ t => 'p', text => 'Not made (bb-report --no-plots).' }] };
  push @s, transactions_section($r);
  push @s, input_variants_section($r);
  push @s, errors_section($r);
  push @s, reconciliation_section($r);
  push @s, throughput_section($r);
  push @s, interval_section($r);
  push @s, compliance_section($r);
  push @s, cpu_section($r);
  push @s, waits_section($r);
  push @s, statements_section($r);
  push @s, profile_section($r);
  push @s, database_section($r);
  push @s, system_section($r);
  push @s, bh_section($r);
  push @s, mee_section($r);
  push @s, problems_section($r);
  push @s, settings_section($r);
  return \@s;
}

sub headline_lines {
  my ($r) = @_;
  my @lines = ($r->{trtps}{headline}, $r->{verdict}{headline});
  push @lines, "Warning: $r->{cpu}{warning}" if $r->{cpu}{warning};
  return \@lines;
}

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
      . "percentiles by $r->{percentile_method}.",
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
          . 'end (no summary line in its ce.log: killed or died). Its mix log accounts for '
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
              . "its end (killed or died). Known: $known so far.";
      for my $h (grep { $_->{status} eq 'unfinished' } @{ $m->{hosts} }) {
        my $l = $h->{last_summary};
        $text .= $l ? sprintf(' Its last summary line (%s): %d received, %d pending (%d timers, '
                              . '%d triggers), %d due, %d in flight.', $l->{time},
                              @$l{qw(received pending timers triggers due in_flight)})
                    : " $h->{dir}/mee.log has no summary line.";
      }
      $text .= $open_text;
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
                        . 'each says it sent (the summary line of its ce.log) against the rows '
                        . 'of their mix logs by outcome (errors = retry_exhausted + db_error; '
                        . 'lost in flight = net_error: the connection broke or the Brokerage '
                        . 'House refused it; timed out = no reply by the stop). Market emulator: '
                        . 'the orders it received (mee.log) against those it completed '
                        . '(Trade-Result answered ok), failed (failed-trades.csv), held at its '
                        . 'end (pending-trades.csv) and, limit orders whose limit the price '
                        . 'curve reached, triggered into the ticker: the Brokerage House sends '
                        . 'each back as a second order, counted again (reference §5.5).' },
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
                         . 'rows), %+d (%+.2f %%) against the mix logs', $x->{database},
                         $x->{difference}, 100 * $x->{relative})
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
         @unchecked == 2 ? 'no emulator logs' : undef);
  my $x = $r->{db_trade_count};
  $row->('metric in the database', '6.6.8',
         $x->{checked} ? sprintf('%d trades completed in the MI, %+.2f %% from the mix logs '
                                 . '(within +-%.1f %%)', $x->{database}, 100 * $x->{relative},
                                 100 * $x->{tolerance})
                       : undef, $x->{skipped});
  return \@rows;
}

sub verdict_section {
  my ($r) = @_;
  my $v = $r->{verdict};
  my @blocks = ({ t => 'headline', lines => [$v->{headline},
                                             $r->{cpu}{warning} ? "Warning: $r->{cpu}{warning}"
                                                                : ()] });
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

sub database_section {
  my ($r) = @_;
  my $db = $r->{database};
  my @blocks;
  if ($db->{available}) {
    my $d = $db->{delta};
    my @kv = map { [$_, $d->{$_}] } grep { exists $d->{$_} }
             qw(xact_commit xact_rollback blks_read blks_hit deadlocks temp_bytes tup_returned
                tup_fetched tup_inserted tup_updated tup_deleted);
    push @kv, ['buffer hit ratio', defined $db->{hit_ratio_pct}
                 ? sprintf('%.2f %% (blks_hit / (blks_hit + blks_read))', $db->{hit_ratio_pct})
                 : 'n/a'];
    push @blocks, { t => 'p', text => "Changes in pg_stat_database for '$db->{name}' between "
                                      . 'the snapshots before and after the run (the whole '
                                      . 'run, not only the MI):' },
                  { t => 'kv', rows => \@kv };
  } else {
    push @blocks, { t => 'p', text => 'pg_stat_database: not available (' . ($db->{why} // '?') . ').' };
  }
  if (defined $db->{block_writes}) {
    my $ratio = defined $db->{read_write_ratio}
      ? sprintf('%.1f:1', $db->{read_write_ratio}) : 'n/a';
    push @blocks, { t => 'kv', rows => [
      ['block writes', "$db->{block_writes} (" . join(' + ', @{ $db->{block_write_columns} })
                       . ' from pg_stat_bgwriter)'],
      ['read:write blocks', "$ratio (blks_read : block writes; the TPC-E I/O study found "
                            . 'about 9.7:1)'] ] };
  } else {
    push @blocks, { t => 'p', text => 'Block writes: not available ('
                                      . ($db->{bgwriter_why} // 'no buffers_* columns') . ').' };
  }
  if ($db->{top_tables} && @{ $db->{top_tables} }) {
    push @blocks, { t => 'p', text => 'Tables with the most heap blocks read (changes in '
                                      . 'pg_statio_user_tables):' },
      { t => 'table', head => ['Table', 'heap_blks_read', 'heap_blks_hit', 'idx_blks_read',
                               'idx_blks_hit'], align => [qw(l r r r r)],
        rows => [map { [$_->{name}, @$_{qw(heap_blks_read heap_blks_hit idx_blks_read idx_blks_hit)}] }
                 @{ $db->{top_tables} }] };
  } else {
    push @blocks, { t => 'p', text => 'Tables: not available (pg_statio_user_tables snapshots '
                                      . 'missing).' };
  }
  if ($db->{top_indexes} && @{ $db->{top_indexes} }) {
    push @blocks, { t => 'p', text => 'Indexes with the most blocks read (pg_statio_user_indexes):' },
      { t => 'table', head => ['Index', 'idx_blks_read', 'idx_blks_hit'], align => [qw(l r r)],
        rows => [map { [$_->{name}, @$_{qw(idx_blks_read idx_blks_hit)}] } @{ $db->{top_indexes} }] };
  }
  if ($db->{settings_not_default}) {
    my $list = $db->{settings_not_default};
    push @blocks, { t => 'p', text => 'PostgreSQL settings not at their default (db/settings.csv):' };
    push @blocks, @$list
      ? { t => 'table', head => ['Setting', 'Value', 'Unit', 'Source'], align => [qw(l l l l)],
          rows => [map { [@$_{qw(name setting unit source)}] } @$list] }
      : { t => 'p', text => 'none' };
  } else {
    push @blocks, { t => 'p', text => 'PostgreSQL settings: not available (db/settings.csv missing).' };
  }
  return { id => 'database', title => 'Database', blocks => \@blocks };
}

sub system_section {
  my ($r) = @_;
  my $sys = $r->{system};
  my @blocks;
  if (!@{ $sys->{hosts} }) {
    push @blocks, { t => 'p', text => 'Not available (' . ($sys->{why} // 'no readable '
                                      . 'sys/<host>/sysstat.csv') . ').' };
  } else {
    # Averages in the MI, '-' where there are none.
    my $avg = sub {
      my ($h, $col, $div) = @_;
      my $v = $h->{avg} ? $h->{avg}{$col} : undef;
      return defined $v ? f1($v / ($div // 1)) : '-';
    };
    my (@cpu, @mem);
    for my $h (@{ $sys->{hosts} }) {
      push @cpu, [$h->{host}, $h->{samples_in_mi},
                  map { $avg->($h, $_) } qw(cpu_user_pct cpu_system_pct cpu_iowait_pct
                                            cpu_idle_pct disk_read_kb_s disk_write_kb_s)];
      push @mem, [$h->{host}, (map { $avg->($h, $_, 1024) } qw(mem_used_kb mem_cached_kb
                                                               mem_free_kb)),
                  map { $avg->($h, $_) } qw(net_rx_kb_s net_tx_kb_s)];
    }
    push @blocks, { t => 'table',
                    head => ['Host', 'Samples', 'user %', 'system %', 'iowait %', 'idle %',
                             'read KB/s', 'write KB/s'],
                    align => [qw(l r r r r r r r)], rows => \@cpu };
    push @blocks, { t => 'table',
                    head => ['Host', 'used MiB', 'cached MiB', 'free MiB', 'net in KB/s',
                             'net out KB/s'],
                    align => [qw(l r r r r r)], rows => \@mem }
      if grep { $_->{memory_and_network} } @{ $sys->{hosts} };
    push @blocks, { t => 'p', text => 'Averages over the 1-second samples inside the MI '
                    . '(sys/<host>/sysstat.csv): CPU of all cores; disk reads and writes of all '
                    . 'whole disks; memory as free(1) counts it (used = total - available, '
                    . 'cached = buffers + page cache + reclaimable slabs, PostgreSQL\'s shared '
                    . 'buffers included); network received and sent on every interface but the '
                    . 'loopback. KB = 1024 bytes.' };
    my @old = map { $_->{host} } grep { !$_->{memory_and_network} } @{ $sys->{hosts} };
    push @blocks, { t => 'p', text => 'No memory or network figures for ' . join(', ', @old)
                                      . ': its sysstat.csv is from a kit that did not sample '
                                      . 'them.' } if @old;
  }
  return { id => 'system', title => 'System', blocks => \@blocks };
}

sub cpu_section {
  my ($r) = @_;
  my $cpu = $r->{cpu};
  my @blocks;
  if (!@{ $cpu->{hosts} }) {
    push @blocks, { t => 'p', text => 'Not available (' . ($cpu->{why} // 'no readable '
                                      . 'sys/<host>/proc_cpu.csv') . ').' };
    return { id => 'cpu', title => 'Where the CPU went', blocks => \@blocks };
  }
  for my $h (@{ $cpu->{hosts} }) {
    my $label = "Host $h->{host}" . ($h->{database_host} ? " (the database's host)" : '');
    if (!$h->{harness}) {
      push @blocks, { t => 'p', text => "$label: " . ($h->{why} // 'no figures') . '.' };
      next;
    }
    push @blocks, { t => 'p', text => sprintf('%s: %.1f s of the measurement interval, %d '
                                              . 'transactions (%.1f/s, every mix log row: '
                                              . 'Trade-Result and Market-Feed included), %.2f '
                                              . 'of %.0f cores busy.', $label, $h->{seconds},
                                              $h->{transactions}, $h->{transactions_per_s} // 0,
                                              $h->{busy}{cores} // 0, $h->{cores} // 0) };
    my $row = sub {
      my ($name, $f) = @_;
      return [$name, defined $f->{cores} ? sprintf('%.3f', $f->{cores}) : '-',
              defined $f->{share_pct} ? sprintf('%.1f %%', $f->{share_pct}) : '-',
              defined $f->{us_per_txn} ? sprintf('%.1f', $f->{us_per_txn}) : '-'];
    };
    my @rows = map { $row->($CPU_GROUP_NAME{$_}, $h->{groups}{$_}) } qw(bh ce mee);
    push @rows, $row->('harness (the three above)', $h->{harness});
    push @rows, map { $row->($CPU_GROUP_NAME{$_}, $h->{groups}{$_}) } qw(postgres monitor controller);
    push @rows, $row->('not attributed to these', $h->{unattributed});
    push @rows, $row->('busy, all', $h->{busy});
    push @rows, $row->('soft interrupts (within busy)', $h->{softirq});
    push @blocks, { t => 'table', head => ['Process', 'Cores', 'Share of busy CPU',
                                           'CPU us per transaction'],
                    align => [qw(l r r r)], rows => \@rows, rule_before => [3, 8],
                    strong_rows => $h->{database_host} ? [3] : [] };
  }
  push @blocks, { t => 'p', text => 'Measured by sampling /proc once a second on every host '
                  . '(controller/cpu-sampler): utime+stime of each process, found by name, '
                  . "PostgreSQL with its exited backends (the postmaster's cutime+cstime); "
                  . 'busy = all cores less idle and iowait. Differences between the first and '
                  . 'the last sample inside the measurement interval. "Not attributed" is '
                  . 'other processes and kernel work charged to no process. Soft interrupts '
                  . '(loopback TCP among them) are shown for what they are: the kernel '
                  . 'charges some of them to the process they interrupted, the rest to none.' };
  push @blocks, { t => 'p', text => "Warning: $cpu->{warning}." } if $cpu->{warning};
  return { id => 'cpu', title => 'Where the CPU went', blocks => \@blocks };
}

sub waits_section {
  my ($r) = @_;
  my $w = $r->{waits};
  my $title = 'Where the database waited';
  unless (@{ $w->{hosts} }) {
    return { id => 'waits', title => $title,
             blocks => [{ t => 'p', text => 'Not available (' . ($w->{why} // '?') . ').' }] };
  }
  my @blocks;
  my $row = sub {
    my ($e, @name) = @_;
    return [@name, $e->{samples}, pct($e->{share_pct}), sprintf('%.2f', $e->{avg_backends})];
  };
  for my $h (@{ $w->{hosts} }) {
    unless ($h->{top}) {
      push @blocks, { t => 'p', text => "Host $h->{host}: $h->{why}." };
      next;
    }
    my $st = $h->{avg_by_state};
    my $states = join(', ', map { sprintf('%s %.2f', $_, $st->{$_}) }
                            sort { $st->{$b} <=> $st->{$a} || $a cmp $b } keys %$st);
    push @blocks, { t => 'p', text => sprintf('Host %s: %d samples in the measurement interval; '
                                              . 'client backends of the database on average '
                                              . '%.2f, of which %.2f active%s.', $h->{host},
                                              $h->{samples_in_mi}, $h->{avg_backends},
                                              $h->{avg_active},
                                              $states ? " (the others: $states)" : '') };
    if (!$h->{active_samples}) {
      push @blocks, { t => 'p', text => 'No backend was active in any sample.' };
      next;
    }
    push @blocks,
      { t => 'table', head => ['Wait type', 'Samples', 'Share', 'Avg backends'],
        align => [qw(l r r r)], rows => [map { $row->($_, $_->{type}) } @{ $h->{by_type} }] },
      { t => 'table', head => ['Wait type', 'Wait event', 'Samples', 'Share', 'Avg backends'],
        align => [qw(l l r r r)],
        rows => [map { $row->($_, $_->{type}, $_->{event}) } @{ $h->{top} }] };
    push @blocks, { t => 'p', text => "The $w->{top} most frequent of $h->{waits_seen} waits." }
      if $h->{waits_seen} > @{ $h->{top} };
  }
  push @blocks, { t => 'p', text => 'pg_stat_activity sampled once a second on the database\'s '
                  . 'host (controller/wait-sampler, sys/<host>/waits.csv): every active client '
                  . 'backend of the database counts once per sample, under its wait event. CPU = '
                  . 'active with no wait event: running, or in a wait PostgreSQL does not '
                  . 'instrument. Share = part of all active-backend samples in the measurement '
                  . 'interval; Avg backends = samples / samples taken, the average number of '
                  . 'backends in that wait. Plot: db-waits.' };
  return { id => 'waits', title => $title, blocks => \@blocks };
}

sub statements_section {
  my ($r) = @_;
  my $st = $r->{statements};
  my $title = 'Top statements';
  unless ($st->{available}) {
    return { id => 'statements', title => $title,
             blocks => [{ t => 'p', text => "Not available: $st->{why}." }] };
  }
  my @rows = map {
    [sprintf('%.1f', $_->{total_ms}), pct($_->{share_pct}), $_->{calls},
     sprintf('%.3f', $_->{mean_ms}), @$_{qw(rows shared_blks_hit shared_blks_read text)}]
  } @{ $st->{top} };
  my @blocks = ({ t => 'p', text => sprintf('pg_stat_statements of the database from %s to %s '
                                            . '(read at the START and the STOP of the '
                                            . 'measurement interval; %s): %d statements, %d '
                                            . 'calls, %.1f s of execution in all.',
                                            $st->{from} // 'unknown', $st->{to} // 'unknown',
                                            $st->{reset} // 'reset unknown', $st->{statements},
                                            $st->{calls}, $st->{total_ms} / 1000) });
  push @blocks, @rows
    ? { t => 'table', head => ['Total ms', 'Share', 'Calls', 'Mean ms', 'Rows', 'Shared hit',
                               'Shared read', 'Statement'],
        align => [qw(r r r r r r r l)], rows => \@rows }
    : { t => 'p', text => 'No statement ran in between.' };
  push @blocks, { t => 'p', text => "The $st->{top_n} statements with the most execution time "
                  . '(planning not included); shared hit/read = shared buffer blocks found in '
                  . 'and read into shared buffers. The text is shortened (results.json has it '
                  . 'whole). With pg_stat_statements.track = top (its default) a server-side '
                  . "frame counts as the call of its function; 'all' lists the statements inside "
                  . 'it too.' };
  return { id => 'statements', title => $title, blocks => \@blocks };
}

sub profile_section {
  my ($r) = @_;
  my $p = $r->{profile};
  my @blocks;
  for my $h (@{ $p->{hosts} }) {
    push @blocks, { t => 'kv', rows => [["Host $h->{host}", $h->{status}],
                                        $h->{svg} ? ['Flame graph', "$h->{svg} (open it in a "
                                                     . 'browser; hover over a frame for its name '
                                                     . 'and share)'] : (),
                                        $h->{folded} ? ['Folded stacks', $h->{folded}] : ()] };
  }
  if (!@blocks) {
    push @blocks, { t => 'p', text => $p->{asked}
      ? 'Asked for (--profile) but not made: the run did not reach its measurement interval, '
        . 'or the database\'s host is not known (see run.log).'
      : 'Not recorded (brokerbench run --profile records one on the database\'s host).' };
  }
  push @blocks, { t => 'p', text => 'perf record -a -g at 99 Hz on the database\'s host for '
                  . 'the measurement interval (controller/profile): every process, the kernel '
                  . 'included; a stack starts with its process name.' } if @{ $p->{hosts} };
  return { id => 'profile', title => 'CPU profile (flame graph)', blocks => \@blocks };
}

sub bh_section {
  my ($r) = @_;
  my $bh = $r->{bh};
  my @blocks;
  if (!@{ $bh->{hosts} }) {
    push @blocks, { t => 'p', text => 'Not available (' . ($bh->{why} // 'no readable '
                                      . 'bh/<host>/bh-stats.csv') . ').' };
  }
  for my $h (@{ $bh->{hosts} }) {
    my $f = sub { defined $_[0] ? sprintf($_[1], $_[0]) : '-' };
    my @rows = map {
      my $t = $h->{types}{$_};
      [$NAME{$_}, $_, $t->{requests}, $f->($t->{round_trips_per_txn}, '%.2f'),
       $f->($t->{statements_per_txn}, '%.2f'), $t->{retries}, $f->($t->{server_ms_avg}, '%.3f')]
    } grep { $h->{types}{$_} } @ALL_CODES;
    push @blocks, { t => 'p', text => "Host $h->{host}:" },
                  { t => 'table', head => ['Transaction', 'Code', 'Requests', 'Round trips/txn',
                                           'Statements/txn', 'Retries', 'Server ms (avg)'],
                    align => [qw(l l r r r r r)], rows => \@rows };
  }
  push @blocks, { t => 'p', text => "The Brokerage House's own totals over the whole run "
                  . '(bh/<host>/bh-stats.csv), ramp-up included. A round trip is a group of '
                  . 'statements sent to PostgreSQL together and answered before the next: '
                  . 'with server-side frames a transaction is one (BEGIN, the call and COMMIT '
                  . 'together), with client-side frames one per statement. Retries and failed '
                  . 'attempts count. Server time includes the wait for a database worker.'
                  . (defined $r->{settings}{frames} ? " This run: $r->{settings}{frames}-side frames." : '') };
  return { id => 'bh', title => 'Brokerage House: database work per transaction', blocks => \@blocks };
}

sub mee_section {
  my ($r) = @_;
  my $m = $r->{mee};
  my @rows = map {
    my $w = $m->{wait}{$_};
    [$NAME{$_}, $w->{rows_in_mi},
     map { my $ms = $w->{"wait_${_}_ms"}; defined $ms ? sprintf('%.3f', $ms) : '-' } qw(p50 p90 max)]
  } qw(TR MF);
  my @blocks = (
    { t => 'table', head => ['Delivery', 'Rows in MI', 'wait median (ms)', 'wait p90 (ms)',
                             'wait max (ms)'], align => [qw(l r r r r)], rows => \@rows },
    { t => 'p', text => 'wait = time between a delivery being due and being sent (its queueing '
                        . 'in the market emulator), over all rows of the MI whatever their '
                        . 'outcome; percentiles by nearest rank.' },
  );
  push @blocks, end_of_run_blocks($m, $r->{reconciliation}{mee});
  return { id => 'mee', title => 'Market emulator', blocks => \@blocks };
}

# The states of pending-trades.csv, in the report's order and words.
my @PENDING_STATES = ('limit trigger armed', 'in its completion delay');
my %PENDING_TEXT = (
  'limit trigger armed'     => 'limit orders whose trigger price was not reached',
  'in its completion delay' => 'orders within their completion delay (at most 5 s)',
);

# Pending orders and failed trades at the end of the run (MarketEmulator.pm, end_of_run_trades).
sub end_of_run_blocks {
  my ($m, $rec) = @_;
  my ($p, $f) = ($m->{pending_trades}, $m->{failed_trades});
  if (!$p->{hosts}) {
    return { t => 'p', text => 'Pending and failed trades: not available (no '
                               . 'mee/<host>/failed-trades.csv or pending-trades.csv).' };
  }
  my @blocks;
  my $unknown = join(', ', @{ $p->{hosts_unknown} });
  if (!$p->{known}) {
    push @blocks, { t => 'p', text => "Pending at the end: unknown: the market emulator on "
                    . "$unknown wrote no pending-trades.csv, so it never reached its end (it was "
                    . 'killed or died; the last lines of its mee.log may say more).'
                    . join('', map {
                        my $l = $_->{last_summary};
                        $l ? " At its last summary line ($l->{time}) it held $l->{pending} "
                             . "pending, $l->{due} due and $l->{in_flight} in flight."
                           : ''
                      } grep { $_->{status} eq 'unfinished' } @{ $rec->{hosts} // [] })
                    . ($rec && $rec->{open_in_database}
                       ? " The database left $rec->{open_in_database}{total} trades open after "
                         . 'the run (db/after/open-trades.csv).' : '') };
  } elsif (!$p->{total}) {
    push @blocks, { t => 'p', text => 'Pending at the end: none.' };
  } else {
    my $s = $p->{by_state};
    my @states = ((grep { $s->{$_} } @PENDING_STATES),
                  (sort grep { !$PENDING_TEXT{$_} } keys %$s));
    push @blocks, { t => 'p', text => "Pending at the end: $p->{total} ("
                    . join('; ', map { ($PENDING_TEXT{$_} // $_) . ": $s->{$_}" } @states)
                    . '). Not failures: the market had not finished with them when the run '
                    . 'stopped, and Trade-Cleanup cancels them before the next run.' };
  }
  my $so_far = $f->{complete} ? ''
             : " recorded before the market emulator on $unknown stopped without reaching its "
               . 'end (those it would have found at its end are unknown)';
  if (!$f->{total}) {
    push @blocks, { t => 'p', text => $f->{complete} ? 'Failed trades: none.'
                                                     : "Failed trades: none$so_far." };
  } else {
    push @blocks, { t => 'p', text => "Failed trades: $f->{total}$so_far, by reason:" },
      { t => 'table', head => ['Reason', 'Trades'], align => [qw(l r)],
        rows => [map { [$_, $f->{by_reason}{$_}] }
                 sort { $f->{by_reason}{$b} <=> $f->{by_reason}{$a} || $a cmp $b }
                 keys %{ $f->{by_reason} }] };
  }
  return @blocks;
}

sub plots_section {
  my ($r, $plots) = @_;
  my @blocks;
  for my $p (@PLOTS) {
    my $res = $plots->{ $p->[0] } // { status => 'failed', note => 'not made' };
    push @blocks, { t => 'plot', name => $p->[0], title => $p->[1], %$res };
  }
  push @blocks, { t => 'p', text => 'Each plot has its data and gnuplot script in plots/data/; '
                                    . 're-plot with: cd plots/data && gnuplot NAME.gp' };
  return { id => 'plots', title => 'Plots', blocks => \@blocks };
}

sub problems_section {
  my ($r) = @_;
  my @blocks;
  if (!$r->{problems_total}) {
    push @blocks, { t => 'p', text => 'None: every input line was read.' };
  } else {
    push @blocks, { t => 'p', text => sprintf('%s (%d in the mix logs, which make the run '
                                              . 'invalid; the rest were processed):',
                                              plural($r->{problems_total}, 'problem'),
                                              $r->{mix_problems}) };
    push @blocks, { t => 'list', items => [map { problem_text($_) } @{ $r->{problems} }] };
    my $unlisted = $r->{problems_total} - @{ $r->{problems} };
    push @blocks, { t => 'p', text => "$unlisted more are counted but not listed (at most "
                                      . "$BrokerBench::Analysis::MAX_PROBLEMS_PER_FILE per file)." }
      if $unlisted > 0;
  }
  return { id => 'problems', title => 'Input problems', blocks => \@blocks };
}

sub problem_text {
  my ($p) = @_;
  my $t = "$p->{file}:$p->{line}: $p->{reason}";
  $t .= " ('$p->{text}')" if defined $p->{text} && $p->{text} ne '';
  return $t;
}

my @SETTING_KEYS = qw(format customers scale_factor initial_trade_days users ramp_up_s
                      duration_s pacing_s seed seed_source emulator_seeds db_workers frames
                      transport db_name comment profile started_utc
                      finished_utc kit_commit command status);

sub settings_section {
  my ($r) = @_;
  my $s = $r->{settings};
  my %known = map { $_ => 1 } @SETTING_KEYS;
  my @rows = ((map { [$_, unknown($s->{$_})] } @SETTING_KEYS),
              (map { [$_, $s->{$_}] } grep { !$known{$_} } sort keys %$s));
  return { id => 'settings', title => 'Settings (run.conf)',
           blocks => [{ t => 'kv', rows => \@rows }] };
}

# --- text -------------------------------------------------------------------------------------

sub wrap {
  my ($text, $indent, $next) = @_;
  local $Text::Wrap::columns  = $WIDTH;
  local $Text::Wrap::huge     = 'overflow';
  local $Text::Wrap::unexpand = 0;
  return Text::Wrap::wrap($indent, $next // $indent, $text) . "\n";
}

sub text_table {
  my ($b) = @_;
  my @all = ($b->{head}, @{ $b->{rows} });
  my @w;
  for my $row (@all) {
    for my $i (0 .. $#$row) {
      my $l = length($row->[$i] // '');
      $w[$i] = $l if !defined $w[$i] || $l > $w[$i];
    }
  }
  my $fmt_row = sub {
    my ($row) = @_;
    my @c;
    for my $i (0 .. $#w) {
      my $v = $row->[$i] // '';
      push @c, ($b->{align}[$i] // 'l') eq 'r' ? sprintf('%*s', $w[$i], $v)
                                               : sprintf('%-*s', $w[$i], $v);
    }
    return ('  ' . join('  ', @c)) =~ s/\s+\z//r . "\n";
  };
  my $rule = '  ' . join('  ', map { '-' x $_ } @w) . "\n";
  my %rule_before = map { $_ => 1 } @{ $b->{rule_before} // [] };
  my %strong = map { $_ => 1 } @{ $b->{strong_rows} // [] };
  my $out = $fmt_row->($b->{head}) . $rule;
  for my $i (0 .. $#{ $b->{rows} }) {
    $out .= $rule if $rule_before{$i};
    # A strong row stands out in plain text by a '>' in the margin.
    $out .= $strong{$i} ? $fmt_row->($b->{rows}[$i]) =~ s/\A  /> /r : $fmt_row->($b->{rows}[$i]);
  }
  return $out;
}

sub render_text {
  my ($sections) = @_;
  my $out = '';
  for my $s (@$sections) {
    if ($s->{id} eq 'top') {
      $out .= "$s->{title}\n" . ('=' x length $s->{title}) . "\n";
    } else {
      $out .= "\n$s->{title}\n" . ('-' x length $s->{title}) . "\n";
    }
    my $first = 1;
    for my $b (@{ $s->{blocks} }) {
      my $t = $b->{t};
      # A blank line between blocks, except between consecutive paragraphs of notes.
      $out .= "\n" unless $first || ($t eq 'plot');
      $first = 0;
      if ($t eq 'p') {
        $out .= wrap($b->{text}, '  ');
      } elsif ($t eq 'headline') {
        $out .= "  $_\n" for @{ $b->{lines} };
      } elsif ($t eq 'kv') {
        my $w = max(map { length $_->[0] } @{ $b->{rows} });
        for my $kv (@{ $b->{rows} }) {
          $out .= wrap(sprintf('%-*s  %s', $w + 1, "$kv->[0]:", $kv->[1] // ''), '  ',
                       ' ' x ($w + 5));
        }
      } elsif ($t eq 'list') {
        my $n = 0;
        for my $item (@{ $b->{items} }) {
          my $mark = $b->{ordered} ? sprintf('%d. ', ++$n) : '- ';
          $out .= wrap($item, "  $mark", ' ' x (2 + length $mark));
        }
      } elsif ($t eq 'table') {
        $out .= text_table($b);
      } elsif ($t eq 'pre') {
        $out .= $b->{text};
      } elsif ($t eq 'plot') {
        my $line = $b->{status} eq 'written' ? "$b->{file}: $b->{title}"
                 : $b->{status} eq 'skipped' ? "$b->{name}.png not written: $b->{note}"
                 : "$b->{name}.png FAILED: $b->{note}";
        $out .= wrap($line, '  - ', '    ');
      }
    }
  }
  return $out;
}

# --- HTML -------------------------------------------------------------------------------------

sub esc {
  my ($s) = @_;
  $s = '' unless defined $s;
  $s =~ s/&/&amp;/g;
  $s =~ s/</&lt;/g;
  $s =~ s/>/&gt;/g;
  $s =~ s/"/&quot;/g;
  return $s;
}

my $CSS = <<'CSS';
body { font-family: sans-serif; max-width: 1150px; margin: 1em auto; padding: 0 1em;
       color: #222; line-height: 1.4; }
h1 { border-bottom: 2px solid #345; padding-bottom: .2em; }
h2 { border-bottom: 1px solid #bbb; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .6em 0; font-size: 90%; }
th, td { border: 1px solid #ccc; padding: .15em .5em; vertical-align: top; }
th { background: #eef2f7; text-align: left; }
td.r { text-align: right; font-family: monospace; }
tr.rule td { border-top: 2px solid #888; }
.headline { font-family: monospace; font-size: 115%; background: #f6f6f6;
            border-left: 4px solid #345; padding: .4em .8em; white-space: pre-wrap; }
.valid { color: #176117; font-weight: bold; }
.invalid { color: #a31515; font-weight: bold; }
.kv th { background: none; border: none; padding-right: 1em; white-space: nowrap; }
.kv td { border: none; }
pre { background: #f6f6f6; padding: .6em; overflow-x: auto; font-size: 85%; }
figure { margin: 1em 0; }
figure img { max-width: 100%; border: 1px solid #ddd; }
.fail { color: #a31515; font-weight: bold; }
nav a { margin-right: .8em; }
CSS

sub html_line_class {
  my ($line) = @_;
  return 'invalid' if $line =~ /INVALID|FAILED|n\/a|outside/;
  return 'valid'   if $line =~ /VALID/;
  return '';
}

# render_html($sections, results_dir => DIR (where the plots' files are), readme => TEXT,
# title => TEXT (default: 'brokerbench report: DIR')).
sub render_html {
  my ($sections, %o) = @_;
  my $dir = $o{results_dir};
  my $out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    . '<title>' . esc($o{title} // "brokerbench report: $dir") . "</title>\n<style>\n$CSS"
    . "</style>\n</head>\n<body>\n";
  $out .= '<nav>' . join('', map { '<a href="#' . esc($_->{id}) . '">' . esc($_->{title}) . '</a>' }
                              grep { $_->{id} ne 'top' } @$sections)
          . ($o{readme} ? '<a href="#readme">readme.txt</a>' : '') . "</nav>\n";
  for my $s (@$sections) {
    my $h = $s->{id} eq 'top' ? 'h1' : 'h2';
    $out .= "<section id=\"" . esc($s->{id}) . "\">\n<$h>" . esc($s->{title}) . "</$h>\n";
    for my $b (@{ $s->{blocks} }) {
      my $t = $b->{t};
      if ($t eq 'p') {
        $out .= '<p>' . esc($b->{text}) . "</p>\n";
      } elsif ($t eq 'headline') {
        $out .= '<div class="headline">'
          . join("\n", map { my $c = html_line_class($_);
                             ($c ? "<span class=\"$c\">" : '<span>') . esc($_) . '</span>' }
                 @{ $b->{lines} }) . "</div>\n";
      } elsif ($t eq 'kv') {
        $out .= "<table class=\"kv\">\n"
          . join('', map { '<tr><th>' . esc($_->[0]) . '</th><td>' . esc($_->[1]) . "</td></tr>\n" }
                 @{ $b->{rows} }) . "</table>\n";
      } elsif ($t eq 'list') {
        my $tag = $b->{ordered} ? 'ol' : 'ul';
        $out .= "<$tag>\n" . join('', map { '<li>' . esc($_) . "</li>\n" } @{ $b->{items} }) . "</$tag>\n";
      } elsif ($t eq 'table') {
        my %rule_before = map { $_ => 1 } @{ $b->{rule_before} // [] };
        my %strong = map { $_ => 1 } @{ $b->{strong_rows} // [] };
        $out .= "<table>\n<tr>" . join('', map { '<th>' . esc($_) . '</th>' } @{ $b->{head} }) . "</tr>\n";
        for my $i (0 .. $#{ $b->{rows} }) {
          my $row = $b->{rows}[$i];
          $out .= ($rule_before{$i} ? '<tr class="rule">' : '<tr>');
          for my $j (0 .. $#$row) {
            my $v = $row->[$j];
            my $cls = ($b->{align}[$j] // 'l') eq 'r' ? ' class="r"' : '';
            $cls = ' class="fail"' if defined $v && $v eq 'FAIL';
            $out .= "<td$cls>" . ($strong{$i} ? '<strong>' . esc($v) . '</strong>' : esc($v))
              . '</td>';
          }
          $out .= "</tr>\n";
        }
        $out .= "</table>\n";
      } elsif ($t eq 'pre') {
        $out .= '<pre>' . esc($b->{text}) . "</pre>\n";
      } elsif ($t eq 'plot') {
        $out .= html_plot($b, $dir);
      }
    }
    $out .= "</section>\n";
  }
  if ($o{readme}) {
    $out .= "<section id=\"readme\">\n<h2>readme.txt</h2>\n<pre>" . esc($o{readme}) . "</pre>\n</section>\n";
  }
  $out .= "</body>\n</html>\n";
  return $out;
}

sub html_plot {
  my ($b, $dir) = @_;
  if ($b->{status} ne 'written') {
    my $what = $b->{status} eq 'skipped' ? 'not written' : 'FAILED';
    return '<p>' . esc("$b->{name}.png $what: $b->{note}") . "</p>\n";
  }
  my $path = "$dir/$b->{file}";
  open my $fh, '<:raw', $path or return '<p>' . esc("$b->{file}: cannot read: $!") . "</p>\n";
  local $/;
  my $png = <$fh>;
  close $fh;
  return '<figure><img alt="' . esc($b->{title}) . '" src="data:image/png;base64,'
    . encode_base64($png, '') . '"><figcaption>' . esc("$b->{title} ($b->{file})")
    . "</figcaption></figure>\n";
}

# --- JSON and files --------------------------------------------------------------------------

# json_data($result, $plots) -> the plain data of results.json (no internal keys).
sub json_data {
  my ($r, $plots) = @_;
  # The verdict holds the reasons and notes: not twice.
  my %d = map { $_ => $r->{$_} } grep { !/\A_/ && !/\A(?:reasons|notes)\z/ } keys %$r;
  $d{plots} = $plots if $plots;
  $d{headline} = { trtps => $r->{trtps}{headline}, verdict => $r->{verdict}{headline},
                   warnings => [$r->{cpu}{warning} ? $r->{cpu}{warning} : ()] };
  return \%d;
}

# write_atomic($path, $text): through "$path.tmpPID" and a rename, so a reader never sees half
# a report. When a write fails (a full file system) the temporary file is removed, and it dies
# naming the file and the error.
sub write_atomic {
  my ($path, $text) = @_;
  my $tmp = "$path.tmp$$";
  open my $fh, '>:raw', $tmp or die "cannot write $tmp: $!\n";
  unless ((print {$fh} $text) && close $fh) {
    my $err = $!;
    close $fh;    # when the print failed (closing twice is harmless)
    unlink $tmp;
    die "cannot write $path (through $tmp): $err\n";
  }
  unless (rename $tmp, $path) {
    my $err = $!;
    unlink $tmp;
    die "cannot rename $tmp to $path: $err\n";
  }
}

# write_reports($result, $plots) -> path of report.txt. Dies with a message naming the file
# when one cannot be written.
sub write_reports {
  my ($r, $plots) = @_;
  my $dir = $r->{results_dir};
  my $sections = build_sections($r, $plots);
  # Inputs are read and written as bytes, so UTF-8 in run.conf or readme.txt passes through.
  write_atomic("$dir/report.txt", render_text($sections));
  my $readme;
  if (open my $fh, '<:raw', "$dir/readme.txt") {
    local $/;
    $readme = <$fh>;
    close $fh;
  }
  write_atomic("$dir/report.html",
               render_html($sections, results_dir => $dir, readme => $readme));
  my $json = JSON::PP->new->canonical->pretty;
  write_atomic("$dir/results.json", $json->encode(json_data($r, $plots)));
  return "$dir/report.txt";
}

1;
