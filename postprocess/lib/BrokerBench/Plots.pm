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
use BrokerBench::Spec qw(@MIX_CODES %NAME);
use BrokerBench::Stats qw(nearest_rank);
use BrokerBench::Cpu qw(@CPU_GROUPS %CPU_GROUP_NAME);

our @EXPORT_OK = qw(write_plots png_ok @PLOTS);

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
  ['mee-wait',        'How long Trade-Results and Market-Feeds waited in the market emulator'],
);

our $GNUPLOT_TIMEOUT_S = 60;

my $US = 1_000_000;

my @PALETTE = ('#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2',
               '#7f7f7f', '#bcbd22', '#17becf');

# png_ok($path) -> true when the file exists, is not empty and starts with the PNG signature.
sub png_ok {
  my ($path) = @_;
  return 0 unless -s $path;
  open my $fh, '<:raw', $path or return 0;
  my $n = read $fh, my $sig, 8;
  close $fh;
  return $n == 8 && $sig eq "\x89PNG\r\n\x1a\n";
}

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
    'mee-wait'        => \&plot_mee_wait,
  );
  for my $p (@PLOTS) {
    my $name = $p->[0];
    # No origin: no MI and no known time range of the run (Analysis.pm, run_range).
    my $res = !defined $ser->{origin_us} && $name ne 'rt-distribution'
      ? { status => 'skipped', note => "no time axis: the run's time range is unknown" }
      : eval { $make{$name}->($ctx, $name) };
    $res = { status => 'failed', note => "internal error: " . ($@ =~ s/\s+\z//r) } unless $res;
    $res->{title} = $p->[1];
    $out{$name} = $res;
  }
  return \%out;
}

# The PNG terminal: pngcairo when this gnuplot has it, else the libgd png terminal.
sub terminal {
  my ($gnuplot) = @_;
  my ($rc) = run_gnuplot($gnuplot, '.', ['-e', 'set terminal pngcairo']);
  return $rc == 0 ? 'pngcairo' : 'png';
}

# Runs gnuplot with the arguments in $dir, under the timeout; returns ($exit_code, $output).
sub run_gnuplot {
  my ($gnuplot, $dir, $args) = @_;
  my $pid = open(my $ph, '-|');
  return (127, "cannot fork: $!") unless defined $pid;
  if (!$pid) {
    open STDERR, '>&', \*STDOUT;
    chdir $dir or do { print "cannot cd to $dir: $!\n"; exit 127 };
    exec('timeout', $GNUPLOT_TIMEOUT_S, $gnuplot, @$args)
      or do { print "cannot run timeout $gnuplot: $!\n"; exit 127 };
  }
  local $/;
  my $text = <$ph> // '';
  close $ph;
  my $rc = $? == -1 ? 127 : ($? & 127 ? 128 + ($? & 127) : $? >> 8);
  return ($rc, $text);
}

sub write_file {
  my ($path, $text) = @_;
  open my $fh, '>', $path or die "cannot write $path: $!\n";
  print {$fh} $text;
  close $fh or die "cannot write $path: $!\n";
}

sub gp_quote {
  my ($s) = @_;
  $s =~ s/'/''/g;
  return "'$s'";
}

# The common head of every script.
sub gp_head {
  my ($ctx, $name, $title, %o) = @_;
  my $size = $o{size} // '1000,560';
  my $font = $ctx->{term} eq 'pngcairo' ? " font ',10'" : '';
  my $gp = "# $title\n# Re-plot by hand: cd plots/data && gnuplot $name.gp\n"
    . "set terminal $ctx->{term} size $size noenhanced$font\n"
    . "set output '../$name.png'\n"
    . 'set title ' . gp_quote($title) . "\n"
    . "set grid\nset key outside right top\n"
    . "# Ten distinguishable colours, one per transaction type.\n"
    . join('', map { "set linetype " . ($_ + 1) . " lc rgb '$PALETTE[$_]'\n" } 0 .. $#PALETTE);
  return $gp;
}

# Shades the measurement interval and labels the time axis.
sub gp_time_axis {
  my ($ctx) = @_;
  my $r  = $ctx->{r};
  my $ser = $ctx->{ser};
  my $gp = 'set xlabel ' . gp_quote($ctx->{xlabel}) . "\n";
  # The whole run, ramp-up and ramp-down included.
  $gp .= 'set xrange [' . x_of($ctx, $ser->{span_start_us}) . ':' . x_of($ctx, $ser->{span_end_us})
         . "]\n" if defined $ser->{span_start_us} && $ser->{span_end_us} > $ser->{span_start_us};
  if ($r->{mi}{start_us} && $r->{mi}{seconds} > 0) {
    my $end = $r->{mi}{seconds} / $ctx->{unit};
    $gp .= "# The measurement interval (MI), shaded.\n"
      . "set object 1 rect from 0, graph 0 to $end, graph 1 behind "
      . "fillcolor rgb '#e8eef7' fillstyle solid 1.0 noborder\n"
      . "set label 1 'MI' at graph 0.01, graph 0.97\n";
  }
  return $gp;
}

sub x_of {
  my ($ctx, $us) = @_;
  return sprintf('%.3f', ($us - $ctx->{ser}{origin_us}) / $US / $ctx->{unit});
}

# Runs one script and checks its PNG.
sub render {
  my ($ctx, $name, $gp, $note) = @_;
  write_file("$ctx->{data}/$name.gp", $gp);
  my $png = "$ctx->{r}{results_dir}/plots/$name.png";
  my ($rc, $out) = run_gnuplot($ctx->{gnuplot}, $ctx->{data}, ["$name.gp"]);
  my $res = { file => "plots/$name.png", script => "plots/data/$name.gp" };
  $res->{note} = $note if $note;
  if ($rc == 124) {
    return { %$res, status => 'failed',
             note => "gnuplot did not finish within $GNUPLOT_TIMEOUT_S s" };
  }
  if ($rc != 0) {
    my $msg = $out =~ s/\s+/ /gr;
    $msg = substr($msg, 0, 300) . '...' if length $msg > 300;
    return { %$res, status => 'failed', note => "gnuplot exited with $rc: $msg" };
  }
  return { %$res, status => 'failed', note => "gnuplot wrote no valid PNG" } unless png_ok($png);
  return { %$res, status => 'written' };
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
  my $sec = $ser->{tr_sec} // {};
  return { status => 'skipped', note => 'no valid Trade-Result rows' } unless %$sec;
  my $r = $ctx->{r};
  my @curves;
  my @widths = (60);
  push @widths, 10 if !$r->{mi}{seconds} || $r->{mi}{seconds} < 600;
  for my $w (@widths) {
    my %agg;
    $agg{ int($_ / $w) } += $sec->{$_} for keys %$sec;
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
  my $gp = gp_head($ctx, $name, 'Trade-Result throughput (TRTPS)') . gp_time_axis($ctx)
    . "set ylabel 'Trade-Results per second'\nset yrange [0:*]\n";
  my $nom = $r->{trtps}{nominal};
  if (defined $nom) {
    push @curves, "$nom with lines dt 2 lc rgb '#207020' title 'nominal ($nom)'",
                  0.8 * $nom . " with lines dt 3 lc rgb '#c03030' title '80 % of nominal'";
  }
  $gp .= 'plot ' . join(", \\\n     ", @curves) . "\n";
  return render($ctx, $name, $gp);
}

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
  my $gp = gp_head($ctx, $name, "Transactions per second by type ($w s buckets)")
    . gp_time_axis($ctx) . "set ylabel 'transactions per second'\nset yrange [0:*]\n";
  my $col = 2;
  $gp .= 'plot ' . join(", \\\n     ",
    map { "'$name.dat' using 1:" . $col++ . " with lines lw 2 title " . gp_quote("$_ $NAME{$_}") }
    @codes) . "\n";
  return render($ctx, $name, $gp);
}

sub plot_rt_distribution {
  my ($ctx, $name) = @_;
  my $ser = $ctx->{ser};
  my @codes = grep { @{ $ser->{cdf}{$_} // [] } } @MIX_CODES;
  return { status => 'skipped', note => 'no valid transactions in the MI' } unless @codes;
  my $text = '';
  for my $c (@codes) {
    $text .= "# $c $NAME{$c}: response time (s), fraction of the MI's valid ones at or below\n";
    $text .= join('', map { sprintf("%.6f %.6f\n", max($_->[0], 1e-6), $_->[1]) }
                      @{ $ser->{cdf}{$c} });
    $text .= "\n\n";
  }
  write_file("$ctx->{data}/$name.dat", $text);
  my $gp = gp_head($ctx, $name, 'Response-time distribution in the MI (cumulative)')
    . "set logscale x\nset xlabel 'response time (s, log scale)'\n"
    . "set ylabel 'fraction of transactions'\nset yrange [0:1.02]\n"
    . "set arrow 1 from graph 0, first 0.9 to graph 1, first 0.9 nohead dt 3\n";
  my $i = 0;
  $gp .= 'plot ' . join(", \\\n     ",
    map { "'$name.dat' index " . $i++ . " using 1:2 with steps lw 2 title " . gp_quote("$_ $NAME{$_}") }
    @codes) . "\n";
  return render($ctx, $name, $gp);
}

sub plot_rt_over_time {
  my ($ctx, $name) = @_;
  my $ser = $ctx->{ser};
  my @codes = grep { %{ $ser->{rt}{$_} // {} } } @MIX_CODES;
  return { status => 'skipped', note => 'no valid transactions' } unless @codes;
  my $w = $ser->{bucket_s};
  my %p90;
  my %ks;
  for my $c (@codes) {
    while (my ($k, $list) = each %{ $ser->{rt}{$c} }) {
      my @s = sort { $a <=> $b } @$list;
      $p90{$c}{$k} = nearest_rank(\@s, 90) / $US;
      $ks{$k} = 1;
    }
  }
  my $text = "# x (bucket middle)  90th-percentile response time (s) of the valid transactions "
             . "started in each $w s bucket: " . join(' ', @codes) . "  (NaN: none)\n";
  for my $k (sort { $a <=> $b } keys %ks) {
    my $mid = $ser->{base_us} + ($k + 0.5) * $w * $US;
    $text .= join(' ', x_of($ctx, $mid),
                  map { defined $p90{$_}{$k} ? sprintf('%.6f', $p90{$_}{$k}) : 'NaN' } @codes)
             . "\n";
  }
  write_file("$ctx->{data}/$name.dat", $text);
  my $gp = gp_head($ctx, $name, "90th-percentile response time by type ($w s buckets)")
    . gp_time_axis($ctx) . "set ylabel 'response time (s, log scale)'\nset logscale y\n";
  my $col = 2;
  $gp .= 'plot ' . join(", \\\n     ",
    map { "'$name.dat' using 1:" . $col++ . " with linespoints pt 7 ps 0.4 lw 1.5 title "
          . gp_quote("$_ $NAME{$_}") } @codes) . "\n";
  return render($ctx, $name, $gp);
}

sub sys_plot {
  my ($ctx, $name, $title, $ylabel, $cols) = @_;
  my $sys = $ctx->{ser}{sys} // {};
  my @hosts = grep { @{ $sys->{$_} } } sort keys %$sys;
  unless (@hosts) {
    return { status => 'skipped',
             note => 'no system samples (sys/<host>/sysstat.csv is missing or empty)' };
  }
  my $text = '';
  my @curves;
  my $i = 0;
  for my $h (@hosts) {
    $text .= "# host $h: x " . join(' ', map { $_->[1] } @$cols) . "\n";
    for my $row (@{ $sys->{$h} }) {
      $text .= join(' ', x_of($ctx, $row->[0]), map { $row->[ $_->[0] ] } @$cols) . "\n";
    }
    $text .= "\n\n";
    my $col = 2;
    for my $c (@$cols) {
      push @curves, "'$name.dat' index $i using 1:" . $col++ . " with lines lw 1.5 title "
                    . gp_quote("$h $c->[1]");
    }
    $i++;
  }
  write_file("$ctx->{data}/$name.dat", $text);
  my $gp = gp_head($ctx, $name, $title) . gp_time_axis($ctx)
    . 'set ylabel ' . gp_quote($ylabel) . "\nset yrange [0:*]\n"
    . 'plot ' . join(", \\\n     ", @curves) . "\n";
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
  my $gp = gp_head($ctx, $name, 'Where the CPU went (1 s samples, stacked)')
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
  my $gp = gp_head($ctx, $name, "Where the database waited ($bucket_s s averages of 1 s samples, "
                                . 'stacked)')
    . gp_time_axis($ctx) . "set ylabel 'active backends'\nset yrange [0:*]\n"
    . 'plot ' . join(", \\\n     ", @curves) . "\n";
  return render($ctx, $name, $gp);
}

sub plot_io {
  my ($ctx, $name) = @_;
  return sys_plot($ctx, $name, 'Disk I/O per host (1 s samples)', 'KB per second',
                  [[5, 'read KB/s'], [6, 'write KB/s']]);
}

sub plot_mee_wait {
  my ($ctx, $name) = @_;
  my $ser = $ctx->{ser};
  my @codes = grep { %{ $ser->{wait}{$_} // {} } } qw(TR MF);
  return { status => 'skipped', note => 'no market emulator rows' } unless @codes;
  my $w = $ser->{bucket_s};
  my (%st, %ks);
  for my $c (@codes) {
    while (my ($k, $list) = each %{ $ser->{wait}{$c} }) {
      my @s = sort { $a <=> $b } @$list;
      $st{$c}{$k} = [map { $_ / 1000 } nearest_rank(\@s, 50), nearest_rank(\@s, 90), $s[-1]];
      $ks{$k} = 1;
    }
  }
  my $text = "# x (bucket middle)  wait_us in ms per $w s bucket, median p90 max for: "
             . join(' ', @codes) . "  (NaN: none)\n";
  for my $k (sort { $a <=> $b } keys %ks) {
    my $mid = $ser->{base_us} + ($k + 0.5) * $w * $US;
    $text .= join(' ', x_of($ctx, $mid),
                  map { my $v = $st{$_}{$k}; $v ? map { sprintf('%.3f', $_) } @$v : qw(NaN NaN NaN) }
                  @codes) . "\n";
  }
  write_file("$ctx->{data}/$name.dat", $text);
  my $gp = gp_head($ctx, $name, "Market emulator: wait between due and sent ($w s buckets)")
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
