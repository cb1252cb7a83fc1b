package BrokerBench::DeviceIo;
# "Device I/O": what the database's block devices did in the measurement interval, as the TPC-E
# I/O study measured its disks (Chen et al., "TPC-E vs. TPC-C: Characterizing the New TPC-E
# Benchmark via an I/O Comparison Study"): per device of the data directory and of the WAL,
# read and write requests and bytes, the average request size, read:write by requests and by
# bytes, requests per transaction, the device's latency and utilization; beside them
# PostgreSQL's own view (PgIo.pm). When data and WAL are on one device, the WAL's share of its
# writes is estimated from what PostgreSQL says it wrote to the WAL.
#
# Inputs, from the system monitor of the database's host (controller/sysmon):
#   sys/<host>/io-devices.conf  which devices hold the data and the WAL (postprocess/bb-io-devices)
#   sys/<host>/diskstats.csv    their /proc/diskstats counters once a second (DiskStats.pm)
#   sys/<host>/proc_cpu.csv     its pg_* columns: PostgreSQL's own I/O (PgProcIo.pm)
# The interval is cut as System.pm and Cpu.pm cut the host's other samples: the samples inside
# the MI, the figures between the first and the last of them. Requests per transaction are the
# device's rate over the transactions' rate in the MI (the two spans differ by up to a second
# at each end, the rates do not).
use strict;
use warnings;
use Exporter 'import';
use BrokerBench::Csv qw(read_run_conf);
use BrokerBench::DiskStats qw(read_diskstats interval_steps sum_steps $SECTOR_BYTES);
use BrokerBench::PgIo qw(postgres_io);
use BrokerBench::PgProcIo qw(pg_own_io);
use BrokerBench::Result qw(mi_ok);

our @EXPORT_OK = qw(device_io);

my %ROLE_TEXT = (data => 'data', wal => 'WAL');

# device_io($r): sets $r->{device_io} = { hosts => [...], transactions_in_mi,
# trade_results_in_mi, postgres => PgIo's } (or { why }) and $r->{_series}{device_io}{host} =
# [[device, role, [[time_us, reads/s, writes/s, seconds]...]]...] for the plot: per step between
# two samples, its end, its rates and its length.
sub device_io {
  my ($r) = @_;
  my $dio = { hosts => [] };
  $r->{device_io} = $dio;
  my $txns = 0;
  for my $t (grep { $_->{code} ne 'TC' } values %{ $r->{transactions} // {} }) {
    $txns += $t->{rows_in_mi} // 0;
  }
  $dio->{transactions_in_mi} = $txns;
  $dio->{trade_results_in_mi} = $r->{trtps}{trade_results_in_mi};
  $dio->{postgres} = postgres_io($r);
  my %hosts;
  for my $path (glob("$r->{results_dir}/sys/*/io-devices.conf"),
                glob("$r->{results_dir}/sys/*/diskstats.csv")) {
    $hosts{$1} = 1 if $path =~ m{/sys/([^/]+)/[^/]+\z};
  }
  unless (%hosts) {
    $dio->{why} = 'no sys/<host>/io-devices.conf: the system monitor of this run did not look '
                  . "for the database's devices (a kit before this section, or no database "
                  . 'host among the hosts of the run)';
    return;
  }
  push @{ $dio->{hosts} }, host_io($r, $_) for sort keys %hosts;
}

# The devices of one host and their figures in the MI.
sub host_io {
  my ($r, $host) = @_;
  my $dir = "$r->{results_dir}/sys/$host";
  my $h = { host => $host, devices => [] };
  my $conf = {};
  if (-e "$dir/io-devices.conf") {
    my ($c, $problems) = read_run_conf("$dir/io-devices.conf");
    $r->{_problem}->({ file => "sys/$host/io-devices.conf", kind => 'other', %$_ }) for @$problems;
    $conf = $c;
    $h->{$_} = $conf->{$_} for grep { defined $conf->{$_} }
      qw(found_by why data_path wal_path data_device wal_device data_major_minor
         wal_major_minor data_why wal_why data_and_wal);
  } else {
    $h->{found_by} = 'unknown';
    $h->{why} = "no sys/$host/io-devices.conf: which device holds what is not known";
  }
  my $rel = "sys/$host/diskstats.csv";
  unless (-e "$dir/diskstats.csv") {
    $h->{samples_why} = "no $rel" . (defined $conf->{devices} && $conf->{devices} eq ''
                                     ? ': no device to sample' : '');
    return $h;
  }
  my ($ds, $err) = read_diskstats("$dir/diskstats.csv", $rel, $r->{_problem});
  unless ($ds) {
    $r->{_problem}->({ file => $rel, line => 1, kind => 'other', reason => $err, text => '' });
    $h->{samples_why} = "$rel: $err";
    return $h;
  }
  my @names = split /,/, $conf->{devices} // '';
  @names = sort keys %{ $ds->{devices} } unless @names;
  my $mi = $r->{mi} // {};
  for my $name (@names) {
    my $samples = $ds->{devices}{$name} // [];
    my $d = { device => $name, role => role_of($h, $name),
              major_minor => $name eq ($h->{data_device} // '') ? $h->{data_major_minor}
                           : $name eq ($h->{wal_device} // '') ? $h->{wal_major_minor} : undef };
    push @{ $h->{devices} }, $d;
    my @rates;
    for my $st (grep { !$_->{restart} } @{ interval_steps($samples, 0, 9e18) }) {
      my $s = ($st->{to_us} - $st->{from_us}) / 1e6;
      push @rates, [$st->{to_us}, $st->{d}[0] / $s, $st->{d}[3] / $s, $s];
    }
    push @{ $r->{_series}{device_io}{$host} }, [$name, $d->{role}, \@rates];
    unless (mi_ok($r)) {
      $d->{why} = 'no measurement interval';
      next;
    }
    my @in = grep { $_->[0] >= $mi->{start_us} && $_->[0] <= $mi->{end_us} } @$samples;
    $d->{samples_in_mi} = scalar @in;
    # The sampler takes one a second: a longer step between two is a second without one.
    $d->{samples_missing} = 0;
    for my $k (1 .. $#in) {
      my $n = int(($in[$k][0] - $in[ $k - 1 ][0]) / 1e6 + 0.5) - 1;
      $d->{samples_missing} += $n if $n > 0;
    }
    if (@in < 2) {
      $d->{why} = 'fewer than two samples of it inside the measurement interval';
      next;
    }
    figures($r, $d, sum_steps(interval_steps($samples, $mi->{start_us}, $mi->{end_us})),
            $in[0][0], $in[-1][0]);
  }
  wal_share($r, $h);
  # The devices count every process's requests: how much of them was PostgreSQL's own.
  $h->{postgres_processes} = pg_own_io($r, $host, $h->{devices}) if mi_ok($r);
  return $h;
}

# 'data and WAL', 'data', 'WAL', 'a whole disk' (every whole disk sampled), or 'role unknown'
# (no io-devices.conf beside the samples).
sub role_of {
  my ($h, $name) = @_;
  my @roles = grep { ($h->{"${_}_device"} // '') eq $name } qw(data wal);
  return join(' and ', map { $ROLE_TEXT{$_} } @roles) if @roles;
  return ($h->{found_by} // '') eq 'every whole disk' ? 'a whole disk' : 'role unknown';
}

sub ratio { my ($a, $b) = @_; return $b ? $a / $b : undef }

# The figures of one device from its counters' totals between its samples at $from and $to.
sub figures {
  my ($r, $d, $s, $from, $to) = @_;
  my $sec = $s->{seconds};
  @$d{qw(from_us to_us seconds wraps restarts restart_seconds)} =
    ($from, $to, $sec, @$s{qw(wraps restarts restart_seconds)});
  if ($sec <= 0) {
    $d->{why} = 'no second of it could be counted (its counters restarted)';
    return;
  }
  my %v = (reads => $s->{reads}, writes => $s->{writes},
           read_bytes => $s->{read_sectors} * $SECTOR_BYTES,
           write_bytes => $s->{write_sectors} * $SECTOR_BYTES);
  %$d = (%$d, %v);
  $d->{"${_}_per_s"} = $v{$_} / $sec for keys %v;
  $d->{read_kib_avg}  = ratio($v{read_bytes} / 1024, $v{reads});
  $d->{write_kib_avg} = ratio($v{write_bytes} / 1024, $v{writes});
  $d->{read_write_requests} = ratio($v{reads}, $v{writes});
  $d->{read_write_bytes}    = ratio($v{read_bytes}, $v{write_bytes});
  $d->{read_ms_avg}  = ratio($s->{read_ms}, $v{reads});
  $d->{write_ms_avg} = ratio($s->{write_ms}, $v{writes});
  # io_ms counts the time with a request in flight; one step's can exceed its length by the
  # sampler's jitter, never the whole span's by much.
  $d->{utilization_pct} = 100 * $s->{io_ms} / 1000 / $sec;
  my $mi_s = $r->{mi}{seconds};
  my $dio = $r->{device_io};
  for my $per (['txn', $dio->{transactions_in_mi}], ['trade_result', $dio->{trade_results_in_mi}]) {
    my ($key, $n) = @$per;
    next unless $n && $mi_s;
    $d->{"reads_per_$key"}  = $d->{reads_per_s} / ($n / $mi_s);
    $d->{"writes_per_$key"} = $d->{writes_per_s} / ($n / $mi_s);
  }
}

# Data and WAL on one device: the WAL's part of its writes, from what PostgreSQL wrote to the
# WAL at its rate over the device's seconds. The best figure the server has: 18's pg_stat_io
# write_bytes (what was written, partial pages again at each flush), else the insert
# position's advance or pg_stat_wal's bytes (what was made: less than what was written).
sub wal_share {
  my ($r, $h) = @_;
  return unless ($h->{data_and_wal} // '') eq 'one device';
  my ($d) = grep { $_->{device} eq $h->{data_device} && defined $_->{write_bytes} }
            @{ $h->{devices} };
  return unless $d;
  my $w = $r->{device_io}{postgres}{wal};
  my ($kind) = grep { defined $w->{$_}{bytes} && $w->{$_}{window} } qw(written lsn stat_wal);
  my $f = defined $kind ? $w->{$kind} : undef;
  unless ($f) {
    $d->{wal_split} = { why => 'PostgreSQL gave no WAL figure for the interval ('
                               . join('; ', map { $w->{$_}{why} // () } qw(written lsn stat_wal))
                               . ')' };
    return;
  }
  my $bytes = $f->{bytes} / $f->{window}{seconds} * $d->{seconds};
  $d->{wal_split} = { source => $f->{source}, scope => $f->{scope}, kind => $kind,
                      wal_bytes => $bytes, other_bytes => $d->{write_bytes} - $bytes,
                      wal_share_pct => $d->{write_bytes} ? 100 * $bytes / $d->{write_bytes}
                                                         : undef };
}

1;
