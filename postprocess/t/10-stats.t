# Nearest-rank percentiles on lists whose answers are known by hand.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use Test::More;
use BrokerBench::Stats qw(welch nearest_rank summary summary_sorted mean normal_upper_quantile
                           t_upper_quantile);

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
my $h = summary([reverse 1 .. 200]);
is_deeply([@$h{qw(min p50 p90 p95 p99 max)}], [1, 100, 180, 190, 198, 200],
          'summary: min, the 50th, 90th, 95th, 99th percentiles by nearest rank, max');
is_deeply(summary_sorted([1 .. 200]), $h, 'summary_sorted of the sorted list: the same');
is_deeply(summary([]), { n => 0, map { $_ => undef } qw(mean min p50 p90 p95 p99 max) },
          'summary of nothing: every figure undef');
is(mean([]), undef, 'mean of nothing is undef');

# Upper quantiles against printed tables: the normal's 1.95996 (2.5 %) and 3.09023 (0.1 %);
# Student's t with 10 degrees of freedom 2.22814 (2.5 %), with 5 4.03214 (0.5 %); with 1 it is
# the Cauchy distribution, whose upper quartile is exactly 1; many degrees of freedom approach
# the normal.
my @q = ([normal_upper_quantile(0.025), 1.95996, 'normal 2.5 %'],
         [normal_upper_quantile(0.001), 3.09023, 'normal 0.1 %'],
         [normal_upper_quantile(0.975), -1.95996, 'normal 97.5 % is below zero'],
         [t_upper_quantile(0.025, 10), 2.22814, 't(10) 2.5 %'],
         [t_upper_quantile(0.005, 5), 4.03214, 't(5) 0.5 %'],
         [t_upper_quantile(0.25, 1), 1, 't(1) 25 %'],
         [t_upper_quantile(0.9, 3), -1.63774, 't(3) 90 % is below zero'],
         [t_upper_quantile(0.001, 1e6), 3.09023, 't with 10^6 degrees of freedom ~ normal']);
cmp_ok(abs($_->[0] - $_->[1]), '<', 1e-4, "quantile: $_->[2]") or diag $_->[0] for @q;
eval { normal_upper_quantile(0) };
like($@, qr/q must be between 0 and 1, not '0'/, 'q = 0 is refused, naming the value');
eval { t_upper_quantile(0.5, -2) };
like($@, qr/degrees of freedom must be positive, not '-2'/, 'negative degrees of freedom refused');

# Welch's interval for mean(y) - mean(x). Equal spreads: the pooled t test's 8 degrees of
# freedom and t(8) 2.5 % = 2.306. Unequal: var 2.5 and 50 over 5 values each give
# (0.5 + 10)^2 / (0.5^2/4 + 10^2/4) = 4.399 degrees of freedom.
my $w = welch([1 .. 5], [3 .. 7], 0.05);
is($w->{diff}, 2, 'welch: the difference of the means');
is($w->{se}, 1, 'welch: its standard error');
cmp_ok(abs($w->{df} - 8), '<', 1e-9, 'welch: equal spreads, 8 degrees of freedom');
cmp_ok(abs($w->{lo} - (2 - 2.30600)), '<', 1e-4, 'welch: the lower end');
cmp_ok(abs($w->{hi} - (2 + 2.30600)), '<', 1e-4, 'welch: the upper end');
$w = welch([1 .. 5], [2, 4, 6, 8, 20], 0.01);
cmp_ok(abs($w->{df} - 110.25 / 25.0625), '<', 1e-9, 'welch: unequal spreads, 4.399 degrees of freedom');
cmp_ok(abs($w->{hi} - $w->{diff} - $w->{se} * t_upper_quantile(0.005, 110.25 / 25.0625)), '<', 1e-9,
       'welch: the half-width at 99 %');
$w = welch([1, 1, 1], [2, 2], 0.01);
is_deeply([@$w{qw(lo hi df)}], [1, 1, undef], 'welch: no spread, the interval is the difference');
eval { welch([1], [2, 3], 0.05) };
like($@, qr/at least 2 values, not 1 and 2/, 'welch: one value is refused, naming the counts');

done_testing();
