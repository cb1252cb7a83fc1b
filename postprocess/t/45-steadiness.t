# The steadiness rule of a short run (clause 6.6.3 scaled; Throughput.pm, steadiness) on
# simulated runs: its error rate on steady runs whose Trade-Results come in bunches, and what
# it catches. The simulations are seeded, so the test is deterministic.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use List::Util qw(sum0 min max);
use Test::More;
use BrokerBench::Throughput qw(steadiness tr_segments);
use BrokerBench::Format qw(floor2);

my $US = 1_000_000;
my $T0 = 1_763_726_400 * $US;

srand(15);

# One Poisson draw (Knuth's product of uniforms; the means here are small).
sub poisson {
  my ($mean) = @_;
  my ($limit, $k, $p) = (exp(-$mean), 0, rand);
  while ($p >= $limit) { $k++; $p *= rand }
  return $k;
}

# Trade-Result completion times (us, sorted) of a run of $mi_s seconds at $tpse. They come in
# bunches, as when a Market-Feed triggers several limit orders at once: bunches arrive as a
# Poisson process, each holds 1 + Poisson(0.41) completions spread over 3 s, which makes the
# variance/mean of the counts about 1.7 over 10-30 s (the issue measured 1.89 per 10 s and
# 1.44 per 30 s on a default run). $drop = [from_s, to_s, fraction] removes that fraction of
# the bunches in that span.
my $EXTRA = 0.41;
my $SPREAD_S = 3;
sub bursty_run {
  my ($mi_s, $tpse, $drop) = @_;
  my $bunch_rate = $tpse / (1 + $EXTRA);
  my @ends;
  for (my $t = -$SPREAD_S; ; ) {
    $t += -log(1 - rand) / $bunch_rate;
    last if $t >= $mi_s;
    next if $drop && $t >= $drop->[0] && $t < $drop->[1] && rand() < $drop->[2];
    for (0 .. poisson($EXTRA)) {
      my $e = $t + rand($SPREAD_S);
      push @ends, $T0 + int($e * $US) if $e >= 0 && $e < $mi_s;
    }
  }
  return [sort { $a <=> $b } @ends];
}

# The steadiness check alone, on what it reads of an analysis: the MI, the throughput and the
# Trade-Result completion times (as the reader counts them). The reference is the measured figure truncated to 2 decimals,
# as a report within 80-100 % of nominal has it.
sub judge {
  my ($ends, $mi_s) = @_;
  my $measured = @$ends / $mi_s;
  my $r = { mi => { start_us => $T0, end_us => $T0 + $mi_s * $US, seconds => $mi_s },
            trtps => { measured_tpse => $measured,
                       reported_tpse => floor2($measured) },
            # What the mix log reader keeps of the completion times: counts between the cuts.
            _tr_seg => tr_segments($T0, $T0 + $mi_s * $US, $ends), reasons => [], notes => [] };
  steadiness($r);
  return $r;
}

# Plain variance/mean of the counts in buckets of $b seconds (the simulation's own burstiness).
sub plain_dispersion {
  my ($ends, $mi_s, $b) = @_;
  my @c = (0) x int($mi_s / $b);
  $c[ int(($_ - $T0) / ($b * $US)) ]++ for @$ends;
  my $m = sum0(@c) / @c;
  return sum0(map { ($_ - $m) ** 2 } @c) / (@c - 1) / $m;
}

subtest 'the default run: 200 steady bursty runs, at most 2 INVALID' => sub {
  # The default run's shape: 1000 customers at 2 tpsE nominal, an MI of 300 s, measured 1.9.
  my ($invalid, @d10, @d30, @est, $r) = (0);
  for my $i (1 .. 200) {
    my $ends = bursty_run(300, 1.9);
    push @d10, plain_dispersion($ends, 300, 10);
    push @d30, plain_dispersion($ends, 300, 30);
    $r = judge($ends, 300);
    push @est, $r->{steadiness}{dispersion}{estimate};
    $invalid++ if @{ $r->{reasons} };
  }
  my ($m10, $m30) = (sum0(@d10) / @d10, sum0(@d30) / @d30);
  note(sprintf('variance/mean per 10 s %.2f, per 30 s %.2f; estimated %.2f; %d INVALID',
               $m10, $m30, sum0(@est) / @est, $invalid));
  ok($m10 > 1.4 && $m10 < 2.1 && $m30 > 1.4 && $m30 < 2.1,
     'the simulated completions are as bursty as the measured ones (variance/mean 1.4-2.1)');
  cmp_ok(sum0(@est) / @est, '>', 1.3, 'the rule sees the burstiness (mean estimated dispersion)');
  cmp_ok($invalid, '<=', 2, 'at most 2 of 200 steady runs INVALID');

  # What the report says the default shape can detect: nothing as small as a 20 % drop.
  my $st = $r->{steadiness};
  is($st->{scaled}, 1, 'scaled');
  is_deeply([map { $_->{window_s} } @{ $st->{checks} }], [150, 30], 'windows of 150 s and 30 s');
  is_deeply([map { $_->{slide_s} } @{ $st->{checks} }], [25, 2.5], 'sliding 25 s and 2.5 s');
  is($st->{windows_total}, 7 + 109, '7 + 109 windows');
  cmp_ok(min(map { $_->{detects} } @{ $st->{checks} }), '>', 0.2,
         'the default shape cannot catch a 20 % drop, and says how deep one must be');
  like($st->{text}, qr/\Ascaled for a short run: the MI \(300 s\) .* 150 s windows \(the spec's 1-hour\) sliding 25 s, within \+-\d+(?:\.\d)? %; 30 s windows \(the spec's 10-minute\) sliding 2\.5 s, within \+-\d+(?:\.\d)? %\./,
       'the text names the real windows, slides and tolerances');
  like($st->{text}, qr/dispersion D \(variance\/mean\) of the Trade-Result counts is \d\.\d\d, from the successive differences of 30 10 s buckets, and z = \d\.\d\d, so that a steady run fails by chance at most 1 % of the time over all its 116 windows \(Bonferroni; Student's t with \d+\.\d degrees of freedom/,
       'the text states the dispersion and the error rate');
  like($st->{text}, qr/What this run can detect: a drop of \d+\.\d % or more lasting a whole 150 s window \(caught at least 97 % of the time\); (?:only a stop \(no Trade-Result\) lasting a whole 30 s window|no drop at all in a 30 s window \(its tolerance is over 100 %\))\. A shallower/,
       'the text says what the run can detect');
};

subtest 'a 20 % drop for 10 % of the MI is caught every time where it can be' => sub {
  # A 20 % drop lasting 10 % of the MI is caught only with enough completions per window: the
  # default run's 30 s window holds some 57, whose noise alone is +-17 % (one standard
  # deviation at dispersion 1.7). An MI of 1 hour at 10 tpsE (5000 customers, the spec's
  # minimum size) scales the windows to 300 s, holding 3000 completions (+-2.4 %), so a 360 s
  # drop, which always covers one whole window (they slide by 30 s), lies far outside the
  # tolerance of about 10 %.
  my ($invalid, @est, @why) = (0);
  for my $i (1 .. 50) {
    my $from = rand(3600 - 360);
    my $r = judge(bursty_run(3600, 10, [$from, $from + 360, 0.2]), 3600);
    push @est, $r->{steadiness}{dispersion}{estimate};
    my ($short) = grep { $_->{label} eq '10-minute' } @{ $r->{steadiness}{checks} };
    my $worst = $short->{worst};
    if (@{ $r->{reasons} }) {
      $invalid++;
      my $overlap = min($worst->{start_s} + 300, $from + 360) - max($worst->{start_s}, $from);
      push @why, "worst window at MI+$worst->{start_s} s, drop at MI+$from s"
        unless $worst->{deviation} < -0.12 && $overlap >= 240;
    }
    if ($i == 1) {
      my ($reason) = map { $_->{text} } grep { $_->{text} =~ /300 s windows/ } @{ $r->{reasons} };
      like($reason // '', qr/\A\d+ of 111 300 s windows \(scaled from the spec's 10-minute windows\), sliding 30 s, are outside \+-\d+(?:\.\d)? % of \d+\.\d\d tpsE \(\d\.\d\d standard deviations of a window's count at dispersion \d\.\d\d: a steady run fails by chance at most 1 % of the time\); the worst, starting at MI\+\d+ s, ran at \d+\.\d\d tpsE \(-\d+\.\d %\)\z/,
           'the reason names the real window, slide, tolerance, dispersion and error rate');
      cmp_ok($short->{tolerance}, '<', 0.12, 'the 300 s windows allow less than 12 %');
      # The failed windows, for the TRTPS plot: as many as counted, each outside the tolerance
      # and overlapping the drop.
      my $ref = $r->{steadiness}{reference_tpse};
      my @failed = @{ $short->{failed_windows} };
      is(scalar @failed, $short->{outside}, 'every failed window is listed');
      is_deeply([grep { abs($_->{tpse} / $ref - 1) <= $short->{tolerance}
                        || $_->{end_s} - $_->{start_s} != 300
                        || $_->{end_s} <= $from || $_->{start_s} >= $from + 360 } @failed], [],
                'each 300 s long, outside the tolerance and overlapping the drop');
    }
  }
  is($invalid, 50, 'all 50 runs with a drop are INVALID');
  is_deeply(\@why, [], 'each for its worst window, mostly in the drop and 12 % low or more');
  my $mean = sum0(@est) / @est;
  ok($mean > 1.4 && $mean < 2.0, sprintf('the drop does not hide in the dispersion (%.2f)', $mean));
};

done_testing();
