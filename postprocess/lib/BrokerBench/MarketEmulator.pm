package BrokerBench::MarketEmulator;
# The market emulator's side of the run: how long Trade-Results and Market-Feeds waited in it
# (in the measurement interval, from histograms), and what it left at its end: failed
# trades and the orders still pending.
use strict;
use warnings;
use Exporter 'import';
use File::Spec;
use List::Util qw(sum0);
use BrokerBench::Csv qw(parse_csv);
use BrokerBench::Histogram qw(signed_summary);

our @EXPORT_OK = qw(market_emulator);

my $US = 1_000_000;

# --- market emulator ---------------------------------------------------------------------------

sub market_emulator {
  my ($r, $g) = @_;
  my $mee = {};
  $r->{mee} = $mee;
  # The histograms of the waits of the MI's rows (every outcome), the negative ones apart,
  # made from the reader's ticks (Transactions.pm, collect).
  for my $w (['TR', 0], ['MF', 1]) {
    my ($code, $k) = @$w;
    my ($pos, $neg) = @{ $g->{wait} }[2 * $k, 2 * $k + 1];
    my $sum = signed_summary($pos, $neg, sum => $g->{wait_sum}[$k]);
    $mee->{wait}{$code} = { rows_in_mi => $sum->{n},
                            wait_avg_ms => (defined $sum->{mean} ? $sum->{mean} / 1000 : undef),
                            map { ("wait_${_}_ms" => defined $sum->{$_} ? $sum->{$_} / 1000 : undef) }
                            qw(p50 p90 max) };
  }
  end_of_run_trades($r, $mee);
}

# Orders pending in an old failed-trades.csv (before pending-trades.csv existed, the market
# emulator wrote its pending orders there at its stop, with these reasons), and their states.
my %OLD_PENDING_REASON = (
  'limit trigger armed (curve has not reached the limit)' => 'limit trigger armed',
  'awaiting completion (processing delay)'                => 'in its completion delay',
);

# What each market emulator host left (postprocess/README.md): failed-trades.csv
# (trade_id,code,reason), opened at its start, and pending-trades.csv (trade_id,code,state),
# written whole at its end. A host with the first and not the second never reached its end
# (killed): what was pending then, and the failures it would have found at its end, are
# unknown. An old failed-trades.csv holding pending reasons was written at a stop, which makes
# its pending orders known.
sub end_of_run_trades {
  my ($r, $mee) = @_;
  my (%failed, %pending, %hosts);
  my $failed_tr = 0;
  for my $path (glob("$r->{results_dir}/mee/*/failed-trades.csv"),
                glob("$r->{results_dir}/mee/*/pending-trades.csv")) {
    my ($host, $kind) = $path =~ m{/mee/([^/]+)/(failed|pending)-trades\.csv\z} or next;
    my $rel = File::Spec->abs2rel($path, $r->{results_dir});
    my $text = '';
    if (open my $fh, '<', $path) {
      local $/;
      $text = <$fh> // '';
    }
    my ($records, $err) = parse_csv($text);
    if ($err) {
      $r->{_problem}->({ file => $rel, line => 0, kind => 'other', reason => $err, text => '' });
      next;
    }
    $hosts{$host}{$kind} = 1;
    # A header row (trade_id,code,reason or trade_id,code,state) is optional.
    shift @$records if @$records && ($records->[0][2] // '') =~ /\A(?:reason|state)\z/;
    for my $rec (@$records) {
      my $why = $rec->[2] // '';
      $why = '(none given)' if $why eq '';
      my $old = $kind eq 'failed' ? $OLD_PENDING_REASON{$why} : undef;
      $hosts{$host}{pending} = 1 if $old;
      if ($kind eq 'pending' || $old) {
        $pending{ $old // $why }++;
      } else {
        $failed{$why}++;
        $failed_tr++ if ($rec->[1] // '') eq 'TR';
      }
    }
  }
  my @unknown = sort grep { !$hosts{$_}{pending} } keys %hosts;
  $mee->{failed_trades} = { files => scalar(grep { $hosts{$_}{failed} } keys %hosts),
                            total => sum0(values %failed), by_reason => \%failed,
                            trade_results => $failed_tr,
                            complete => @unknown ? 0 : 1 };
  $mee->{pending_trades} = { hosts => scalar(keys %hosts), known => @unknown ? 0 : 1,
                             hosts_unknown => \@unknown, total => sum0(values %pending),
                             by_state => \%pending };
}

1;
