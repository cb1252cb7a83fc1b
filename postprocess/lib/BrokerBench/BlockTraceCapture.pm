package BrokerBench::BlockTraceCapture;
# The capture side of the block trace (run --block-trace; controller/block-trace runs
# postprocess/bb-block-trace, which is a thin wrapper round this module): which requests to
# trace for the database's data device, and `perf script` lines of the kernel's
# block:block_rq_issue tracepoint (and of block:block_bio_queue for empty pre-flush writes)
# turned into the compact file the post-processor reads (BlockTrace.pm).
#
# Why perf and a tracepoint, not blktrace: blktrace sets its trace up with the BLKTRACESETUP
# ioctl on the device, which virtual machines and containers often refuse ("Operation not
# permitted") even to root; the block tracepoints are read through perf_event_open, which works
# wherever tracefs's events are readable (root, or kernel.perf_event_paranoid permitting).
#
# The device. io-devices.conf (bb-io-devices) names the data directory's block device and its
# major:minor. block_rq_issue fires for the requests of a whole disk, with the disk's device
# number and absolute sectors: a partition is traced as its disk's requests inside the
# partition's sectors (/sys/dev/block/MAJ:MIN/start and size), given relative to its first
# sector, so that an 8 KB block of a filesystem on it is sector / 16. A device-mapper or md
# device issues no requests of its own (it passes bios to the devices under it, whose sectors
# are not its own): it is not traced, and the plan says why. The tracepoint's dev field holds
# the kernel's internal device number, MAJOR << 20 | MINOR, which is what perf's --filter
# compares.
#
# Empty pre-flush writes. An fsync that has no data to write (fdatasync of a file overwritten in
# place) sends the device a write of no data with REQ_PREFLUSH: the block layer issues only a
# flush request for it (several such writes may share one), yet /proc/diskstats counts it as a
# write of 0 bytes (and as a flush). block_rq_issue sees the flush alone, so the empty write is
# taken where it is submitted, block:block_bio_queue with no sectors (the kernel's filter lets
# only those through: they are few), so that the trace's writes can be set against the
# device's counters. A partition's bios carry the partition's device number.
#
# Requeued requests. A driver whose queue is full hands a request back (block_rq_requeue) and
# the block layer issues it again later: block_rq_issue fires twice for one request the device
# completes once. Under load it is the large ones (virtio-blk, a run at 256 MB: about 40 a
# second, 250 KB each on average, 4 % of the bytes read): each issue that repeats a requeued
# request (the same kind, sector and size) is left out, and counted (reissued).
#
# The compact file, block-trace.csv.gz (gzip), one row per request in issue order:
#   time_us,op,sector,sectors
# time_us: wall-clock microseconds (perf records CLOCK_MONOTONIC, `perf record -k`; the
# converter reads both clocks when it starts and adds their difference, and again at the end to
# show any step of the wall clock); op: R read, W write, F flush (no sectors), D discard,
# N any other (the kernel's rwbs letters: a leading F before the operation is a pre-flush of a
# write, kept as W), E an empty pre-flush write (no sectors); sector: the first 512-byte sector,
# relative to the traced device's start; sectors: how many. block-trace.conf (key=value) says what was traced and how it went.
use strict;
use warnings;
use Exporter 'import';
use Time::HiRes ();
use BrokerBench::Csv qw(read_run_conf);

our @EXPORT_OK = qw(trace_plan perf_filters clock_offset_us Converter $TRACE_HEADER
                    $CONF_FORMAT);

our $TRACE_HEADER = 'time_us,op,sector,sectors';
our $CONF_FORMAT = 'brokerbench block trace v1';

sub slurp_line {
  my ($path) = @_;
  open my $fh, '<', $path or return undef;
  my $line = <$fh>;
  close $fh;
  return undef unless defined $line;
  chomp $line;
  return $line;
}

# trace_plan($io_devices_conf, $sys) -> ({ device, major_minor, disk, disk_major_minor,
# first_sector, sectors, dev_t (the disk's), part_dev_t (a partition's, else undef) }) or
# (undef, why). $sys: sysfs's root (/sys; a test gives a
# made-up tree).
sub trace_plan {
  my ($conf_path, $sys) = @_;
  $sys //= '/sys';
  return (undef, "no $conf_path: the system monitor did not look for the database's devices "
                 . '(it is given them by --pgdata or --db)') unless -e $conf_path;
  my ($c) = read_run_conf($conf_path);
  my ($name, $mm) = @$c{qw(data_device data_major_minor)};
  unless (defined $name && defined $mm && length $name) {
    my $why = ($c->{found_by} // '') eq 'every whole disk'
            ? "the data directory's device is not known (" . ($c->{why} // '?') . ')'
            : 'the data directory is on no block device ('
              . ($c->{data_why} // 'io-devices.conf names none') . ')';
    return (undef, $why);
  }
  return (undef, "data_major_minor in $conf_path is not MAJOR:MINOR: '$mm'")
    unless $mm =~ /\A(\d+):(\d+)\z/;
  my $dir = "$sys/dev/block/$mm";
  return (undef, "$dir does not exist: the device $name ($mm) is gone") unless -e $dir;
  my %p = (device => $name, major_minor => $mm, disk => $name, disk_major_minor => $mm,
           first_sector => 0);
  my $disk_dir = $dir;
  if (-e "$dir/partition") {
    my $start = slurp_line("$dir/start");
    return (undef, "$dir/start is not a sector number") unless defined $start && $start =~ /\A\d+\z/;
    $p{first_sector} = $start;
    $disk_dir = "$dir/..";
    my $disk_mm = slurp_line("$disk_dir/dev") // '';
    return (undef, "the disk of the partition $name: $disk_dir/dev is not MAJOR:MINOR")
      unless $disk_mm =~ /\A\d+:\d+\z/;
    $p{disk_major_minor} = $disk_mm;
    my $link = readlink($dir) // '';
    $p{disk} = $1 if $link =~ m{([^/]+)/[^/]+\z};
  }
  my $size = slurp_line("$dir/size");
  return (undef, "$dir/size is not a number of sectors") unless defined $size && $size =~ /\A\d+\z/;
  $p{sectors} = $size;
  unless (-d "$disk_dir/mq") {
    my $kind = -d "$disk_dir/dm" ? 'a device-mapper device'
             : -d "$disk_dir/md" ? 'an md (software RAID) device' : 'not a request-based device';
    return (undef, "$p{disk} ($p{disk_major_minor}) is $kind: it issues no requests of its own "
                   . '(it hands them to the devices under it, whose sectors are not its own), so '
                   . 'the kernel\'s request tracepoint never sees them');
  }
  my $dev_t = sub { my ($maj, $min) = split /:/, $_[0]; return ($maj << 20) | $min };
  $p{dev_t} = $dev_t->($p{disk_major_minor});
  $p{part_dev_t} = $p{disk} ne $p{device} ? $dev_t->($mm) : undef;
  return (\%p);
}

# perf_filters($plan) -> the --filter of block_rq_issue (the disk's requests: a partition's are
# cut by sector afterwards, where the kernel's filter cannot see a flush's lack of one) and of
# block_bio_queue (the device's bios of no sectors).
sub perf_filters {
  my ($p) = @_;
  my $dev = defined $p->{part_dev_t} ? "(dev == $p->{dev_t} || dev == $p->{part_dev_t})"
                                     : "dev == $p->{dev_t}";
  return ("dev == $p->{dev_t}", "$dev && nr_sector == 0");
}

# clock_offset_us() -> (wall - monotonic) in microseconds, read between two readings of the
# monotonic clock (their mean), and the uncertainty (half their gap).
sub clock_offset_us {
  my $m1 = Time::HiRes::clock_gettime(Time::HiRes::CLOCK_MONOTONIC());
  my $w  = Time::HiRes::time();
  my $m2 = Time::HiRes::clock_gettime(Time::HiRes::CLOCK_MONOTONIC());
  return (int(($w - ($m1 + $m2) / 2) * 1e6 + 0.5), int(($m2 - $m1) / 2 * 1e6 + 0.5),
          int($m1 * 1e6));
}

# --- the converter ------------------------------------------------------------------------------

# A Converter turns `perf script -F trace:time,event,trace --show-lost-events` lines into rows
# of the compact file (a line without the event's name is block_rq_issue's). Owns nothing but its counts; not thread-safe (one per trace).
#   my $c = BrokerBench::BlockTraceCapture::Converter->new(plan => $p, offset_us => $o);
#   my $row = $c->line($text);   # the row's text (no newline), or undef (counted: lost,
#                                # unparsed, another device, outside the partition)
package BrokerBench::BlockTraceCapture::Converter;

my %OP = (R => 'R', W => 'W', D => 'D', F => 'F');

sub new {
  my ($class, %o) = @_;
  my $p = $o{plan};
  my ($maj, $min) = split /:/, $p->{disk_major_minor};
  my %bio_dev = ($p->{disk_major_minor} => 1, $p->{major_minor} => 1);
  return bless { maj => $maj, min => $min, bio_dev => \%bio_dev, first => $p->{first_sector},
                 requeued => {}, requeues => 0, reissued => 0,
                 end => $p->{first_sector} + $p->{sectors}, offset => $o{offset_us},
                 rows => 0, lost => 0, unparsed => 0, other_device => 0, outside => 0,
                 other_bio => 0, examples => [], ops => { map { $_ => 0 } qw(R W F D N E) },
                 first_us => undef, last_us => undef }, $class;
}

sub line {
  my ($self, $text) = @_;
  $text =~ s/\r?\n\z//;
  return undef if $text =~ /\A\s*\z/;
  if ($text =~ /\bPERF_RECORD_LOST(?:_SAMPLES)?\b.*?\blost (\d+)/) {
    $self->{lost} += $1;
    return undef;
  }
  if ($text =~ /\A\s*(\d+)\.(\d+):\s+block:block_bio_queue:\s+(\d+),(\d+)\s+([A-Z]+)\s+\d+\s+\+\s+(\d+)(?:\s|\z)/) {
    my ($s, $frac, $dev, $rwbs, $n) = ($1, $2, "$3:$4", $5, $6);
    if (!$self->{bio_dev}{$dev} || $n != 0 || $rwbs !~ /\AFW/) {
      $self->{other_bio}++;
      return undef;
    }
    return $self->row($s, $frac, 'E', 0, 0);
  }
  if ($text =~ /\A\s*\d+\.\d+:\s+block:block_rq_requeue:\s+(\d+),(\d+)\s+([A-Z]+)\s+\([^()]*\)\s+(\d+)\s+\+\s+(\d+)(?:\s|\z)/) {
    if ($1 == $self->{maj} && $2 == $self->{min}) {
      $self->{requeues}++;
      $self->{requeued}{"$3 $4 $5"}++;
    }
    return undef;
  }
  unless ($text =~ /\A\s*(\d+)\.(\d+):\s+(?:block:block_rq_issue:\s+)?(\d+),(\d+)\s+([A-Z]+)\s+\d+\s+\([^()]*\)\s+(\d+)\s+\+\s+(\d+)(?:\s|\z)/) {
    $self->{unparsed}++;
    push @{ $self->{examples} }, $text if @{ $self->{examples} } < 3;
    return undef;
  }
  my ($s, $frac, $maj, $min, $rwbs, $sector, $n) = ($1, $2, $3, $4, $5, $6, $7);
  if ($maj != $self->{maj} || $min != $self->{min}) {
    $self->{other_device}++;
    return undef;
  }
  my $q = $self->{requeued};
  if (%$q && $q->{"$rwbs $sector $n"}) {
    delete $q->{"$rwbs $sector $n"} unless --$q->{"$rwbs $sector $n"};
    $self->{reissued}++;
    return undef;
  }
  # A leading F is a pre-flush when an operation's letter follows it; alone it is the flush.
  my $op = $rwbs =~ /\AF([RWDFN])/ ? $1 : substr($rwbs, 0, 1);
  $op = $OP{$op} // 'N';
  if ($op eq 'F') {
    ($sector, $n) = (0, 0);
  } elsif ($sector < $self->{first} || $sector >= $self->{end}) {
    $self->{outside}++;
    return undef;
  } else {
    $sector -= $self->{first};
  }
  return $self->row($s, $frac, $op, $sector, $n);
}

# The row of a request at perf's time $s.$frac (monotonic), counted.
sub row {
  my ($self, $s, $frac, $op, $sector, $n) = @_;
  my $us = $s * 1_000_000 + substr($frac . '00000', 0, 6) + $self->{offset};
  $self->{first_us} //= $us;
  $self->{last_us} = $us;
  $self->{rows}++;
  $self->{ops}{$op}++;
  return "$us,$op,$sector,$n";
}

1;
