# The widened share ranges of a short run (Verdict.pm, widened_range) fail a run whose shares
# are drawn right with at most $SHARE_FALSE_ALARM (1 %) probability over all 37 shares
# together: the ten mix types, the 26 input variants and the roll-backs. Simulated: 400 runs,
# each share a binomial draw at its range's middle. 3 standard deviations per share, the rule
# before, failed 26 of these 400 runs, 6.5 % (a default run of 2026-11-26 was INVALID for
# Market-Watch by industry at +3.1 standard deviations).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use BrokerBench::Spec qw(%MIX_RANGE @INPUT_VARIANTS @TO_ROLLBACK_RANGE $SHARE_FALSE_ALARM);
use BrokerBench::Verdict ();

my @ranges = ((map { $MIX_RANGE{$_} } sort keys %MIX_RANGE),
              (map { [ @$_[3, 4] ] } @INPUT_VARIANTS), [@TO_ROLLBACK_RANGE]);
is(scalar @ranges, 37, '37 shares are judged');
cmp_ok(abs($BrokerBench::Verdict::SHARE_Z - 3.642), '<', 0.001,
       'z is the upper 1 % / 74 normal quantile');

# A run's share of each: $n draws at the range's middle; how many runs fail at least one.
sub failing_runs {
  my ($runs, $n) = @_;
  my $failed = 0;
  for (1 .. $runs) {
    for my $r (@ranges) {
      my ($lo, $hi) = @$r;
      my $p = ($lo + $hi) / 200;
      my $k = 0;
      $k += rand() < $p for 1 .. $n;
      my ($wlo, $whi) = BrokerBench::Verdict::widened_range($lo, $hi, $n);
      my $pct = 100 * $k / $n;
      if ($pct < $wlo - 1e-9 || $pct > $whi + 1e-9) { $failed++; last }
    }
  }
  return $failed;
}

srand(20261126);
my $runs   = 400;
my $failed = failing_runs($runs, 600);
# Expected 4 (1 %); 12 is 3 %, more than 4 standard deviations above it. The old rule's 26
# fails it.
cmp_ok($failed, '<=', 3 * $SHARE_FALSE_ALARM * $runs,
       "$failed of $runs runs with shares drawn right failed a share (at most 3 %)");

# Not vacuous: a share drawn off its range still fails. Market-Watch by industry at 10 % instead
# of 5 %, 600 draws (+5.6 standard deviations of 5 %): caught in nearly every run.
my ($lo, $hi) = (4.5, 5.5);
my ($wlo, $whi) = BrokerBench::Verdict::widened_range($lo, $hi, 600);
my $caught = 0;
for (1 .. 200) {
  my $k = 0;
  $k += rand() < 0.10 for 1 .. 600;
  $caught++ if 100 * $k / 600 > $whi;
}
cmp_ok($caught, '>=', 180, "a share at 10 % against 5 % is caught in $caught of 200 runs");

done_testing();
