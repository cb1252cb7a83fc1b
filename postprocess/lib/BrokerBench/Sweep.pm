package BrokerBench::Sweep;
# The report of a sweep (controller/sweep), of one of two kinds:
# - over users: runs with more and more users. SWEEP_DIR/runs.txt holds users<TAB>results_dir
#   per line; sweep.txt is a table of each run's TRTPS beside its Trade-Result 90th percentile,
#   its errors, retries and verdict, and sweep.png the same against users, a panel each;
# - over memory (run --db-memory, issue 38): one run per cap of the database's memory at fixed
#   users. runs.txt holds cap<TAB>results_dir (the cap as --db-memory took it: 25%, 512M);
#   sweep.txt is a table of each run's cap, TRTPS, Trade-Result 90th percentile, reads of the
#   data device per transaction and per second, buffer hit ratio, the cgroup's peak, verdict
#   and errors, and sweep.png TRTPS, the 90th percentile and the device reads against the cap.
# Every figure comes from each run's results.json; the data and the gnuplot script are beside
# the plot in SWEEP_DIR/plot-data/.
use strict;
use warnings;
use Exporter 'import';
use File::Path qw(make_path);
use File::Spec;
use JSON::PP ();
use BrokerBench::Gnuplot qw(png_ok terminal run_gnuplot);
use BrokerBench::Render qw(text_table);
use BrokerBench::Spec qw(@ALL_CODES @ERROR_OUTCOMES);

our @EXPORT_OK = qw(sweep_report run_figures progress is_memory_cap);

# run_figures($results_json) -> the figures of one run the sweep shows: trtps (measured),
# p90_ms (Trade-Result), errors, invalid and retries (every type, in the MI), error_list
# ("TR retry_exhausted 107", ...), verdict, reasons; and for a sweep over memory: run_users,
# pacing_s, cap_request (run.conf db_memory), cap_bytes, database_bytes, peak_bytes, oom_kills
# (the memory cgroup's), dev_reads_per_txn and dev_reads_per_s (of the data directory's
# devices in the MI; dev_why when there are none), hit_ratio_pct (PostgreSQL's, in the MI).
# Reads results.json v2 and v1.
sub run_figures {
  my ($j) = @_;
  my $T  = $j->{transactions} // {};
  my $tr = $T->{TR} // {};
  my $s  = $j->{settings} // {};
  my %f = (
    trtps   => $j->{trtps}{measured_tpse} // $j->{trtps}{measured},
    p90_ms  => $tr->{response_time_p90_ms} // (defined $tr->{p90_s} ? 1000 * $tr->{p90_s} : undef),
    verdict => $j->{verdict}{text},
    reasons => scalar @{ $j->{verdict}{reasons} // [] },
    errors  => 0, invalid => 0, retries => 0, error_list => [],
    run_users      => $s->{users},
    pacing_s       => $s->{pacing_s},
    cap_request    => $s->{db_memory},
    cap_bytes      => $s->{db_memory_bytes},
    database_bytes => $s->{db_memory_database_bytes},
    peak_bytes     => $s->{db_memory_peak_bytes},
    oom_kills      => $s->{db_memory_oom_kills},
    hit_ratio_pct  => ($j->{device_io}{postgres}{hit} // {})->{hit_ratio_pct},
    device_reads($j->{device_io}),
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

# The reads of the data directory's devices (DeviceIo.pm: the devices whose role includes data,
# on every host) in the MI, per transaction and per second; or why there are none.
sub device_reads {
  my ($dio) = @_;
  return (dev_why => 'no device_io in results.json (a report before the Device I/O section)')
    unless $dio;
  return (dev_why => $dio->{why}) if $dio->{why};
  my @hosts = @{ $dio->{hosts} // [] };
  my @data = grep { ($_->{role} // '') =~ /\bdata\b/ && defined $_->{reads_per_txn} }
             map { @{ $_->{devices} // [] } } @hosts;
  unless (@data) {
    my ($why) = grep { defined } map { $_->{data_why} // $_->{samples_why} // $_->{why} } @hosts;
    return (dev_why => $why // 'no data device was sampled');
  }
  my ($per_txn, $per_s) = (0, 0);
  for my $d (@data) {
    $per_txn += $d->{reads_per_txn};
    $per_s += $d->{reads_per_s} // 0;
  }
  return (dev_reads_per_txn => $per_txn, dev_reads_per_s => $per_s);
}

# is_memory_cap($text): whether runs.txt's first column is a cap of the database's memory as
# run --db-memory takes it (25%, 0.5%, 512M, 1.5GiB), not a number of users.
sub is_memory_cap {
  my ($t) = @_;
  return $t =~ /\A\d+(?:\.\d+)?%\z/ || $t =~ /\A\d+(?:\.\d+)?[KkMmGgTt](?:i?B)?\z/;
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
  my (@runs, @problems, $kind);
  my $n = 0;
  while (my $line = <$fh>) {
    $n++;
    $line =~ s/\r?\n\z//;
    next if $line =~ /\A\s*(#|\z)/;
    my ($key, $results) = split /\t/, $line, 2;
    my $this = !defined $results ? undef
             : $key =~ /\A\d+\z/ ? 'users' : is_memory_cap($key) ? 'memory' : undef;
    unless ($this) {
      push @problems, "$list:$n: not 'users<TAB>results_dir' or 'cap<TAB>results_dir' (a cap "
                      . "such as 25% or 512M): '$line'";
      next;
    }
    $kind //= $this;
    if ($this ne $kind) {
      push @problems, "$list:$n: a run of a sweep over $this in a sweep over $kind: '$line' "
                      . '(skipped)';
      next;
    }
    my $path = File::Spec->file_name_is_absolute($results) || -d $results ? $results
                                                                          : "$dir/$results";
    my $run = { ($kind eq 'users' ? (users => $key + 0) : (cap => $key)), results => $results };
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
  my $memory = $kind eq 'memory';
  write_text("$dir/sweep.txt", $memory ? memory_text(\@runs, \@problems)
                                       : sweep_text(\@runs, \@problems));
  my ($png, $plot_note) = $memory ? memory_plot($dir, \@runs) : sweep_plot($dir, \@runs);
  return ({ kind => $kind, txt => "$dir/sweep.txt", png => $png, plot_note => $plot_note,
            runs => \@runs, problems => \@problems });
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

# --- a sweep over memory ------------------------------------------------------------------

sub mib { defined $_[0] ? sprintf('%.1f', $_[0] / 1048576) : 'n/a' }

# sweep.txt of a sweep over memory: what was held fixed, then a row per run in the sweep's
# order, then each run's errors and what the columns are.
sub memory_text {
  my ($runs, $problems) = @_;
  my ($first) = grep { defined $_->{verdict} } @$runs;
  my $txt = "A sweep over the database's memory: one run per cap (run --db-memory), each a cold "
            . "start of the\nembedded cluster in a memory cgroup of that size, on the same "
            . "loaded database";
  if ($first) {
    my %users = map { ($_->{run_users} // '?') => 1 } grep { defined $_->{verdict} } @$runs;
    my %pacing = map { ($_->{pacing_s} // '?') => 1 } grep { defined $_->{verdict} } @$runs;
    $txt .= sprintf(",\nat %s users, pacing %s s", join(' or ', sort keys %users),
                    join(' or ', sort keys %pacing));
    $txt .= sprintf(' (the database %.1f MiB at the first run)', $first->{database_bytes} / 1048576)
      if $first->{database_bytes};
    $txt .= '; THE RUNS DIFFER IN USERS OR PACING' if keys %users > 1 || keys %pacing > 1;
  }
  $txt .= ".\n\n";
  my @head = ('Cap', 'Cap (MiB)', 'Of DB', 'TRTPS', 'TR p90 (ms)', 'Reads/txn', 'Reads/s',
              'Hit %', 'Peak (MiB)', 'OOM kills', 'Errors', 'Verdict', 'Results');
  my @rows = map {
    my $r = $_;
    my $known = defined $r->{verdict};
    my $of = $r->{cap_bytes} && $r->{database_bytes}
             ? sprintf('%.1f %%', 100 * $r->{cap_bytes} / $r->{database_bytes}) : 'n/a';
    my $f = sub { my ($fmt, $v) = @_; defined $v ? sprintf($fmt, $v) : 'n/a' };
    [$r->{cap}, mib($r->{cap_bytes}), $of, $f->('%.2f', $r->{trtps}), $f->('%.1f', $r->{p90_ms}),
     $f->('%.2f', $r->{dev_reads_per_txn}), $f->('%.1f', $r->{dev_reads_per_s}),
     $f->('%.2f', $r->{hit_ratio_pct}), mib($r->{peak_bytes}), $r->{oom_kills} // 'n/a',
     $known ? $r->{errors} + $r->{invalid} : '-',
     !$known ? 'no report' : $r->{reasons} ? "$r->{verdict} ($r->{reasons})" : $r->{verdict},
     $r->{results}]
  } @$runs;
  $txt .= text_table({ head => \@head, rows => \@rows,
                       align => [qw(l r r r r r r r r r r l l)] }) =~ s/^  //mgr;
  my @errs = grep { @{ $_->{error_list} // [] } } @$runs;
  $txt .= "\nErrors and invalid transactions in the MI:\n"
          . join('', map { "  $_->{cap}: " . join(', ', @{ $_->{error_list} }) . "\n" } @errs)
    if @errs;
  my @nodev = grep { defined $_->{verdict} && !defined $_->{dev_reads_per_txn} } @$runs;
  $txt .= "\nNo device reads:\n" . join('', map { "  $_->{cap}: $_->{dev_why}\n" } @nodev)
    if @nodev;
  my @mismatch = grep { defined $_->{cap_request} && $_->{cap_request} ne $_->{cap} } @$runs;
  $txt .= "\nRuns whose run.conf gives another cap than runs.txt:\n"
          . join('', map { "  $_->{cap}: db_memory=$_->{cap_request}\n" } @mismatch) if @mismatch;
  $txt .= "\nCap = --db-memory as given (a share of the loaded database, or a size);\n"
          . "Cap (MiB) = the memory cgroup's limit, and Of DB its share of pg_database_size at "
          . "the run's start\n(run.conf db_memory_bytes, db_memory_database_bytes);\n"
          . "TRTPS = valid Trade-Results in the MI / MI seconds;\n"
          . "TR p90 = the Trade-Result 90th-percentile response time (nearest rank);\n"
          . "Reads/txn and Reads/s = read requests of the data directory's block device(s) in "
          . "the MI\n(/proc/diskstats), per customer transaction and per second (the report's "
          . "Device I/O);\nHit % = PostgreSQL's buffer hit ratio in the MI (pg_stat_database: "
          . "a read from the page cache\nis a miss here too);\n"
          . "Peak = the cgroup's peak usage, its page cache included; OOM kills = its "
          . "out-of-memory kills;\nErrors = errors and invalid transactions of every type in "
          . "the MI; Verdict (N) = INVALID for N reasons.\n";
  $txt .= "\nProblems:\n" . join('', map { "  $_\n" } @$problems) if @$problems;
  return $txt;
}

# sweep.png of a sweep over memory: against the cap (MiB, a tick at each run named by its
# --db-memory), TRTPS (VALID runs green, INVALID red, a ring where the cgroup killed a process
# for want of memory), the Trade-Result 90th percentile, and the
# data device's reads per transaction with PostgreSQL's hit ratio. Returns ($png) or (undef,
# why not).
sub memory_plot {
  my ($dir, $runs) = @_;
  my $png = "$dir/sweep.png";
  unlink $png;
  my @pts = sort { $a->{cap_bytes} <=> $b->{cap_bytes} }
            grep { defined $_->{trtps} && $_->{cap_bytes} } @$runs;
  return (undef, 'no run has a measured TRTPS and a memory cap') unless @pts;
  make_path("$dir/plot-data");
  my $num = sub { defined $_[0] ? sprintf($_[1], $_[0]) : 'NaN' };
  write_text("$dir/plot-data/sweep.dat",
             "# cap_MiB  TRTPS_measured  TR_p90_ms  device_reads_per_txn  hit_ratio_pct  "
             . "valid (1: VALID)  cap_bytes  oom_kills  cap  (NaN: none)\n"
             . join('', map { sprintf("%.3f %.4f %s %s %s %d %d %s %s\n", $_->{cap_bytes} / 1048576,
                                      $_->{trtps}, $num->($_->{p90_ms}, '%.3f'),
                                      $num->($_->{dev_reads_per_txn}, '%.4f'),
                                      $num->($_->{hit_ratio_pct}, '%.3f'),
                                      ($_->{verdict} // '') eq 'VALID' ? 1 : 0, $_->{cap_bytes},
                                      $num->($_->{oom_kills}, '%d'), $_->{cap}) } @pts));
  my $logx = $pts[-1]{cap_bytes} / $pts[0]{cap_bytes} >= 4;
  # A tick label is a format: a percent sign doubled. Caps are digits, a dot, a unit or %.
  my $xtics = join(', ', map { sprintf('"%s\\n%.0f MiB" %.3f', $_->{cap} =~ s/%/%%/gr,
                                       $_->{cap_bytes} / 1048576, $_->{cap_bytes} / 1048576) }
                         @pts);
  my $dev = grep { defined $_->{dev_reads_per_txn} } @pts;
  my $hit = grep { defined $_->{hit_ratio_pct} } @pts;
  my $oom = grep { $_->{oom_kills} } @pts;
  my $term = terminal('gnuplot');
  my $panel = "set lmargin 12\nset rmargin 30\n";
  # Under the last panel only: the tick labels take two lines.
  my $xlabel = "set xlabel 'memory cap of the database (--db-memory at each tick)' offset 0,-0.5\n";
  my $third = '';
  if ($dev) {
    $third = $panel . $xlabel . "set title 'Reads of the data device per transaction (and the buffer "
             . "hit ratio of PostgreSQL)'\nset ylabel 'device reads / transaction'\n"
             . ($hit ? "set y2label 'hit ratio (%)'\nset y2tics\nset ytics nomirror\n" : '')
             . "plot 'sweep.dat' using 1:4 with linespoints pt 7 lw 2 lc rgb '#9467bd' "
             . "title 'device reads/txn'"
             . ($hit ? ", \\\n     '' using 1:5 axes x1y2 with linespoints pt 5 lw 1 dt 2 "
                       . "lc rgb '#7f7f7f' title 'hit ratio %'" : '') . "\n";
  }
  write_text("$dir/plot-data/sweep.gp", join('',
    "# Re-plot by hand: cd plot-data && gnuplot sweep.gp\n",
    "set terminal $term size 1000,", ($dev ? 900 : 620), " noenhanced",
    ($term eq 'pngcairo' ? " font ',10'" : ''), "\n",
    "set output '../sweep.png'\n",
    "set grid\nset key outside right top\n",
    ($logx ? "set logscale x 2\n" : ''),
    "set xtics ($xtics)\n",
    "set offsets graph 0.05, graph 0.05, 0, 0\n",
    "set multiplot layout ", ($dev ? 3 : 2), ",1 title 'A sweep over the memory of the database: ",
    "throughput, Trade-Result response time", ($dev ? ' and device reads' : ''),
    " against the cap'\n",
    $panel, "set title 'Throughput'\nset ylabel 'TRTPS (measured)'\nset yrange [0:*]\n",
    "plot 'sweep.dat' using 1:2 with lines lw 2 lc rgb '#1f77b4' notitle, \\\n",
    "     '' using 1:(\$6 == 1 ? \$2 : NaN) with points pt 7 ps 1.5 lc rgb '#2ca02c' ",
    "title 'VALID', \\\n",
    "     '' using 1:(\$6 == 0 ? \$2 : NaN) with points pt 7 ps 1.5 lc rgb '#d62728' ",
    "title 'INVALID'", ($oom ? ", \\\n     '' using 1:(\$8 > 0 ? \$2 : NaN) with points pt 6 ps 3 lw 2 "
                        . "lc rgb 'black' title 'OOM kill(s)'" : ''), "\n",
    $panel, "set title 'Trade-Result 90th percentile'\nset ylabel 'response time (ms)'\n",
    ($dev ? '' : $xlabel),
    "plot 'sweep.dat' using 1:3 with linespoints pt 5 lw 2 lc rgb '#7f7f7f' title 'TR p90'\n",
    $third,
    "unset multiplot\n"));
  my ($rc, $out) = run_gnuplot('gnuplot', "$dir/plot-data", ['sweep.gp']);
  return (undef, "gnuplot exited with $rc: " . ($out =~ s/\s+/ /gr)) if $rc != 0;
  return (undef, 'gnuplot wrote no valid PNG') unless png_ok($png);
  return ($png, $dev ? undef : 'no run has reads of a data device: no panel of them');
}

sub write_text {
  my ($path, $text) = @_;
  open my $fh, '>:raw', $path or die "cannot write $path: $!\n";
  print {$fh} $text;
  close $fh or die "cannot write $path: $!\n";
}

1;
