# "Block trace" (issue 38 item 3): bb-block-trace's device plan on a made-up /sys (a whole disk,
# a partition, a device-mapper device, no device), its converter on perf script lines of two
# kernels' formats (flushes, pre-flushes, FUA, discards, lost events, other devices, requests
# outside the partition, a line it does not understand, the limit), and the figures and the
# report section from a trace whose figures are worked out by hand below, with its bad rows
# named by line and its counts against the device's counters.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use File::Path qw(make_path);
use IO::Compress::Gzip qw(gzip $GzipError);
use IO::Uncompress::Gunzip qw(gunzip $GunzipError);
use BBTest qw(write_file tmpdir valid_run run_report read_json analyze_dir slurp);
use BrokerBench::BlockTrace qw(trace_figures);
use BrokerBench::Csv qw(read_run_conf);

my $S = 1_000_000;
my $TOOL = "$FindBin::RealBin/../bb-block-trace";

# A made-up sysfs: vda (254:0, blk-mq) with the partition vda1 (254:1, sectors 2048-6143), and
# dm-0 (253:0, device-mapper).
sub fake_sys {
  my ($d) = @_;
  my $blk = "$d/sys/devices/virtual/block";
  make_path("$blk/vda/mq/0", "$blk/vda/vda1", "$blk/dm-0/dm", "$d/sys/dev/block");
  write_file("$blk/vda/dev", "254:0\n");
  write_file("$blk/vda/size", "1000000\n");
  write_file("$blk/vda/vda1/dev", "254:1\n");
  write_file("$blk/vda/vda1/partition", "1\n");
  write_file("$blk/vda/vda1/start", "2048\n");
  write_file("$blk/vda/vda1/size", "4096\n");
  write_file("$blk/dm-0/dev", "253:0\n");
  write_file("$blk/dm-0/size", "4096\n");
  symlink("../../devices/virtual/block/vda", "$d/sys/dev/block/254:0") or die $!;
  symlink("../../devices/virtual/block/vda/vda1", "$d/sys/dev/block/254:1") or die $!;
  symlink("../../devices/virtual/block/dm-0", "$d/sys/dev/block/253:0") or die $!;
  return "$d/sys";
}

sub io_conf {
  my ($d, $name, @lines) = @_;
  write_file("$d/$name", join('', map { "$_\n" } @lines));
  return "$d/$name";
}

# Runs bb-block-trace with the arguments and stdin: (exit status, stdout, stderr).
sub tool {
  my ($stdin, @args) = @_;
  my $d = tmpdir();
  write_file("$d/in", $stdin);
  system(join(' ', map { "'$_'" } $^X, $TOOL, @args) . " <$d/in >$d/out 2>$d/err");
  return ($? >> 8, slurp("$d/out"), slurp("$d/err"));
}

subtest 'the plan: which requests are the data device\'s, or why none can be traced' => sub {
  my $d = tmpdir();
  my $sys = fake_sys($d);
  my ($rc, $out, $err) = tool('', 'plan', '--sys', $sys, '--io-devices',
                              io_conf($d, 'disk.conf', 'data_device=vda', 'data_major_minor=254:0'));
  is($rc, 0, 'a whole disk: exit 0') or diag $err;
  is($out, 'dev == ' . ((254 << 20) | 0) . "\n" . 'dev == ' . (254 << 20) . " && nr_sector == 0\n",
     "its filters: the kernel's device number, 254 << 20; its bios of no sectors");
  ($rc, $out) = tool('', 'plan', '--sys', $sys, '--io-devices',
                     io_conf($d, 'part.conf', 'data_device=vda1', 'data_major_minor=254:1'));
  is($out, 'dev == ' . (254 << 20) . "\n(dev == " . (254 << 20) . ' || dev == ' . ((254 << 20) | 1)
            . ") && nr_sector == 0\n", 'a partition: its disk\'s requests, its own bios or its disk\'s');
  ($rc, $out, $err) = tool('', 'plan', '--sys', $sys, '--io-devices',
                           io_conf($d, 'dm.conf', 'data_device=dm-0', 'data_major_minor=253:0'));
  is($rc, 1, 'device-mapper: exit 1');
  like($err, qr/^bb-block-trace: not traced: dm-0 \(253:0\) is a device-mapper device: it issues no requests of its own/,
       'and why, naming it');
  ($rc, $out, $err) = tool('', 'plan', '--sys', $sys, '--io-devices',
                           io_conf($d, 'tmpfs.conf', 'found_by=--pgdata',
                                   'data_why=/dev/shm/pg is on tmpfs, which is no block device'));
  like($err, qr/not traced: the data directory is on no block device \(\/dev\/shm\/pg is on tmpfs/,
       'no block device: io-devices.conf\'s reason');
  ($rc, $out, $err) = tool('', 'plan', '--sys', $sys, '--io-devices',
                           io_conf($d, 'all.conf', 'found_by=every whole disk', 'why=no answer'));
  like($err, qr/not traced: the data directory's device is not known \(no answer\)/, 'every whole disk: not known');
  ($rc, $out, $err) = tool('', 'plan', '--io-devices', "$d/none.conf");
  like($err, qr/not traced: no \Q$d\E\/none\.conf: the system monitor did not look/, 'no io-devices.conf');
  ($rc, $out, $err) = tool('', 'plan', '--sys', $sys, '--io-devices',
                           io_conf($d, 'bad.conf', 'data_device=vda', 'data_major_minor=254-0'));
  like($err, qr/data_major_minor in \S+ is not MAJOR:MINOR: '254-0'/, 'a bad major:minor named');
  ($rc, $out, $err) = tool('', 'plan', '--io-devices', "$d/disk.conf", '--max-requests', '0');
  is($rc, 2, 'a bad --max-requests: exit 2');
  like($err, qr/--max-requests: '0' is not a whole number/, 'named with its value');
  ($rc, $out, $err) = tool('', 'trace');
  like($err, qr/the first argument is 'plan' or 'convert', not 'trace'/, 'an unknown mode named');
};

# perf script -F trace:time,event,trace lines: Linux 6.18's (with the I/O priority) and 6.1's,
# and without the event's name (block_rq_issue's). Empty pre-flush writes: bios of no sectors of
# the partition or its disk; a bio with sectors, or another device's, is not one. A request
# requeued and issued again: once.
my $PERF = <<'PERF';
20501.143437:  block:block_rq_issue: 254,0 RA 8192 () 2064 + 16 0x2,0,4 [postgres]
20501.143450: block:block_bio_queue: 254,1 FWS 0 + 0 [postgres]
20501.143460: block:block_bio_queue: 254,1 WS 16 + 8 [postgres]
20501.143470: block:block_bio_queue: 8,0 FWS 0 + 0 [postgres]
20501.143500:  block:block_rq_issue: 254,0 WS 8192 () 2080 + 16 [postgres]
20501.143510: block:block_rq_requeue: 254,0 WS () 2080 + 16 0x2,0,4
20501.143520:  block:block_rq_issue: 254,0 WS 8192 () 2080 + 16 0x2,0,4 [kworker/0:1H]
20501.143600: 254,0 FWS 8192 () 2200 + 16 [postgres]
20501.143700: 254,0 FF 0 () 18446744073709551615 + 0 [kworker/0:1H]
20501.143800: 254,0 WFS 4096 () 2100 + 8 [jbd2/vda1-8]
20501.143900: 254,0 DS 1048576 () 3000 + 2048 [fstrim]
20501.144000: 254,0 RA 8192 () 100 + 16 [postgres]
20501.144100: 254,0 RA 8192 () 6144 + 16 [postgres]
20501.144200: 7,0 RS 4096 () 0 + 8 [dd]
           sleep 23766 [000] 20501.144250: PERF_RECORD_LOST lost 1449
20501.144300: PERF_RECORD_LOST lost 10

a line of something else
20501.1444: 254,0 N 0 () 2050 + 0 [x]
PERF

sub gz_lines {
  my ($path) = @_;
  my $text;
  gunzip($path => \$text) or die $GunzipError;
  return [split /\n/, $text];
}

subtest 'the converter: perf script lines to rows' => sub {
  my $d = tmpdir();
  my $sys = fake_sys($d);
  my $conf = io_conf($d, 'io-devices.conf', 'data_device=vda1', 'data_major_minor=254:1');
  make_path("$d/out");
  my ($rc, $out, $err) = tool($PERF, 'convert', '--sys', $sys, '--io-devices', $conf, '--out', "$d/out");
  is($rc, 0, 'exit 0') or diag $err;
  is($out, "8 requests, 1459 lost by perf\n", 'what it did, on one line');
  my ($c) = read_run_conf("$d/out/block-trace.conf");
  my $off = $c->{clock_offset_us};
  ok($off > 1_000_000_000_000_000, 'the clock offset: wall minus monotonic, in microseconds');
  my $rows = gz_lines("$d/out/block-trace.csv.gz");
  is(shift @$rows, 'time_us,op,sector,sectors', 'the header');
  my @mono = map { my @f = split /,/; ($f[0] - $off) . ",$f[1],$f[2],$f[3]" } @$rows;
  is_deeply(\@mono, ['20501143437,R,16,16', '20501143450,E,0,0', '20501143500,W,32,16',
                     '20501143600,W,152,16',
                     '20501143700,F,0,0', '20501143800,W,52,8', '20501143900,D,952,2048',
                     '20501144400,N,2,0'],
            'kinds (a pre-flush and a FUA write are writes; FF the flush; an empty pre-flush '
            . 'write E), sectors from the partition\'s start, monotonic + the offset');
  is_deeply([@$c{qw(device disk disk_major_minor first_sector sectors requests requests_R
                    requests_W requests_F requests_D requests_N requests_E lost outside
                    other_device other_bio unparsed requeues reissued limit_reached)}],
            ['vda1', 'vda', '254:0', 2048, 4096, 8, 1, 3, 1, 1, 1, 1, 1459, 2, 1, 2, 1, 1, 1, 'no'],
            'block-trace.conf: the device, its disk, the counts, lost, outside, another '
            . 'device, not understood, requeued and issued again');
  is($c->{unparsed_example_1}, 'a line of something else', 'the line not understood, shown');

  make_path("$d/lim");
  ($rc, $out) = tool($PERF, 'convert', '--sys', $sys, '--io-devices', $conf, '--out', "$d/lim",
                     '--max-requests', 3);
  like($out, qr/^3 requests \(the limit, 3: the trace stops here\)/, 'the limit: said');
  ($c) = read_run_conf("$d/lim/block-trace.conf");
  is($c->{limit_reached}, 'yes', 'and in block-trace.conf');
  is(scalar @{ gz_lines("$d/lim/block-trace.csv.gz") }, 4, 'the header and 3 rows');
};

# The hand-worked trace. The MI: [$from, $from + 1000 s]; times in seconds from its start;
# sectors of 512 bytes, a block 16 of them.
#   t      op  sector  sectors  blocks   what it makes
#   -5     R   0       16       0        before the MI: not counted
#   0      R   0       16       0        block 0 read
#   0.5    R   16      16       1        sequential (0 + 16); block 1 read
#   2      R   0       32       0,1      16 KB; reuse 2 s (block 0) and 1.5 s (block 1)
#   3      E   0       0                 an empty pre-flush write: no block
#   5      W   0       16       0        write-after-read 3 s (read at 2)
#   6      W   16      16       1        sequential (0 + 16); write-after-read 4 s
#   100    R   160     16       10       block 10 read
#   170    W   160     16       10       write-after-read 70 s
#   200    R   0       16       0        reuse 198 s (from 2)
#   500    R   0       16       0        reuse 300 s
#   600    W   1000    8        62       4 KB; block 62 never read: a write without a read
#   700    F   0       0                 a flush
#   800    D   2048    2048              a discard
#   900    R   320     128      20-27    64 KB; 8 blocks read once
#   1001   W   0       16       0        after the MI: not counted
# Reads 7, writes 4 (63.64 % / 36.36 %); 8 KB: 5 reads, 3 writes; 16 KB: 1 read; other: 1 read
# (64 KB), 1 write (4 KB). Bytes read 5 x 8192 + 16384 + 65536 = 122880, written 3 x 8192 +
# 4096 = 28672. Blocks read 11 (0, 1, 10, 20-27), read once 9 (81.82 %). Reuse: 1.5, 2, 198,
# 300 s: 1-10 s 2, 60-300 s 1, 300 s and more 1, median (2nd of 4) 2 s. Write-after-read: 3, 4,
# 70 s: 1-10 s 2, 60-300 s 1, median 4 s; block writes 4, one without a read. Sequential 2 of
# 11 (18.18 %): reads 1 of 7, writes 1 of 4.
my @TRACE = ([-5, 'R', 0, 16], [0, 'R', 0, 16], [0.5, 'R', 16, 16], [2, 'R', 0, 32],
             [3, 'E', 0, 0], [5, 'W', 0, 16], [6, 'W', 16, 16], [100, 'R', 160, 16], [170, 'W', 160, 16],
             [200, 'R', 0, 16], [500, 'R', 0, 16], [600, 'W', 1000, 8], [700, 'F', 0, 0],
             [800, 'D', 2048, 2048], [900, 'R', 320, 128], [1001, 'W', 0, 16]);

sub trace_text {
  my ($from, @bad) = @_;
  my @rows = map { join(',', $from + $_->[0] * $S, @$_[1 .. 3]) } @TRACE;
  splice @rows, 4, 0, @bad;
  return join('', map { "$_\n" } 'time_us,op,sector,sectors', @rows);
}

sub write_gz {
  my ($path, $text) = @_;
  make_path($1) if $path =~ m{\A(.*)/[^/]+\z};
  gzip(\$text => $path) or die $GzipError;
}

sub check_figures {
  my ($f, $what) = @_;
  is_deeply($f->{requests}, { reads => 7, writes => 4, flushes => 1, discards => 1, other => 0,
                              empty_flush_writes => 1 },
            "$what: requests by kind, the MI's only");
  is_deeply([map { sprintf('%.2f', $_) } @$f{qw(read_pct write_pct)}], ['63.64', '36.36'],
            "$what: reads and writes, shares");
  is_deeply([map { [@$_{qw(size reads writes total)}] } @{ $f->{sizes} }],
            [['8 KB', 5, 3, 8], ['16 KB', 1, 0, 1], ['other', 1, 1, 2]], "$what: Table 2's classes");
  is_deeply([@$f{qw(read_bytes write_bytes)}], [122880, 28672], "$what: bytes");
  is_deeply([map { [@$_{qw(kb requests reads writes)}] } @{ $f->{top_sizes} }],
            [[8, 8, 5, 3], [4, 1, 0, 1], [16, 1, 1, 0], [64, 1, 1, 0]], "$what: the sizes seen most");
  is_deeply([@$f{qw(blocks_read blocks_read_once)}, sprintf('%.2f', $f->{read_once_pct})],
            [11, 9, '81.82'], "$what: 8 KB blocks read, and read once");
  my $ru = $f->{read_reuse};
  is_deeply([$ru->{n}, map { $_->{count} } @{ $ru->{buckets} }], [4, 0, 2, 0, 1, 1],
            "$what: read-reuse distances by bucket");
  is(sprintf('%.3f', $ru->{median_s}), '2.001', "$what: their median, 2 s (its bucket's top)");
  my $war = $f->{write_after_read};
  is_deeply([$war->{n}, map { $_->{count} } @{ $war->{buckets} }], [3, 0, 2, 0, 1, 0],
            "$what: write-after-read distances by bucket");
  is(sprintf('%.3f', $war->{median_s}), '4.002', "$what: their median, 4 s");
  is_deeply([@$f{qw(block_writes block_writes_without_read)}], [4, 1], "$what: block writes");
  is_deeply([map { sprintf('%.2f', $_) } @$f{qw(sequential_pct sequential_reads_pct
                                                sequential_writes_pct)}],
            ['18.18', '14.29', '25.00'], "$what: sequential shares");
}

subtest 'the figures from a hand-worked trace; bad rows named by line' => sub {
  my $d = tmpdir();
  my $from = 1_800_000_000 * $S;
  write_gz("$d/t.csv.gz", trace_text($from, "$from,X,0,16", "$from,R,0", "x$from,R,0,16"));
  my @p;
  my ($f, $err) = trace_figures("$d/t.csv.gz", 'sys/h/block-trace.csv.gz', sub { push @p, $_[0] },
                                $from, $from + 1000 * $S);
  ok($f, 'read') or diag $err;
  check_figures($f, 'gzip');
  is_deeply([map { "$_->{file}:$_->{line}: $_->{reason}" } @p],
            ["sys/h/block-trace.csv.gz:6: not an operation (R, W, F, D, N or E) in op: 'X'",
             'sys/h/block-trace.csv.gz:7: 3 fields, not 4',
             "sys/h/block-trace.csv.gz:8: not a time in microseconds in time_us: 'x$from'"],
            'each bad row named by file, line and what is wrong with it');

  # The same rows and 30000 more after the MI, cut short as a converter killed mid-write
  # leaves them: the rows read before the cut count.
  write_gz("$d/long.csv.gz", trace_text($from) . join('', map { ($from + 2000 * $S + $_)
                                                                . ",R,$_,16\n" } 1 .. 30000));
  my $whole = slurp("$d/long.csv.gz");
  write_file("$d/cut.csv.gz", substr($whole, 0, length($whole) / 2));
  @p = ();
  ($f, $err) = trace_figures("$d/cut.csv.gz", 'c', sub { push @p, $_[0] }, $from, $from + 1000 * $S);
  ok($f, 'a file cut short: read') or diag $err;
  check_figures($f, 'cut short');
  like($p[-1]{reason}, qr/^the file ends early \(unexpected end of file\): the rows before are used$/,
       'and it is said') or diag explain \@p;

  write_gz("$d/h.csv.gz", "time,op\n1,R\n");
  ($f, $err) = trace_figures("$d/h.csv.gz", 'h', sub { }, 0, 1);
  is($err, "the header is not 'time_us,op,sector,sectors': 'time,op'", 'another header: refused');
};

subtest 'the report section, and the trace against the device\'s counters' => sub {
  my $d = tmpdir();
  my $run = valid_run($d, mi_s => 1000);
  my $from = $run->{start_us};
  open my $fh, '>>', "$d/run.conf" or die $!;
  print {$fh} "block_trace=1\n";
  close $fh;
  write_gz("$d/sys/db1/block-trace.csv.gz", trace_text($from));
  write_file("$d/sys/db1/block-trace.conf", join('', map { "$_\n" }
    'format=brokerbench block trace v1', 'device=vda', 'major_minor=254:0', 'disk=vda',
    'disk_major_minor=254:0', 'first_sector=0', 'max_requests=5000000', 'clock_offset_us=5',
    'clock_offset_end_us=5', 'requests=15', 'lost=0', 'outside=0', 'unparsed=0',
    'limit_reached=no', 'perf_exit=130', 'traced=yes'));
  write_file("$d/sys/db1/io-devices.conf", "found_by=--pgdata\ndata_path=/pg\nwal_path=/pg/pg_wal\n"
             . "data_device=vda\ndata_major_minor=254:0\nwal_device=vda\nwal_major_minor=254:0\n"
             . "data_and_wal=one device\ndevices=vda\n");
  # The device's counters a second apart, 0.25 s past each second: each counts the trace's
  # requests issued by then. The first sample inside the MI is 0.25 s after its start, after
  # the read at 0, so over the samples the device completed 6 reads and 5 writes (the empty
  # pre-flush write among them), 4 x 8192 + 16384 + 65536 bytes read.
  my @t = map { [$from + $_->[0] * $S, @$_[1 .. 3]] } @TRACE;
  my $rows = "time_us,device,reads,read_sectors,read_ms,writes,write_sectors,write_ms,io_ms\n";
  for my $i (-5 .. 1005) {
    my $ts = $from + $i * $S + 250_000;
    my %c = (R => 0, W => 0, RS => 0, WS => 0);
    # The device counts an empty pre-flush write as a write of 0 bytes.
    for my $x (grep { $_->[0] <= $ts && $_->[1] =~ /\A[RWE]\z/ } @t) {
      my $op = $x->[1] eq 'E' ? 'W' : $x->[1];
      $c{$op}++;
      $c{"${op}S"} += $x->[3];
    }
    $rows .= join(',', $ts, 'vda', 100 + $c{R}, 1000 + $c{RS}, 0, 200 + $c{W}, 2000 + $c{WS}, 0, 0)
             . "\n";
  }
  write_file("$d/sys/db1/diskstats.csv", $rows);
  my $r = analyze_dir($d);
  my $h = $r->{block_trace}{hosts}[0];
  ok(!$h->{why}, 'traced') or diag $h->{why};
  check_figures($h, 'the run');
  is(sprintf('%.1f', $h->{covered_pct}), '100.0', 'the whole MI covered');
  my $ds = $h->{diskstats};
  is_deeply([@$ds{qw(reads writes)}, @{ $h->{check} }{qw(reads writes read_bytes write_bytes)}],
            [6, 5, 6, 5, 4 * 8192 + 16384 + 65536, 28672], 'the trace\'s counts over the samples\' seconds');
  is($h->{check}{empty_writes}, 1, 'the empty pre-flush write among the writes');
  is_deeply([map { sprintf('%.1f', $ds->{"trace_${_}_pct"}) } qw(reads writes read_bytes write_bytes)],
            [('100.0') x 4], 'against the counters: all of them');

  my $rep = run_report('--no-plots', $d);
  is($rep->{rc}, 0, 'bb-report exits 0') or diag $rep->{err};
  my $txt = slurp("$d/report.txt");
  (my $flat = $txt) =~ s/\s+/ /g;
  like($flat, qr/ Block trace -+ Host db1, the data device vda \(254:0\): 14 requests in the measurement interval, over 1000 s of its 1000 s \(100\.0 %\)\./,
       'the section, after Device I/O');
  like($txt, qr/^  8 KB\s+5 \(45\.5 %\)\s+3 \(27\.3 %\)\s+8 \(72\.7 %\)\s+98\.97 %$/m, 'Table 2: 8 KB, the study beside');
  like($txt, qr/^  All\s+7 \(63\.6 %\)\s+4 \(36\.4 %\)\s+11 \(100\.0 %\)\s+90\.69 % \/ 9\.31 %$/m,
       'Table 2: all, reads and writes');
  like($flat, qr/8 KB blocks read: 11, of which read exactly once 9 \(81\.8 %; the study: 92 %\)/, 'read once');
  like($txt, qr/^  1-10 s\s+2 \(50\.0 %\)\s+2 \(66\.7 %\)$/m, 'the distances\' buckets');
  like($txt, qr/^  Median\s+2\.00 s\s+4\.00 s$/m, 'their medians');
  like($flat, qr/the trace has 6 of its 6 reads \(100\.0 %\) and 5 of its 5 writes \(100\.0 %; 1 of them empty pre-flush writes\)/,
       'against the device\'s counters');
  is(read_json("$d/results.json")->{block_trace}{hosts}[0]{blocks_read_once}, 9, 'results.json: block_trace');

  # Not traced: why.
  write_file("$d/sys/db1/block-trace.conf", "traced=no\nwhy=perf is not installed on db1 (Debian package linux-perf)\n");
  run_report('--no-plots', $d);
  ($flat = slurp("$d/report.txt")) =~ s/\s+/ /g;
  like($flat, qr/ Block trace -+ Host db1, \? \(\?\): not traced: perf is not installed on db1 \(Debian package linux-perf\)\./,
       'not traced: perf\'s absence said');
  unlink "$d/sys/db1/block-trace.conf";
  run_report('--no-plots', $d);
  ($flat = slurp("$d/report.txt")) =~ s/\s+/ /g;
  like($flat, qr/ Block trace -+ Not traced: asked for \(--block-trace\), but the system monitor/,
       'asked for, nothing written: said');
};

done_testing();
