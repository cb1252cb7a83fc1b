# Nearest-rank percentiles on lists whose answers are known by hand.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use Test::More;
use BrokerBench::Stats qw(nearest_rank summary mean);

# 90th percentile of 1..10 is the ceil(0.9 x 10) = 9th smallest value.
is(nearest_rank([1 .. 10], 90), 9, 'p90 of 1..10 is 9');
# ceil(0.9 x 11) = ceil(9.9) = 10: the 10th smallest.
is(nearest_rank([1 .. 11], 90), 10, 'p90 of 1..11 is 10');
# ceil(0.9 x 30) = 27 exactly; floating point must not make it 28.
is(nearest_rank([1 .. 30], 90), 27, 'p90 of 1..30 is 27');
is(nearest_rank([1 .. 100], 90), 90, 'p90 of 1..100 is 90');
is(nearest_rank([1 .. 101], 90), 91, 'p90 of 1..101 is 91 (ceil 90.9)');
is(nearest_rank([42], 90), 42, 'p90 of one value is that value');
is(nearest_rank([], 90), undef, 'p90 of nothing is undef');
is(nearest_rank([1 .. 10], 50), 5, 'median of 1..10 by nearest rank is 5');
is(nearest_rank([10, 20, 30, 40], 100), 40, 'p100 is the maximum');
is(nearest_rank([1 .. 1000], 99.9), 999, 'a decimal percentile: p99.9 of 1..1000 is 999');

my @unsorted = (0.9, 0.1, 0.5, 0.3, 0.7, 1.0, 0.2, 0.4, 0.6, 0.8);
my $s = summary(\@unsorted);
is($s->{n}, 10, 'summary counts');
is($s->{p90}, 0.9, 'summary sorts before taking p90');
is($s->{max}, 1.0, 'summary max');
cmp_ok(abs($s->{mean} - 0.55), '<', 1e-12, 'summary mean');
is(mean([]), undef, 'mean of nothing is undef');

done_testing();
