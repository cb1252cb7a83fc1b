# The database's memory in the report, results.json and compare (run --db-memory, issue 38):
# fixture results directories of a capped run (cgroup v1, and v2 where the kernel gives no
# peak), an uncapped embedded cluster, a --db server and a run before the option; the line at
# the top of report.txt and in its Database section, run.conf's db_memory figures as numbers in
# results.json, and compare listing db_memory among the settings that differ while the cgroup's
# measurements go beside the database figures.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib", "$FindBin::RealBin/lib";
use Test::More;
use BBTest qw(valid_run tmpdir run_report read_json slurp);
use BrokerBench::ReportDatabase qw(memory_text human_bytes);

my $GB = 1024**3;
my %conf = (
  capped => { db_memory => '8%', db_memory_bytes => int(0.08 * 13.6 * $GB),
              db_memory_database_bytes => int(13.6 * $GB),
              db_memory_settings => 'shared_buffers=278MB effective_cache_size=557MB '
                                    . 'maintenance_work_mem=69MB',
              db_memory_cgroup => 'v1 /sys/fs/cgroup/memory/brokerbench-pg-1',
              db_memory_cached_at_start_bytes => 438272,
              db_memory_data_dir_bytes => int(14.1 * $GB),
              db_memory_peak_bytes => int(0.08 * 13.6 * $GB) - 4096,
              db_memory_end_bytes => 1_000_000_000, db_memory_oom_kills => 0 },
  v2 => { db_memory => '256M', db_memory_bytes => 268435456,
          db_memory_database_bytes => 1122647399, db_memory_settings => '',
          db_memory_cgroup => 'v2 /sys/fs/cgroup/brokerbench-pg-2',
          db_memory_cached_at_start_bytes => 0, db_memory_data_dir_bytes => 1951496115,
          db_memory_peak_bytes => '', db_memory_end_bytes => 262537216,
          db_memory_oom_kills => 2 },
  uncapped => { db_memory => 'none' },
  db => { db_memory => 'unknown' },
  before => {},
);
my %dir;
for my $name (sort keys %conf) {
  $dir{$name} = tmpdir() . "/$name";
  valid_run($dir{$name});
  open my $fh, '>>', "$dir{$name}/run.conf" or die $!;
  print {$fh} map { "$_=$conf{$name}{$_}\n" } sort keys %{ $conf{$name} };
  close $fh;
  my $res = run_report('--no-plots', '--quiet', $dir{$name});
  is($res->{rc}, 0, "$name: reported") or diag $res->{err};
}

# The report's line: at the top, and the same in the Database section.
sub memory_lines {
  my ($txt) = @_;
  my @lines;
  while ($txt =~ /^  Database memory:\s+(.*(?:\n {6,}\S.*)*)/mg) {
    push @lines, $1 =~ s/\n\s+/ /gr;
  }
  return @lines;
}
my %line;
for my $name (sort keys %dir) {
  my @l = memory_lines(slurp("$dir{$name}/report.txt"));
  is(scalar @l, 2, "$name: a memory line at the top and in the Database section");
  is($l[1], $l[0], "$name: the same in both");
  $line{$name} = $l[0];
}
is($line{capped}, 'capped at 1.1 GB (8 % of the 13.6 GB database) by a cgroup v1 memory cgroup '
                  . '(memory.limit_in_bytes); peak 1.1 GB, 0 OOM kills; shared_buffers 278MB, '
                  . 'effective_cache_size 557MB, maintenance_work_mem 69MB (sized for the cap); '
                  . '0.4 MB of the 14.1 GB data directory in the page cache at the start',
   'capped at 8 %: the cap, its share, the cgroup, peak, OOM kills, settings, cache at the start');
is($line{v2}, 'capped at 256 MB (24 % of the 1.0 GB database, --db-memory 256M) by a cgroup v2 '
              . 'memory cgroup (memory.max); peak unknown (no memory.peak: Linux before 5.19), '
              . '2 OOM kills; its memory settings as --set; 0.0 MB of the 1.8 GB data directory '
              . 'in the page cache at the start',
   'capped at 256M on cgroup v2 without memory.peak, the settings --set, OOM kills');
is($line{uncapped}, "not capped (the embedded cluster could use the machine's memory)", 'uncapped');
is($line{db}, 'not known to the kit (a --db server)', 'a --db server');
like($line{before}, qr/\Anot recorded \(run\.conf has no db_memory/, 'a run before the option');

# results.json: the figures as numbers, an empty one as null, the rest as run.conf has them.
my $raw = slurp("$dir{capped}/results.json");
for my $k (qw(db_memory_bytes db_memory_database_bytes db_memory_cached_at_start_bytes
              db_memory_data_dir_bytes db_memory_peak_bytes db_memory_end_bytes
              db_memory_oom_kills)) {
  like($raw, qr/"$k" : \d+,?\n/, "results.json: $k is a number");
}
like($raw, qr/"db_memory" : "8%"/, 'db_memory as requested');
my $v2 = read_json("$dir{v2}/results.json");
ok(exists $v2->{settings}{db_memory_peak_bytes} && !defined $v2->{settings}{db_memory_peak_bytes},
   'an empty peak (no memory.peak) is null');
is(scalar(grep { $_->{file} eq 'run.conf' } @{ $v2->{problems} }), 0, 'and no input problem');
# A figure that is not a number is an input problem naming it, as for every numeric key.
{
  my $bad = tmpdir() . '/bad';
  valid_run($bad);
  open my $fh, '>>', "$bad/run.conf" or die $!;
  print {$fh} "db_memory=8%\ndb_memory_bytes=lots\n";
  close $fh;
  run_report('--no-plots', '--quiet', $bad);
  like(slurp("$bad/report.txt"), qr/run\.conf:\d+: db_memory_bytes is not a number: 'lots'/,
       'db_memory_bytes=lots: named as an input problem');
}

# compare: db_memory among the settings that differ; the cgroup's peak, usage, OOM kills and
# page cache beside the database figures, not as settings (they differ in every run).
my $out = tmpdir() . '/cmp';
my $res = run_report('bb-compare', '--no-plots', '--out', $out, $dir{uncapped}, $dir{capped},
                     $dir{v2});
is($res->{rc}, 0, 'compare: exit 0') or diag $res->{err};
my $cmp = slurp("$out/compare.txt");
like($cmp, qr/^  run\.conf\s+db_memory\s+none\s+8%\s+256M$/m, 'db_memory differs: none, 8%, 256M');
like($cmp, qr/^  run\.conf\s+db_memory_bytes\s+\(not set\)\s+1168231104\s+268435456$/m,
     'and the cap in bytes');
like($cmp, qr/^  run\.conf\s+db_memory_cgroup\s+\(not set\)\s+v1\s+v2$/m, 'the cgroup by its kind');
unlike($cmp, qr/^  run\.conf\s+db_memory_(?:peak|end|oom|cached|data_dir)/m,
       'not the measurements among the settings');
like($cmp, qr/^  the memory cgroup's peak \(bytes\)\s+n\/a\s+1168227008\s+-\s+n\/a\s+-$/m,
     'the peak beside the database figures (unknown where no memory.peak)');
like($cmp, qr/^  the memory cgroup's OOM kills\s+n\/a\s+0\s+-\s+2\s+-$/m, 'the OOM kills');
like($cmp, qr/the memory cgroup's peak \(bytes\), uncapped: n\/a, no memory cap$/m,
     'why the uncapped run has none');
like($cmp, qr/the memory cgroup's peak \(bytes\), v2: n\/a, not given by the kernel$/m,
     'why the v2 run has none');
my $same = tmpdir() . '/same';
$res = run_report('bb-compare', '--no-plots', '--out', $same, $dir{uncapped}, $dir{before});
is($res->{rc}, 0, 'compare of two uncapped runs: exit 0') or diag $res->{err};
like(slurp("$same/compare.txt"), qr/^  run\.conf\s+db_memory\s+none\s+\(not set\)$/m,
     'db_memory none against a run before it');
unlike(slurp("$same/compare.txt"), qr/memory cgroup/, 'no cgroup figures without a capped run');
like($cmp, qr/^  the data directory in the page cache at the start \(bytes\)\s+n\/a\s+438272\s+-\s+0\s+-$/m,
     'what the page cache held at the start');

# The sizes as the line gives them.
is(human_bytes(438272), '0.4 MB', 'under 10 MB: a decimal');
is(human_bytes(271 * 1048576), '271 MB', 'MB');
is(human_bytes(int(13.6 * $GB)), '13.6 GB', 'GB');
is(memory_text({ db_memory => '8%', db_memory_bytes => 1e9, db_memory_database_bytes => 1e10,
                 db_memory_cgroup => 'v2-scope /sys/fs/cgroup/user.slice/x.scope' }),
   "capped at 954 MB (10 % of the 9.3 GB database) by a systemd scope's cgroup v2 memory.max "
   . '(systemd-run --user --scope); peak and OOM kills not recorded (the run did not reach its '
   . 'end); its memory settings as --set', 'a scope, and a run that did not end');

done_testing();
