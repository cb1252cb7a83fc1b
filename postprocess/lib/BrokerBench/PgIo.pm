package BrokerBench::PgIo;
# PostgreSQL's own view of its I/O over the measurement interval, for the report's "Device I/O"
# beside what the devices did: the buffer hit ratio of the database, the WAL it wrote, the
# relation I/O of each kind of process (pg_stat_io, PostgreSQL 16 and later) and the relations
# it read the most blocks of. controller/db-snapshot reads these views at the interval's START
# and STOP (db/mi-start/, db/mi-end/); a results directory of a kit that did not falls back to
# the snapshots before and after the run, and says so.
#
# PostgreSQL's reads are blocks it did not find in shared buffers: the page cache may still
# have had them, so a block read need not be a device read (the study's database was on raw
# devices; here the page cache buffers a second time).
use strict;
use warnings;
use Exporter 'import';
use Time::Local qw(timegm);
use BrokerBench::Format qw(is_number);
use BrokerBench::PgStats qw(read_snapshot server_version setting io_deltas_between);

our @EXPORT_OK = qw(postgres_io);

# The relations named, by blocks read.
our $TOP_RELATIONS = 10;

my @PAIRS = (['mi-start', 'mi-end', 'the measurement interval (db/mi-start to db/mi-end)'],
             ['before', 'after', 'the whole run, ramp-up included (db/before to db/after: the '
                                 . "measurement interval's snapshots lack them)"]);

# The snapshots to difference for $view: (from, to, scope text) or ().
sub pair_for {
  my ($r, $view) = @_;
  for my $p (@PAIRS) {
    return @$p unless grep { !-e "$r->{results_dir}/db/$_/$view.csv" } @$p[0, 1];
  }
  return ();
}

# '2026-11-28 04:29:49.252148+00' (psql's timestamptz) -> microseconds since the epoch, or undef.
sub pg_time_us {
  my ($t) = @_;
  my ($y, $mo, $d, $h, $mi, $s, $frac, $sign, $oh, $om) = ($t // '') =~
    /\A(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(\.\d+)?(?:([+-])(\d\d)(?::?(\d\d))?)?\z/
    or return undef;
  my $epoch = eval { timegm($s, $mi, $h, $d, $mo - 1, $y) } // return undef;
  my $off = defined $sign ? ($sign eq '-' ? -1 : 1) * ($oh * 3600 + ($om // 0) * 60) : 0;
  return int(($epoch - $off) * 1e6 + ($frac // 0) * 1e6 + 0.5);
}

# The window between two snapshots of $view: { from_us, to_us, seconds } or undef.
sub window {
  my ($from_csv, $to_csv) = @_;
  my ($a, $b) = map { pg_time_us(($_->{rows}[0] // {})->{snapshot_time}) } $from_csv, $to_csv;
  return undef unless defined $a && defined $b && $b > $a;
  return { from_us => $a, to_us => $b, seconds => ($b - $a) / 1e6 };
}

# Both snapshots of $view: ($from_csv, $to_csv, $scope) or (undef, undef, $why).
sub both {
  my ($r, $view) = @_;
  my ($from, $to, $scope) = pair_for($r, $view);
  return (undef, undef, "no db/mi-start/$view.csv and db/mi-end/$view.csv (nor db/before/ and "
                        . 'db/after/)') unless $from;
  my ($a, $wa) = read_snapshot($r, $from, $view);
  my ($b, $wb) = read_snapshot($r, $to, $view);
  return (undef, undef, $wa // $wb) unless $a && $b;
  return ($a, $b, $scope, $from, $to);
}

# The benchmark database's blocks read and found in shared buffers (pg_stat_database).
sub hit_ratio {
  my ($r) = @_;
  my ($a, $b, $scope) = both($r, 'pg_stat_database');
  return { why => $scope } unless $a;
  my $name = $r->{settings}{db_name};
  return { why => 'run.conf has no db_name, so the database row is unknown' } unless defined $name;
  my ($ra, $rb) = map {
    my $c = $_;
    (grep { ($_->{datname} // '') eq $name } @{ $c->{rows} })[0]
  } $a, $b;
  return { why => "no row for the database '$name' in pg_stat_database" } unless $ra && $rb;
  my %d;
  for my $c (qw(blks_read blks_hit)) {
    return { why => "pg_stat_database.$c is not a number" }
      unless is_number($ra->{$c}) && is_number($rb->{$c});
    $d{$c} = $rb->{$c} - $ra->{$c};
    return { why => "pg_stat_database.$c went down: the statistics were reset" } if $d{$c} < 0;
  }
  my $all = $d{blks_read} + $d{blks_hit};
  return { scope => $scope, window => window($a, $b), blocks_read => $d{blks_read},
           blocks_hit => $d{blks_hit},
           hit_ratio_pct => $all ? 100 * $d{blks_hit} / $all : undef };
}

# '16/B374D848' -> bytes, or undef.
sub lsn_bytes {
  my ($lsn) = @_;
  return undef unless defined $lsn && $lsn =~ /\A([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})\z/;
  return hex($1) * 2**32 + hex($2);
}

# The WAL the server wrote in the window, three ways, each { bytes, seconds, source } or
# { why }: the insert position's advance (every byte of WAL made, page headers included);
# pg_stat_wal.wal_bytes (the records' bytes, 14+); and on 18 pg_stat_io's WAL writes (what
# was written to the WAL's files, a partly filled page again at each flush, new segments'
# zeroing included: what the device was asked to write).
sub wal {
  my ($r, $major) = @_;
  my %w;
  my ($a, $b, $scope) = both($r, 'wal_lsn');
  if (!$a) {
    $w{lsn} = { why => $scope };
  } elsif ($scope !~ /\Athe measurement/) {
    $w{lsn} = { why => 'not read before this kit read it at the interval\'s START and STOP' };
  } else {
    my ($la, $lb) = map { lsn_bytes(($_->{rows}[0] // {})->{lsn}) } $a, $b;
    my $win = window($a, $b);
    $w{lsn} = defined $la && defined $lb && $win && $lb >= $la
      ? { bytes => $lb - $la, window => $win, scope => $scope,
          source => 'pg_current_wal_lsn() at the START and the STOP' }
      : { why => 'db/mi-start/wal_lsn.csv or db/mi-end/wal_lsn.csv has no usable lsn' };
  }
  if (defined $major && $major < 14) {
    $w{stat_wal} = { why => 'pg_stat_wal is in PostgreSQL 14 and later' };
  } else {
    my ($c, $d, $sc) = both($r, 'pg_stat_wal');
    my ($va, $vb) = $c ? map { ($_->{rows}[0] // {})->{wal_bytes} } $c, $d : ();
    $w{stat_wal} = !$c ? { why => $sc }
      : !(is_number($va) && is_number($vb) && $vb >= $va)
        ? { why => 'pg_stat_wal.wal_bytes is missing, not a number or went down' }
      : { bytes => $vb - $va, window => window($c, $d), scope => $sc,
          source => 'pg_stat_wal.wal_bytes' };
  }
  if (!defined $major) {
    $w{written} = { why => "the server's version is unknown" };
  } elsif ($major < 18) {
    $w{written} = { why => "not counted in bytes before PostgreSQL 18 (pg_stat_io's object wal)" };
  } else {
    my ($from, $to, $scope) = pair_for($r, 'pg_stat_io');
    my ($by, $why) = $from ? io_deltas_between($r, $from, $to, 'wal', undef, 'write_bytes')
                           : (undef, 'no pg_stat_io snapshots');
    if ($by) {
      my $sum = 0;
      $sum += $_->{write_bytes} for values %$by;
      my ($c, $d) = map { (read_snapshot($r, $_, 'pg_stat_io'))[0] } $from, $to;
      $w{written} = { bytes => $sum, window => window($c, $d), scope => $scope,
                      source => 'pg_stat_io, object wal, every process and context: write_bytes' };
    } else {
      $w{written} = { why => $why };
    }
  }
  return \%w;
}

# Relation I/O by kind of process (pg_stat_io, object relation, every context): bytes read,
# written and added to files, and fsyncs.
sub by_process {
  my ($r, $major) = @_;
  return { why => 'not available before PostgreSQL 16 (pg_stat_io)' }
    if defined $major && $major < 16;
  return { why => "the server's version is unknown" } unless defined $major;
  my ($from, $to, $scope) = pair_for($r, 'pg_stat_io');
  return { why => 'no pg_stat_io snapshots (db/mi-start/pg_stat_io.csv ...)' } unless $from;
  my @cols = $major >= 18 ? qw(read_bytes write_bytes extend_bytes fsyncs)
                          : qw(reads writes extends fsyncs op_bytes);
  my ($by, $why) = io_deltas_between($r, $from, $to, 'relation', undef, @cols);
  return { why => $why } unless $by;
  my %key = $major >= 18
    ? (read => 'read_bytes', write => 'write_bytes', extend => 'extend_bytes')
    : (read => 'reads_bytes', write => 'writes_bytes', extend => 'extends_bytes');
  my @rows = map {
    my $d = $by->{$_};
    { process => $_, read_bytes => $d->{ $key{read} } // 0, write_bytes => $d->{ $key{write} } // 0,
      extend_bytes => $d->{ $key{extend} } // 0, fsyncs => $d->{fsyncs} // 0 }
  } keys %$by;
  @rows = sort { $b->{write_bytes} + $b->{extend_bytes} <=> $a->{write_bytes} + $a->{extend_bytes}
                 || $b->{read_bytes} <=> $a->{read_bytes} || $a->{process} cmp $b->{process} }
          grep { $_->{read_bytes} || $_->{write_bytes} || $_->{extend_bytes} || $_->{fsyncs} }
          @rows;
  my ($c, $d) = map { (read_snapshot($r, $_, 'pg_stat_io'))[0] } $from, $to;
  return { scope => $scope, window => window($c, $d), processes => \@rows,
           source => 'pg_stat_io, object relation, every context: '
                     . ($major >= 18 ? 'read_bytes, write_bytes, extend_bytes'
                                     : 'reads, writes, extends x op_bytes') . ', fsyncs' };
}

# The relations PostgreSQL read the most blocks of: each table (its heap and TOAST) and each
# index, with its share of every block read.
sub top_relations {
  my ($r) = @_;
  my ($ta, $tb, $scope) = both($r, 'pg_statio_user_tables');
  return { why => $scope } unless $ta;
  my ($ia, $ib) = both($r, 'pg_statio_user_indexes');
  my $n = sub { is_number($_[0] // '') ? $_[0] : 0 };
  my %rel;
  # The relations of the later snapshot, less their counts in the earlier (0 when new).
  my $add = sub {
    my ($from, $to, $kind, $id, $read, $hit) = @_;
    my %before = map { $id->($_) => $_ } @{ $from->{rows} };
    for my $row (@{ $to->{rows} }) {
      my $k = $id->($row);
      my $old = $before{$k} // {};
      my $sum = sub { my $s = 0; $s += $n->($row->{$_}) - $n->($old->{$_}) for @{ $_[0] }; $s };
      $rel{"$kind $k"} = { name => $k, kind => $kind, blocks_read => $sum->($read),
                           blocks_hit => $sum->($hit) };
    }
  };
  my $table = sub { join '.', grep { defined && length } @{ $_[0] }{qw(schemaname relname)} };
  my $index = sub { join '.', grep { defined && length } @{ $_[0] }{qw(schemaname indexrelname)} };
  $add->($ta, $tb, 'table', $table, [qw(heap_blks_read toast_blks_read)],
         [qw(heap_blks_hit toast_blks_hit)]);
  $add->($ia, $ib, 'index', $index, ['idx_blks_read'], ['idx_blks_hit']) if $ia;
  my @all = grep { $_->{blocks_read} > 0 || $_->{blocks_hit} > 0 } values %rel;
  my $read = 0;
  $read += $_->{blocks_read} for @all;
  for my $x (@all) {
    $x->{share_pct} = $read ? 100 * $x->{blocks_read} / $read : undef;
    my $acc = $x->{blocks_read} + $x->{blocks_hit};
    $x->{hit_ratio_pct} = $acc ? 100 * $x->{blocks_hit} / $acc : undef;
  }
  @all = sort { $b->{blocks_read} <=> $a->{blocks_read} || $b->{blocks_hit} <=> $a->{blocks_hit}
                || $a->{name} cmp $b->{name} } @all;
  my $relations = @all;
  splice @all, $TOP_RELATIONS if @all > $TOP_RELATIONS;
  return { scope => $scope, window => window($ta, $tb), blocks_read => $read,
           relations => $relations, top => \@all,
           indexes => $ia ? 1 : 0 };
}

# postgres_io($r) -> { block_size, hit, wal, by_process, top_relations }.
sub postgres_io {
  my ($r) = @_;
  my $major = server_version($r)->{major};
  my $bs = setting($r, 'block_size');
  return {
    block_size    => is_number($bs // '') && $bs > 0 ? $bs + 0 : undef,
    hit           => hit_ratio($r),
    wal           => wal($r, $major),
    by_process    => by_process($r, $major),
    top_relations => top_relations($r),
  };
}

1;
