package BrokerBench::Stats;
# Small statistics over numeric lists. Percentiles use the nearest-rank method: the p-th
# percentile of n values is the ceil(p/100 * n)-th smallest of them (1-based).
use strict;
use warnings;
use Exporter 'import';
use List::Util qw(sum0 max min);

our @EXPORT_OK = qw(nearest_rank mean summary PERCENTILE_METHOD);

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

# summary(\@values) -> { n, mean, p50, p90, max, min }; sorts a copy.
sub summary {
  my ($values) = @_;
  my @s = sort { $a <=> $b } @$values;
  return {
    n    => scalar @s,
    mean => mean(\@s),
    min  => (@s ? $s[0] : undef),
    p50  => nearest_rank(\@s, 50),
    p90  => nearest_rank(\@s, 90),
    max  => (@s ? $s[-1] : undef),
  };
}

1;
