package BrokerBench::Sweep;
# The report of a sweep: runs with more and more users (controller/sweep). Reads
# SWEEP_DIR/runs.txt (users<TAB>results_dir per line) and each run's results.json, writes
# sweep.txt (a table) and sweep.png (TRTPS and the Trade-Result 90th percentile against
# users), with the data and the gnuplot script beside them in SWEEP_DIR/plot-data/.
use strict;
use warnings;
use Exporter 'import';
use File::Path qw(make_path);
use File::Spec;
use JSON::PP ();
use BrokerBench::Plots qw(png_ok);

our @EXPORT_OK = qw(sweep_report);

# sweep_report($dir) -> ({ txt, png, runs, problems }) or (undef, $error).
sub sweep_report {
  my ($dir) = @_;
  my $list = "$dir/runs.txt";
  open my $fh, '<', $list or return (undef, "$list: cannot open: $!");
  my (@runs, @problems);
  my $n = 0;
  while (my $line = <$fh>) {
    $n++;
    $line =~ s/\r?\n\z//;
    next if $line =~ /\A\s*(#|\z)/;
    my ($users, $results) = split /\t/, $line, 2;
    unless (defined $results && $users =~ /\A\d+\z/) {
      push @problems, "$list:$n: not 'users<TAB>results_dir': '$line'";
      next;
    }
    my $path = File::Spec->file_name_is_absolute($results) || -d $results ? $results
                                                                          : "$dir/$results";
    my $run = { users => $users + 0, results => $results };
    my $json = "$path/results.json";
    if (open my $jf, '<:raw', $json) {
      local $/;
      my $j = eval { JSON::PP->new->decode(scalar <$jf>) };
      if ($j) {
        $run->{trtps}   = $j->{trtps}{measured_tpse};
        $run->{p90_s}   = $j->{transactions}{TR}{response_time_p90_ms} / 1000
          if defined $j->{transactions}{TR}{response_time_p90_ms};
        $run->{verdict} = $j->{verdict}{text};
        $run->{reasons} = scalar @{ $j->{verdict}{reasons} // [] };
      } else {
        push @problems, "$json: not valid JSON: " . ($@ =~ s/\s+\z//r);
      }
    } else {
      push @problems, "$json: cannot open: $!";
    }
    push @runs, $run;
  }
  close $fh;
  return (undef, "$list: no runs listed") unless @runs;

  my $txt = sprintf("%-8s  %-14s  %-12s  %s\n", 'Users', 'TRTPS measured', 'TR p90 (s)',
                    'Verdict   Results');
  $txt .= sprintf("%-8s  %-14s  %-12s  %s\n", '-' x 8, '-' x 14, '-' x 12, '-' x 17);
  for my $r (@runs) {
    $txt .= sprintf("%8d  %14s  %12s  %-9s %s\n", $r->{users},
                    defined $r->{trtps} ? sprintf('%.2f', $r->{trtps}) : 'n/a',
                    defined $r->{p90_s} ? sprintf('%.3f', $r->{p90_s}) : 'n/a',
                    $r->{verdict} // 'no report', $r->{results});
  }
  $txt .= "\nTRTPS measured = valid Trade-Results in the MI / MI seconds (before the 80-102 % "
          . "rule);\nTR p90 = the Trade-Result 90th-percentile response time (nearest rank).\n";
  $txt .= "\nProblems:\n" . join('', map { "  $_\n" } @problems) if @problems;
  write_text("$dir/sweep.txt", $txt);

  my @pts = sort { $a->{users} <=> $b->{users} } grep { defined $_->{trtps} } @runs;
  my $png = "$dir/sweep.png";
  unlink $png;
  my $plot_note;
  if (@pts) {
    make_path("$dir/plot-data");
    write_text("$dir/plot-data/sweep.dat",
               "# users  TRTPS_measured  TR_p90_s (NaN: none)\n"
               . join('', map { sprintf("%d %.4f %s\n", $_->{users}, $_->{trtps},
                                        defined $_->{p90_s} ? sprintf('%.6f', $_->{p90_s}) : 'NaN') }
                          @pts));
    my $logx = $pts[0]{users} > 0 && $pts[-1]{users} / $pts[0]{users} >= 8;
    my $term = BrokerBench::Plots::terminal('gnuplot');
    write_text("$dir/plot-data/sweep.gp", join('',
      "# Re-plot by hand: cd plot-data && gnuplot sweep.gp\n",
      "set terminal $term size 1000,560 noenhanced", ($term eq 'pngcairo' ? " font ',10'" : ''), "\n",
      "set output '../sweep.png'\n",
      "set title 'Throughput and Trade-Result response time against users'\n",
      "set grid\nset key outside right top\n",
      ($logx ? "set logscale x 2\n" : ''),
      "set xlabel 'emulated users'\nset ylabel 'TRTPS (measured)'\n",
      "set y2label 'Trade-Result 90th percentile (s)'\nset ytics nomirror\nset y2tics\n",
      "set yrange [0:*]\nset y2range [0:*]\n",
      "plot 'sweep.dat' using 1:2 axes x1y1 with linespoints pt 7 lw 2 title 'TRTPS', \\\n",
      "     'sweep.dat' using 1:3 axes x1y2 with linespoints pt 5 lw 2 dt 2 title 'TR p90 (s)'\n"));
    my ($rc, $out) = BrokerBench::Plots::run_gnuplot('gnuplot', "$dir/plot-data", ['sweep.gp']);
    $plot_note = "gnuplot exited with $rc: " . ($out =~ s/\s+/ /gr) if $rc != 0;
    $plot_note //= 'gnuplot wrote no valid PNG' unless png_ok($png);
  } else {
    $plot_note = 'no run has a measured TRTPS';
  }
  return ({ txt => "$dir/sweep.txt", png => ($plot_note ? undef : $png), plot_note => $plot_note,
            runs => \@runs, problems => \@problems });
}

sub write_text {
  my ($path, $text) = @_;
  open my $fh, '>:raw', $path or die "cannot write $path: $!\n";
  print {$fh} $text;
  close $fh or die "cannot write $path: $!\n";
}

1;
