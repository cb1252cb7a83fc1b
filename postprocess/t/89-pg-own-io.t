# PostgreSQL's own I/O beside its devices' (the "Device I/O" section, issue 38): the figures from
# hand-made proc_cpu.csv files whose pg_* columns are known against known device counters (a
# shared device warned of, an unshared one not, reads too few to judge), a results directory of
# an older kit without the columns, processes the monitor may not read, a kernel without the
# accounting, bad values, a restart; and bb-cpu-sampler's sums against processes of this test's
# own that read and write with O_DIRECT through dd, the dd reaped by them, and one of them reaped
# by the other (its I/O then in its parent's /proc/PID/io).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use POSIX ();
use Time::HiRes ();
use BBTest qw(write_file tmpdir valid_run run_report read_json analyze_dir slurp);

my $S = 1_000_000;
my $KIB = 1024;
my $MIB = 1024 * 1024;
my @GROUPS = qw(bh ce mee postgres monitor controller);
my @PG = qw(pg_read_bytes pg_write_bytes pg_cancelled_write_bytes pg_rchar pg_wchar pg_syscr
            pg_syscw pg_io_unreadable);

# A results directory: valid_run's MI [start, start + 50 s], and samples a second apart from 5 s
# before it, 0.25 s past each second (50 inside it, 49 s between the first and the last): one
# device, vda, holding data and WAL, doing %dev a second (requests of 8 KiB), and proc_cpu.csv
# whose PostgreSQL processes read and write %pg bytes a second. Options: old (no pg_* columns),
# empty (pg_* fields empty), unreadable => { sample index => count }, procs (default 20),
# drop => sample index from which the counters restart from 0, bad => a line with a bad value.
sub own_io_run {
  my ($d, %o) = @_;
  my $run = valid_run($d);
  my $from = $run->{start_us} - 5 * $S + 250_000;
  my %dev = (reads => 0, writes => 0, %{ $o{dev} // {} });
  my $disk = "time_us,device,reads,read_sectors,read_ms,writes,write_sectors,write_ms,io_ms\n";
  my $cpu = join(',', 'time_us', 'busy_us', 'total_us', 'softirq_us', map({ "${_}_us" } @GROUPS),
                 map({ "${_}_procs" } @GROUPS), $o{old} ? () : @PG) . "\n";
  for my $i (0 .. 60) {
    my $t = $from + $i * $S;
    $disk .= join(',', $t, 'vda', 1000 + $i * $dev{reads}, 8000 + $i * $dev{reads} * 16, 0,
                  2000 + $i * $dev{writes}, 9000 + $i * $dev{writes} * 16, 0, 0) . "\n";
    my $k = defined $o{drop} && $i >= $o{drop} ? $i - $o{drop} : $i + 1000;
    my @pg = map { $k * ($o{pg}{$_} // 0) } qw(read write cancelled rchar wchar syscr syscw);
    push @pg, $o{unreadable}{$i} // 0;
    @pg = ('') x @PG if $o{empty};
    $cpu .= join(',', $t, map({ 7e9 + $i * 1e6 } 1 .. 3), (7e9) x @GROUPS,
                 0, 0, 0, $o{procs} // 20, 1, 0, $o{old} ? () : @pg) . "\n";
    $cpu .= "$t," . join(',', (1) x 15) . ",x1,2,3,4,5,6,7,0\n" if $o{bad} && $i == 20;
  }
  write_file("$d/sys/db1/diskstats.csv", $disk);
  write_file("$d/sys/db1/proc_cpu.csv", $cpu);
  write_file("$d/sys/db1/io-devices.conf", join('', map { "$_\n" }
             'found_by=--pgdata', 'data_path=/srv/pg/data', 'wal_path=/srv/pg/data/pg_wal',
             'data_device=vda', 'data_major_minor=254:0', 'wal_device=vda',
             'wal_major_minor=254:0', 'data_and_wal=one device', 'devices=vda'));
  return $run;
}

sub own_of { my ($r) = @_; return $r->{device_io}{hosts}[0]{postgres_processes} // {} }

sub flat_report {
  my ($d) = @_;
  my $rep = run_report('--no-plots', $d);
  is($rep->{rc}, 0, 'bb-report exits 0') or diag $rep->{err};
  (my $flat = slurp("$d/report.txt")) =~ s/\s+/ /g;
  return $flat;
}

subtest 'a shared device: PostgreSQL made 90 % of its reads and 30 % of its writes' => sub {
  my $d = tmpdir();
  # The device: 90 reads (720 KiB) and 200 writes (1600 KiB) a second. PostgreSQL: 648 KiB read,
  # 640 KiB dirtied of which 160 KiB cancelled (480 KiB) and 500 KiB through write calls: at
  # most 480 KiB of writes, a second.
  own_io_run($d, dev => { reads => 90, writes => 200 },
             pg => { read => 648 * $KIB, write => 640 * $KIB, cancelled => 160 * $KIB,
                     rchar => 900 * $KIB, wchar => 500 * $KIB, syscr => 10, syscw => 30 });
  my $r = analyze_dir($d);
  my $o = own_of($r);
  ok($o && !$o->{why}, 'figures') or diag explain $o;
  is_deeply([@$o{qw(seconds processes read_bytes write_bytes cancelled_write_bytes written_bytes
                    rchar wchar syscr syscw write_bound_bytes write_bound_by)}],
            [49, 20, 49 * 648 * $KIB, 49 * 640 * $KIB, 49 * 160 * $KIB, 49 * 480 * $KIB,
             49 * 900 * $KIB, 49 * 500 * $KIB, 490, 1470, 49 * 480 * $KIB, 'write_bytes'],
            'over the 49 s between the first and the last sample inside the MI; the writes at '
            . 'most the pages dirtied, fewer than the write calls took');
  is_deeply([@$o{qw(from_us to_us)}],
            [@{ $r->{device_io}{hosts}[0]{devices}[0] }{qw(from_us to_us)}],
            "the device's samples");
  is_deeply($o->{devices}, ['vda'], 'against vda');
  is_deeply([map { sprintf('%.1f', $o->{$_}) } qw(read_share_pct write_share_pct)], ['90.0', '30.0'],
            'its shares of the reads and the writes');
  is_deeply([map { $o->{$_} / $KIB } qw(other_read_bytes other_write_bytes)], [49 * 72, 49 * 1120],
            "the rest: other processes'");
  ok($o->{shared}, 'shared');
  like($o->{warning}, qr/^the device was shared: PostgreSQL's processes made at most 30\.0 % of its writes \(under 80 %\)/,
       'a warning that names the direction under 80 %, and only it');
  my $flat = flat_report($d);
  like($flat, qr/PostgreSQL's own I\/O \(its processes' \/proc\/PID\/io, 20 at the end; the same 49 s\): Read from storage: 31\.0 MiB \(0\.6 MiB\/s; read_bytes\) = 90\.0 % of vda's reads Writes caused: at most 23\.0 MiB \(0\.5 MiB\/s\) = 30\.0 % of vda's writes: the smaller of what its write calls took \(wchar\) 23\.9 MiB and the pages it dirtied \(write_bytes - cancelled_write_bytes\) 30\.6 - 7\.7 = 23\.0 MiB Other processes': 3\.4 MiB read, at least 53\.6 MiB written \(the device's figures less PostgreSQL's\)/,
       'the lines of the section');
  like($flat, qr/Warning: the device was shared: PostgreSQL's processes made at most 30\.0 % of its writes \(under 80 %\); the rest was other processes' and the file system's own, so the device figures above overstate the database's I\/O\./,
       'the warning line');
  like($flat, qr/PostgreSQL's own I\/O: the kernel's accounting .* Read from storage: read_bytes, .*\(page-cache hits are not in it.* Writes caused: two counts, .* write_bytes - cancelled_write_bytes: .* counted when dirtied, .* counted by whole folio, .* wchar: the bytes their write calls took/,
       'and what each figure means, in the notes');
  my $json = read_json("$d/results.json");
  my $j = $json->{device_io}{hosts}[0]{postgres_processes};
  is_deeply([@$j{qw(read_bytes written_bytes shared)}], [49 * 648 * $KIB, 49 * 480 * $KIB, 1],
            'results.json: device_io.hosts[].postgres_processes');
  is(scalar @{ $r->{problems} }, 0, 'no input problem');
};

subtest 'a device of its own: no warning; reads too few to judge' => sub {
  my $d = tmpdir();
  # 1 read and 200 writes a second on the device: the reads are 0.5 % of its bytes, so
  # PostgreSQL's 0 % of them is not judged; its write calls' 95 % of the writes is over 80 %
  # (the pages it dirtied, whole large folios, ten times as many, are not the bound).
  own_io_run($d, dev => { reads => 1, writes => 200 },
             pg => { read => 0, write => 15200 * $KIB, wchar => 1520 * $KIB });
  my $o = own_of(analyze_dir($d));
  is_deeply([map { sprintf('%.1f', $o->{$_}) } qw(read_share_pct write_share_pct)], ['0.0', '95.0'],
            'shares');
  ok(defined $o->{shared} && !$o->{shared} && !$o->{warning}, 'not shared: no warning');
  my $flat = flat_report($d);
  unlike($flat, qr/Warning: the device was shared/, 'none in the report');
  is($o->{write_bound_by}, 'wchar', 'the writes at most what the write calls took');
  like($flat, qr/Writes caused: at most 72\.7 MiB \(1\.5 MiB\/s\) = 95\.0 % of vda's writes: the smaller of what its write calls took \(wchar\) 72\.7 MiB and the pages it dirtied \(write_bytes - cancelled_write_bytes\) 727\.3 - 0\.0 = 727\.3 MiB/,
       'the writes');

  # PostgreSQL dirtied more than the device wrote (written back after the interval).
  own_io_run($d, dev => { reads => 0, writes => 100 },
             pg => { write => 1000 * $KIB, wchar => 1200 * $KIB });
  $o = own_of(analyze_dir($d));
  is(sprintf('%.1f', $o->{write_share_pct}), '125.0', 'over 100 %: said as it is');
  ok(!defined $o->{read_share_pct}, 'no read on the device: no share of its reads');
  $flat = flat_report($d);
  like($flat, qr/= - of vda's reads \(the device did none\)/, 'said');
  like($flat, qr/Other processes': 0\.0 MiB read, none written \(PostgreSQL's figure is above the device's\)/,
       'no negative rest');
};

subtest 'a results directory of a kit before these columns' => sub {
  my $d = tmpdir();
  own_io_run($d, old => 1, dev => { reads => 90, writes => 200 });
  my $r = analyze_dir($d);
  like(own_of($r)->{why}, qr/^sys\/db1\/proc_cpu\.csv has no pg_read_bytes, .*pg_io_unreadable column: its monitor did not sample PostgreSQL's own I\/O/,
       'said why');
  is($r->{device_io}{hosts}[0]{devices}[0]{reads}, 49 * 90, 'the device figures as before');
  ok($r->{cpu}{hosts}[0]{groups}, 'the CPU figures too');
  is(scalar @{ $r->{problems} }, 0, 'no input problem');
  my $flat = flat_report($d);
  like($flat, qr/PostgreSQL's own I\/O: sys\/db1\/proc_cpu\.csv has no pg_read_bytes/, 'in the report');
  like($flat, qr/Requests, read \/ write 4410 \/ 9800 /, 'beside the device figures');
};

subtest 'processes the monitor may not read, no accounting, bad values, a restart' => sub {
  my $d = tmpdir();
  # Samples 5 and 54 are the first and the last inside the MI.
  own_io_run($d, dev => { reads => 90 }, pg => { read => $KIB }, unreadable => { 54 => 20 });
  my $o = own_of(analyze_dir($d));
  ok($o->{unreadable}, 'unreadable');
  is($o->{why}, "not readable by the monitor (not root, not the cluster's owner): 20 of its 20 "
                . "processes' /proc/PID/io refused at the interval's end", 'why');
  ok(!defined $o->{read_bytes}, 'and no figure');
  like(flat_report($d), qr/PostgreSQL's own I\/O: not readable by the monitor \(not root, not the cluster's owner\): 20 of its 20/,
       'the report says so');
  own_io_run($d, dev => { reads => 90 }, pg => { read => $KIB }, unreadable => { 5 => 3 });
  like(own_of(analyze_dir($d))->{why}, qr/^not readable .* 3 of its 20 processes' .* start$/,
       'one process of 20 refused is refused too: its sums lack it');
  own_io_run($d, dev => { reads => 90 }, pg => { read => $KIB }, unreadable => { 4 => 3, 55 => 1 });
  is(own_of(analyze_dir($d))->{read_bytes}, 49 * $KIB, 'refusals outside the interval do not matter');

  own_io_run($d, dev => { reads => 90 }, empty => 1);
  like(own_of(analyze_dir($d))->{why}, qr/^the kernel keeps no per-process I\/O accounting/,
       'empty columns: a kernel without the accounting');
  own_io_run($d, dev => { reads => 90 }, pg => { read => $KIB }, procs => 0);
  like(own_of(analyze_dir($d))->{why}, qr/^the monitor found no PostgreSQL process at the interval's start$/,
       'no PostgreSQL process');
  own_io_run($d, dev => { reads => 90 }, pg => { read => $KIB }, drop => 30);
  like(own_of(analyze_dir($d))->{why}, qr/^its counters went down in the interval \(the cluster restarted/,
       'a restart: not counted');

  own_io_run($d, dev => { reads => 90 }, pg => { read => $KIB }, bad => 1);
  my $r = analyze_dir($d);
  is(own_of($r)->{read_bytes}, 49 * $KIB, 'a bad line is skipped');
  my @p = map { "$_->{file}:$_->{line}: $_->{reason}" } @{ $r->{problems} };
  is_deeply(\@p, ["sys/db1/proc_cpu.csv:23: not a count in pg_read_bytes: 'x1'"],
            'and named by file, line, column and value') or diag explain \@p;
};

# --- bb-cpu-sampler against processes of this test's own -------------------------------------

my $SAMPLER = "$FindBin::RealBin/../bb-cpu-sampler";

sub touch { open my $fh, '>', $_[0] or die "$_[0]: $!"; close $fh }

sub wait_for {
  my ($path) = @_;
  for (1 .. 600) {
    return 1 if -e $path;
    Time::HiRes::sleep(0.05);
  }
  return 0;
}

# A process named postgres (its comm) running $body, which ends it; a signal ends it too.
sub postgres_process {
  my ($body) = @_;
  STDOUT->flush;
  STDERR->flush;
  my $pid = fork // die "fork: $!";
  return $pid if $pid;
  $0 = 'postgres';
  $SIG{TERM} = sub { POSIX::_exit(0) };
  $body->();
  POSIX::_exit(0);
}

# /proc/PID/io of a process as a hash.
sub proc_io {
  my ($pid) = @_;
  open my $fh, '<', "/proc/$pid/io" or return {};
  my %v = map { /\A(\w+):\s+(\d+)/ ? ($1 => $2) : () } <$fh>;
  return \%v;
}

# The last row of a sampler's run (2 samples, 1 s apart) as a hash. Through sh, so that the
# sampler's parent (which it counts as the monitor's) is not this test, the parent of the
# processes it must count as PostgreSQL's. @pre: a command to run it under.
sub sample_once {
  my ($out, $pgdata, @pre) = @_;
  my $rc = system(@pre, 'sh', '-c', '"$@"; exit $?', 'sh', $SAMPLER, $out, '--seconds', 1,
                  '--pgdata', $pgdata);
  return (undef, "exit $rc") if $rc;
  open my $fh, '<', $out or return (undef, "$out: $!");
  my @lines = <$fh>;
  chomp @lines;
  my @head = split /,/, $lines[0];
  my %row;
  @row{@head} = split /,/, $lines[-1], -1;
  return \%row;
}

subtest "bb-cpu-sampler sums the cluster's /proc/PID/io, reaped children included" => sub {
  plan skip_all => 'no /proc/self/io: this kernel keeps no per-process I/O accounting'
    unless -e '/proc/self/io';
  my $d = tmpdir();
  chmod 0755, $d;
  my $data = "$d/data";
  mkdir $data or die $!;
  chmod 0755, $data;
  my $dd = sub { system('dd', @_, 'bs=1M', 'status=none') == 0 };
  plan skip_all => "$d takes no O_DIRECT (dd oflag=direct failed)"
    unless $dd->('if=/dev/zero', "of=$d/in", 'count=8', 'oflag=direct');
  # The postmaster: writes postmaster.pid, starts a backend, and at "go" writes 4 MiB with
  # O_DIRECT through a dd it reaps; it reaps the backend when told. The backend reads the 8 MiB
  # file with O_DIRECT through a dd it reaps, and waits.
  my $pm = postgres_process(sub {
    my $backend = postgres_process(sub {
      wait_for("$d/go");
      $dd->("if=$d/in", 'of=/dev/null', 'iflag=direct') and touch("$d/backend-done");
      sleep 1 while 1;
    });
    open my $fh, '>', "$data/postmaster.pid" or die $!;
    print {$fh} "$$\n$data\n";
    close $fh;
    write_file("$d/backend.pid", $backend);
    chmod 0644, "$data/postmaster.pid";
    touch("$d/started");
    wait_for("$d/go");
    $dd->('if=/dev/zero', "of=$d/out", 'count=4', 'oflag=direct') and touch("$d/postmaster-done");
    wait_for("$d/stop-backend");
    kill 'TERM', $backend;
    waitpid($backend, 0);
    touch("$d/backend-reaped");
    sleep 1 while 1;
  });
  ok(wait_for("$d/started"), 'the postmaster started') or return kill('TERM', $pm);
  my ($before, $err) = sample_once("$d/s0.csv", $data);
  ok($before, 'the sampler ran') or diag $err;
  is($before->{postgres_procs}, 2, 'it found the postmaster and its backend (named postgres)');
  is($before->{pg_io_unreadable}, 0, 'and read both');

  touch("$d/go");
  ok(wait_for("$d/backend-done") && wait_for("$d/postmaster-done"), 'their dd ran');
  my $backend = slurp("$d/backend.pid");
  ok($backend, "the backend's pid");
  my ($pm_io, $be_io) = (proc_io($pm), proc_io($backend));
  # The kernel's part: each process's /proc/PID/io holds what the dd it reaped did.
  cmp_ok($be_io->{read_bytes}, '>=', 8 * $MIB, "the backend's read_bytes hold its reaped dd's 8 MiB");
  cmp_ok($pm_io->{write_bytes}, '>=', 4 * $MIB, "the postmaster's write_bytes hold its dd's 4 MiB");
  my ($after) = sample_once("$d/s1.csv", $data);
  # Both idle now: the sampler's sums are the two files' exactly.
  my @fields = qw(read_bytes write_bytes cancelled_write_bytes rchar wchar syscr syscw);
  is_deeply([map { $after->{"pg_$_"} } @fields], [map { $pm_io->{$_} + $be_io->{$_} } @fields],
            'the sampler: the sums of the two processes\' /proc/PID/io');
  my $read = $after->{pg_read_bytes} - $before->{pg_read_bytes};
  my $write = $after->{pg_write_bytes} - $before->{pg_write_bytes};
  ok($read >= 8 * $MIB && $read < 9 * $MIB, "8 MiB read in between (read $read)");
  ok($write >= 4 * $MIB && $write < 4 * $MIB + 256 * $KIB, "4 MiB written in between (wrote $write)");
  my $wchar = $after->{pg_wchar} - $before->{pg_wchar};
  ok($wchar >= 12 * $MIB && $wchar < 12 * $MIB + 64 * $KIB,
     "12 MiB through write calls: the 4 MiB file and the 8 MiB to /dev/null ($wchar)");

  if ($> == 0 && -x '/usr/bin/setpriv') {
    my $out = "$d/nobody";
    mkdir $out or die $!;
    chmod 0777, $out;
    my ($row, $e) = sample_once("$out/s.csv", $data, '/usr/bin/setpriv', '--reuid=65534',
                                '--regid=65534', '--clear-groups', '--');
    ok($row, 'as nobody, the sampler runs and exits 0') or diag $e;
    is_deeply([@$row{qw(postgres_procs pg_io_unreadable pg_read_bytes)}], [2, 2, 0],
              'it cannot read root\'s processes\' /proc/PID/io: says so, and sums nothing');
  } else {
    note('not root: the unreadable case is checked on fixtures only');
  }

  touch("$d/stop-backend");
  ok(wait_for("$d/backend-reaped"), 'the postmaster reaped the backend');
  my ($reaped) = sample_once("$d/s2.csv", $data);
  is($reaped->{postgres_procs}, 1, 'one process left');
  cmp_ok(proc_io($pm)->{read_bytes}, '>=', 8 * $MIB,
         "the postmaster's read_bytes now hold the 8 MiB its reaped backend's dd read");
  # Nothing lost; at most what paging in code the two had not run before read (a file mapped
  # in counts in read_bytes when the page cache had dropped it).
  my @moved = map { $reaped->{"pg_$_"} - $after->{"pg_$_"} } qw(read_bytes write_bytes wchar);
  ok(!(grep { $_ < 0 || $_ >= $MIB } @moved),
     "so the sums did not go down, nor up by more than that (@moved)");
  kill 'TERM', $pm;
  waitpid($pm, 0);
};

done_testing();
