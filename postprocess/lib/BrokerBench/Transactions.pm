package BrokerBench::Transactions;
# Per-type statistics from the mix log reader's aggregates (Aggregates.pm): counts by outcome
# in and outside the measurement interval, retries, the mix percentages, the response times and
# their percentiles (read from histograms: Histogram.pm), and the time series the plots draw
# (completions and response-time percentiles per tick, Trade-Results per 10 s, the
# response-time distributions).
use strict;
use warnings;
use Exporter 'import';
use List::Util qw(max min sum0);
use BrokerBench::Spec qw(@MIX_CODES @ALL_CODES %NAME %MIX_RANGE %RT_LIMIT @OUTCOMES
                         @ERROR_OUTCOMES);
use BrokerBench::Histogram qw(hist_summary signed_summary unpack_hist add_into cdf_points
                              hist_count hist_percentile bucket_high);
use BrokerBench::Aggregates qw(code_index WAIT_SLOT MIN_SLOT MAX_SLOT);
use BrokerBench::Result qw(mi_ok);

our @EXPORT_OK = qw(transaction_stats);

my $US = 1_000_000;

# --- per-type statistics ----------------------------------------------------------------

sub transaction_stats {
  my ($r, $g) = @_;
  my $plan = $g->{plan};
  collect($g);
  # Per code and outcome, in the MI (or the whole log: Trade-Cleanup) and outside it.
  my (%in, %out, %retries);
  for my $x (0 .. $#{ $g->{x_ci} }) {
    my ($code, $oc) = ($g->{x_code}[$x], $OUTCOMES[ $g->{x_oi}[$x] ]);
    $in{$code}{$oc}  += $g->{cnt}[2 * $x + 1] // 0;
    $out{$code}{$oc} += $g->{cnt}[2 * $x] // 0;
    $retries{$code}  += $g->{retries}[2 * $x + 1] // 0;
  }
  my %types;
  my $mix_total = 0;
  for my $code (@ALL_CODES) {
    my $ci = code_index($code);
    my %oc_in  = map { $_ => $in{$code}{$_} // 0 } @OUTCOMES;
    my %oc_out = map { $_ => $out{$code}{$_} // 0 } @OUTCOMES;
    my $hist = $g->{mi_hist}[$ci];
    my $n = hist_count($hist);
    my $f = hist_summary($hist, sum => $g->{mi_sum}[$ci], min => $g->{mi_min}[$ci],
                         max => $g->{mi_max}[$ci]);
    $f->{avg} = $f->{mean};
    my $t = {
      code            => $code,
      name            => $NAME{$code},
      in_mix          => (exists $MIX_RANGE{$code} ? 1 : 0),
      scope           => $code eq 'TC' ? 'whole log' : 'MI',
      count           => $n,
      rows            => sum0(values %oc_in) + sum0(values %oc_out),
      rows_in_mi      => sum0(values %oc_in),
      rows_outside_mi => sum0(values %oc_out),
      ok              => $oc_in{ok},
      rollbacks       => $oc_in{rollback},
      warnings        => $oc_in{warning},
      invalid         => $oc_in{invalid},
      errors          => sum0(map { $oc_in{$_} } @ERROR_OUTCOMES),
      error_outcomes  => { map { $_ => $oc_in{$_} } @ERROR_OUTCOMES },
      outcomes_in_mi  => \%oc_in,
      outcomes_outside_mi => \%oc_out,
      retries         => $retries{$code} // 0,
      (map { ("response_time_${_}_ms" => defined $f->{$_} ? $f->{$_} / 1000 : undef) }
       qw(min avg p50 p90 p95 p99 max)),
      response_time_limit_ms => (defined $RT_LIMIT{$code} ? 1000 * $RT_LIMIT{$code} : undef),
      mix_range       => $MIX_RANGE{$code},
    };
    $types{$code} = $t;
    $mix_total += $t->{count} if $t->{in_mix};
  }
  # Mix percentages over the valid transactions of the ten mix types in the MI, computed to
  # 4 decimals and shown to 3 (clause 6.3.2).
  for my $code (@MIX_CODES) {
    my $t = $types{$code};
    $t->{mix_pct} = $mix_total ? sprintf('%.4f', 100 * $t->{count} / $mix_total) + 0 : undef;
  }
  # Trade-Results in flight at an MI edge: outside the MI here, but their T_DTS may lie in it.
  $types{TR}{across_mi_edges} = $g->{tr_edge};
  $r->{mix_total}    = $mix_total;
  $r->{transactions} = \%types;
  $r->{_series}      = series($r, $g);
  $r->{_tr_seg}      = { cuts => $plan->{steady_cuts}, counts => $g->{steady} };
  $r->{_dm_rows}     = [map { [$_->[0], $_->[1], $OUTCOMES[ $_->[2] ]] }
                        sort { $a->[0] <=> $b->[0] } @{ $g->{dm} }];
}

# collect($g): what is made of the ticks once the last file is read (Aggregates.pm): the MI's
# histograms and sums per code and of the waits (mi_hist, mi_sum, wait, wait_sum), and per
# tick and type of the mix the valid completions and [p50, p90, max] (us) of their response
# times, and of the waits (tick_done, tick_rt, tick_wait), for the plots. Each packed histogram
# is unpacked once.
sub collect {
  my ($g) = @_;
  my (@mi, @mi_sum, @mi_min, @mi_max, @wait, @wait_sum, %done, %rt, %tw);
  my %in_mix = map { code_index($_) => 1 } @MIX_CODES;
  my $none = [0, []];
  for my $tk (0 .. $#{ $g->{packed} }) {
    my $p = $g->{packed}[$tk] or next;
    my $sums = $g->{sum}[$tk] // [];
    for my $ci (0 .. $#ALL_CODES) {
      my ($out, $in) = map { defined $p->[2 * $ci + $_] ? unpack_hist($p->[2 * $ci + $_]) : undef }
                       0, 1;
      if ($in) {
        $mi[$ci] = add_into($mi[$ci], $in);
        $mi_sum[$ci] += $sums->[2 * $ci + 1] // 0;
        $mi_min[$ci] = min(grep { defined } $mi_min[$ci], $sums->[ MIN_SLOT + 2 * $ci + 1 ]);
        $mi_max[$ci] = max(grep { defined } $mi_max[$ci], $sums->[ MAX_SLOT + 2 * $ci + 1 ]);
      }
      next unless $in_mix{$ci} && ($in || $out);
      my $h = $in && $out ? add_into(add_into(undef, $in), $out) : $in // $out;
      $done{$ci}{$tk} = hist_count($h);
      $rt{$ci}{$tk} = tick_summary($h, max(grep { defined } map { $sums->[ MAX_SLOT + 2 * $ci + $_ ] }
                                                                0, 1));
    }
    for my $w (0, 1) {    # TR, MF: non-negative out, in; negative out, in
      my @h = map { my $k = WAIT_SLOT + 4 * $w + $_; defined $p->[$k] ? unpack_hist($p->[$k]) : $none }
              0 .. 3;
      next unless grep { @{ $_->[1] } } @h;
      $wait[2 * $w] = add_into($wait[2 * $w], $h[1]);
      $wait[2 * $w + 1] = add_into($wait[2 * $w + 1], $h[3]);
      $wait_sum[$w] += ($sums->[WAIT_SLOT + 4 * $w + 1] // 0) + ($sums->[WAIT_SLOT + 4 * $w + 3] // 0);
      my $f = signed_summary(add_into(add_into(undef, $h[0]), $h[1]),
                             add_into(add_into(undef, $h[2]), $h[3]));
      $tw{$w}{$tk} = [@$f{qw(p50 p90 max)}] if $f->{n};
    }
  }
  $g->{mi_hist}  = [map { $mi[$_] // $none } 0 .. $#ALL_CODES];
  $g->{mi_sum}   = [map { $mi_sum[$_] // 0 } 0 .. $#ALL_CODES];
  $g->{mi_min}   = \@mi_min;
  $g->{mi_max}   = \@mi_max;
  $g->{wait}     = [map { $wait[$_] // $none } 0 .. 3];
  $g->{wait_sum} = [map { $wait_sum[$_] // 0 } 0, 1];
  @$g{qw(tick_done tick_rt tick_wait)} = (\%done, \%rt, \%tw);
}

# [p50, p90, max] of a tick's histogram, its exact maximum given (the percentiles are bucket
# values, the maximum bounds them), or undef when it is empty.
sub tick_summary {
  my ($h, $max) = @_;
  my $n = hist_count($h);
  return undef unless $n;
  return [(map { min($_, $max) } hist_percentile($h, $n, 50, 90)), $max];
}

# The plots' time axis and series (Plots.pm, ComparePlots.pm). Seconds from the MI start (or
# from the first row when there is no MI); the plan's ticks start a whole number of minutes
# before it, at or before the run's time range. Without a known range there is no time axis.
sub series {
  my ($r, $g) = @_;
  my $plan = $g->{plan};
  my @files = grep { defined $_->{first_start_us} } @{ $r->{inputs}{files} };
  @files = () unless $r->{run_range}{known} && defined $plan->{tick_us};
  my %s = (span_start_us => (min map { $_->{first_start_us} } @files),
           span_end_us   => (max map { $_->{last_end_us} } @files));
  return {} unless defined $s{span_start_us};
  $s{origin_us} = mi_ok($r) ? $r->{mi}{start_us} : $s{span_start_us};
  $s{base_us}  = $plan->{base_us};
  $s{bucket_s} = $plan->{tick_us} / $US;
  for my $code (@MIX_CODES) {
    my $ci = code_index($code);
    $s{cdf}{$code} = cdf_points($g->{mi_hist}[$ci]);
    $s{done}{$code} = $g->{tick_done}{$ci} // {};
    $s{rt}{$code} = $g->{tick_rt}{$ci} // {};
  }
  $s{tr10} = { map { $_ => $g->{tr10}[$_] } grep { $g->{tr10}[$_] } 0 .. $#{ $g->{tr10} } };
  $s{wait} = { TR => $g->{tick_wait}{0} // {}, MF => $g->{tick_wait}{1} // {} };
  return \%s;
}

1;
