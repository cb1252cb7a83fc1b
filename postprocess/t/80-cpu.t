# "Where the CPU went": the figures from hand-made proc_cpu.csv files whose per-second CPU is
# known, the harness warning on the database's host, bad lines, and postprocess/bb-cpu-sampler
# itself against /proc.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use Time::HiRes ();
use BBTest qw(write_file tmpdir valid_run run_report read_json analyze_dir);

my $S = 1_000_000;
my @GROUPS = qw(bh ce mee postgres monitor controller);

# proc_cpu.csv with one sample a second from $from_us for $n seconds; %per_s: CPU µs per
# second of busy, total, softirq and each group (missing: 0). $bad adds a corrupt line.
sub proc_cpu {
  my ($path, $from_us, $n, %per_s) = @_;
  my $text = join(',', 'time_us', 'busy_us', 'total_us', 'softirq_us', map({ "${_}_us" } @GROUPS),
                  map({ "${_}_procs" } @GROUPS)) . "\n";
  my $base = 7_000_000_000;  # cumulative counters do not start at 0
  for my $i (0 .. $n) {
    $text .= join(',', $from_us + $i * $S,
                  map({ $base + $i * ($per_s{$_} // 0) } 'busy', 'total', 'softirq', @GROUPS),
                  (1) x @GROUPS) . "\n";
    $text .= "$from_us,garbage\n" if $per_s{bad} && $i == 3;
  }
  write_file($path, $text);
}

subtest 'figures of one host, and the warning above 10 %' => sub {
  my $d = tmpdir();
  my $run = valid_run($d);  # 1000 transactions in an MI of 50 s
  proc_cpu("$d/sys/db1/proc_cpu.csv", $run->{start_us} - 5 * $S, 60,
           busy => 1_500_000, total => 2_000_000, softirq => 100_000, bh => 200_000,
           ce => 50_000, mee => 50_000, postgres => 1_000_000, monitor => 10_000,
           controller => 10_000);
  my $r = analyze_dir($d);
  my ($h) = @{ $r->{cpu}{hosts} };
  is($h->{host}, 'db1', 'the host');
  ok($h->{database_host}, 'is the database host (it runs PostgreSQL)');
  is($h->{samples_in_mi}, 51, 'samples inside the MI');
  is($h->{seconds}, 50, 'from the first to the last of them');
  is($h->{transactions}, 1000, 'every row that started in between');
  is(sprintf('%.3f', $h->{groups}{bh}{cores}), '0.200', 'BH cores');
  is(sprintf('%.2f', $h->{groups}{bh}{share_pct}), '13.33', 'BH share of busy CPU');
  is(sprintf('%.1f', $h->{groups}{bh}{us_per_txn}), '10000.0', 'BH µs per transaction');
  is(sprintf('%.2f', $h->{harness}{share_pct}), '20.00', 'harness = BH + CE + MEE');
  is(sprintf('%.1f', $h->{groups}{postgres}{us_per_txn}), '50000.0', 'PostgreSQL µs per transaction');
  is(sprintf('%.2f', $h->{unattributed}{share_pct}), '12.00', 'the rest of busy');
  is(sprintf('%.1f', $h->{cores}), '2.0', 'the host has 2 cores');
  is(sprintf('%.2f', $r->{cpu}{harness_share_pct}), '20.00', 'the harness share of the database host');
  like($r->{cpu}{warning}, qr/used 20\.0 % of the database host's busy CPU \(over 10 %\)/, 'a warning');
  my $rep = run_report('--no-plots', $d);
  is($rep->{rc}, 0, 'bb-report exits 0');
  like($rep->{out}, qr/^Warning: the harness .* 20\.0 %/m, 'the warning is in the headline');
  my $txt = do { open my $fh, '<', "$d/report.txt"; local $/; <$fh> };
  like($txt, qr/Where the CPU went\n-+\n/, 'the section is there');
  like($txt, qr/^> harness \(the three above\)\s+0\.300\s+20\.0 %\s+15000\.0$/m,
       'the harness row stands out on the database host');
  like($txt, qr/^  Brokerage House\s+0\.200\s+13\.3 %\s+10000\.0$/m, 'the BH row');
  my $json = read_json("$d/results.json");
  is(scalar(grep { /\Athe harness / } @{ $json->{headline}{warnings} }), 1,
     'results.json has the warning (beside the short ramp-up\'s)');
  is($json->{cpu}{hosts}[0]{groups}{ce}{cores}, 0.05, 'and the figures');
  my $html = do { open my $fh, '<', "$d/report.html"; local $/; <$fh> };
  like($html, qr{<strong>harness \(the three above\)</strong>}, 'bold in the HTML');
};

subtest 'below 10 % no warning; the database host is the one running PostgreSQL' => sub {
  my $d = tmpdir();
  my $run = valid_run($d);
  proc_cpu("$d/sys/ce1/proc_cpu.csv", $run->{start_us} - 5 * $S, 60,
           busy => 500_000, total => 2_000_000, ce => 400_000);
  proc_cpu("$d/sys/db1/proc_cpu.csv", $run->{start_us} - 5 * $S, 60,
           busy => 1_500_000, total => 2_000_000, bh => 50_000, mee => 10_000,
           postgres => 1_400_000);
  my $r = analyze_dir($d);
  is($r->{cpu}{database_host}, 'db1', 'db1 is the database host');
  is(sprintf('%.1f', $r->{cpu}{harness_share_pct}), '4.0', 'its harness share, 4 %');
  ok(!$r->{cpu}{warning}, 'no warning (the CE host is at 80 %, but it is not the database)');
  my ($ce) = grep { $_->{host} eq 'ce1' } @{ $r->{cpu}{hosts} };
  is(sprintf('%.0f', $ce->{harness}{share_pct}), '80', 'the CE host has its own figures');
  ok(!$ce->{database_host}, 'and is not the database host');
};

subtest 'a corrupt line is named; missing samples are said' => sub {
  my $d = tmpdir();
  my $run = valid_run($d);
  proc_cpu("$d/sys/db1/proc_cpu.csv", $run->{start_us} - 5 * $S, 60,
           busy => 1_000_000, total => 2_000_000, postgres => 900_000, bad => 1);
  write_file("$d/sys/late/proc_cpu.csv", "time_us,busy_us\n1,2\n");
  my $r = analyze_dir($d);
  my @p = map { "$_->{file}:$_->{line}: $_->{reason}" } @{ $r->{problems} };
  ok((grep { m{^sys/db1/proc_cpu\.csv:6: not a count in busy_us: 'garbage'} } @p), 'the bad line, by file and line')
    or diag explain \@p;
  ok((grep { m{^sys/late/proc_cpu\.csv:0: missing columns: total_us} } @p), 'a file without the columns');
  is($r->{verdict}{text}, 'VALID', 'neither makes the run invalid');
  my ($h) = @{ $r->{cpu}{hosts} };
  is($h->{samples_in_mi}, 51, 'the good lines are read');
};

subtest 'bb-cpu-sampler agrees with /proc' => sub {
  my $sampler = "$FindBin::RealBin/../bb-cpu-sampler";
  # A process that burns CPU until killed, standing in for the run controller.
  my $pid = fork();
  die "fork: $!" unless defined $pid;
  if (!$pid) { my $x = 0; $x++ while 1; exit 0 }
  my $cpu_of = sub {
    open my $fh, '<', "/proc/$pid/stat" or return;
    my $s = <$fh>;
    my @f = split ' ', substr($s, rindex($s, ')') + 2);
    return ($f[11] + $f[12] + $f[13] + $f[14]) * 1e6 / 100;
  };
  my $dir = tmpdir();
  my $before = $cpu_of->();
  system($sampler, "$dir/p.csv", '--controller-pid', $pid, '--seconds', 2) == 0
    or fail("bb-cpu-sampler failed: $?");
  my $after = $cpu_of->();
  kill 'KILL', $pid;
  waitpid $pid, 0;
  open my $fh, '<', "$dir/p.csv" or die "$dir/p.csv: $!";
  chomp(my $head = <$fh>);
  my @names = split /,/, $head;
  my %at;
  @at{@names} = 0 .. $#names;
  my @rows = map { chomp; [split /,/] } <$fh>;
  is(scalar @rows, 3, 'one sample a second, the first at once');
  my @c = map { $_->[ $at{controller_us} ] } @rows;
  ok($c[0] >= $before - 10_000 && $c[-1] <= $after + 10_000,
     "the controller's CPU lies between /proc before and after ($before <= @c <= $after)");
  ok($c[-1] - $c[0] > 500_000, 'and grew by more than 0.5 s of CPU in 2 s');
  ok($rows[-1][ $at{busy_us} ] > $rows[0][ $at{busy_us} ], 'busy grows');
  is($rows[0][ $at{controller_procs} ], 1, 'one controller process');
  is(system("$sampler --seconds 0 $dir/x.csv 2>/dev/null") >> 8, 2, 'a bad option exits 2');
};

subtest 'bb-cpu-sampler: --pgdata and --programs-under keep only our cluster and our kit' => sub {
  my $sampler = "$FindBin::RealBin/../bb-cpu-sampler";
  my $dir = tmpdir();
  # Stand-ins named as the sampler looks for them: copies of sleep(1) (a process is named
  # after its program's file) for backends and Brokerage Houses, and a script named postgres
  # (a script's process is named after it) for a postmaster with one backend as its child:
  # two "clusters" and the Brokerage House of two "kits".
  my $sleep = (grep { -x } '/bin/sleep', '/usr/bin/sleep')[0] // die 'no sleep(1)';
  my $copy = sub {
    my ($to) = @_;
    system('cp', $sleep, $to) == 0 or die "cp $sleep $to: $?";
  };
  my @pids;
  my $start = sub {
    my $pid = fork();
    die "fork: $!" unless defined $pid;
    if (!$pid) { exec @_ or die "exec @_: $!" }
    push @pids, $pid;
    return $pid;
  };
  for my $c (qw(ours theirs)) {
    mkdir $_ for map { "$dir/$c/$_" } '', qw(backend data build);
    $copy->("$dir/$c/backend/postgres");
    write_file("$dir/$c/postgres",
               "#!/bin/sh\n\"$dir/$c/backend/postgres\" 20 &\ntrap 'kill \$!; exit 0' TERM\nwait\n");
    chmod 0755, "$dir/$c/postgres" or die "chmod: $!";
    my $pm = $start->("$dir/$c/postgres");
    write_file("$dir/$c/data/postmaster.pid", "$pm\n$dir/$c/data\n");
    $copy->("$dir/$c/build/bb-brokerage-house");
    $start->("$dir/$c/build/bb-brokerage-house", 20);
  }
  Time::HiRes::sleep(0.3);    # the backends started
  system("ps -o pid,ppid,comm,args --ppid $$ >&2; ls -la $dir/ours/build >&2");
  my $read = sub {
    my ($csv) = @_;
    open my $fh, '<', $csv or die "$csv: $!";
    chomp(my $head = <$fh>);
    my @names = split /,/, $head;
    my @last = map { chomp; split /,/ } (<$fh>)[-1];
    my %row;
    @row{@names} = @last;
    return \%row;
  };
  # The sampler's parent is the monitor, whose children are the monitor's: a shell in between.
  my $sample = sub {
    system('sh', '-c', '"$0" "$@"; exit $?', $sampler, @_) == 0 or fail("cpu-sampler @_: $?");
  };
  $sample->("$dir/all.csv", '--seconds', 1);
  # The build named through a symbolic link: the programs' real paths still lie under it.
  symlink("$dir/ours/build", "$dir/ours-build") or die "symlink: $!";
  $sample->("$dir/ours.csv", '--seconds', 1, '--pgdata', "$dir/ours/data",
            '--programs-under', "$dir/ours-build/");
  unlink "$dir/ours/data/postmaster.pid";    # the cluster stopped
  $sample->("$dir/gone.csv", '--seconds', 1, '--pgdata', "$dir/ours/data");
  kill 'TERM', @pids;
  waitpid $_, 0 for @pids;
  my ($all, $ours, $gone) = map { $read->("$dir/$_.csv") } qw(all ours gone);
  cmp_ok($all->{postgres_procs}, '>=', 4, 'without --pgdata: every postgres process on the host');
  cmp_ok($all->{bh_procs}, '>=', 2, 'without --programs-under: every Brokerage House');
  is($ours->{postgres_procs}, 2, '--pgdata: its postmaster and its backend only');
  is($ours->{bh_procs}, 1, '--programs-under: the Brokerage House of that build only');
  is($gone->{postgres_procs}, 0, 'no postmaster.pid: no postgres process counted');
  is(system("$sampler $dir/x.csv --pgdata $dir/nowhere 2>/dev/null") >> 8, 2,
     'a --pgdata that is not a directory exits 2');
};

done_testing();
