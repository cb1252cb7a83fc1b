package BrokerBench::Sweep;
# The report of a sweep: runs with more and more users (controller/sweep). Reads
# SWEEP_DIR/runs.txt (users<TAB>results_dir per line) and each run's results.json, writes
# sweep.txt (a table: each run's TRTPS beside its Trade-Result 90th percentile, its errors,
# retries and verdict) and sweep.png (the same against users, a panel each), with the data and
# the gnuplot script beside them in SWEEP_DIR/plot-data/.
use strict;
use warnings;
use Exporter 'import';
use File::Path qw(make_path);
use File::Spec;
use JSON::PP ();
use BrokerBench::Gnuplot qw(png_ok terminal run_gnuplot);
use BrokerBench::Spec qw(@ALL_CODES @ERROR_OUTCOMES);

our @EXPORT_OK = qw(sweep_report run_figures progress);

# run_figures($results_json) -> the figures of one run the sweep shows: trtps (measured),
# p90_ms (Trade-Result), errors, invalid and retries (every type, in the MI), error_list
# ("TR retry_exhausted 107", ...), verdict, reasons. Reads results.json v2 and v1.
sub run_figures {
  my ($j) = @_;
  my $T  = $j->{transactions} // {};
  my $tr = $T->{TR} // {};
  my %f = (
    trtps   => $j->{trtps}{measured_tpse} // $j->{trtps}{measured},
    p90_ms  => $tr->{response_time_p90_ms} // (defined $tr->{p90_s} ? 1000 * $tr->{p90_s} : undef),
    verdict => $j->{verdict}{text},
    reasons => scalar @{ $j->{verdict}{reasons} // [] },
    errors  => 0, invalid => 0, retries => 0, error_list => [],
  );
  for my $code (grep { $T->{$_} } @ALL_CODES) {
    my $t = $T->{$code};
    $f{$_} += $t->{$_} // 0 for qw(errors invalid retries);
    my $o = $t->{error_outcomes} // {};
    push @{ $f{error_list} }, map { "$code $_ $o->{$_}" } grep { $o->{$_} } @ERROR_OUTCOMES;
    push @{ $f{error_list} }, "$code invalid $t->{invalid}" if $t->{invalid};
  }
  return \%f;
}

# progress($trtps, $best, $threshold_pct) -> (grew, better): whether a run's TRTPS grew by
# more than $threshold_pct % over the best so far (else the sweep counts it as flat), and
# whether it is above the best at all (then it becomes the best).
sub progress {
  my ($trtps, $best, $pct) = @_;
  return ($trtps > $best * (1 + $pct / 100) ? 1 : 0, $trtps > $best ? 1 : 0);
}

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
        $run = { %$run, %{ run_figures($j) } };
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
  write_text("$dir/sweep.txt", sweep_text(\@runs, \@problems));
  my ($png, $plot_note) = sweep_plot($dir, \@runs);
  return ({ txt => "$dir/sweep.txt", png => $png, plot_note => $plot_note, runs => \@runs,
            problems => \@problems });
}

sub sweep_text {
  my ($runs, $problems) = @_;
  my @head = ('Users', 'TRTPS measured', 'TR p90 (ms)', 'Errors', 'Invalid', 'Retries',
              'Verdict', 'Results');
  my @rows = map {
    my $r = $_;
    my $known = defined $r->{verdict};
    [$r->{users}, defined $r->{trtps} ? sprintf('%.2f', $r->{trtps}) : 'n/a',
     defined $r->{p90_ms} ? sprintf('%.1f', $r->{p90_ms}) : 'n/a',
     (map { $known ? $r->{$_} : '-' } qw(errors invalid retries)),
     !$known ? 'no report' : $r->{reasons} ? "$r->{verdict} ($r->{reasons})" : $r->{verdict},
     $r->{results}]
  } @$runs;
  my @w = map { my $i = $_; (sort { $b <=> $a } map { length $_->[$i] } \@head, @rows)[0] }
          0 .. $#head;
  my $fmt = join("  ", (map { "%${_}s" } @w[0 .. 5]), "%-$w[6]s", "%s") . "\n";
  my $txt = sprintf($fmt, @head) . sprintf($fmt, map { '-' x $_ } @w);
  $txt .= sprintf($fmt, @$_) =~ s/\s+\n\z/\n/r for @rows;
  my @errs = grep { @{ $_->{error_list} // [] } } @$runs;
  if (@errs) {
    $txt .= "\nErrors and invalid transactions in the MI:\n"
            . join('', map { sprintf("  %d users: %s\n", $_->{users},
                                     join(', ', @{ $_->{error_list} })) } @errs);
  }
  $txt .= "\nTRTPS measured = valid Trade-Results in the MI / MI seconds (before the 80-102 % "
          . "rule);\nTR p90 = the Trade-Result 90th-percentile response time (nearest rank);\n"
          . "Errors (retry_exhausted, db_error, net_error, timeout), Invalid (a negative spec "
          . "status) and\nRetries (serialization failures and deadlocks retried) of every "
          . "transaction type in the MI;\nVerdict (N) = INVALID for N reasons (a closed loop "
          . "exceeds the nominal throughput).\n";
  $txt .= "\nProblems:\n" . join('', map { "  $_\n" } @$problems) if @$problems;
  return $txt;
}

# sweep.png: three panels against users, one above the other: TRTPS (VALID runs green, INVALID
# red), the Trade-Result 90th percentile, and errors, invalid and retries. Returns ($png) or
# (undef, why not).
sub sweep_plot {
  my ($dir, $runs) = @_;
  my $png = "$dir/sweep.png";
  unlink $png;
  my @pts = sort { $a->{users} <=> $b->{users} } grep { defined $_->{trtps} } @$runs;
  return (undef, 'no run has a measured TRTPS') unless @pts;
  make_path("$dir/plot-data");
  write_text("$dir/plot-data/sweep.dat",
             "# users  TRTPS_measured  TR_p90_ms (NaN: none)  errors  invalid  retries  "
             . "valid (1: VALID)\n"
             . join('', map { sprintf("%d %.4f %s %d %d %d %d\n", $_->{users}, $_->{trtps},
                                      defined $_->{p90_ms} ? sprintf('%.3f', $_->{p90_ms}) : 'NaN',
                                      @$_{qw(errors invalid retries)},
                                      ($_->{verdict} // '') eq 'VALID' ? 1 : 0) } @pts));
  my $logx = $pts[0]{users} > 0 && $pts[-1]{users} / $pts[0]{users} >= 8;
  # A tick at each run's users: whole numbers, never 1.5 users.
  my %users = map { $_->{users} => 1 } @pts;
  my $xtics = join(', ', sort { $a <=> $b } keys %users);
  my $term = terminal('gnuplot');
  my $panel = "set lmargin 12\nset rmargin 22\n";
  write_text("$dir/plot-data/sweep.gp", join('',
    "# Re-plot by hand: cd plot-data && gnuplot sweep.gp\n",
    "set terminal $term size 1000,900 noenhanced", ($term eq 'pngcairo' ? " font ',10'" : ''), "\n",
    "set output '../sweep.png'\n",
    "set grid\nset key outside right top\n",
    ($logx ? "set logscale x 2\n" : ''),
    "set xtics ($xtics)\nset xlabel 'emulated users'\n",
    "set offsets graph 0.03, graph 0.03, 0, 0\n",
    "set multiplot layout 3,1 title 'A sweep: throughput, Trade-Result response time and errors ",
    "against users'\n",
    $panel, "set title 'Throughput'\nset ylabel 'TRTPS (measured)'\nset yrange [0:*]\n",
    "plot 'sweep.dat' using 1:2 with lines lw 2 lc rgb '#1f77b4' notitle, \\\n",
    "     '' using 1:(\$7 == 1 ? \$2 : NaN) with points pt 7 ps 1.5 lc rgb '#2ca02c' ",
    "title 'VALID', \\\n",
    "     '' using 1:(\$7 == 0 ? \$2 : NaN) with points pt 7 ps 1.5 lc rgb '#d62728' ",
    "title 'INVALID'\n",
    $panel, "set title 'Trade-Result 90th percentile'\nset ylabel 'response time (ms)'\n",
    "plot 'sweep.dat' using 1:3 with linespoints pt 5 lw 2 lc rgb '#7f7f7f' title 'TR p90'\n",
    $panel, "set title 'Errors, invalid transactions and retries in the MI (every type)'\n",
    "set ylabel 'transactions'\n",
    "plot 'sweep.dat' using 1:4 with linespoints pt 7 lw 2 lc rgb '#d62728' title 'errors', \\\n",
    "     '' using 1:5 with linespoints pt 9 lw 2 lc rgb '#9467bd' title 'invalid', \\\n",
    "     '' using 1:6 with linespoints pt 5 lw 2 dt 2 lc rgb '#ff7f0e' title 'retries'\n",
    "unset multiplot\n"));
  my ($rc, $out) = run_gnuplot('gnuplot', "$dir/plot-data", ['sweep.gp']);
  return (undef, "gnuplot exited with $rc: " . ($out =~ s/\s+/ /gr)) if $rc != 0;
  return (undef, 'gnuplot wrote no valid PNG') unless png_ok($png);
  return ($png);
}

sub write_text {
  my ($path, $text) = @_;
  open my $fh, '>:raw', $path or die "cannot write $path: $!\n";
  print {$fh} $text;
  close $fh or die "cannot write $path: $!\n";
}

1;
