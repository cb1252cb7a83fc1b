# "Device I/O" (issue 38): the diskstats reader and its differences on hand-made counters (a
# partition, a device-mapper device, a counter wrap, a device made anew, a missing sample, bad
# lines), the report section from a results directory whose device and PostgreSQL figures are
# known, pg_stat_io by process from the real servers' snapshots, and bb-cpu-sampler's diskstats
# rows against /proc/diskstats.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use BBTest qw(write_file tmpdir valid_run run_report read_json analyze_dir slurp);
use BrokerBench::DiskStats qw(read_diskstats interval_steps sum_steps);
use BrokerBench::PgIo qw(postgres_io);
use BrokerBench::Gnuplot qw(png_ok);

my $S = 1_000_000;
my $HEAD = "time_us,device,reads,read_sectors,read_ms,writes,write_sectors,write_ms,io_ms\n";

# Rows of one device from $from_us, a second apart, for $n seconds: %per_s is each counter's
# growth a second, %base its first value (default 1000 each: cumulative counters do not start
# at 0). skip => [seconds without a row]; wrap => [counter, its first value] starts that
# counter just below 2^32.
sub device_rows {
  my ($device, $from_us, $n, %o) = @_;
  my @c = qw(reads read_sectors read_ms writes write_sectors write_ms io_ms);
  my %skip = map { $_ => 1 } @{ $o{skip} // [] };
  my $text = '';
  for my $i (0 .. $n) {
    next if $skip{$i};
    $text .= join(',', $from_us + $i * $S, $device,
                  map { (($o{base}{$_} // 1000) + $i * ($o{per_s}{$_} // 0)) % 2**32 } @c) . "\n";
  }
  return $text;
}

subtest 'the reader: partitions, device-mapper, a wrap, a device made anew, bad lines' => sub {
  my $d = tmpdir();
  my $t0 = 1_800_000_000 * $S;
  write_file("$d/diskstats.csv", $HEAD
             . device_rows('vda1', $t0, 10, per_s => { reads => 100, read_sectors => 1600 })
             . device_rows('dm-0', $t0, 10, per_s => { writes => 40, write_ms => 40 },
                           base => { write_ms => 2**32 - 100 }, skip => [4])
             . "$t0,vda1,1,2,3\n"
             . "$t0,vda1,1,2,3,4,5,6,x7\n"
             . ($t0 + 3 * $S) . ",nvme0n1p2,1,2,3,4,5,6,7\n"
             . ($t0 + 2 * $S) . ",nvme0n1p2,1,2,3,4,5,6,7\n"
             . "oops,vda1,1,2,3,4,5,6,7\n");
  my @p;
  my ($ds, $err) = read_diskstats("$d/diskstats.csv", 'sys/h/diskstats.csv', sub { push @p, $_[0] });
  ok($ds, 'read') or diag $err;
  is_deeply([sort keys %{ $ds->{devices} }], [qw(dm-0 nvme0n1p2 vda1)],
            'a partition and a device-mapper device, by their kernel names');
  is_deeply([map { "$_->{file}:$_->{line}: $_->{reason}" } @p],
            ['sys/h/diskstats.csv:23: 5 fields, not 9',
             "sys/h/diskstats.csv:24: not a count in io_ms: 'x7'",
             'sys/h/diskstats.csv:26: time_us ' . ($t0 + 2 * $S) . " is not after the device's "
             . 'previous sample (' . ($t0 + 3 * $S) . ')',
             "sys/h/diskstats.csv:27: not a time in microseconds in time_us: 'oops'"],
            'each bad line named by file, line and what is wrong with it');
  is($p[0]{text}, "$t0,vda1,1,2,3", 'with its text');

  my $s = sum_steps(interval_steps($ds->{devices}{vda1}, $t0, $t0 + 10 * $S));
  is_deeply([@$s{qw(seconds steps reads read_sectors writes wraps restarts)}],
            [10, 10, 1000, 16000, 0, 0, 0], 'vda1: 10 s, 100 reads and 800 KiB a second');
  $s = sum_steps(interval_steps($ds->{devices}{vda1}, $t0 + 2 * $S, $t0 + 5.5 * $S));
  is_deeply([@$s{qw(seconds reads)}], [3, 300], 'only the steps between samples in the interval');

  $s = sum_steps(interval_steps($ds->{devices}{'dm-0'}, $t0, $t0 + 10 * $S));
  is($s->{wraps}, 1, 'dm-0: write_ms went down from just below 2^32: one wrap');
  is($s->{write_ms}, 400, 'and its 40 ms a second are counted across it');
  is_deeply([@$s{qw(seconds steps writes)}], [10, 9, 400],
            'the missing sample: 9 steps, the one across the gap 2 s long, nothing lost');

  # A device made anew: its counters restart near 0 from values above 2^32, or from below with
  # a step that no wrap in a second explains.
  my $big = [[$t0, (5 * 2**32) x 7], [$t0 + $S, (5 * 2**32 + 10) x 7], [$t0 + 2 * $S, (3) x 7],
             [$t0 + 3 * $S, (13) x 7]];
  $s = sum_steps(interval_steps($big, $t0, $t0 + 3 * $S));
  is_deeply([@$s{qw(restarts restart_seconds seconds reads wraps)}], [1, 1, 2, 20, 0],
            'a 64-bit counter going down is a restart: its step not counted, the others are');
  my $small = [[$t0, (1_000_000_000) x 7], [$t0 + $S, (5) x 7]];
  is(sum_steps(interval_steps($small, $t0, $t0 + $S))->{restarts}, 1,
     'from below 2^32, a "wrap" of over 2^31 in a second is a restart too');
  my $wrap = [[$t0, (2**32 - 10) x 7], [$t0 + $S, (5) x 7]];
  is(sum_steps(interval_steps($wrap, $t0, $t0 + $S))->{reads}, 15, 'a wrap: 2^32 - 10 to 5 is 15');

  write_file("$d/bad.csv", "time_us,device,reads\n");
  ($ds, $err) = read_diskstats("$d/bad.csv", 'x', sub { });
  like($err, qr/^the header is not 'time_us,device,reads,read_sectors,.*,io_ms': 'time_us,device,reads'$/,
       'another header: refused, both named');
};

# The measurement interval of valid_run: [start, start + 50 s], 1000 transactions of which 100
# Trade-Results. Samples from 5 s before to 5 s after it, 0.25 s past each second: 50 inside,
# 49 s between the first and the last.
sub io_run {
  my ($d, %o) = @_;
  my $run = valid_run($d);
  my $from = $run->{start_us} - 5 * $S + 250_000;
  write_file("$d/sys/db1/diskstats.csv", $HEAD . join('', @{ $o{rows}->($from) }));
  write_file("$d/sys/db1/io-devices.conf", join('', map { "$_\n" } @{ $o{conf} }));
  return $run;
}

# The data device: 90 reads and 10 writes of 8 KiB a second, 0.5 ms a read, 2 ms a write, busy
# 25 % of the time.
my %DATA = (reads => 90, read_sectors => 90 * 16, read_ms => 45, writes => 10,
            write_sectors => 10 * 16, write_ms => 20, io_ms => 250);

subtest 'the section: data and WAL on two devices' => sub {
  my $d = tmpdir();
  io_run($d, rows => sub {
    my ($from) = @_;
    # The WAL device: 50 writes of 4 KiB a second, 1 ms each, busy 10 %; write_ms wraps, and a
    # sample inside the MI is missing. And a bad line.
    [device_rows('vda1', $from, 60, per_s => \%DATA),
     device_rows('dm-0', $from, 60, per_s => { writes => 50, write_sectors => 400,
                                               write_ms => 50, io_ms => 100 },
                 base => { write_ms => 2**32 - 1000 }, skip => [25]),
     "1,dm-0,1,2\n"];
  }, conf => ['found_by=--pgdata', 'data_path=/srv/pg/data',
              'wal_path=/srv/pg/data/pg_wal -> /wal/pg_wal', 'data_device=vda1',
              'data_major_minor=254:1', 'wal_device=dm-0', 'wal_major_minor=253:0',
              'data_and_wal=two devices', 'devices=vda1,dm-0']);
  my $r = analyze_dir($d);
  my $dio = $r->{device_io};
  is($dio->{transactions_in_mi}, 1000, 'every transaction of the MI');
  my ($h) = @{ $dio->{hosts} };
  is($h->{host}, 'db1', 'the host');
  my ($data, $wal) = @{ $h->{devices} };
  is_deeply([@$data{qw(device role major_minor samples_in_mi seconds)}],
            ['vda1', 'data', '254:1', 50, 49], 'the data device: 50 samples, 49 s between them');
  is_deeply([@$data{qw(reads writes read_bytes write_bytes)}], [4410, 490, 4410 * 8192, 490 * 8192],
            'its requests and bytes');
  is_deeply([map { sprintf('%.3f', $data->{$_}) }
             qw(reads_per_s writes_per_s read_kib_avg write_kib_avg read_write_requests
                read_write_bytes reads_per_txn writes_per_txn reads_per_trade_result
                writes_per_trade_result read_ms_avg write_ms_avg utilization_pct)],
            [qw(90.000 10.000 8.000 8.000 9.000 9.000 4.500 0.500 45.000 5.000 0.500 2.000 25.000)],
            'rates, sizes, read:write, per transaction (20 a second) and per Trade-Result (2), '
            . 'latency, utilization');
  is_deeply([@$wal{qw(device role writes reads wraps samples_missing seconds)}],
            ['dm-0', 'WAL', 2450, 0, 1, 1, 49],
            'the WAL device: its writes across the wrap and the missing sample');
  is(sprintf('%.2f', $wal->{write_ms_avg}), '1.00', '1 ms a write, the wrap undone');
  is(sprintf('%.1f', $wal->{utilization_pct}), '10.0', 'busy 10 %');
  ok(!$wal->{wal_split}, 'two devices: no WAL share to estimate');
  my @p = map { "$_->{file}:$_->{line}: $_->{reason}" } @{ $r->{problems} };
  ok((grep { $_ eq 'sys/db1/diskstats.csv:' . (2 + 61 + 60) . ': 4 fields, not 9' } @p),
     'the bad line is an input problem') or diag explain \@p;
  is($r->{verdict}{text}, 'VALID', 'which does not make the run invalid');

  my $rep = run_report($d);
  is($rep->{rc}, 0, 'bb-report exits 0') or diag $rep->{err};
  my $txt = slurp("$d/report.txt");
  (my $flat = $txt) =~ s/\s+/ /g;    # paragraphs wrap where their words fall
  like($flat, qr/ Device I\/O -+ Host db1: the data directory \/srv\/pg\/data is on vda1 \(254:1\); the WAL \(\/srv\/pg\/data\/pg_wal -> \/wal\/pg_wal\) on dm-0 \(253:0\) \(found from --pgdata\)\./,
       'which device holds what');
  like($txt, qr/^  Requests, read \/ write\s+4410 \/ 490\s+0 \/ 2450$/m, 'requests');
  like($txt, qr/^  Average request \(KiB\)\s+8\.0 \/ 8\.0\s+- \/ 4\.0$/m, 'request sizes');
  like($txt, qr/^  Read:write by requests\s+9\.00:1\s+0\.00:1$/m, 'read:write');
  like($txt, qr/^  Requests per transaction\s+4\.500 \/ 0\.500\s+0\.000 \/ 2\.500$/m, 'per transaction');
  like($txt, qr/^  Latency \(ms per request\)\s+0\.50 \/ 2\.00\s+- \/ 1\.00$/m, 'latency');
  like($txt, qr/^  Utilization \(time busy\)\s+25\.0 %\s+10\.0 %$/m, 'utilization');
  like($flat, qr/dm-0: 1 second\(s\) without a sample inside the MI/, 'the missing sample said');
  like($flat, qr/dm-0: 1 counter wrap\(s\)/, 'the wrap said');
  my $json = read_json("$d/results.json");
  is($json->{device_io}{hosts}[0]{devices}[0]{reads}, 4410, 'results.json: device_io');
  ok(png_ok("$d/plots/device-io.png"), 'the plot is drawn') or diag $rep->{err};
  my $dat = slurp("$d/plots/data/device-io.dat");
  like($dat, qr/^# index 0: vda1 \(data\): x, reads and writes per second over 10 s$/m, 'its data');
  like($dat, qr/^\S+ 90\.00 10\.00$/m, 'a full bucket of the data device: 90 reads, 10 writes a second');
  like($dat, qr/^\S+ 0\.00 50\.00$/m, 'and of the WAL device');
  like(slurp("$d/plots/data/device-io-trtps.dat"), qr/^\S+ 2(?:\.0+)?$/m, 'TRTPS beside them: 2 a second');
};

# Two snapshots of a view with one row at the MI's start and end (1 s after START, 1 s after
# STOP: 50 s apart).
sub mi_snapshots {
  my ($d, $run, $view, $head, $start_row, $end_row) = @_;
  for my $w (['mi-start', $run->{start_us} + $S, $start_row], ['mi-end', $run->{end_us} + $S, $end_row]) {
    my @t = gmtime($w->[1] / $S);
    my $time = sprintf('%04d-%02d-%02d %02d:%02d:%02d.000000+00', $t[5] + 1900, $t[4] + 1, @t[3, 2, 1, 0]);
    write_file("$d/db/$w->[0]/$view.csv", "snapshot_time,$head\n"
               . join('', map { "$time,$_\n" } ref $w->[2] ? @{ $w->[2] } : $w->[2]));
  }
}

subtest "the section: one device, the WAL's share, PostgreSQL's view" => sub {
  my $d = tmpdir();
  my %per_s = (%DATA, writes => 200, write_sectors => 200 * 16);
  my $run = io_run($d, rows => sub { [device_rows('vda', $_[0], 60, per_s => \%per_s)] },
                   conf => ['found_by=show data_directory', 'data_path=/var/lib/pg',
                            'wal_path=/var/lib/pg/pg_wal', 'data_device=vda',
                            'data_major_minor=254:0', 'wal_device=vda', 'wal_major_minor=254:0',
                            'data_and_wal=one device', 'devices=vda']);
  open my $fh, '>>', "$d/run.conf" or die $!;
  print {$fh} "server_version=15.18\nserver_version_num=150018\n";
  close $fh;
  write_file("$d/db/settings.csv", "name,setting,unit,source\nblock_size,8192,,default\n");
  # 50 MiB of WAL in the 50 s: 1 MiB a second.
  mi_snapshots($d, $run, 'wal_lsn', 'lsn', '1/FF000000', '2/02200000');
  mi_snapshots($d, $run, 'pg_stat_database', 'datname,blks_read,blks_hit',
               ['bb,1000,95000', 'other,5,5'], ['bb,6000,190000', 'other,99,99']);
  mi_snapshots($d, $run, 'pg_stat_wal', 'wal_records,wal_bytes', '1,1000', '2,41943040');
  my $th = 'schemaname,relname,heap_blks_read,heap_blks_hit,idx_blks_read,idx_blks_hit,'
           . 'toast_blks_read,toast_blks_hit';
  mi_snapshots($d, $run, 'pg_statio_user_tables', $th,
               ['public,trade,100,10,0,0,,', 'public,customer,7,7,0,0,50,50'],
               ['public,trade,3100,1010,0,0,,', 'public,customer,607,107,0,0,550,50',
                'public,new_one,0,0,0,0,,']);
  mi_snapshots($d, $run, 'pg_statio_user_indexes', 'schemaname,relname,indexrelname,idx_blks_read,idx_blks_hit',
               ['public,trade,pk_trade,0,0'], ['public,trade,pk_trade,1000,3000']);
  my $r = analyze_dir($d);
  my ($dev) = @{ $r->{device_io}{hosts}[0]{devices} };
  is($dev->{role}, 'data and WAL', 'one device for both');
  my $w = $dev->{wal_split};
  is($w->{kind}, 'lsn', "PostgreSQL 15: the WAL's insert position");
  is(sprintf('%.3f', $w->{wal_bytes} / 1048576), '49.000', '1 MiB a second over the 49 s counted');
  is(sprintf('%.2f', $w->{wal_share_pct}), sprintf('%.2f', 100 * 49 / (200 * 49 * 8 / 1024)),
     'its share of the 200 x 8 KiB a second written');
  my $pg = $r->{device_io}{postgres};
  is(sprintf('%.2f', $pg->{hit}{hit_ratio_pct}), '95.00', 'hit ratio of the database bb in the MI');
  is($pg->{hit}{window}{seconds}, 50, 'between the snapshots at START and STOP');
  is($pg->{wal}{stat_wal}{bytes}, 41943040 - 1000, 'pg_stat_wal.wal_bytes');
  like($pg->{by_process}{why}, qr/^not available before PostgreSQL 16 \(pg_stat_io\)$/, 'pg_stat_io: said');
  my $top = $pg->{top_relations};
  is($top->{blocks_read}, 5100, 'every block read: tables, TOAST and indexes');
  is_deeply([map { [$_->{name}, $_->{kind}, $_->{blocks_read}, sprintf('%.0f', $_->{share_pct})] }
             @{ $top->{top} }],
            [['public.trade', 'table', 3000, 59], ['public.customer', 'table', 1100, 22],
             ['public.pk_trade', 'index', 1000, 20]],
            'the relations read most, with their shares; one not read at all is not listed');
  run_report('--no-plots', $d);
  my $txt = slurp("$d/report.txt");
  (my $flat = $txt) =~ s/\s+/ /g;
  like($flat, qr/Host db1: the data directory \/var\/lib\/pg and the WAL \(\/var\/lib\/pg\/pg_wal\) are on one device, vda \(254:0\) \(found from show data_directory\)\./,
       'one device: said');
  like($flat, qr/Data and WAL share vda: of the 76\.6 MiB written, the WAL about 49\.0 MiB \(64\.0 %\), the data files and the rest 27\.6 MiB\. WAL from pg_current_wal_lsn\(\) [^.]*, at its rate over the 49 s counted here: what PostgreSQL made, less than what it wrote .* so the WAL's part is at least this\./,
       "the WAL's share, and that it is a lower bound");
  like($flat, qr/Buffer hit ratio: 95\.00 % \(5000 blocks read, 95000 found in shared buffers/, 'hit ratio');
  like($flat, qr/Read from the data device: 0\.7 MiB\/s against 0\.8 MiB\/s of blocks PostgreSQL read: 90\.0 %/,
       'what the device read of what PostgreSQL read (90 x 8 KiB against 100 x 8 KiB a second)');
  like($flat, qr/WAL made \(insert position\): 50\.0 MiB \(1\.0 MiB\/s;/, 'the WAL made');
  like($flat, qr/Relation I\/O by process: not available before PostgreSQL 16 \(pg_stat_io\)\./, 'pg_stat_io');
  like($txt, qr/^  public\.trade\s+table\s+3000\s+58\.8 %\s+1000\s+25\.0 %$/m, 'the top reader');
};

subtest 'no devices: said why' => sub {
  my $d = tmpdir();
  valid_run($d);
  run_report('--no-plots', $d);
  like(slurp("$d/report.txt"), qr/Device I\/O\n-+\n  Not available \(no sys\/<host>\/io-devices\.conf: the system monitor/,
       'no io-devices.conf');
  write_file("$d/sys/db1/io-devices.conf", "found_by=--pgdata\ndata_path=/dev/shm/pg\n"
             . "wal_path=/dev/shm/pg/pg_wal\ndata_why=/dev/shm/pg is on tmpfs (tmpfs, device "
             . "0:27), which is no block device\nwal_why=the same\ndata_and_wal=not known\ndevices=\n");
  run_report('--no-plots', $d);
  (my $txt = slurp("$d/report.txt")) =~ s/\s+/ /g;
  like($txt, qr/the data directory \/dev\/shm\/pg is on no device that can be sampled: \/dev\/shm\/pg is on tmpfs/,
       'a data directory on tmpfs: said plainly');
  like($txt, qr/No device figures: no sys\/db1\/diskstats\.csv: no device to sample\./, 'and that nothing was sampled');

  # A server that did not tell its data directory: every whole disk, said.
  io_run($d, rows => sub { [device_rows('sda', $_[0], 60, per_s => \%DATA)] },
         conf => ['found_by=every whole disk', 'why=the server did not tell its data '
                  . 'directory (show data_directory: permission denied)',
                  'data_and_wal=not known', 'devices=sda']);
  run_report('--no-plots', $d);
  ($txt = slurp("$d/report.txt")) =~ s/\s+/ /g;
  like($txt, qr/Host db1: the database's devices are not known \(the server did not tell its data directory \(show data_directory: permission denied\)\): every whole disk of the host is shown instead/,
       'every whole disk: why, and what is shown instead');
  like($txt, qr/In the measurement interval sda \(a whole disk\) -+ -+ Seconds counted 49 \(50 samples\) Requests, read \/ write 4410 \/ 490 /,
       'with its figures');
};

subtest "pg_stat_io by process, from the real servers' snapshots (before and after)" => sub {
  my $fix = "$FindBin::RealBin/fixtures/pg-stats";
  # The block writes of the fixtures' workload (PgStats.pm's head): writes + extends of every
  # process, in blocks.
  for my $v ([16, 160000, 12151], [18, 180004, 12159]) {
    my ($major, $num, $blocks) = @$v;
    my @p;
    my $r = { results_dir => "$fix/pg$major", settings => { server_version_num => $num, db_name => 'bb' },
              _problem => sub { push @p, @_ } };
    my $bp = postgres_io($r)->{by_process};
    ok($bp->{processes}, "$major: by process") or diag explain $bp;
    like($bp->{scope}, qr/^the whole run/, "$major: the MI's snapshots lack pg_stat_io: the whole run, said");
    my $sum = 0;
    $sum += $_->{write_bytes} + $_->{extend_bytes} for @{ $bp->{processes} };
    is($sum / 8192, $blocks, "$major: written and added, every process: $blocks blocks");
    my ($cb) = grep { $_->{process} eq 'client backend' } @{ $bp->{processes} };
    ok($cb && $cb->{extend_bytes} > 0, "$major: the client backends added blocks to files");
    is(scalar @p, 0, "$major: no input problem");
  }
  my $r = { results_dir => "$fix/pg18", settings => { server_version_num => 180004, db_name => 'bb' },
            _problem => sub { } };
  my $wal = postgres_io($r)->{wal};
  ok($wal->{written}{bytes} > 0, "18: the WAL's writes in bytes (pg_stat_io, object wal)");
  like($wal->{lsn}{why}, qr/db\/mi-start\/wal_lsn\.csv/, 'no insert positions: said');
};

subtest "bb-cpu-sampler's diskstats rows agree with /proc/diskstats" => sub {
  my $sampler = "$FindBin::RealBin/../bb-cpu-sampler";
  open my $fh, '<', '/proc/diskstats' or return plan skip_all => "no /proc/diskstats: $!";
  my ($line) = <$fh>;
  close $fh;
  my @before = split ' ', $line;
  my $dir = tmpdir();
  system($sampler, "$dir/p.csv", '--seconds', 1, '--diskstats', "$dir/d.csv", '--devices',
         "$before[2],no-such-device") == 0 or fail("bb-cpu-sampler: $?");
  my @p;
  my ($ds, $err) = read_diskstats("$dir/d.csv", 'd.csv', sub { push @p, @_ });
  ok($ds, 'the file reads') or diag $err;
  is(scalar @p, 0, 'without a problem');
  is_deeply([keys %{ $ds->{devices} }], [$before[2]], "only $before[2]: a device not there has no rows");
  my $rows = $ds->{devices}{ $before[2] };
  is(scalar @$rows, 2, 'a row a second, the first at once');
  my @idx = (3, 5, 6, 7, 9, 10, 12);
  ok(!(grep { $rows->[0][ $_ + 1 ] < $before[ $idx[$_] ] } 0 .. 6),
     'each counter at least what /proc/diskstats said before');
  is(system("$sampler $dir/x.csv --diskstats $dir/y.csv 2>/dev/null") >> 8, 2,
     '--diskstats without --devices exits 2');
};

done_testing();
