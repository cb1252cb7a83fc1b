package BrokerBench::ReportDeviceIo;
# The report's "Device I/O" section (DeviceIo.pm's figures): per host, which devices hold the
# database's data and WAL, a column of figures per device over the measurement interval, the
# WAL's part of a shared device's writes, and beside them PostgreSQL's view (PgIo.pm): the hit
# ratio, the WAL, relation I/O by process, the relations read most.
use strict;
use warnings;
use Exporter 'import';
use BrokerBench::Format qw(pct);
use BrokerBench::PgProcIo qw($SHARED_WARN_PCT);

our @EXPORT_OK = qw(device_io_section);

my $MIB = 1048576;

sub mib { defined $_[0] ? sprintf('%.1f', $_[0] / $MIB) : '-' }
sub num { defined $_[0] ? sprintf($_[1], $_[0]) : '-' }
sub pair { my ($d, $k, $fmt) = @_; num($d->{"read$k"}, $fmt) . ' / ' . num($d->{"write$k"}, $fmt) }
sub to_one { defined $_[0] ? sprintf('%.2f:1', $_[0]) : '- (no write)' }

sub device_io_section {
  my ($r) = @_;
  my $dio = $r->{device_io} // {};
  my @blocks;
  if (!@{ $dio->{hosts} // [] }) {
    push @blocks, { t => 'p', text => 'Not available (' . ($dio->{why} // '?') . ').' };
  }
  push @blocks, host_blocks($r, $_) for @{ $dio->{hosts} // [] };
  push @blocks, { t => 'p', text => 'From /proc/diskstats on the database\'s host, once a second '
                  . '(sys/<host>/diskstats.csv), between the first and the last sample inside the '
                  . 'measurement interval; the devices are those of the data directory and of '
                  . 'pg_wal (its link followed), found by the system monitor '
                  . '(sys/<host>/io-devices.conf). A device counts every request of every process '
                  . 'on it, not only PostgreSQL\'s. Requests are those the device completed '
                  . '(merged ones once); bytes = sectors x 512; average request = bytes / '
                  . 'requests; latency = the time requests took, summed by the kernel, / requests '
                  . '(queueing in the device\'s queue included); utilization = the time the device '
                  . 'had a request in flight. Per transaction: the device\'s rate over the rate of '
                  . 'every transaction the database ran in the MI (the ten types and '
                  . 'Data-Maintenance, whatever their outcome); per Trade-Result: over the '
                  . 'metric\'s rate. The TPC-E I/O study (Chen et al.) found 90.69 % reads (9.7:1 '
                  . 'by requests) and 98.97 % of requests of 8 KB on its data devices, with the '
                  . 'database\'s memory at 8 % of its size. Plot: device-io.' };
  push @blocks, { t => 'p', text => 'PostgreSQL\'s own I/O: the kernel\'s accounting of the I/O '
                  . 'of the cluster\'s processes (/proc/PID/io of the postmaster, which holds what '
                  . 'its exited backends did, and of its live children, summed by the system '
                  . 'monitor in sys/<host>/proc_cpu.csv), between the same samples as the '
                  . 'device\'s. Read from storage: read_bytes, the bytes the processes caused to '
                  . 'be read at the block layer (page-cache hits are not in it; read-ahead they '
                  . 'set off is). Writes caused: two counts, each at least what the processes '
                  . 'had written, the smaller given. write_bytes - cancelled_write_bytes: the page '
                  . 'cache they dirtied (or wrote with direct I/O), counted when dirtied, less the '
                  . 'dirty pages they truncated or deleted before the kernel wrote them back; but '
                  . 'counted by whole folio, so where the file system caches files in large '
                  . 'folios (up to 2 MiB) a few KiB written into a clean one and fsynced, as '
                  . 'PostgreSQL does its WAL at each commit, counts the whole folio while the '
                  . 'device writes the few KiB (on ext4 with Linux 6.18, 200 writes of 2 KiB, each '
                  . 'fsynced: write_bytes 400 MiB, the device 1.2 MiB). wchar: the bytes their '
                  . 'write calls took (page cache or not, files and pipes), PostgreSQL\'s in '
                  . 'whole 8 KiB pages; a page written twice before its write-back counts twice, '
                  . 'the device writes it once. The kernel writes dirty pages back when it '
                  . 'chooses, so pages dirtied before the interval are written in it and some '
                  . 'dirtied in it after. The file system\'s journal and metadata are nobody\'s. '
                  . 'So PostgreSQL\'s share of the writes is at most the one given, and can be '
                  . 'over 100 % on a device of its own. Other processes\': the device\'s bytes '
                  . 'less PostgreSQL\'s, that is every other process\'s (builds, other jobs, this '
                  . 'kit\'s own logs) and the file system\'s. Under ' . $SHARED_WARN_PCT
                  . ' % of the device\'s reads or '
                  . 'writes (a direction that is at least a tenth of its bytes), the device was '
                  . 'shared and its figures (requests, bytes, latency, utilization) overstate the '
                  . 'database\'s I/O.' }
    if grep { $_->{postgres_processes} } @{ $dio->{hosts} // [] };
  push @blocks, postgres_blocks($r);
  return { id => 'device-io', title => 'Device I/O', blocks => \@blocks };
}

sub host_blocks {
  my ($r, $h) = @_;
  my @blocks = ({ t => 'p', text => "Host $h->{host}: " . where_text($h) });
  my @devs = grep { defined $_->{seconds} && !$_->{why} } @{ $h->{devices} };
  for my $d (grep { $_->{why} } @{ $h->{devices} }) {
    push @blocks, { t => 'p', text => "$d->{device} ($d->{role}): no figures: $d->{why}." };
  }
  if (!@{ $h->{devices} } && $h->{samples_why}) {
    push @blocks, { t => 'p', text => "No device figures: $h->{samples_why}." };
  }
  return @blocks unless @devs;
  my @rows = (
    ['Seconds counted',
     map { sprintf('%.0f (%d samples)', $_->{seconds}, $_->{samples_in_mi}) } @devs],
    ['Requests, read / write', map { pair($_, 's', '%d') } @devs],
    ['Requests per second', map { pair($_, 's_per_s', '%.1f') } @devs],
    ['MiB, read / write', map { mib($_->{read_bytes}) . ' / ' . mib($_->{write_bytes}) } @devs],
    ['MiB per second',
     map { mib($_->{read_bytes_per_s}) . ' / ' . mib($_->{write_bytes_per_s}) } @devs],
    ['Average request (KiB)', map { pair($_, '_kib_avg', '%.1f') } @devs],
    ['Read:write by requests', map { to_one($_->{read_write_requests}) } @devs],
    ['Read:write by bytes', map { to_one($_->{read_write_bytes}) } @devs],
    ['Requests per transaction', map { pair($_, 's_per_txn', '%.3f') } @devs],
    ['Requests per Trade-Result', map { pair($_, 's_per_trade_result', '%.2f') } @devs],
    ['Latency (ms per request)', map { pair($_, '_ms_avg', '%.2f') } @devs],
    ['Utilization (time busy)', map { pct($_->{utilization_pct}) } @devs],
  );
  push @blocks, { t => 'table', head => ['In the measurement interval',
                                         map { "$_->{device} ($_->{role})" } @devs],
                  align => ['l', map { 'r' } @devs], rows => \@rows };
  for my $d (@devs) {
    my $w = $d->{wal_split} or next;
    push @blocks, { t => 'p', text => $w->{why}
      ? "The WAL's part of $d->{device}'s writes: unknown: $w->{why}."
      : sprintf("Data and WAL share %s: of the %s MiB written, the WAL about %s MiB (%s), the "
                . 'data files and the rest %s MiB. WAL from %s over %s, at its rate over the %.0f '
                . 's counted here%s.', $d->{device}, mib($d->{write_bytes}),
                mib($w->{wal_bytes}), pct($w->{wal_share_pct}), mib($w->{other_bytes}),
                $w->{source}, $w->{scope}, $d->{seconds},
                $w->{kind} eq 'written' ? ''
                : ': what PostgreSQL made, less than what it wrote (a WAL page partly filled is '
                  . 'written again at each flush), so the WAL\'s part is at least this') };
  }
  push @blocks, own_io_blocks($h);
  my @notes;
  for my $d (@devs) {
    push @notes, "$d->{device}: $d->{samples_missing} second(s) without a sample inside the MI "
                 . '(counted across: the counters kept counting)' if $d->{samples_missing};
    push @notes, "$d->{device}: $d->{wraps} counter wrap(s) (a counter that went down from below "
                 . '2^32: taken as having wrapped once)' if $d->{wraps};
    push @notes, sprintf('%s: its counters restarted %d time(s) (went down, no wrap: the device '
                         . 'was made anew); %.0f s around it not counted', $d->{device},
                         $d->{restarts}, $d->{restart_seconds}) if $d->{restarts};
  }
  push @blocks, { t => 'list', items => \@notes } if @notes;
  return @blocks;
}

# PostgreSQL's own I/O beside the devices' (PgProcIo.pm): what its processes read and wrote, its
# share of the devices' bytes, the rest (other processes'), and a warning for a shared device.
sub own_io_blocks {
  my ($h) = @_;
  my $o = $h->{postgres_processes} or return ();
  return { t => 'p', text => "PostgreSQL's own I/O: $o->{why}." } if $o->{why};
  my $of = !$o->{devices} ? undef
         : @{ $o->{devices} } == 1 ? "$o->{devices}[0]'s"
         : 'those of ' . join(' and ', @{ $o->{devices} }) . ' together';
  my $share = sub {
    my ($key, $word) = @_;
    return '' unless $of;
    return " = - of $of $word (the device did none)" unless defined $o->{"${key}_share_pct"};
    return sprintf(' = %s of %s %s', pct($o->{"${key}_share_pct"}), $of, $word);
  };
  my @kv = (
    ['Read from storage', sprintf('%s MiB (%s MiB/s; read_bytes)%s', mib($o->{read_bytes}),
                                  mib($o->{read_bytes_per_s}), $share->('read', 'reads'))],
    ['Writes caused', sprintf('at most %s MiB (%s MiB/s)%s: the smaller of what its write calls '
                              . 'took (wchar) %s MiB and the pages it dirtied (write_bytes - '
                              . 'cancelled_write_bytes) %s - %s = %s MiB',
                              mib($o->{write_bound_bytes}), mib($o->{write_bound_bytes_per_s}),
                              $share->('write', 'writes'), mib($o->{wchar}),
                              mib($o->{write_bytes}), mib($o->{cancelled_write_bytes}),
                              mib($o->{written_bytes}))],
  );
  if ($of) {
    my $rest = sub {
      my ($bytes, $word, $at_least) = @_;
      return $bytes >= 0 ? ($at_least ? 'at least ' : '') . mib($bytes) . " MiB $word"
                         : "none $word (PostgreSQL's figure is above the device's)";
    };
    push @kv, ["Other processes'", $rest->($o->{other_read_bytes}, 'read') . ', '
                                   . $rest->($o->{other_write_bytes}, 'written', 1)
                                   . ' (the device\'s figures less PostgreSQL\'s)'];
  }
  my @blocks = ({ t => 'p', text => sprintf("PostgreSQL's own I/O (its processes' /proc/PID/io, "
                                            . '%d at the end; the same %.0f s):',
                                            $o->{processes}, $o->{seconds}) },
                { t => 'kv', rows => \@kv });
  push @blocks, { t => 'p', text => "Warning: $o->{warning}." } if $o->{warning};
  return @blocks;
}

# Which device holds what, or why that is not known.
sub where_text {
  my ($h) = @_;
  my $found = !$h->{found_by} || $h->{found_by} eq 'unknown' ? ''
            : $h->{found_by} eq 'every whole disk' ? ''
            : " (found from $h->{found_by})";
  if (($h->{found_by} // '') eq 'every whole disk' || ($h->{found_by} // '') eq 'unknown') {
    return 'the database\'s devices are not known (' . ($h->{why} // '?') . '): '
           . (@{ $h->{devices} } ? 'every whole disk of the host is shown instead, which may '
                                   . 'hold more than the database, or not the database at all.'
                                 : 'no device is shown.');
  }
  my $dev = sub {
    my ($role) = @_;
    my $name = $h->{"${role}_device"};
    return defined $name ? "$name (" . ($h->{"${role}_major_minor"} // '?') . ')'
                         : 'no device that can be sampled: ' . ($h->{"${role}_why"} // 'unknown');
  };
  my $data = "the data directory $h->{data_path}";
  my $wal = 'the WAL (' . ($h->{wal_path} // '?') . ')';
  return "$data and $wal are on one device, " . $dev->('data') . "$found."
    if ($h->{data_and_wal} // '') eq 'one device';
  return "$data is on " . $dev->('data') . "; $wal on " . $dev->('wal') . "$found.";
}

sub window_text {
  my ($x) = @_;
  return $x->{scope} . ($x->{window} ? sprintf(', %.0f s', $x->{window}{seconds}) : '');
}

sub postgres_blocks {
  my ($r) = @_;
  my $pg = $r->{device_io}{postgres} // {};
  my $bs = $pg->{block_size};
  my @kv;
  my $hit = $pg->{hit} // {};
  if (defined $hit->{hit_ratio_pct}) {
    push @kv, ['Buffer hit ratio', sprintf('%.2f %% (%d blocks read, %d found in shared buffers; '
                                           . 'pg_stat_database of the database; %s)',
                                           $hit->{hit_ratio_pct}, $hit->{blocks_read},
                                           $hit->{blocks_hit}, window_text($hit))];
    push @kv, read_against_device($r, $hit, $bs);
  } else {
    push @kv, ['Buffer hit ratio', 'not available: ' . ($hit->{why} // 'no block was read or hit')];
  }
  my $w = $pg->{wal} // {};
  for my $k (['written', 'WAL written'], ['lsn', 'WAL made (insert position)'],
             ['stat_wal', 'WAL records (pg_stat_wal)']) {
    my $f = $w->{ $k->[0] } // { why => '?' };
    push @kv, [$k->[1], defined $f->{bytes}
      ? sprintf('%s MiB (%s MiB/s; %s; %s)', mib($f->{bytes}),
                $f->{window} ? mib($f->{bytes} / $f->{window}{seconds}) : '-', $f->{source},
                window_text($f))
      : "not available: $f->{why}"];
  }
  my @blocks = ({ t => 'p', text => "PostgreSQL's view:" }, { t => 'kv', rows => \@kv });
  my $bp = $pg->{by_process} // { why => '?' };
  if ($bp->{processes}) {
    push @blocks, { t => 'p', text => 'Relation I/O by process (' . window_text($bp)
                                      . "; $bp->{source}; MiB):" },
      @{ $bp->{processes} }
      ? { t => 'table', head => ['Process', 'Read', 'Written', 'Added to files', 'Fsyncs'],
          align => [qw(l r r r r)],
          rows => [map { [$_->{process}, mib($_->{read_bytes}), mib($_->{write_bytes}),
                          mib($_->{extend_bytes}), $_->{fsyncs}] } @{ $bp->{processes} }] }
      : { t => 'p', text => 'none' };
  } else {
    push @blocks, { t => 'p', text => "Relation I/O by process: $bp->{why}." };
  }
  my $tr = $pg->{top_relations} // { why => '?' };
  if ($tr->{top} && @{ $tr->{top} }) {
    push @blocks, { t => 'p', text => sprintf('The relations PostgreSQL read the most blocks of '
                                              . '(%s; %d blocks read in all, of %d relations; '
                                              . 'a table\'s heap and TOAST together, each index '
                                              . 'apart; pg_statio_user_tables and _indexes):',
                                              window_text($tr), $tr->{blocks_read},
                                              $tr->{relations}) },
      { t => 'table', head => ['Relation', 'Kind', 'Blocks read', 'Share of reads', 'Blocks hit',
                               'Hit ratio'], align => [qw(l l r r r r)],
        rows => [map { [$_->{name}, $_->{kind}, $_->{blocks_read}, pct($_->{share_pct}),
                        $_->{blocks_hit}, pct($_->{hit_ratio_pct})] } @{ $tr->{top} }] };
  } else {
    push @blocks, { t => 'p', text => 'The relations read most: not available ('
                                      . ($tr->{why} // 'no relation was read') . ').' };
  }
  return @blocks;
}

# What the data devices read against the blocks PostgreSQL read (it did not find them in shared
# buffers): the difference is the page cache's (and the device may read ahead, and serve
# other processes).
sub read_against_device {
  my ($r, $hit, $bs) = @_;
  return () unless $bs && $hit->{window} && $hit->{blocks_read};
  my @data = grep { defined $_->{read_bytes_per_s} && $_->{role} =~ /data/ }
             map { @{ $_->{devices} } } @{ $r->{device_io}{hosts} };
  return () unless @data;
  my $pg_rate = $hit->{blocks_read} * $bs / $hit->{window}{seconds};
  my $dev_rate = 0;
  $dev_rate += $_->{read_bytes_per_s} for @data;
  return ['Read from the data device', sprintf('%s MiB/s against %s MiB/s of blocks PostgreSQL '
                                               . 'read: %.1f %% (under 100 %%: the page cache '
                                               . 'served the rest; over: the device read ahead, '
                                               . 'or for other processes)', mib($dev_rate),
                                               mib($pg_rate), 100 * $dev_rate / $pg_rate)];
}

1;
