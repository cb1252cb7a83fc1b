package BrokerBench::Plots;
# The report's plots. Each plot is a data file and a gnuplot script side by side in
# plots/data/ (so a user can re-plot by hand: cd plots/data && gnuplot NAME.gp), run here
# under a timeout; the PNG lands in plots/. A plot without data is not written and the result
# says why; a gnuplot failure is reported and never stops the text report.
use strict;
use warnings;
use Exporter 'import';
use File::Path qw(make_path);
use List::Util qw(max min);
use POSIX ();
use BrokerBench::Spec qw(@MIX_CODES %NAME);
use BrokerBench::Cpu qw(@CPU_GROUPS %CPU_GROUP_NAME);
use BrokerBench::DurabilityPlot qw(plot_durability);
use BrokerBench::Gnuplot qw(terminal gp_quote gp_head render write_file);

our @EXPORT_OK = qw(write_plots @PLOTS);

# Plot names in report order, with what each shows.
our @PLOTS = (
  ['trtps',           'Trade-Results per second (the throughput metric) over time'],
  ['throughput',      'Transactions per second of each type over time'],
  ['rt-distribution', 'Response-time distribution of each type (cumulative, log scale)'],
  ['rt-over-time',    '90th-percentile response time of each type over time'],
  ['cpu',             'CPU use of each host'],
  ['cpu-processes',   'Where the CPU went: cores used by each process group over time'],
  ['db-waits',        'Where the database waited: active backends by wait type over time'],
  ['io',              'Disk reads and writes of each host'],
  ['device-io',       "The database's devices: read and write requests per second, beside TRTPS"],
  ['memory',          'Memory of each host: used, cached and free'],
  ['network',         'Network traffic of each host: received and sent'],
  ['mee-wait',        'How long Trade-Results and Market-Feeds waited in the market emulator'],
);

my $US = 1_000_000;

my @PALETTE = ('#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2',
               '#7f7f7f', '#bcbd22', '#17becf');

# write_plots($result, gnuplot => 'gnuplot') -> { name => { status => written|skipped|failed,
# file, note } }.
sub write_plots {
  my ($r, %opt) = @_;
  my $gnuplot = $opt{gnuplot} // 'gnuplot';
  my $dir  = "$r->{results_dir}/plots";
  my $data = "$dir/data";
  my %out;
  eval { make_path($data); 1 } or do {
    my $e = $@ =~ s/\s+\z//r;
    $out{$_->[0]} = { status => 'failed', note => "cannot create $data: $e" } for @PLOTS;
    return \%out;
  };
  # Remove the files of an earlier report of this directory, so none is left stale.
  for my $p (@PLOTS) {
    unlink "$dir/$p->[0].png", glob("$data/$p->[0].gp $data/$p->[0].dat $data/$p->[0]-*.dat");
  }

  my $ser = $r->{_series} // {};
  my $ctx = {
    r       => $r,
    data    => $data,
    out     => $r->{results_dir},
    ser     => $ser,
    gnuplot => $gnuplot,
    term    => terminal($gnuplot),
  };
  my $span = defined $ser->{span_start_us} ? ($ser->{span_end_us} - $ser->{span_start_us}) / $US
                                           : 0;
  # Minutes on the time axis for runs over 20 minutes, seconds otherwise.
  $ctx->{unit}  = $span > 1200 ? 60 : 1;
  $ctx->{xlabel} = ($r->{mi}{start_us} ? 'time from the start of the measurement interval'
                                       : 'time from the first transaction')
                   . ($ctx->{unit} == 60 ? ' (min)' : ' (s)');

  my %make = (
    'trtps'           => \&plot_trtps,
    'throughput'      => \&plot_throughput,
    'rt-distribution' => \&plot_rt_distribution,
    'rt-over-time'    => \&plot_rt_over_time,
    'cpu'             => \&plot_cpu,
    'cpu-processes'   => \&plot_cpu_processes,
    'db-waits'        => \&plot_db_waits,
    'io'              => \&plot_io,
    'device-io'       => \&plot_device_io,
    'memory'          => \&plot_memory,
    'network'         => \&plot_network,
    'mee-wait'        => \&plot_mee_wait,
  );
  for my $p (@PLOTS) {
    my $name = $p->[0];
    # No origin: no MI and no known time range of the run (Inputs.pm, run_range).
    my $res = !defined $ser->{origin_us} && $name ne 'rt-distribution'
      ? { status => 'skipped', note => "no time axis: the run's time range is unknown" }
      : eval { $make{$name}->($ctx, $name) };
    $res = { status => 'failed', note => "internal error: " . ($@ =~ s/\s+\z//r) } unless $res;
    $res->{title} = $p->[1];
    $out{$name} = $res;
  }
  # A durability run's plot across the failure (DurabilityPlot.pm): only for such a run.
  unlink "$dir/durability.png", glob("$data/durability.gp $data/durability*.dat");
  if ($r->{durability}) {
    my $res = eval { plot_durability($ctx, 'durability') }
      // { status => 'failed', note => 'internal error: ' . ($@ =~ s/\s+\z//r) };
    $res->{title} = 'Across the failure: Trade-Results per second and the Trade-Result p90, '
                    . 'the failure and the recovery marked';
    $out{durability} = $res;
  }
  return \%out;
}

# The head of every report script: Gnuplot.pm's, with the key (outside right top unless given)
# and the report's colours. Options as gp_head's.
sub report_head {
  my ($ctx, $name, $title, %o) = @_;
  return gp_head($ctx, $name, $title, %o, key => $o{key} // 'outside right top')
    . "# Ten distinguishable colours, one per transaction type.\n"
    . join('', map { "set linetype " . ($_ + 1) . " lc rgb '$PALETTE[$_]'\n" } 0 .. $#PALETTE);
}

# Small multiples: one panel per item (a transaction type, a host) in a multiplot of $cols
# columns, under one title. $panel->($item, $index) gives each panel's settings and plot
# command; the panel's title is $label->($item).
sub gp_panels {
  my ($ctx, $name, $title, $items, $label, $panel, %o) = @_;
  my $cols = @$items > 1 ? 2 : 1;
  my $rows = int((@$items + $cols - 1) / $cols);
  my $gp = report_head($ctx, $name, $title, panels => 1, key => $o{key} // 'off',
                       size => '1000,' . (40 + ($o{row_height} // 270) * $rows))
    . ($o{setup} // '')
    . "set multiplot layout $rows,$cols title " . gp_quote($title) . "\n";
  for my $i (0 .. $#$items) {
    $gp .= "# Panel " . ($i + 1) . ': ' . $label->($items->[$i]) . "\n"
      . 'set title ' . gp_quote($label->($items->[$i])) . "\n" . $panel->($items->[$i], $i);
  }
  return "${gp}unset multiplot\n";
}

# Shades the measurement interval, marks its start and end where they are on the time axis,
# and labels the axis.
sub gp_time_axis {
  my ($ctx) = @_;
  my $r  = $ctx->{r};
  my $ser = $ctx->{ser};
  my $gp = 'set xlabel ' . gp_quote($ctx->{xlabel}) . "\n";
  # The whole run, ramp-up and ramp-down included, and the whole MI (its end can lie past the
  # last row's).
  if (defined $ser->{span_start_us} && $ser->{span_end_us} > $ser->{span_start_us}) {
    my @mi = $r->{mi}{start_us} ? @{ $r->{mi} }{qw(start_us end_us)} : ();
    $gp .= 'set xrange [' . x_of($ctx, min($ser->{span_start_us}, @mi)) . ':'
           . x_of($ctx, max($ser->{span_end_us}, @mi)) . "]\n";
  }
  if ($r->{mi}{start_us} && $r->{mi}{seconds} > 0) {
    my $start = x_of($ctx, $r->{mi}{start_us});
    my $end = x_of($ctx, $r->{mi}{end_us});
    $gp .= "# The measurement interval (MI): shaded, its start and end marked.\n"
      . "set object 1 rect from $start, graph 0 to $end, graph 1 behind "
      . "fillcolor rgb '#e8eef7' fillstyle solid 1.0 noborder\n"
      . "set arrow 1 from $start, graph 0 to $start, graph 1 nohead lc rgb '#334455' dt 2\n"
      . "set arrow 2 from $end, graph 0 to $end, graph 1 nohead lc rgb '#334455' dt 2\n"
      . "set label 1 'MI start' at $start, graph 0.96 left offset 0.4, 0 textcolor rgb '#334455'\n"
      . "set label 2 'MI end' at $end, graph 0.96 right offset -0.4, 0 textcolor rgb '#334455'\n";
  }
  return $gp;
}

sub x_of {
  my ($ctx, $us) = @_;
  return sprintf('%.3f', ($us - $ctx->{ser}{origin_us}) / $US / $ctx->{unit});
}

# Rate per bucket: count / the part of the bucket that lies inside the data span; buckets
# less than half covered are left out (their rate would be noise).
sub bucket_rates {
  my ($ctx, $counts, $width_s, $first_idx, $last_idx) = @_;
  my $ser = $ctx->{ser};
  my @out;
  for my $k ($first_idx .. $last_idx) {
    my $from = $ser->{base_us} + $k * $width_s * $US;
    my $to   = $from + $width_s * $US;
    my $lo   = max($from, $ser->{span_start_us});
    my $hi   = min($to, $ser->{span_end_us});
    my $cover = ($hi - $lo) / $US;
    next if $cover < $width_s / 2;
    push @out, [($lo + $hi) / 2, ($counts->{$k} // 0) / $cover];
  }
  return \@out;
}

sub bucket_range {
  my ($ctx, $width_s) = @_;
  my $ser = $ctx->{ser};
  return (int(($ser->{span_start_us} - $ser->{base_us}) / ($width_s * $US)),
          int(($ser->{span_end_us} - $ser->{base_us}) / ($width_s * $US)));
}

sub plot_trtps {
  my ($ctx, $name) = @_;
  my $ser = $ctx->{ser};
  my $tr10 = $ser->{tr10} // {};
  return { status => 'skipped', note => 'no valid Trade-Result rows' } unless %$tr10;
  my $r = $ctx->{r};
  my @curves;
  my @widths = (60);
  push @widths, 10 if !$r->{mi}{seconds} || $r->{mi}{seconds} < 600;
  for my $w (@widths) {
    my %agg;
    $agg{ int($_ * 10 / $w) } += $tr10->{$_} for keys %$tr10;
    my ($i0, $i1) = bucket_range($ctx, $w);
    my $rates = bucket_rates($ctx, \%agg, $w, $i0, $i1);
    next unless @$rates;
    my $file = $w == 60 ? "$name.dat" : "$name-10s.dat";
    write_file("$ctx->{data}/$file",
               "# x (time, see the plot's x label)  Trade-Results per second, averaged over "
               . "$w s\n" . join('', map { x_of($ctx, $_->[0]) . " $_->[1]\n" } @$rates));
    push @curves, "'$file' using 1:2 with linespoints pt 7 ps 0.5 lw 2 title "
                  . gp_quote($w == 60 ? 'per-minute average' : 'per-10-second average');
  }
  return { status => 'skipped', note => 'the run is shorter than half a bucket' } unless @curves;
  my $gp = report_head($ctx, $name, 'Trade-Result throughput (TRTPS): the metric, its bounds and '
                                    . 'its steadiness', key => 'below left maxrows 3',
                       size => '1000,600')
    . "# Room below the x label for the key.\nset bmargin 8\n" . gp_time_axis($ctx)
    . "set ylabel 'Trade-Results per second'\nset yrange [0:*]\n";
  my $tp = $r->{trtps};
  if (defined $tp->{measured_tpse} && $r->{mi}{seconds}) {
    # The measured throughput is the MI's average: a line across the MI only.
    $gp .= sprintf("\$measured << EOD\n%s %.4f\n%s %.4f\nEOD\n", x_of($ctx, $r->{mi}{start_us}),
                   $tp->{measured_tpse}, x_of($ctx, $r->{mi}{end_us}), $tp->{measured_tpse});
    push @curves, "\$measured using 1:2 with lines lw 3 lc rgb '#000000' title "
                  . gp_quote(sprintf('measured in the MI (%.2f)', $tp->{measured_tpse}));
  }
  # Clause 6.7: a reportable throughput is 80-102 % of the nominal.
  my $nom = $tp->{nominal_tpse};
  if (defined $nom) {
    push @curves, "$nom with lines dt 2 lw 1.5 lc rgb '#207020' title 'nominal ($nom)'",
                  sprintf("%.4f with lines dt 3 lw 1.5 lc rgb '#c03030' title '102 %% of nominal'",
                          1.02 * $nom),
                  sprintf("%.4f with lines dt 3 lw 1.5 lc rgb '#c03030' title '80 %% of nominal'",
                          0.8 * $nom);
  }
  # The windows that failed the steadiness check (clause 6.6.3), each a bar across its time
  # at its rate.
  my @failed = map { @{ $_->{failed_windows} // [] } } @{ $r->{steadiness}{checks} // [] };
  if (@failed) {
    $gp .= "# The failed windows: start, length, Trade-Results per second.\n\$failed << EOD\n"
      . join('', map { sprintf("%.3f %.3f %.4f\n", $_->{start_s} / $ctx->{unit},
                               ($_->{end_s} - $_->{start_s}) / $ctx->{unit}, $_->{tpse}) } @failed)
      . "EOD\n";
    push @curves, "\$failed using 1:3:2:(0) with vectors nohead lw 3 lc rgb '#d62728' title "
                  . gp_quote(sprintf('%d window%s failing the steadiness check', scalar @failed,
                                     @failed == 1 ? '' : 's'));
  }
  $gp .= 'plot ' . join(", \\\n     ", @curves) . "\n";
  return render($ctx, $name, $gp);
}

# A panel per transaction type: its transactions per second over time.
sub plot_throughput {
  my ($ctx, $name) = @_;
  my $ser  = $ctx->{ser};
  my @codes = grep { %{ $ser->{done}{$_} // {} } } @MIX_CODES;
  return { status => 'skipped', note => 'no valid transactions' } unless @codes;
  my $w = $ser->{bucket_s};
  my ($i0, $i1) = bucket_range($ctx, $w);
  my %rates = map { $_ => { map { $_->[0] => $_->[1] } @{ bucket_rates($ctx, $ser->{done}{$_}, $w, $i0, $i1) } } } @codes;
  my %xs = map { %$_ } values %rates;
  my @x = sort { $a <=> $b } keys %xs;
  return { status => 'skipped', note => "the run is shorter than half a $w s bucket" } unless @x;
  my $text = "# x  transactions per second over $w s buckets: " . join(' ', @codes) . "\n";
  for my $t (@x) {
    $text .= join(' ', x_of($ctx, $t), map { sprintf('%.3f', $rates{$_}{$t} // 0) } @codes) . "\n";
  }
  write_file("$ctx->{data}/$name.dat", $text);
  my %col = map { $codes[$_] => $_ + 2 } 0 .. $#codes;
  my %lt  = map { $MIX_CODES[$_] => $_ + 1 } 0 .. $#MIX_CODES;
  my $gp = gp_panels($ctx, $name, "Transactions per second of each type ($w s buckets, valid "
                                  . 'transactions by completion time)', \@codes,
    sub { "$_[0] $NAME{$_[0]}" },
    sub {
      my ($c) = @_;
      return "plot '$name.dat' using 1:$col{$c} with lines lw 2 lt $lt{$c} notitle\n";
    },
    setup => gp_time_axis($ctx) . "set ylabel 'transactions per second'\nset yrange [0:*]\n");
  return render($ctx, $name, $gp);
}

# A panel per transaction type: the cumulative distribution of its response times in the MI,
# its 90th percentile marked.
sub plot_rt_distribution {
  my ($ctx, $name) = @_;
  my $ser = $ctx->{ser};
  my $T = $ctx->{r}{transactions};
  my @codes = grep { @{ $ser->{cdf}{$_} // [] } } @MIX_CODES;
  return { status => 'skipped', note => 'no valid transactions in the MI' } unless @codes;
  my $text = '';
  for my $c (@codes) {
    $text .= "# $c $NAME{$c}: response time (ms), fraction of the MI's valid ones at or below\n";
    $text .= join('', map { sprintf("%.3f %.6f\n", max(1000 * $_->[0], 1e-3), $_->[1]) }
                      @{ $ser->{cdf}{$c} });
    $text .= "\n\n";
  }
  write_file("$ctx->{data}/$name.dat", $text);
  my %lt = map { $MIX_CODES[$_] => $_ + 1 } 0 .. $#MIX_CODES;
  my %index = map { $codes[$_] => $_ } 0 .. $#codes;
  my $gp = gp_panels($ctx, $name, 'Response-time distribution of each type in the MI '
                                  . '(cumulative; dotted: the 90th percentile)', \@codes,
    sub { "$_[0] $NAME{$_[0]}" },
    sub {
      my ($c) = @_;
      my $p90 = $T->{$c}{response_time_p90_ms};
      return "set arrow 1 from $p90, graph 0 to $p90, graph 1 nohead dt 3 lw 1.5\n"
        . sprintf("set label 1 'p90 %.1f ms' at %s, graph 0.15 left offset 0.5, 0\n", $p90, $p90)
        . "plot '$name.dat' index $index{$c} using 1:2 with steps lw 2 lt $lt{$c} notitle\n";
    },
    setup => "set logscale x\nset xlabel 'response time (ms, log scale)'\n"
             . "set ylabel 'fraction at or below'\nset yrange [0:1.02]\nset ytics 0.2\n"
             . "set arrow 2 from graph 0, first 0.9 to graph 1, first 0.9 nohead dt 3\n");
  return render($ctx, $name, $gp);
}

# A panel per transaction type: the 50th and 90th percentiles and the maximum of its response
# times per time bucket, against its limit (clause 6.5.1).
sub plot_rt_over_time {
  my ($ctx, $name) = @_;
  my $ser = $ctx->{ser};
  my $T = $ctx->{r}{transactions};
  my @codes = grep { %{ $ser->{rt}{$_} // {} } } @MIX_CODES;
  return { status => 'skipped', note => 'no valid transactions' } unless @codes;
  my $w = $ser->{bucket_s};
  my $text = '';
  my %top;    # the longest response time of each type (us)
  for my $c (@codes) {
    $text .= "# $c $NAME{$c}: x (bucket middle), then the 50th and 90th percentiles and the "
             . "maximum (ms) of the valid transactions completed in each $w s bucket (from "
             . "histograms: within 0.1 %)\n";
    for my $k (sort { $a <=> $b } keys %{ $ser->{rt}{$c} }) {
      my $f = $ser->{rt}{$c}{$k};    # p50, p90, max in us
      $top{$c} = max($top{$c} // 0, $f->[2]);
      $text .= join(' ', x_of($ctx, $ser->{base_us} + ($k + 0.5) * $w * $US),
                    map { sprintf('%.3f', $_ / 1000) } @$f) . "\n";
    }
    $text .= "\n\n";
  }
  write_file("$ctx->{data}/$name.dat", $text);
  my %lt = map { $MIX_CODES[$_] => $_ + 1 } 0 .. $#MIX_CODES;
  my %index = map { $codes[$_] => $_ } 0 .. $#codes;
  my $gp = gp_panels($ctx, $name, "Response time of each type over time ($w s buckets): "
                                  . 'thin p50, bold p90, dotted max; dashed red: the limit',
    \@codes, sub { "$_[0] $NAME{$_[0]}" },
    sub {
      my ($c) = @_;
      my $i = $index{$c};
      my $limit = $T->{$c}{response_time_limit_ms};
      # Room above the limit and the longest response time (log scale).
      return 'set yrange [*:' . 2 * max($limit, $top{$c} / 1000) . "]\n"
        . "plot '$name.dat' index $i using 1:2 with lines lw 1 lt $lt{$c} notitle, \\\n"
        . "     '$name.dat' index $i using 1:3 with linespoints pt 7 ps 0.4 lw 2.5 lt $lt{$c} "
        . "notitle, \\\n"
        . "     '$name.dat' index $i using 1:4 with lines lw 1 dt 3 lt $lt{$c} notitle, \\\n"
        . "     $limit with lines dt 2 lw 1.5 lc rgb '#c03030' notitle\n";
    },
    setup => gp_time_axis($ctx) . "set ylabel 'response time (ms, log scale)'\nset logscale y\n");
  return render($ctx, $name, $gp);
}

# A panel per host of columns of its sysstat.csv samples (System.pm, system_stats: the
# time, then the columns in its order), each [index, title, divisor].
sub sys_plot {
  my ($ctx, $name, $title, $ylabel, $cols) = @_;
  my $sys = $ctx->{ser}{sys} // {};
  my @hosts = grep { @{ $sys->{$_} } } sort keys %$sys;
  unless (@hosts) {
    return { status => 'skipped',
             note => 'no system samples (sys/<host>/sysstat.csv is missing or empty)' };
  }
  # An older kit's file lacks the memory and network columns.
  @hosts = grep { @{ $sys->{$_}[0] } > $cols->[-1][0] } @hosts;
  return { status => 'skipped', note => 'sysstat.csv has no such columns (an older kit)' }
    unless @hosts;
  my $text = '';
  for my $h (@hosts) {
    $text .= "# host $h: x " . join(' ', map { $_->[1] } @$cols) . "\n";
    for my $row (@{ $sys->{$h} }) {
      $text .= join(' ', x_of($ctx, $row->[0]),
                    map { sprintf('%.1f', $row->[ $_->[0] ] / ($_->[2] // 1)) } @$cols) . "\n";
    }
    $text .= "\n\n";
  }
  write_file("$ctx->{data}/$name.dat", $text);
  my $gp = gp_panels($ctx, $name, $title, [0 .. $#hosts], sub { "host $hosts[$_[0]]" },
    sub {
      my ($i) = @_;
      my $col = 2;
      return 'plot ' . join(", \\\n     ", map { "'$name.dat' index $i using 1:" . $col++
                                             . " with lines lw 1.5 title " . gp_quote($_->[1]) }
                            @$cols) . "\n";
    },
    key => 'outside right top', row_height => @hosts > 1 ? 300 : 520,
    setup => gp_time_axis($ctx) . 'set ylabel ' . gp_quote($ylabel) . "\nset yrange [0:*]\n");
  return render($ctx, $name, $gp);
}

sub plot_cpu {
  my ($ctx, $name) = @_;
  return sys_plot($ctx, $name, 'CPU use per host (1 s samples)', 'percent of all CPUs',
                  [[1, 'user %'], [2, 'system %'], [3, 'iowait %']]);
}

# Stacked: each host's process groups, then the rest of its busy CPU, so the top edge is the
# host's busy cores (from sys/<host>/proc_cpu.csv).
sub plot_cpu_processes {
  my ($ctx, $name) = @_;
  my $pc = $ctx->{ser}{proc_cpu} // {};
  my @hosts = grep { @{ $pc->{$_} } } sort keys %$pc;
  return { status => 'skipped', note => 'no per-process CPU samples (sys/<host>/proc_cpu.csv)' }
    unless @hosts;
  my @names = ((map { $CPU_GROUP_NAME{$_} } @CPU_GROUPS), 'other (not attributed)');
  my $text = '';
  my @curves;
  for my $i (0 .. $#hosts) {
    my $h = $hosts[$i];
    $text .= "# host $h: x, then the running sum of cores of: " . join(', ', @names) . "\n";
    for my $row (@{ $pc->{$h} }) {
      my $sum = 0;
      $text .= join(' ', x_of($ctx, $row->[0]),
                    map { $sum += $row->[$_]; sprintf('%.4f', $sum) } 1 .. $#$row) . "\n";
    }
    $text .= "\n\n";
    my $prefix = @hosts > 1 ? "$h " : '';
    for my $k (0 .. $#names) {
      my $lower = $k == 0 ? '(0)' : '($' . ($k + 1) . ')';
      push @curves, "'$name.dat' index $i using 1:$lower:" . ($k + 2)
                    . ' with filledcurves fs transparent solid 0.6 lt ' . ($k + 1)
                    . ' title ' . gp_quote("$prefix$names[$k]");
    }
  }
  write_file("$ctx->{data}/$name.dat", $text);
  my $gp = report_head($ctx, $name, 'Where the CPU went (1 s samples, stacked)')
    . gp_time_axis($ctx) . "set ylabel 'cores'\nset yrange [0:*]\n"
    . 'plot ' . join(", \\\n     ", @curves) . "\n";
  return render($ctx, $name, $gp);
}

# Stacked: the database's active backends by wait type (CPU first), averaged over each bucket
# of the time axis, so the top edge is the average number of active backends
# (from sys/<host>/waits.csv, BrokerBench::Waits).
sub plot_db_waits {
  my ($ctx, $name) = @_;
  my $wt = $ctx->{ser}{waits} // {};
  my @hosts = grep { @{ $wt->{$_}{rows} } && @{ $wt->{$_}{types} } } sort keys %$wt;
  return { status => 'skipped', note => 'no active backend sampled (sys/<host>/waits.csv)' }
    unless @hosts;
  my $text = '';
  my @curves;
  for my $i (0 .. $#hosts) {
    my $h = $hosts[$i];
    my @types = @{ $wt->{$h}{types} };
    $text .= "# host $h: x (bucket middle), then the running sum of the average active backends "
             . 'in: ' . join(', ', @types) . "\n";
    for my $row (@{ $wt->{$h}{rows} }) {
      my $sum = 0;
      $text .= join(' ', x_of($ctx, $row->[0]),
                    map { $sum += $row->[$_]; sprintf('%.4f', $sum) } 1 .. $#$row) . "\n";
    }
    $text .= "\n\n";
    my $prefix = @hosts > 1 ? "$h " : '';
    for my $k (0 .. $#types) {
      my $lower = $k == 0 ? '(0)' : '($' . ($k + 1) . ')';
      push @curves, "'$name.dat' index $i using 1:$lower:" . ($k + 2)
                    . ' with filledcurves fs transparent solid 0.6 lt ' . ($k % 10 + 1)
                    . ' title ' . gp_quote("$prefix$types[$k]");
    }
  }
  write_file("$ctx->{data}/$name.dat", $text);
  my $bucket_s = $ctx->{ser}{bucket_s} // 10;
  my $gp = report_head($ctx, $name, "Where the database waited ($bucket_s s averages of 1 s "
                                    . 'samples, stacked)')
    . gp_time_axis($ctx) . "set ylabel 'active backends'\nset yrange [0:*]\n"
    . 'plot ' . join(", \\\n     ", @curves) . "\n";
  return render($ctx, $name, $gp);
}

sub plot_io {
  my ($ctx, $name) = @_;
  return sys_plot($ctx, $name, 'Disk I/O per host (1 s samples)', 'KB per second',
                  [[5, 'read KB/s'], [6, 'write KB/s']]);
}

# Two panels over one time axis: TRTPS above; below, the read and write requests per second
# of the database's devices (DeviceIo.pm), in the same buckets (10 s, 60 s for an MI of 10
# minutes or more), so that what the disks did lines up with the throughput.
sub plot_device_io {
  my ($ctx, $name) = @_;
  my $ser = $ctx->{ser};
  my $dev = $ser->{device_io} // {};
  my @devs = grep { @{ $_->[3] } } map { my $h = $_; map { [$h, @$_] } @{ $dev->{$h} } }
             sort keys %$dev;
  return { status => 'skipped', note => "no samples of the database's devices "
                                        . '(sys/<host>/diskstats.csv)' } unless @devs;
  my $w = ($ctx->{r}{mi}{seconds} // 0) >= 600 ? 60 : 10;
  my $bucket = $w * $US;
  my %tr;
  $tr{ int($_ * 10 / $w) } += $ser->{tr10}{$_} for keys %{ $ser->{tr10} // {} };
  my $tr_rates = bucket_rates($ctx, \%tr, $w, bucket_range($ctx, $w));
  write_file("$ctx->{data}/$name-trtps.dat",
             "# x (time, see the plot's x label)  Trade-Results per second over $w s\n"
             . join('', map { x_of($ctx, $_->[0]) . " $_->[1]\n" } @$tr_rates));
  my $text = '';
  my @curves;
  my $index = 0;
  my @roles;
  for my $d (@devs) {
    my ($host, $device, $role, $steps) = @$d;
    # Requests and seconds per bucket, by each step's end; buckets under half covered left out.
    my %b;
    for my $st (@$steps) {
      my $k = POSIX::floor(($st->[0] - $ser->{base_us}) / $bucket);
      $b{$k}[0] += $st->[1] * $st->[3];
      $b{$k}[1] += $st->[2] * $st->[3];
      $b{$k}[2] += $st->[3];
    }
    my $label = (keys %$dev > 1 ? "$host " : '') . $device;
    $text .= "# index $index: $label ($role): x, reads and writes per second over $w s\n";
    for my $k (sort { $a <=> $b } grep { $b{$_}[2] >= $w / 2 } keys %b) {
      $text .= sprintf("%s %.2f %.2f\n", x_of($ctx, $ser->{base_us} + ($k + 0.5) * $bucket),
                       $b{$k}[0] / $b{$k}[2], $b{$k}[1] / $b{$k}[2]);
    }
    $text .= "\n\n";
    push @roles, "$label: $role";
    push @curves, "'$name.dat' index $index using 1:2 with lines lw 2 title "
                  . gp_quote("$label reads/s"),
                  "'$name.dat' index $index using 1:3 with lines lw 2 dt 2 title "
                  . gp_quote("$label writes/s");
    $index++;
  }
  write_file("$ctx->{data}/$name.dat", $text);
  my $title = "Device I/O beside TRTPS ($w s averages)";
  # Fixed margins, so that the two panels' time axes line up whatever their keys and labels.
  my $gp = report_head($ctx, $name, $title, panels => 1, size => '1000,760')
    . gp_time_axis($ctx) . "set lmargin 12\nset rmargin 30\nset yrange [0:*]\n"
    . 'set multiplot layout 2,1 title ' . gp_quote($title) . "\n"
    . "set title 'Trade-Results per second'\nset ylabel 'Trade-Results per second'\n"
    . (@$tr_rates
       ? "plot '$name-trtps.dat' using 1:2 with linespoints pt 7 ps 0.5 lw 2 lc rgb '#000000' "
         . "title 'TRTPS'\n"
       : "# No Trade-Result: an empty panel that says so.\nset yrange [0:1]\n"
         . "set label 3 'no valid Trade-Result' at graph 0.5, 0.5 center\nplot NaN notitle\n"
         . "unset label 3\nset yrange [0:*]\n")
    . 'set title ' . gp_quote("The database's devices (" . join('; ', @roles)
                             . '): requests per second') . "\n"
    . "set ylabel 'requests per second'\n"
    . 'plot ' . join(", \\\n     ", @curves) . "\nunset multiplot\n";
  return render($ctx, $name, $gp);
}

sub plot_memory {
  my ($ctx, $name) = @_;
  return sys_plot($ctx, $name, 'Memory per host (1 s samples, as free(1) counts it)', 'MiB',
                  [[7, 'used MiB', 1024], [8, 'cached MiB', 1024], [9, 'free MiB', 1024]]);
}

sub plot_network {
  my ($ctx, $name) = @_;
  return sys_plot($ctx, $name, 'Network per host (1 s samples, every interface but the loopback)',
                  'KB per second', [[10, 'received KB/s'], [11, 'sent KB/s']]);
}

sub plot_mee_wait {
  my ($ctx, $name) = @_;
  my $ser = $ctx->{ser};
  my @codes = grep { %{ $ser->{wait}{$_} // {} } } qw(TR MF);
  return { status => 'skipped', note => 'no market emulator rows' } unless @codes;
  my $w = $ser->{bucket_s};
  my (%st, %ks);
  for my $c (@codes) {
    while (my ($k, $f) = each %{ $ser->{wait}{$c} }) {
      $st{$c}{$k} = [map { $_ / 1000 } @$f];    # p50, p90, max in us
      $ks{$k} = 1;
    }
  }
  my $text = "# x (bucket middle)  wait_us in ms per $w s bucket (rows by completion time; "
             . "from histograms: within 0.1 %), median p90 max for: "
             . join(' ', @codes) . "  (NaN: none)\n";
  for my $k (sort { $a <=> $b } keys %ks) {
    my $mid = $ser->{base_us} + ($k + 0.5) * $w * $US;
    $text .= join(' ', x_of($ctx, $mid),
                  map { my $v = $st{$_}{$k}; $v ? map { sprintf('%.3f', $_) } @$v : qw(NaN NaN NaN) }
                  @codes) . "\n";
  }
  write_file("$ctx->{data}/$name.dat", $text);
  my $gp = report_head($ctx, $name, "Market emulator: wait between due and sent ($w s buckets)")
    . gp_time_axis($ctx) . "set ylabel 'wait (ms)'\n";
  my @curves;
  my $col = 2;
  # One colour per delivery type; solid median, dashed p90, dotted max.
  my %lt = (TR => 1, MF => 4);
  for my $c (@codes) {
    push @curves,
      "'$name.dat' using 1:$col with lines lt $lt{$c} lw 2 title " . gp_quote("$c median"),
      "'$name.dat' using 1:" . ($col + 1) . " with lines lt $lt{$c} lw 2 dt 2 title " . gp_quote("$c p90"),
      "'$name.dat' using 1:" . ($col + 2) . " with lines lt $lt{$c} lw 1 dt 3 title " . gp_quote("$c max");
    $col += 3;
  }
  $gp .= 'plot ' . join(", \\\n     ", @curves) . "\n";
  return render($ctx, $name, $gp);
}

1;
