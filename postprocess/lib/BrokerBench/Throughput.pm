package BrokerBench::Throughput;
# The throughput metric and its steadiness: the measured, nominal and reported TRTPS (clauses
# 6.6.8, 6.7) and the sliding-window check of clause 6.6.3, scaled for a run shorter than the
# spec's 2 hours, with the texts that explain both.
use strict;
use warnings;
use Exporter 'import';
use List::Util qw(max sum0);
use POSIX qw(ceil floor);
use BrokerBench::Aggregates qw(seg_of);
use BrokerBench::Spec qw(
  $MI_MIN_S $TRTPS_LOW $TRTPS_HIGH
  $STEADY_LONG_WINDOW_S $STEADY_LONG_SLIDE_S $STEADY_LONG_TOL
  $STEADY_SHORT_WINDOW_S $STEADY_SHORT_SLIDE_S $STEADY_SHORT_TOL $STEADY_MIN_WINDOW_S
  $STEADY_FALSE_ALARM $STEADY_DISPERSION_BUCKET_S);
use BrokerBench::Stats qw(normal_upper_quantile t_upper_quantile);
use BrokerBench::Format qw(floor2 is_number fmt_s fmt_pct);
use BrokerBench::Result qw(add_reason add_note mi_ok);

our @EXPORT_OK = qw(throughput steadiness steady_cuts tr_segments);

my $US = 1_000_000;

# --- throughput (clauses 6.6.8, 6.7) -------------------------------------------

sub throughput {
  my ($r) = @_;
  my $s   = $r->{settings};
  my $tp  = { measured_tpse => undef, nominal_tpse => undef, measured_pct_of_nominal => undef,
              reported_tpse => undef, status => 'n/a',
              trade_results_in_mi => $r->{transactions}{TR}{count} };
  $r->{trtps} = $tp;
  if (is_number($s->{customers}) && is_number($s->{scale_factor}) && $s->{scale_factor} > 0) {
    $tp->{nominal_tpse} = $s->{customers} / $s->{scale_factor};
  }
  my $have_mee = grep { $_->{role} eq 'mee' && !$_->{refused} } @{ $r->{inputs}{files} };
  if (!mi_ok($r)) {
    $tp->{why} = 'no measurement interval';
  } elsif (!$have_mee) {
    $tp->{why} = 'no readable market emulator mix log, so no Trade-Result rows';
  }
  if ($tp->{why}) {
    $tp->{headline} = "TRTPS: n/a ($tp->{why})";
    add_reason($r, 'throughput', '6.6.8', "the throughput cannot be measured: $tp->{why}");
    return;
  }
  $tp->{measured_tpse} = $tp->{trade_results_in_mi} / $r->{mi}{seconds};
  my $m2 = sprintf('%.2f', floor2($tp->{measured_tpse}));
  unless (defined $tp->{nominal_tpse} && $tp->{nominal_tpse} > 0) {
    $tp->{why} = 'nominal unknown: run.conf lacks customers or scale_factor';
    $tp->{headline} = "TRTPS: n/a ($tp->{why}; measured $m2)";
    add_reason($r, 'throughput', '6.7',
               "the reported throughput cannot be determined without the nominal throughput "
               . "(customers / scale_factor); measured $m2 tpsE");
    return;
  }
  my $ratio = $tp->{measured_tpse} / $tp->{nominal_tpse};
  $tp->{measured_pct_of_nominal} = 100 * $ratio;
  my $n2 = sprintf('%.2f', $tp->{nominal_tpse});
  my $p1 = sprintf('%.1f', $tp->{measured_pct_of_nominal});
  if ($ratio >= $TRTPS_LOW && $ratio <= 1) {
    $tp->{reported_tpse} = floor2($tp->{measured_tpse});
    $tp->{status}   = 'measured';
    $tp->{headline} = "TRTPS: $m2 (nominal $n2, $p1 %)";
  } elsif ($ratio > 1 && $ratio <= $TRTPS_HIGH) {
    $tp->{reported_tpse} = $tp->{nominal_tpse};
    $tp->{status}   = 'nominal';
    $tp->{headline} = sprintf('TRTPS: %.2f (nominal %s, %s %%; measured %s)', $tp->{nominal_tpse},
                              $n2, $p1, $m2);
  } else {
    $tp->{status}   = 'out of range';
    $tp->{headline} = "TRTPS: $m2 (nominal $n2, $p1 %; outside 80-102 %, not reportable)";
    add_reason($r, 'throughput', '6.7',
               sprintf('measured throughput %s tpsE is %s %% of the nominal %s tpsE '
                       . '(customers %s / scale_factor %s); it must be 80-102 %%',
                       $m2, $p1, $n2, $s->{customers}, $s->{scale_factor}));
  }
}

# --- steady throughput (clause 6.6.3) -----------------------------------------

# The spec checks 1-hour windows sliding by 10 minutes (within 2 %) and 10-minute windows
# sliding by 1 minute (within 20 %) against the reported throughput; an MI of 2 hours or more
# is judged exactly so.
#
# A shorter MI has no rule in the spec. Ours scales the windows and slides by MI/7200 (no
# window under 30 s, no slide under 1 s) and lets each window deviate as far as the noise of a
# steady run's count allows, at a known error rate:
# - Noise. Trade-Result completions are burstier than Poisson: limit orders trigger in bunches
#   (a default run measured variance/mean 1.89 per 10 s, 1.44 per 30 s). A window expecting E
#   completions has a count of variance D x E, D the dispersion, which is estimated from the
#   run itself: over the n whole 10-s buckets c[1..n] of the MI, D = sum of (c[i+1] - c[i])^2
#   / (2 (n-1)) / mean c (successive differences, von Neumann). A change of throughput adds one
#   large difference where it begins and one where it ends, so a real drop hardly raises D
#   and cannot hide itself, as it would in the plain variance of the buckets. 10 s holds a
#   bunch whole (the measured dispersion falls from 10 s to 30 s, so it does not understate
#   the noise of longer windows) and still gives a 5-minute MI 30 buckets. D is never taken
#   below 1 (Poisson).
# - Error rate. A window fails when its deviation exceeds z standard deviations of its count,
#   so its tolerance is z sqrt(D / E). z is the upper q = 0.01 / (2 N) quantile for the N
#   windows of both sizes (Bonferroni: a steady run fails by chance with probability at most
#   1 % over all its windows together; less in fact, as overlapping windows are correlated),
#   of Student's t with 2 (n-1)^2 / (3n-4) degrees of freedom, the precision of the
#   successive-difference estimate from n buckets (normal counts): D is estimated, and a
#   5-minute run's 30 buckets can put it 40 % low by chance, which a normal quantile would
#   turn into too many false failures (simulated steady bursty 5-minute runs: 1.0-1.6 % of
#   them failed with a normal quantile; with this one at most 0.2 %, bunches of up to 15 s
#   included).
# What the rule can see follows: a drop lasting a whole window is caught at least 97 % of the
# time when it is deeper than the tolerance by 2 standard deviations; a shallower or shorter
# one passes. The report says how deep that is for the run.
sub steadiness {
  my ($r) = @_;
  my $st = { checks => [] };
  $r->{steadiness} = $st;
  my $tp = $r->{trtps};
  unless (mi_ok($r) && defined $tp->{measured_tpse} && $tp->{measured_tpse} > 0) {
    $st->{skipped} = 'no measured throughput';
    return;
  }
  my $ref = defined $tp->{reported_tpse} ? $tp->{reported_tpse} : $tp->{measured_tpse};
  $st->{reference_tpse} = $ref;
  $st->{reference} = defined $tp->{reported_tpse} ? 'reported throughput'
                                             : 'measured throughput (none is reportable)';
  my ($t0, $t1) = ($r->{mi}{start_us}, $r->{mi}{end_us});
  my $mi_len = $r->{mi}{seconds};
  my $plan = steady_windows($t0, $t1);
  my $scaled = $plan->{scaled};
  $st->{scaled} = $scaled ? 1 : 0;
  $st->{scale}  = $plan->{scale};
  my $count = segment_sums($r->{_tr_seg});
  my $disp = dispersion($plan->{dispersion}, $count);
  $st->{dispersion} = $disp;
  my $D = $disp->{value};

  my @counts;    # per check: [window start us, Trade-Results in it] for each window
  for my $p (@{ $plan->{checks} }) {
    my ($label, $w, $sl, $tol0) = @$p{qw(label window_s slide_s tolerance)};
    my $exp = $ref * $w;
    my $c = { label => $label, window_s => $w, slide_s => $sl, tolerance => $tol0,
              spec_window_s => $p->{spec_window_s}, spec_slide_s => $p->{spec_slide_s},
              spec_tolerance => $tol0, expected_per_window => $exp, sd => sqrt($D / $exp),
              windows => 0, outside => 0, failed_windows => [], worst => undef };
    push @{ $st->{checks} }, $c;
    if ($p->{skipped}) {
      $c->{skipped} = sprintf('the MI (%s) is shorter than one window (%s)', fmt_s($mi_len),
                              fmt_s($w));
      add_note($r, 'steady throughput', "$label windows not checked: $c->{skipped}");
      push @counts, [];
      next;
    }
    push @counts, [map { [$_->[0], $count->($_->[1], $_->[2])] } @{ $p->{windows} }];
    $c->{windows} = scalar @{ $counts[-1] };
  }
  my $n_windows = sum0(map { $_->{windows} } @{ $st->{checks} });
  $st->{windows_total} = $n_windows;
  if ($scaled && $n_windows) {
    $st->{false_alarm} = $STEADY_FALSE_ALARM;
    my $q = $STEADY_FALSE_ALARM / (2 * $n_windows);
    $st->{z} = $disp->{dof} ? t_upper_quantile($q, $disp->{dof}) : normal_upper_quantile($q);
  }

  for my $i (0 .. $#{ $st->{checks} }) {
    my $c = $st->{checks}[$i];
    if ($scaled && defined $st->{z}) {
      $c->{tolerance} = $st->{z} * $c->{sd};
      $c->{detects}   = $c->{tolerance} + 2 * $c->{sd};
    }
    next if $c->{skipped};
    for my $wc (@{ $counts[$i] }) {
      my ($at, $n) = @$wc;
      my $rate = $n / $c->{window_s};
      my $dev  = $rate / $ref - 1;
      if (abs($dev) > $c->{tolerance} + 1e-12) {
        $c->{outside}++;
        # For the TRTPS plot, which marks them.
        push @{ $c->{failed_windows} }, { start_s => ($at - $t0) / $US,
                                          end_s => ($at - $t0) / $US + $c->{window_s},
                                          tpse => $rate };
      }
      if (!$c->{worst} || abs($dev) > abs($c->{worst}{deviation})) {
        $c->{worst} = { start_s => ($at - $t0) / $US, tpse => $rate, deviation => $dev };
      }
    }
    next unless $c->{outside};
    add_reason($r, 'steady throughput', '6.6.3',
               sprintf('%d of %d %s windows (%s), sliding %s, are outside +-%s of %.2f tpsE%s; '
                       . 'the worst, starting at MI+%s, ran at %.2f tpsE (%+.1f %%)',
                       $c->{outside}, $c->{windows}, fmt_s($c->{window_s}),
                       ($scaled ? "scaled from the spec's $c->{label} windows"
                                : "the spec's $c->{label} windows"),
                       fmt_s($c->{slide_s}), fmt_pct($c->{tolerance}), $ref,
                       ($scaled ? sprintf(' (%.2f standard deviations of a window\'s count at '
                                          . 'dispersion %.2f: a steady run fails by chance '
                                          . 'at most %s of the time)', $st->{z}, $D,
                                          fmt_pct($STEADY_FALSE_ALARM))
                                : ''),
                       fmt_s($c->{worst}{start_s}), $c->{worst}{tpse},
                       100 * $c->{worst}{deviation}));
  }
  $st->{text} = $scaled ? scaled_steadiness_text($st, $mi_len) : spec_steadiness_text($st);
}

# The dispersion as the report states it.
sub dispersion_text {
  my ($d) = @_;
  my $from = sprintf('the successive differences of %d %s buckets', $d->{buckets},
                     fmt_s($d->{bucket_s}));
  return "the dispersion D (variance/mean) of the Trade-Result counts is 1 (Poisson; too few "
         . "buckets to estimate it from $from)" unless defined $d->{estimate};
  return sprintf('the dispersion D (variance/mean) of the Trade-Result counts is 1 (Poisson; '
                 . '%s gave %.2f)', $from, $d->{estimate}) if $d->{value} > $d->{estimate};
  return sprintf('the dispersion D (variance/mean) of the Trade-Result counts is %.2f, from %s',
                 $d->{value}, $from);
}

sub spec_steadiness_text {
  my ($st) = @_;
  my ($long, $short) = @{ $st->{checks} };
  my $text = sprintf('as clause 6.6.3: 1-hour windows sliding by 10 minutes within 2 %%, '
                     . '10-minute windows sliding by 1 minute within 20 %% of the %s. For '
                     . 'scale: %s, so a steady run\'s 1-hour windows vary by %s and its '
                     . '10-minute windows by %s (one standard deviation) at this throughput',
                     $st->{reference}, dispersion_text($st->{dispersion}), fmt_pct($long->{sd}),
                     fmt_pct($short->{sd}));
  $text .= '; the spec\'s +-2 % is less than 3 of those, so a steady run at this throughput '
           . 'can fail it by chance' if $STEADY_LONG_TOL < 3 * $long->{sd};
  return "$text.";
}

sub scaled_steadiness_text {
  my ($st, $mi_len) = @_;
  my $checks = $st->{checks};
  my $text = sprintf('scaled for a short run: the MI (%s) is shorter than the 2 hours of clause '
                     . '6.6.1, so the windows and slides are scaled by MI/7200 = %.4f (no window '
                     . 'shorter than %d s): ', fmt_s($mi_len), $st->{scale}, $STEADY_MIN_WINDOW_S);
  $text .= join('; ', map {
    sprintf("%s windows (the spec's %s) sliding %s, %s", fmt_s($_->{window_s}), $_->{label},
            fmt_s($_->{slide_s}),
            $_->{skipped} ? "not checked: $_->{skipped}" : 'within +-' . fmt_pct($_->{tolerance}))
  } @$checks) . '.';
  return $text unless defined $st->{z};
  my $d = $st->{dispersion};
  $text .= sprintf(' Each tolerance is z sqrt(D / E) for a window expecting E Trade-Results, '
                   . 'where %s, and z = %.2f, so that a steady run fails by chance at most %s of '
                   . 'the time over all its %d windows (Bonferroni; %s).',
                   dispersion_text($d), $st->{z}, fmt_pct($st->{false_alarm}),
                   $st->{windows_total},
                   $d->{dof} ? sprintf("Student's t with %.1f degrees of freedom, as D is "
                                       . 'estimated', $d->{dof})
                             : 'normal quantile');
  my @sees;
  for my $c (grep { !$_->{skipped} } @$checks) {
    my $w = fmt_s($c->{window_s});
    push @sees, $c->{detects} < 1
      ? sprintf('a drop of %s or more lasting a whole %s window (caught at least 97 %% of the '
                . 'time)', fmt_pct($c->{detects}), $w)
      : $c->{tolerance} < 1 ? "only a stop (no Trade-Result) lasting a whole $w window"
      : "no drop at all in a $w window (its tolerance is over 100 %)";
  }
  $text .= ' What this run can detect: ' . join('; ', @sees) . '.';
  $text .= ' A shallower or shorter change passes.'
    if grep { !$_->{skipped} && $_->{tolerance} < 1 } @$checks;
  return $text;
}

# The windows of the steadiness check for an MI [t0, t1] (us): { scaled, scale, checks => [{
# label, window_s, slide_s, tolerance, spec_window_s, spec_slide_s, skipped, windows => [[start
# us, first us in it, first us after it]...] }], dispersion => [bucket edges] }. A window [a, a +
# w) slides by the slide while it fits in the MI; completion times are whole microseconds, so
# the window holds those from ceil(a) to before ceil(a + w).
sub steady_windows {
  my ($t0, $t1) = @_;
  my $mi_len = ($t1 - $t0) / $US;
  my $scaled = $mi_len < $MI_MIN_S;
  my $scale  = $scaled ? $mi_len / $MI_MIN_S : 1;
  my @checks;
  for my $sp (['1-hour', $STEADY_LONG_WINDOW_S, $STEADY_LONG_SLIDE_S, $STEADY_LONG_TOL],
              ['10-minute', $STEADY_SHORT_WINDOW_S, $STEADY_SHORT_SLIDE_S, $STEADY_SHORT_TOL]) {
    my ($label, $w0, $s0, $tol0) = @$sp;
    my $w  = $scaled ? max($STEADY_MIN_WINDOW_S, $w0 * $scale) : $w0;
    my $sl = $scaled ? max(1, $s0 * $scale) : $s0;
    my $c = { label => $label, window_s => $w, slide_s => $sl, tolerance => $tol0,
              spec_window_s => $w0, spec_slide_s => $s0, windows => [] };
    push @checks, $c;
    if ($w > $mi_len + 1e-9) {
      $c->{skipped} = 1;
      next;
    }
    my $wus = $w * $US;
    for (my $k = 0; ; $k++) {
      my $at = $t0 + $k * $sl * $US;
      last if $at + $wus > $t1 + 1;
      push @{ $c->{windows} }, [$at, ceil($at), ceil($at + $wus)];
    }
  }
  my $bus = $STEADY_DISPERSION_BUCKET_S * $US;
  my $n = floor(($t1 - $t0) / $bus + 1e-9);
  return { scaled => $scaled, scale => $scale, checks => \@checks,
           dispersion => [map { $t0 + $_ * $bus } 0 .. max(0, $n)] };
}

# steady_cuts($t0, $t1) -> the points in time (sorted, us) between which the mix log reader
# counts the valid Trade-Results of the MI by completion time (Aggregates.pm): every window's
# and dispersion bucket's edges, so that each count is exact.
sub steady_cuts {
  my ($t0, $t1) = @_;
  my $p = steady_windows($t0, $t1);
  my %cut = map { $_ => 1 } @{ $p->{dispersion} };
  for my $c (@{ $p->{checks} }) {
    $cut{ $_->[1] } = $cut{ $_->[2] } = 1 for @{ $c->{windows} };
  }
  return [sort { $a <=> $b } keys %cut];
}

# segment_sums({ cuts, counts }) -> sub ($from, $to): the Trade-Results completed in [from, to)
# for two cuts, from the counts between consecutive cuts (counts->[j + 1] for [cuts[j],
# cuts[j+1])).
sub segment_sums {
  my ($seg) = @_;
  my ($cuts, $counts) = $seg ? @$seg{qw(cuts counts)} : ([], []);
  my %at;
  my @prefix = (0);
  for my $j (0 .. $#$cuts) {
    $at{ $cuts->[$j] } = $j;
    push @prefix, $prefix[-1] + ($counts->[$j + 1] // 0);
  }
  return sub {
    my ($from, $to) = @_;
    return 0 unless defined $at{$from} && defined $at{$to};
    return $prefix[ $at{$to} ] - $prefix[ $at{$from} ];
  };
}

# tr_segments($t0, $t1, \@completion_us) -> { cuts, counts } as the reader counts them (for a
# test that makes its completion times itself).
sub tr_segments {
  my ($t0, $t1, $ends) = @_;
  my $cuts = steady_cuts($t0, $t1);
  my @counts;
  $counts[ (seg_of($cuts, $_))[0] ]++ for @$ends;
  return { cuts => $cuts, counts => \@counts };
}

# The dispersion of the Trade-Result counts in whole buckets of the MI (see steadiness):
# { bucket_s, buckets, estimate (undef with fewer than 3 buckets or none completed),
#   value = max(1, estimate) }.
sub dispersion {
  my ($edges, $count) = @_;
  my $n = max(0, $#$edges);
  my @c = map { $count->($edges->[$_], $edges->[$_ + 1]) } 0 .. $n - 1;
  my $mean = $n > 0 ? sum0(@c) / $n : 0;
  my $d = { bucket_s => $STEADY_DISPERSION_BUCKET_S, buckets => $n, estimate => undef,
            value => 1 };
  return $d unless $n >= 3 && $mean > 0;
  my $ss = sum0(map { ($c[$_ + 1] - $c[$_]) ** 2 } 0 .. $n - 2);
  $d->{estimate} = $ss / (2 * ($n - 1)) / $mean;
  $d->{dof} = 2 * ($n - 1) ** 2 / (3 * $n - 4);
  $d->{value}    = max(1, $d->{estimate});
  return $d;
}

1;
