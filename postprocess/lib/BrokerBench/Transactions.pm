package BrokerBench::Transactions;
# Per-type statistics from the mix log rows: counts by outcome in and outside the measurement
# interval, retries, the mix percentages, the response times and their percentiles (nearest
# rank, Stats.pm), and the time series the plots draw (completions and response times per
# bucket, Trade-Results per second, the response-time distributions).
use strict;
use warnings;
use Exporter 'import';
use List::Util qw(max min sum0);
use POSIX qw(ceil);
use BrokerBench::Spec qw(@MIX_CODES @ALL_CODES %NAME %MIX_RANGE %RT_LIMIT @OUTCOMES
                         @ERROR_OUTCOMES);
use BrokerBench::Stats qw(summary_sorted);
use BrokerBench::MixLog qw(B_START B_RESP B_OUTCOME B_RETRIES);
use BrokerBench::Result qw(mi_ok $LAST_VALID);

our @EXPORT_OK = qw(transaction_stats);

my $US = 1_000_000;

# --- per-type statistics ----------------------------------------------------------------

sub transaction_stats {
  my ($r, $store) = @_;
  my $mi     = $r->{mi};
  my $have   = mi_ok($r);
  my $mi_s   = $have ? $mi->{start_us} : 0;
  my $mi_e   = $have ? $mi->{end_us} : -1;

  # The time axis of the plots: seconds from the MI start (or from the first row when there
  # is no MI). Buckets are aligned to that origin; $base lies a whole number of minutes
  # before it, at or before the first row, so bucket indices are never negative. Every row
  # lies in the run's time range (read_mix_log left out the others), which bounds the
  # indices; without a known range there is no time axis.
  my @files = grep { defined $_->{first_start_us} } @{ $r->{inputs}{files} };
  @files = () unless $r->{run_range}{known};
  my $span_start = min map { $_->{first_start_us} } @files;
  my $span_end   = max map { $_->{last_end_us} } @files;
  my $origin = $have ? $mi_s : $span_start;
  my ($bucket_s, $base);
  if (defined $span_start) {
    my $span_s = ($span_end - $span_start) / $US;
    $bucket_s = $span_s < 600 ? 10 : 60;
    my $back  = max(0, ceil(($origin - $span_start) / (60 * $US)));
    $base     = $origin - $back * 60 * $US;
  }
  my $bw = ($bucket_s // 60) * $US;
  my %series = (origin_us => $origin, base_us => $base, bucket_s => $bucket_s,
                span_start_us => $span_start, span_end_us => $span_end);

  my %types;
  my $mix_total = 0;
  for my $code (@ALL_CODES) {
    my $bk = $store->{$code};
    my ($S, $R, $O) = ($bk->[B_START], $bk->[B_RESP], $bk->[B_OUTCOME]);
    my $n = scalar @$S;
    # Trade-Cleanup runs once before the measured run: its row covers the whole log.
    my $whole = $code eq 'TC';
    my ($lo, $hi) = $whole ? (0, 9e18) : ($mi_s, $mi_e);
    my @in  = (0) x @OUTCOMES;
    my @out = (0) x @OUTCOMES;
    my @valid;            # response_us of valid rows in scope
    my @in_flag;          # row index -> in scope (for retries)
    my (@done, @rt);      # plot buckets: completions by end time, response times by start
    my @tr_sec;           # Trade-Result completions per second (TR only)
    my @tr_end;           # Trade-Result completion times in the MI (TR only)
    my $is_tr = $code eq 'TR';
    my $b0 = $base // 0;    # unused without a base
    # The hot loop of the post-processor: one pass over every row of this type.
    for my $i (0 .. $n - 1) {
      my $s = $S->[$i];
      my $t = $R->[$i];
      my $e = $s + $t;
      my $o = substr($O, $i, 1);
      if ($s >= $lo && $e <= $hi) {
        $in[$o]++;
        $in_flag[$i] = 1;
        if ($o <= $LAST_VALID) {
          push @valid, $t;
          push @tr_end, $e if $is_tr;
        }
      } else {
        $out[$o]++;
      }
      next if $o > $LAST_VALID || !defined $base;
      $done[ ($e - $b0) / $bw ]++;
      push @{ $rt[ ($s - $b0) / $bw ] }, $t;
      $tr_sec[ ($e - $b0) / $US ]++ if $is_tr;
    }
    # Array indices truncate like int(); the series become sparse hashes for the plots.
    my %done   = defined $base ? (map { $_ => $done[$_] } grep { $done[$_] } 0 .. $#done) : ();
    my %rt     = defined $base ? (map { $_ => $rt[$_] } grep { $rt[$_] } 0 .. $#rt) : ();
    my %tr_sec = defined $base ? (map { $_ => $tr_sec[$_] } grep { $tr_sec[$_] } 0 .. $#tr_sec) : ();
    my $retries = 0;
    while (my ($i, $k) = each %{ $bk->[B_RETRIES] }) {
      $retries += $k if $in_flag[$i];
    }
    @valid = sort { $a <=> $b } @valid;
    my %oc_in  = map { $OUTCOMES[$_] => $in[$_] } 0 .. $#OUTCOMES;
    my %oc_out = map { $OUTCOMES[$_] => $out[$_] } 0 .. $#OUTCOMES;
    my $t = {
      code            => $code,
      name            => $NAME{$code},
      in_mix          => (exists $MIX_RANGE{$code} ? 1 : 0),
      scope           => $whole ? 'whole log' : 'MI',
      count           => scalar @valid,
      rows            => $n,
      rows_in_mi      => sum0(@in),
      rows_outside_mi => sum0(@out),
      ok              => $oc_in{ok},
      rollbacks       => $oc_in{rollback},
      warnings        => $oc_in{warning},
      invalid         => $oc_in{invalid},
      errors          => sum0(map { $oc_in{$_} } @ERROR_OUTCOMES),
      error_outcomes  => { map { $_ => $oc_in{$_} } @ERROR_OUTCOMES },
      outcomes_in_mi  => \%oc_in,
      outcomes_outside_mi => \%oc_out,
      retries         => $retries,
      response_times_ms(\@valid),
      response_time_limit_ms => (defined $RT_LIMIT{$code} ? 1000 * $RT_LIMIT{$code} : undef),
      mix_range       => $MIX_RANGE{$code},
    };
    $types{$code} = $t;
    $mix_total += $t->{count} if $t->{in_mix};
    $series{done}{$code} = \%done;
    $series{rt}{$code}   = \%rt;
    $series{cdf}{$code}  = cdf_points(\@valid);
    if ($is_tr) {
      $series{tr_sec} = \%tr_sec;
      $r->{_tr_end}   = [sort { $a <=> $b } @tr_end];
    }
    if ($code eq 'DM') {
      $r->{_dm_rows} = [sort { $a->[0] <=> $b->[0] }
                        map { [$S->[$_], $R->[$_], $OUTCOMES[substr($O, $_, 1)]] } 0 .. $n - 1];
    }
  }
  # Mix percentages over the valid transactions of the ten mix types in the MI, computed to
  # 4 decimals and shown to 3 (clause 6.3.2).
  for my $code (@MIX_CODES) {
    my $t = $types{$code};
    $t->{mix_pct} = $mix_total ? sprintf('%.4f', 100 * $t->{count} / $mix_total) + 0 : undef;
  }
  $r->{mix_total}    = $mix_total;
  $r->{transactions} = \%types;
  $r->{_series}      = \%series;
}

# The response-time figures of a type (milliseconds; undef when it has none): minimum,
# average, the 50th, 90th, 95th and 99th percentiles (nearest rank) and maximum of the sorted
# response times in microseconds. The 90th percentile and the average are judged (clause 6.5.1).
sub response_times_ms {
  my ($sorted) = @_;
  my $f = summary_sorted($sorted);
  $f->{avg} = $f->{mean};
  return map { ("response_time_${_}_ms" => defined $f->{$_} ? $f->{$_} / 1000 : undef) }
    qw(min avg p50 p90 p95 p99 max);
}

# At most ~1000 points of the empirical distribution: (seconds, fraction <= it).
sub cdf_points {
  my ($sorted) = @_;
  my $n = scalar @$sorted;
  return [] unless $n;
  my $step = $n > 1000 ? $n / 1000 : 1;
  my @pts;
  for (my $k = 1; $k <= $n; $k += $step) {
    my $i = int($k) - 1;
    push @pts, [$sorted->[$i] / $US, ($i + 1) / $n];
  }
  push @pts, [$sorted->[-1] / $US, 1] if $pts[-1][1] < 1;
  return \@pts;
}

1;
