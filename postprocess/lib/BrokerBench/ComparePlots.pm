package BrokerBench::ComparePlots;
# The plots of a comparison, each run drawn over the others: TRTPS over time from each run's
# measurement interval start, and each type's response-time distribution. As for the report
# (Plots.pm; both run gnuplot through Gnuplot.pm), each plot is a data file and a gnuplot
# script in OUT/plots/data/, so a user can re-plot by hand, and the PNG lands in OUT/plots/.
use strict;
use warnings;
use Exporter 'import';
use File::Path qw(make_path);
use List::Util qw(max min);
use POSIX qw(ceil floor);
use BrokerBench::Gnuplot qw(terminal gp_quote gp_head render write_file);
use BrokerBench::Spec qw(@MIX_CODES %NAME);

our @EXPORT_OK = qw(write_compare_plots);

my $US = 1_000_000;

# write_compare_plots(\@runs, $out_dir, gnuplot => 'gnuplot') -> { name => { status =>
# written|skipped|failed, file, note } }. Each run: { label, r } (Compare.pm's load_run, labelled).
sub write_compare_plots {
  my ($runs, $out, %o) = @_;
  my $data = "$out/plots/data";
  my %res;
  unless (eval { make_path($data); 1 }) {
    my $e = $@ =~ s/\s+\z//r;
    return { map { $_ => { status => 'failed', note => "cannot create $data: $e" } }
             qw(trtps rt-distribution) };
  }
  my $ctx = { runs => $runs, out => $out, data => $data, gnuplot => $o{gnuplot} // 'gnuplot' };
  $ctx->{term} = terminal($ctx->{gnuplot});
  for my $p (['trtps', \&plot_trtps], ['rt-distribution', \&plot_rt_distribution]) {
    my ($name, $make) = @$p;
    unlink "$out/plots/$name.png", "$data/$name.gp", "$data/$name.dat";
    $res{$name} = eval { $make->($ctx, $name) }
      // { status => 'failed', note => 'internal error: ' . ($@ =~ s/\s+\z//r) };
  }
  return \%res;
}

# Trade-Results per second of each run, in buckets of the shortest interval the comparison
# cuts the runs into (10, 30 or 60 s; they divide a minute, so each run's buckets line up with
# its MI start: Transactions.pm's counts per 10 s start a whole number of minutes before it).
sub plot_trtps {
  my ($ctx, $name) = @_;
  my @runs = grep { %{ $_->{r}{_series}{tr10} // {} } } @{ $ctx->{runs} };
  return { status => 'skipped', note => 'no run has valid Trade-Results' } unless @runs;
  my $w = min(map { $_->{intervals}{length_s} } @runs);
  my $span = max(map { my $s = $_->{r}{_series}; ($s->{span_end_us} - $s->{origin_us}) / $US }
                 @runs);
  my $unit = $span > 1200 ? 60 : 1;
  my $text = '';
  my @curves;
  my $i = 0;
  for my $run (@runs) {
    my $s = $run->{r}{_series};
    my %agg;
    while (my ($k, $n) = each %{ $s->{tr10} }) {
      $agg{ floor($k * 10 / $w) } += $n;
    }
    my @pts;
    for my $j (sort { $a <=> $b } keys %agg) {
      my $from = $s->{base_us} + $j * $w * $US;
      # Only buckets wholly inside the run (a part-bucket's rate would be too low).
      next if $from < $s->{span_start_us} || $from + $w * $US > $s->{span_end_us};
      push @pts, sprintf("%.3f %.4f\n", ($from + $w * $US / 2 - $s->{origin_us}) / $US / $unit,
                         $agg{$j} / $w);
    }
    next unless @pts;
    $text .= "# $run->{label}: x (from its MI start), Trade-Results per second over $w s\n"
             . join('', @pts) . "\n\n";
    push @curves, "'$name.dat' index $i using 1:2 with linespoints pt 7 ps 0.5 lw 2 title "
                  . gp_quote($run->{label});
    $i++;
  }
  return { status => 'skipped', note => "every run is shorter than a $w s bucket" } unless @curves;
  write_file("$ctx->{data}/$name.dat", $text);
  my $mi = $ctx->{runs}[0]{r}{mi}{seconds} / $unit;
  my $gp = gp_head($ctx, $name, "Trade-Results per second ($w s buckets)", size => '1000,560',
                   key => 'outside right top')
    . 'set xlabel ' . gp_quote('time from the start of each run\'s '
                                                    . 'measurement interval'
                                                    . ($unit == 60 ? ' (min)' : ' (s)')) . "\n"
    . "set ylabel 'Trade-Results per second'\nset yrange [0:*]\n"
    . "# The base run's measurement interval, shaded.\n"
    . "set object 1 rect from 0, graph 0 to $mi, graph 1 behind "
    . "fillcolor rgb '#e8eef7' fillstyle solid 1.0 noborder\n"
    . "set label 1 'MI of the base' at graph 0.01, graph 0.97\n"
    . 'plot ' . join(", \\\n     ", @curves) . "\n";
  return render($ctx, $name, $gp);
}

# One panel per type of the mix, each run's cumulative distribution in it (log time axis).
sub plot_rt_distribution {
  my ($ctx, $name) = @_;
  my @runs = @{ $ctx->{runs} };
  my @codes = grep { my $c = $_; grep { @{ $_->{r}{_series}{cdf}{$c} // [] } } @runs } @MIX_CODES;
  return { status => 'skipped', note => 'no run has valid transactions in its MI' } unless @codes;
  my $text = '';
  my $index = 0;
  my @panels;
  for my $c (@codes) {
    my @curves;
    for my $run (@runs) {
      my $pts = $run->{r}{_series}{cdf}{$c} // [];
      next unless @$pts;
      $text .= "# $c $NAME{$c}, $run->{label}: response time (s), fraction at or below\n"
               . join('', map { sprintf("%.6f %.6f\n", max($_->[0], 1e-6), $_->[1]) } @$pts)
               . "\n\n";
      push @curves, "'$name.dat' index $index using 1:2 with steps lw 2 title "
                    . gp_quote($run->{label});
      $index++;
    }
    push @panels, 'set title ' . gp_quote("$c $NAME{$c}") . "\n"
                  . 'plot ' . join(", \\\n     ", @curves) . "\n";
  }
  write_file("$ctx->{data}/$name.dat", $text);
  my $rows = ceil(@codes / 3);
  my $gp = gp_head($ctx, $name, 'Response-time distribution in the MI (cumulative)',
                   size => '1200,' . (40 + 300 * $rows))
    . "set logscale x\nset xlabel 'response time (s, log scale)'\n"
    . "set ylabel 'fraction'\nset yrange [0:1.02]\nset key bottom right\n"
    . "set arrow 1 from graph 0, first 0.9 to graph 1, first 0.9 nohead dt 3\n"
    . "set multiplot layout $rows,3 title 'Response-time distribution in the MI (cumulative; "
    . "dotted: 90 %)'\n"
    . join('', @panels) . "unset multiplot\n";
  return render($ctx, $name, $gp);
}

1;
