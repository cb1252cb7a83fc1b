package BrokerBench::Stats;
# Small statistics over numeric lists. Percentiles use the nearest-rank method: the p-th
# percentile of n values is the ceil(p/100 * n)-th smallest of them (1-based). nearest_rank is
# the post-processor's one percentile function, summary its one set of figures of a list.
# median is the midpoint median (the mean of the two middle values of an even count), the one
# the bench commands print of their repeated runs.
use strict;
use warnings;
use Exporter 'import';
use List::Util qw(sum0 max min);
use POSIX qw(erfc lgamma);

our @EXPORT_OK = qw(nearest_rank mean median summary summary_sorted normal_upper_quantile
                    t_upper_quantile welch PERCENTILE_METHOD);

use constant PERCENTILE_METHOD =>
  'nearest rank: the p-th percentile of n values is the ceil(p/100 x n)-th smallest value';

# nearest_rank(\@sorted_ascending, $percent) -> value, undef for an empty list. $percent is
# an integer or a decimal; the rank is computed in integer arithmetic where possible so that
# 90 % of 10 values is exactly rank 9.
sub nearest_rank {
  my ($sorted, $p) = @_;
  my $n = scalar @$sorted;
  return undef if $n == 0;
  my $rank;
  if ($p == int $p) {
    $rank = int(($n * $p + 99) / 100);
  } else {
    $rank = int($n * $p / 100);
    $rank++ if $rank < $n * $p / 100;
  }
  $rank = 1 if $rank < 1;
  $rank = $n if $rank > $n;
  return $sorted->[$rank - 1];
}

sub mean {
  my ($list) = @_;
  return undef unless @$list;
  return sum0(@$list) / scalar @$list;
}

# median(@values) -> the middle value of the defined ones, or the mean of the two middle values
# of an even count; undef when there is none.
sub median {
  my @v = sort { $a <=> $b } grep { defined } @_;
  return undef unless @v;
  return @v % 2 ? $v[$#v / 2] : ($v[@v / 2 - 1] + $v[@v / 2]) / 2;
}

# summary(\@values) -> { n, mean, min, p50, p90, p95, p99, max }, each undef (n 0) for an
# empty list: what the report shows of a list of response times or waits. Sorts a copy.
sub summary {
  my ($values) = @_;
  return summary_sorted([sort { $a <=> $b } @$values]);
}

# summary_sorted(\@sorted_ascending): summary of a list already sorted.
sub summary_sorted {
  my ($s) = @_;
  return { n => scalar @$s, mean => mean($s), min => $s->[0], max => $s->[-1],
           map { ("p$_" => nearest_rank($s, $_)) } 50, 90, 95, 99 };
}

# normal_upper_quantile($q) -> z such that a standard normal variable exceeds z with
# probability $q (0 < $q < 1): the inverse of Q(z) = erfc(z / sqrt 2) / 2.
sub normal_upper_quantile {
  my ($q) = @_;
  return upper_quantile($q, sub { erfc($_[0] / sqrt 2) / 2 });
}

# t_upper_quantile($q, $nu) -> t such that Student's t with $nu (> 0, not necessarily whole)
# degrees of freedom exceeds t with probability $q (0 < $q < 1). For t >= 0 the tail is
# I_x(nu/2, 1/2) / 2 with x = nu / (nu + t^2), I the regularized incomplete beta function.
sub t_upper_quantile {
  my ($q, $nu) = @_;
  die "t_upper_quantile: the degrees of freedom must be positive, not '$nu'\n" unless $nu > 0;
  return upper_quantile($q, sub {
    my ($t) = @_;
    my $tail = incomplete_beta($nu / ($nu + $t * $t), $nu / 2, 0.5) / 2;
    return $t >= 0 ? $tail : 1 - $tail;
  });
}

# welch(\@x, \@y, $alpha) -> { n_x, n_y, mean_x, mean_y, sd_x, sd_y, diff, se, df, t, lo, hi }:
# Welch's two-sided (1 - $alpha) confidence interval for mean(y) - mean(x), which does not
# assume the two variances equal. Each list needs 2 values or more. When both lists have no
# spread (se 0) the interval is the difference itself, and df and t are undef.
sub welch {
  my ($x, $y, $alpha) = @_;
  my ($nx, $ny) = (scalar @$x, scalar @$y);
  die "welch: each sample needs at least 2 values, not $nx and $ny\n" unless $nx >= 2 && $ny >= 2;
  my ($mx, $my) = (mean($x), mean($y));
  my $vx = sum0(map { ($_ - $mx) ** 2 } @$x) / ($nx - 1);
  my $vy = sum0(map { ($_ - $my) ** 2 } @$y) / ($ny - 1);
  my ($ax, $ay) = ($vx / $nx, $vy / $ny);
  my $res = { n_x => $nx, n_y => $ny, mean_x => $mx, mean_y => $my, sd_x => sqrt($vx),
              sd_y => sqrt($vy), diff => $my - $mx, se => sqrt($ax + $ay), df => undef,
              t => undef };
  if ($res->{se} == 0) {
    @$res{qw(lo hi)} = ($res->{diff}, $res->{diff});
    return $res;
  }
  # Welch-Satterthwaite degrees of freedom.
  $res->{df} = ($ax + $ay) ** 2 / ($ax ** 2 / ($nx - 1) + $ay ** 2 / ($ny - 1));
  $res->{t}  = t_upper_quantile($alpha / 2, $res->{df});
  $res->{lo} = $res->{diff} - $res->{t} * $res->{se};
  $res->{hi} = $res->{diff} + $res->{t} * $res->{se};
  return $res;
}

# The x at which a decreasing upper-tail function falls to $q, by bisection: exact to far
# below the precision any caller prints, and no table.
sub upper_quantile {
  my ($q, $tail) = @_;
  die "upper quantile: q must be between 0 and 1, not '$q'\n" unless $q > 0 && $q < 1;
  my ($lo, $hi) = (-1e6, 1e6);
  for (1 .. 200) {
    my $mid = ($lo + $hi) / 2;
    if ($tail->($mid) > $q) { $lo = $mid } else { $hi = $mid }
  }
  return ($lo + $hi) / 2;
}

# The regularized incomplete beta function I_x(a, b), 0 <= x <= 1, from its continued fraction
# (evaluated by the modified Lentz method), using the symmetry I_x(a, b) = 1 - I_1-x(b, a)
# where the fraction would converge slowly.
sub incomplete_beta {
  my ($x, $a, $b) = @_;
  return 0 if $x <= 0;
  return 1 if $x >= 1;
  return 1 - incomplete_beta(1 - $x, $b, $a) if $x > ($a + 1) / ($a + $b + 2);
  my $front = exp(lgamma($a + $b) - lgamma($a) - lgamma($b) + $a * log($x) + $b * log(1 - $x)) / $a;
  my $tiny = 1e-300;
  my ($f, $c, $d) = (1, 1, 0);
  for my $i (0 .. 1000) {
    my $m = int($i / 2);
    my $num = $i == 0 ? 1
            : $i % 2 ? -(($a + $m) * ($a + $b + $m) * $x) / (($a + 2 * $m) * ($a + 2 * $m + 1))
            : ($m * ($b - $m) * $x) / (($a + 2 * $m - 1) * ($a + 2 * $m));
    $d = 1 + $num * $d;
    $d = $tiny if abs($d) < $tiny;
    $d = 1 / $d;
    $c = 1 + $num / $c;
    $c = $tiny if abs($c) < $tiny;
    my $cd = $c * $d;
    $f *= $cd;
    last if abs(1 - $cd) < 1e-15;
  }
  return $front * ($f - 1);
}

1;
