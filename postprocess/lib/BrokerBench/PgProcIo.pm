package BrokerBench::PgProcIo;
# PostgreSQL's own I/O in the measurement interval, beside its devices' (DeviceIo.pm): a device
# counts every request of every process on it, and on a shared machine (builds, other jobs) most
# of them need not be the database's. The kernel accounts I/O to the process that caused it;
# postprocess/bb-cpu-sampler sums /proc/PID/io over the cluster's processes once a second into
# the pg_* columns of sys/<host>/proc_cpu.csv (the postmaster's figures hold its reaped
# backends'). Cut to the MI as DeviceIo.pm cuts the devices' samples: between the first and the
# last sample inside it (the same pass of the sampler wrote both files, so the same seconds).
#   read_bytes     what the processes caused to be read from storage (page-cache hits excluded)
#   written_bytes  write_bytes - cancelled_write_bytes: what they dirtied (or wrote directly),
#                  counted when dirtied, less what they truncated before its write-back. The
#                  kernel counts whole folios: where a file system caches in large ones (ext4
#                  on 6.18 here), 2 KiB written into a clean folio and fsynced counts up to 2 MiB
#                  (200 such writes: write_bytes 400 MiB, the device wrote 1.2 MiB). PostgreSQL
#                  fsyncs the WAL at each commit, so this can be many times what it wrote.
#   wchar          the bytes its write(2)-family calls took (files and pipes; a page written
#                  twice before its write-back counts twice). PostgreSQL writes its data files
#                  and WAL in whole 8 KiB pages, so this too is at least what it wrote to them.
#   write_bound_bytes  the smaller of the two: what PostgreSQL caused the devices to write is at
#                  most this (but for the file system's journal and metadata, and the write-back
#                  of pages dirtied before the interval), so its share of the device's writes is
#                  at most the share given, and the rest at least other processes'.
# Older results directories have no pg_* columns: said, nothing else changes.
use strict;
use warnings;
use Exporter 'import';
use BrokerBench::Csv qw(is_count);

our @EXPORT_OK = qw(read_pg_io pg_own_io $SHARED_WARN_PCT);

# Under this share of a device's reads or writes, the section warns that the device was shared.
our $SHARED_WARN_PCT = 80;
# A direction that is under this share of the device's bytes (reads + writes) is not judged: a
# memory-resident run reads next to nothing, and a share of nothing says nothing.
my $JUDGED_PCT = 10;

my @COLS = qw(pg_read_bytes pg_write_bytes pg_cancelled_write_bytes pg_rchar pg_wchar pg_syscr
              pg_syscw pg_io_unreadable postgres_procs);
my $N = 7;    # the columns of counters (then unreadable, then procs)
my $UNREADABLE = 'not readable by the monitor (not root, not the cluster\'s owner)';


# read_pg_io($path, $rel, $problem) -> ({ samples => [[time_us, read_bytes, write_bytes,
# cancelled_write_bytes, rchar, wchar, syscr, syscw, unreadable, postgres_procs]] }) where a
# sample's figures
# are undef when the kernel kept no accounting (empty fields), or ({ why }) for a file without
# the columns, or (undef, $why). Lines Cpu.pm refuses (field count, time) are skipped, as it
# reports them; a bad value in a pg_* column is reported through $problem.
sub read_pg_io {
  my ($path, $rel, $problem) = @_;
  open my $fh, '<', $path or return (undef, "cannot read: $!");
  my $head = <$fh>;
  return (undef, 'empty file') unless defined $head;
  $head =~ s/\r?\n\z//;
  my @names = split /,/, $head;
  my %at;
  @at{@names} = 0 .. $#names;
  my @missing = grep { !exists $at{$_} } 'time_us', @COLS;
  return ({ why => "$rel has no " . join(', ', @missing) . ' column: its monitor did not sample '
                   . 'PostgreSQL\'s own I/O (a kit before it)' }) if @missing;
  my @samples;
  while (my $text = <$fh>) {
    $text =~ s/\r?\n\z//;
    my @f = split /,/, $text, -1;
    next unless @f == @names && is_count($f[ $at{time_us} ]);
    my @v = map { $f[ $at{$_} ] } @COLS;
    if (!grep { length } @v[0 .. $N]) {
      push @samples, [$f[ $at{time_us} ] + 0, (undef) x ($N + 1),
                      is_count($v[-1]) ? $v[-1] + 0 : undef];
      next;
    }
    my ($bad) = grep { !is_count($v[$_]) } 0 .. $#v;
    if (defined $bad) {
      $problem->({ file => $rel, line => $., kind => 'other', text => $text,
                   reason => "not a count in $COLS[$bad]: '$v[$bad]'" });
      next;
    }
    push @samples, [$f[ $at{time_us} ] + 0, map { $_ + 0 } @v];
  }
  close $fh;
  return ({ samples => \@samples });
}

# pg_own_io($r, $host, \@devices) -> PostgreSQL's own I/O on $host over the MI against the
# figures of the devices (DeviceIo.pm's, those with figures): { from_us, to_us, seconds,
# processes, read_bytes, write_bytes, cancelled_write_bytes, written_bytes, rchar, wchar, syscr,
# syscw, write_bound_bytes, write_bound_by, *_per_s, devices, device_read_bytes,
# device_write_bytes, read_share_pct, write_share_pct, other_read_bytes, other_write_bytes,
# shared, warning } or { why } (and unreadable => 1 when the monitor could not read the
# processes' accounting).
sub pg_own_io {
  my ($r, $host, $devices) = @_;
  my $rel = "sys/$host/proc_cpu.csv";
  my $path = "$r->{results_dir}/$rel";
  return { why => "no $rel" } unless -e $path;
  my ($f, $err) = read_pg_io($path, $rel, $r->{_problem});
  return { why => "$rel: $err" } unless $f;
  return { why => $f->{why} } if $f->{why};
  my $mi = $r->{mi} // {};
  my @in = grep { $_->[0] >= $mi->{start_us} && $_->[0] <= $mi->{end_us} } @{ $f->{samples} };
  return { why => 'fewer than two samples of it inside the measurement interval' } if @in < 2;
  my ($first, $last) = @in[0, -1];
  if (grep { !defined $_->[1] } $first, $last) {
    return { why => 'the kernel keeps no per-process I/O accounting (no /proc/PID/io: a kernel '
                    . 'without CONFIG_TASK_IO_ACCOUNTING)' };
  }
  if (my ($s) = grep { !$_->[-1] } $first, $last) {
    return { why => 'the monitor found no PostgreSQL process at the interval\'s '
                    . ($s == $first ? 'start' : 'end') };
  }
  if (my ($s) = grep { $_->[-2] } $first, $last) {
    return { unreadable => 1, why => sprintf('%s: %d of its %d processes\' /proc/PID/io refused '
                                             . 'at the interval\'s %s', $UNREADABLE, $s->[-2],
                                             $s->[-1], $s == $first ? 'start' : 'end') };
  }
  my @d = map { $last->[$_] - $first->[$_] } 0 .. $N;
  if (grep { $_ < 0 } @d[1 .. $N]) {
    return { why => 'its counters went down in the interval (the cluster restarted, and its '
                    . 'processes\' counts with it): not counted' };
  }
  my $sec = $d[0] / 1e6;
  my $o = { from_us => $first->[0], to_us => $last->[0], seconds => $sec,
            processes => $last->[-1], read_bytes => $d[1], write_bytes => $d[2],
            cancelled_write_bytes => $d[3], written_bytes => $d[2] - $d[3], rchar => $d[4],
            wchar => $d[5], syscr => $d[6], syscw => $d[7] };
  $o->{written_bytes} = 0 if $o->{written_bytes} < 0;
  @$o{qw(write_bound_bytes write_bound_by)} = $o->{wchar} < $o->{written_bytes}
    ? ($o->{wchar}, 'wchar') : ($o->{written_bytes}, 'write_bytes');
  $o->{"${_}_per_s"} = $o->{$_} / $sec for qw(read_bytes written_bytes wchar write_bound_bytes);
  shares($o, [grep { defined $_->{read_bytes} && $_->{seconds} } @$devices]);
  return $o;
}

# PostgreSQL's share of what the devices read and wrote, by rates (the spans are the same
# seconds unless a sample of one file is missing), and the rest: other processes' bytes.
sub shares {
  my ($o, $devs) = @_;
  return unless @$devs;
  $o->{devices} = [map { $_->{device} } @$devs];
  my ($read_rate, $write_rate, $sec) = (0, 0, 0);
  for my $d (@$devs) {
    $read_rate  += $d->{read_bytes} / $d->{seconds};
    $write_rate += $d->{write_bytes} / $d->{seconds};
    $sec = $d->{seconds} if $d->{seconds} > $sec;
  }
  $o->{device_read_bytes}  = $read_rate * $sec;
  $o->{device_write_bytes} = $write_rate * $sec;
  $o->{other_read_bytes}   = ($read_rate - $o->{read_bytes_per_s}) * $sec;
  $o->{other_write_bytes}  = ($write_rate - $o->{write_bound_bytes_per_s}) * $sec;
  $o->{read_share_pct}  = $read_rate ? 100 * $o->{read_bytes_per_s} / $read_rate : undef;
  $o->{write_share_pct} = $write_rate ? 100 * $o->{write_bound_bytes_per_s} / $write_rate : undef;
  my $all = $read_rate + $write_rate;
  my @under;
  # Its reads are what it read; its writes at most what it wrote (see the head of this file).
  for my $k (['read', $read_rate, 'only', 'reads'], ['write', $write_rate, 'at most', 'writes']) {
    my ($key, $rate, $adverb, $word) = @$k;
    my $share = $o->{"${key}_share_pct"};
    push @under, sprintf('%s %.1f %% of its %s', $adverb, $share, $word)
      if defined $share && $share < $SHARED_WARN_PCT && 100 * $rate / $all >= $JUDGED_PCT;
  }
  $o->{shared} = @under ? 1 : 0;
  $o->{warning} = sprintf('the device was shared: PostgreSQL\'s processes made %s (under '
                          . '%d %%); the rest was other processes\' and the file system\'s own, '
                          . 'so the device figures above overstate the database\'s I/O',
                          join(' and ', @under), $SHARED_WARN_PCT) if @under;
}

1;
