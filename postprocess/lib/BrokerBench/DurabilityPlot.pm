package BrokerBench::DurabilityPlot;
# The durability run's plot (issue 39 item 3; TPC-E clause 7.5 asks for the throughput across
# the failure as a graph): Trade-Results per second (10-s buckets, and the business recovery's
# sliding window average at each window's start) and the Trade-Result p90 over time, on a time
# axis from the failure, with the failure, the first commit after it and the recovery marked.
# Data and script in plots/data/ as every report plot (Plots.pm calls it; Gnuplot.pm runs it).
use strict;
use warnings;
use Exporter 'import';
use POSIX ();
use BrokerBench::Gnuplot qw(gp_head gp_quote render write_file);

our @EXPORT_OK = qw(plot_durability);

my $BUCKET_S = 10;    # as Recovery.pm's p90 series

# plot_durability($ctx, $name) -> render's result, or skipped with why. $ctx as Plots.pm's.
sub plot_durability {
  my ($ctx, $name) = @_;
  my $r = $ctx->{r};
  my $d = $r->{durability};
  my $ser = $r->{_durability_series};
  return { status => 'skipped', note => 'no failure was made' }
    unless $ser && defined $d->{failure_us};
  my ($before, $after, $w) = ($d->{before_s}, $d->{after_s}, $d->{recovery_window_s});
  my $tr = $ser->{trtps};
  my $unit = $before + $after > 1200 ? 60 : 1;
  my $x = sub { sprintf('%.3f', $_[0] / $unit) };
  # TRTPS per 10-s bucket, at the bucket's middle.
  my $top = $d->{rate_before_tps};    # the highest 10-s rate: room above it for the labels
  my $text = "# x (time from the failure)  Trade-Results per second over $BUCKET_S s  "
             . "Trade-Result p90 (ms; ? none)\n";
  for (my $k = POSIX::floor(-$before / $BUCKET_S); $k * $BUCKET_S < $after; $k++) {
    my $n = 0;
    $n += $tr->{$_} // 0 for $k * $BUCKET_S .. ($k + 1) * $BUCKET_S - 1;
    $top = $n / $BUCKET_S if $n / $BUCKET_S > $top;
    my $p90 = $ser->{p90_ms}{$k};
    $text .= join(' ', $x->(($k + 0.5) * $BUCKET_S), sprintf('%.3f', $n / $BUCKET_S),
                  defined $p90 ? sprintf('%.3f', $p90) : '?') . "\n";
  }
  write_file("$ctx->{data}/$name.dat", $text);
  # The sliding window average, at each window's start, as the recovery is judged.
  my $win = "# x (a window's start, from the failure)  Trade-Results per second over the $w s "
            . "from there\n";
  my $sum = 0;
  $sum += $tr->{$_} // 0 for -$before .. -$before + $w - 1;
  for my $k (-$before .. $after - $w) {
    $win .= $x->($k) . ' ' . sprintf('%.3f', $sum / $w) . "\n";
    $sum += ($tr->{ $k + $w } // 0) - ($tr->{$k} // 0);
  }
  write_file("$ctx->{data}/$name-window.dat", $win);
  my $title = 'Across the failure: Trade-Results per second and the Trade-Result p90';
  my $gp = gp_head($ctx, $name, $title, key => 'below left maxrows 3', size => '1000,600')
    . "set bmargin 8\nset xlabel " . gp_quote('time from the failure' . ($unit == 60 ? ' (min)'
                                                                                    : ' (s)'))
    . "\nset xrange [" . $x->(-$before) . ':' . $x->($after) . "]\n"
    . "set ylabel 'Trade-Results per second'\n"
    . sprintf("set yrange [0:%.3f]\n", $top > 0 ? 1.35 * $top : 1)
    . "set y2label 'Trade-Result p90 (ms)'\nset y2range [0:*]\nset y2tics\nset ytics nomirror\n"
    . "set datafile missing '?'\n";
  # The failure, the first commit and the recovery: vertical lines told apart by colour and
  # dash, named with their times in the key. Labels beside the lines collided whenever the
  # three fell within a few seconds of each other (a short outage), on a time axis of minutes.
  my @marks = (['failure (' . $d->{failure} . ') at 0 s', 0, '#c03030', 1]);
  push @marks, [sprintf('first commit after it at +%.1f s', $d->{downtime_s}), $d->{downtime_s},
                '#806000', 2] if defined $d->{downtime_s};
  push @marks, ["business recovery at +$d->{business_recovery_s} s", $d->{business_recovery_s},
                '#207020', 4] if defined $d->{business_recovery_s};
  my $i = 0;
  for my $m (@marks) {
    $i++;
    my $at = $x->($m->[1]);
    $gp .= "set arrow $i from $at, graph 0 to $at, graph 1 nohead lw 2 lc rgb '$m->[2]' "
      . "dt $m->[3]\n";
  }
  $gp .= "set label 9 " . gp_quote('not recovered within the period after') . " at graph 0.98, "
         . "graph 0.95 right textcolor rgb '#c03030'\n"
    unless defined $d->{business_recovery_s};
  my @curves = (
    "'$name.dat' using 1:2 with linespoints pt 7 ps 0.5 lw 2 lc rgb '#1f77b4' title "
      . gp_quote("TRTPS per $BUCKET_S s"),
    "'$name-window.dat' using 1:2 with lines lw 1.5 lc rgb '#9467bd' title "
      . gp_quote("TRTPS over $w s, at the window's start"),
    "'$name.dat' using 1:3 axes x1y2 with lines lw 1.5 lc rgb '#ff7f0e' title "
      . gp_quote("Trade-Result p90 per $BUCKET_S s (right axis)"),
    sprintf("%.4f with lines dt 2 lw 1.5 lc rgb '#000000' title %s", $d->{rate_before_tps},
            gp_quote(sprintf('rate before the failure (%.2f)', $d->{rate_before_tps}))),
    sprintf("%.4f with lines dt 3 lw 1.5 lc rgb '#207020' title %s",
            $d->{recovery_threshold_tps}, gp_quote('95 % of it')),
    # The marks' key entries: a function with no points draws only its key sample.
    map { "NaN with lines lw 2 lc rgb '$_->[2]' dt $_->[3] title " . gp_quote($_->[0]) } @marks,
  );
  $gp .= 'plot ' . join(", \\\n     ", @curves) . "\n";
  return render($ctx, $name, $gp);
}

1;
