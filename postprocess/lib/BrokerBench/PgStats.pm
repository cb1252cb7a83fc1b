package BrokerBench::PgStats;
# Which PostgreSQL version keeps which statistic in which view and column: the one place in the
# post-processor that names the columns that moved between versions. Every figure comes back as
# { key, name, value, unit, source } or, where the server's version does not keep it or a
# snapshot is missing, { key, name, why } with the reason in words: never a zero or a partial
# sum in its place.
#
# The version comes from run.conf's server_version_num (the server's own), else from
# db/settings.csv, else from the columns the snapshots have (server_version). Where it moved:
#   block writes   14-15 pg_stat_bgwriter buffers_checkpoint + buffers_clean + buffers_backend;
#                  16+   pg_stat_io, object 'relation', writes + extends of every process
#                        (16-17 counts x op_bytes, 18 write_bytes + extend_bytes) / block_size
#   checkpoints    14-16 pg_stat_bgwriter checkpoints_timed, checkpoints_req,
#                        checkpoint_write_time, checkpoint_sync_time;
#                  17+   pg_stat_checkpointer num_timed, num_requested, write_time, sync_time;
#                  18+   num_done (completed) as well
#   WAL            14+   pg_stat_wal wal_records, wal_fpi, wal_bytes, wal_buffers_full;
#                  14-17 pg_stat_wal wal_write, wal_sync, wal_write_time, wal_sync_time;
#                  18+   pg_stat_io, object 'wal', context 'normal': writes, fsyncs, their times
#   statements     pg_stat_statements blk_read_time, blk_write_time (extension 1.10 and older);
#                  shared_blk_read_time, shared_blk_write_time (1.11, PostgreSQL 17, and later)
#
# Why block writes are writes + extends: on 14 and 15 a backend's sync request to the
# checkpointer, which buffers_backend counts, follows every block it writes and every block it
# adds to a file, so those versions can only give the two together. pg_stat_io (16+) counts
# both, by block, for every process (checkpointer, background writer, backends, autovacuum,
# ...), so the sum is the same figure. 16 keeps buffers_backend, but counts there one request
# per extension of a file, whatever its number of blocks (the trio gave 8 194 for a workload
# of 12 151 blocks): 16 takes pg_stat_io. Measured with one workload on the real servers
# (t/fixtures/make-pg-fixtures.sh): 12 088 (14), 12 081 (15), 12 151 (16), 12 147 (17),
# 12 159 (18) blocks.
use strict;
use warnings;
use Exporter 'import';
use BrokerBench::Csv qw(read_csv);
use BrokerBench::Format qw(is_number);

our @EXPORT_OK = qw(read_snapshot server_version database_figures statement_columns setting
                    io_deltas_between);

# read_snapshot($r, 'before'|'after'|..., $view) -> ($csv) or (undef, $why). A file that cannot
# be read is also an input problem naming it; each file is read once per analysis.
sub read_snapshot {
  my ($r, $which, $name) = @_;
  my $rel = "db/$which/$name.csv";
  my $cache = $r->{_pg_snapshots} //= {};
  return @{ $cache->{$rel} } if $cache->{$rel};
  my $path = "$r->{results_dir}/$rel";
  my @res;
  if (!-e $path) {
    @res = (undef, "$rel is missing");
  } else {
    my ($csv, $err) = read_csv($path);
    if ($csv) {
      @res = ($csv);
    } else {
      $err =~ s/\A\Q$r->{results_dir}\E\///;
      $r->{_problem}->({ file => $rel, line => 0, kind => 'other', reason => $err, text => '' });
      @res = (undef, $err);
    }
  }
  $cache->{$rel} = \@res;
  return @res;
}

# setting($r, $name) -> the value of $name in db/settings.csv (pg_settings before the run), or
# undef when the file or the row is missing.
sub setting {
  my ($r, $name) = @_;
  unless ($r->{_pg_settings}) {
    my %s;
    my $path = "$r->{results_dir}/db/settings.csv";
    if (-e $path) {
      my ($csv) = read_csv($path);  # Database.pm names a problem with the file
      %s = map { ($_->{name} // '') => $_->{setting} } @{ $csv ? $csv->{rows} : [] };
    }
    $r->{_pg_settings} = \%s;
  }
  return $r->{_pg_settings}{$name};
}

# server_version($r) -> $r->{server} = { version, version_num, major, from } or { why }.
sub server_version {
  my ($r) = @_;
  return $r->{server} if $r->{server};
  my $conf = $r->{settings} // {};
  my $num = $conf->{server_version_num};
  if (defined $num && $num !~ /\A[1-9]\d{4,5}\z/) {
    $r->{_problem}->({ file => 'run.conf', line => 0, kind => 'other', text => '',
                       reason => "server_version_num is not a PostgreSQL version number such as "
                                 . "180004: '$num' (the version is taken from db/settings.csv "
                                 . 'or the snapshots instead)' });
    $num = undef;
  }
  my ($version, $from) = ($conf->{server_version}, 'run.conf');
  unless (defined $num) {
    $num = setting($r, 'server_version_num');
    ($version, $from) = (setting($r, 'server_version'), 'db/settings.csv');
    $num = undef unless defined $num && $num =~ /\A[1-9]\d{4,5}\z/;
  }
  my $s;
  if (defined $num) {
    $s = { version => $version // $num, version_num => $num + 0, from => $from,
           major => int($num / 10000) };
  } else {
    $s = version_from_columns($r);
  }
  return $r->{server} = $s;
}

# The oldest major version whose views have the columns the snapshots have (14 and 15 keep the
# same ones: "14 or later" is all they tell).
sub version_from_columns {
  my ($r) = @_;
  my ($io) = grep { $_ } map { (read_snapshot($r, $_, 'pg_stat_io'))[0] } qw(after before);
  my ($cp) = grep { $_ } map { (read_snapshot($r, $_, 'pg_stat_checkpointer'))[0] } qw(after before);
  my ($wal) = grep { $_ } map { (read_snapshot($r, $_, 'pg_stat_wal'))[0] } qw(after before);
  my ($bg) = grep { $_ } map { (read_snapshot($r, $_, 'pg_stat_bgwriter'))[0] } qw(after before);
  my %io = map { $_ => 1 } @{ $io ? $io->{header} : [] };
  my ($major, $text) =
      $io && $io{write_bytes} ? (18, '18 or later')
    : $cp                     ? (17, '17')
    : $io                     ? (16, '16')
    : $wal                    ? (14, '14 or 15')
    : $bg                     ? (13, 'older than 14')
    :                           ();
  return { why => 'unknown: run.conf has no server_version_num, and there is neither '
                  . 'db/settings.csv nor a statistics snapshot to tell it by' } unless $major;
  return { version => "$text (from the snapshots' columns)", major => $major,
           from => "the columns of the db/ snapshots" };
}

# --- figures between the snapshots before and after the run ------------------------------------

# Differences of @cols of a one-row view: (\%delta) or (undef, $why).
sub row_deltas {
  my ($r, $view, @cols) = @_;
  my @rows;
  for my $which (qw(before after)) {
    my ($csv, $why) = read_snapshot($r, $which, $view);
    return (undef, $why) unless $csv;
    return (undef, "db/$which/$view.csv has no row") unless @{ $csv->{rows} };
    my %have = map { $_ => 1 } @{ $csv->{header} };
    my @missing = grep { !$have{$_} } @cols;
    return (undef, "db/$which/$view.csv has no column " . join(', ', @missing)) if @missing;
    my ($bad) = grep { !is_number($csv->{rows}[0]{$_}) } @cols;
    return (undef, "db/$which/$view.csv: $bad is not a number ('"
                   . ($csv->{rows}[0]{$bad} // '') . "')") if defined $bad;
    push @rows, $csv->{rows}[0];
  }
  my %d;
  for my $c (@cols) {
    $d{$c} = $rows[1]{$c} - $rows[0]{$c};
    return (undef, "$view.$c went down between the snapshots ($rows[0]{$c} to $rows[1]{$c}): "
                   . 'the statistics were reset during the run') if $d{$c} < 0;
  }
  return (\%d);
}

# Differences of @cols of pg_stat_io's rows of $object (and $context, if given), per backend
# type, between the snapshots before and after the run: io_deltas_between's.
sub io_deltas { my ($r, @args) = @_; return io_deltas_between($r, 'before', 'after', @args) }

# Differences of @cols of pg_stat_io's rows of $object (and $context, if given), per backend
# type, between the snapshots $from and $to (db/$from/, db/$to/): ({ backend_type => { col =>
# delta } }) or (undef, $why). An empty cell (an operation that process never does) counts 0; a
# row that is new since the first snapshot counts from 0. With op_bytes among @cols (16-17),
# each other column also in bytes: col_bytes.
sub io_deltas_between {
  my ($r, $from, $to, $object, $context, @cols) = @_;
  my %side;
  for my $which ($from, $to) {
    my ($csv, $why) = read_snapshot($r, $which, 'pg_stat_io');
    return (undef, $why) unless $csv;
    my %have = map { $_ => 1 } @{ $csv->{header} };
    my @missing = grep { !$have{$_} } qw(backend_type object context), @cols;
    return (undef, "db/$which/pg_stat_io.csv has no column " . join(', ', @missing)) if @missing;
    for my $row (@{ $csv->{rows} }) {
      next unless $row->{object} eq $object && (!defined $context || $row->{context} eq $context);
      for my $c (@cols) {
        my $v = $row->{$c} // '';
        next if $v eq '';
        return (undef, "db/$which/pg_stat_io.csv: $c of $row->{backend_type}/$object/"
                       . "$row->{context} is not a number ('$v')") unless is_number($v);
      }
      $side{$which}{"$row->{backend_type}\t$row->{context}"} = $row;
    }
  }
  return (undef, "db/$to/pg_stat_io.csv has no row of object '$object'")
    unless %{ $side{$to} // {} };
  my %by;
  for my $k (sort keys %{ $side{$to} }) {
    my ($a, $b) = ($side{$to}{$k}, $side{$from}{$k} // {});
    my ($type) = split /\t/, $k;
    for my $c (grep { $_ ne 'op_bytes' } @cols) {
      my $d = ($a->{$c} || 0) - ($b->{$c} || 0);
      return (undef, "pg_stat_io.$c of $type/$object went down between the snapshots: the "
                     . 'statistics were reset during the run') if $d < 0;
      $by{$type}{$c} += $d;
      $by{$type}{"${c}_bytes"} += $d * ($a->{op_bytes} || 0) if grep { $_ eq 'op_bytes' } @cols;
    }
  }
  return (\%by);
}

sub figure { my ($key, $name, %f) = @_; return { key => $key, name => $name, %f } }

my $EXTENDS = 'of them, added to files';

# Block writes (see the head of this file), with their parts by process, and the blocks added
# to files apart where the version counts them apart.
sub block_writes {
  my ($r, $major) = @_;
  my $name = 'block writes';
  if ($major < 16) {
    my @cols = qw(buffers_checkpoint buffers_clean buffers_backend);
    my ($d, $why) = row_deltas($r, 'pg_stat_bgwriter', @cols);
    my $ext = figure('block_extends', $EXTENDS, why => 'not counted apart before PostgreSQL 16: '
                     . "pg_stat_io is not available, and pg_stat_bgwriter's buffers_backend "
                     . "holds them with the backends' writes");
    return (figure('block_writes', $name, why => $why), $ext) unless $d;
    return (figure('block_writes', $name, value => $d->{buffers_checkpoint}
                   + $d->{buffers_clean} + $d->{buffers_backend}, unit => 'blocks',
                   source => 'pg_stat_bgwriter: buffers_checkpoint + buffers_clean + '
                             . "buffers_backend (the backends' count includes the blocks they "
                             . 'added to files)',
                   parts => [['checkpointer', $d->{buffers_checkpoint}],
                             ['background writer', $d->{buffers_clean}],
                             ['other processes, written and added', $d->{buffers_backend}]]),
            $ext);
  }
  # Bytes: 18's own columns; 16-17 count operations of op_bytes each.
  my @cols = $major >= 18 ? qw(write_bytes extend_bytes) : qw(writes extends op_bytes);
  my ($wc, $ec) = $major >= 18 ? qw(write_bytes extend_bytes) : qw(writes_bytes extends_bytes);
  my ($by, $why) = io_deltas($r, 'relation', undef, @cols);
  my $size = setting($r, 'block_size');
  if ($by && !(is_number($size // '') && $size > 0)) {
    # 16-17 do relation I/O in blocks of block_size, so op_bytes of a relation row is one.
    my ($after) = read_snapshot($r, 'after', 'pg_stat_io');
    ($size) = map { $_->{op_bytes} } grep { $_->{object} eq 'relation' } @{ $after->{rows} };
    $why = "db/settings.csv has no block_size, which turns pg_stat_io's bytes into blocks"
      unless $major < 18 && is_number($size // '') && $size > 0;
  }
  return (figure('block_writes', $name, why => $why), figure('block_extends', $EXTENDS, why => $why))
    if $why;
  my %w = map { $_ => $by->{$_}{$wc} / $size } keys %$by;
  my %e = map { $_ => $by->{$_}{$ec} / $size } keys %$by;
  my $sum = sub { my ($h, @t) = @_; my $s = 0; $s += $h->{$_} // 0 for @t; $s };
  my @types = keys %$by;
  my @others = grep { $_ ne 'checkpointer' && $_ ne 'background writer' } @types;
  my $extends = $sum->(\%e, @types);
  return (figure('block_writes', $name, value => $sum->(\%w, @types) + $extends, unit => 'blocks',
                 source => 'pg_stat_io, object relation, every process: '
                           . ($major >= 18 ? '(write_bytes + extend_bytes) / block_size'
                                           : '(writes + extends) x op_bytes / block_size'),
                 parts => [['checkpointer', $sum->(\%w, 'checkpointer')],
                           ['background writer', $sum->(\%w, 'background writer')],
                           ['other processes, written', $sum->(\%w, @others)],
                           ['every process, added to files', $extends]]),
          figure('block_extends', $EXTENDS, value => $extends, unit => 'blocks',
                 source => 'pg_stat_io, object relation: '
                           . ($major >= 18 ? 'extend_bytes / block_size' : 'extends')));
}

# A time in ms that PostgreSQL measures only with the setting $guc on.
sub timed {
  my ($r, $f, $guc) = @_;
  return $f if exists $f->{why};
  my $on = setting($r, $guc);
  return figure($f->{key}, $f->{name}, why => "not measured: $guc was off (db/settings.csv)")
    if defined $on && $on eq 'off';
  return figure($f->{key}, $f->{name}, why => "0 ms recorded, and whether $guc was on is not "
                . 'known (db/settings.csv is missing): not measured, or no time')
    if !defined $on && $f->{value} == 0;
  return $f;
}

sub checkpoints {
  my ($r, $major) = @_;
  my @names = (['checkpoints_timed', 'checkpoints started by checkpoint_timeout', 'count'],
               ['checkpoints_requested', 'checkpoints requested', 'count'],
               ['checkpoint_write_time_ms', 'checkpoints: time writing files', 'ms'],
               ['checkpoint_sync_time_ms', 'checkpoints: time syncing files', 'ms']);
  my ($view, @cols) = $major >= 17
    ? qw(pg_stat_checkpointer num_timed num_requested write_time sync_time)
    : qw(pg_stat_bgwriter checkpoints_timed checkpoints_req checkpoint_write_time
         checkpoint_sync_time);
  my ($d, $why) = row_deltas($r, $view, @cols);
  my @f = map {
    my ($key, $name, $unit) = @{ $names[$_] };
    $d ? figure($key, $name, value => $d->{ $cols[$_] }, unit => $unit,
                source => "$view.$cols[$_]")
       : figure($key, $name, why => $why)
  } 0 .. $#names;
  my $done = 'checkpoints completed';
  if ($major >= 18) {
    my ($dd, $w) = row_deltas($r, 'pg_stat_checkpointer', 'num_done');
    push @f, $dd ? figure('checkpoints_done', $done, value => $dd->{num_done}, unit => 'count',
                          source => 'pg_stat_checkpointer.num_done')
                 : figure('checkpoints_done', $done, why => $w);
  } else {
    push @f, figure('checkpoints_done', $done, why => 'not counted before PostgreSQL 18 '
                    . '(pg_stat_checkpointer.num_done); the timed and requested counts include '
                    . 'checkpoints skipped because nothing had changed since the last');
  }
  return @f;
}

sub wal {
  my ($r, $major) = @_;
  my @gen = (['wal_records', 'WAL records', 'count', 'wal_records'],
             ['wal_fpi', 'WAL full-page images', 'count', 'wal_fpi'],
             ['wal_bytes', 'WAL bytes', 'bytes', 'wal_bytes'],
             ['wal_buffers_full', 'WAL written because its buffers were full', 'count',
              'wal_buffers_full']);
  my @io = (['wal_writes', 'WAL writes', 'count'], ['wal_syncs', 'WAL syncs', 'count'],
            ['wal_write_time_ms', 'WAL: time writing', 'ms'],
            ['wal_sync_time_ms', 'WAL: time syncing', 'ms']);
  if ($major < 14) {
    return map { figure($_->[0], $_->[1], why => 'pg_stat_wal is in PostgreSQL 14 and later') }
           @gen, @io;
  }
  my ($d, $why) = row_deltas($r, 'pg_stat_wal', map { $_->[3] } @gen);
  my @f = map { $d ? figure($_->[0], $_->[1], value => $d->{ $_->[3] }, unit => $_->[2],
                            source => "pg_stat_wal.$_->[3]")
                   : figure($_->[0], $_->[1], why => $why) } @gen;
  my @v;
  if ($major >= 18) {
    # XLogWrite's writes and issue_xlog_fsync's syncs, as pg_stat_wal counted them to 17; the
    # context 'init' (new segment files filled) was never in those.
    my ($by, $w) = io_deltas($r, 'wal', 'normal', qw(writes fsyncs write_time fsync_time));
    if ($by) {
      for my $c (qw(writes fsyncs write_time fsync_time)) {
        my $s = 0;
        $s += $_->{$c} for values %$by;
        push @v, [$s, "pg_stat_io, object wal, context normal: $c of every process"];
      }
    } else {
      @v = map { [undef, $w] } 1 .. 4;
    }
  } else {
    my @cols = qw(wal_write wal_sync wal_write_time wal_sync_time);
    my ($dw, $w) = row_deltas($r, 'pg_stat_wal', @cols);
    @v = map { $dw ? [$dw->{$_}, "pg_stat_wal.$_"] : [undef, $w] } @cols;
  }
  for my $i (0 .. $#io) {
    my ($key, $name, $unit) = @{ $io[$i] };
    my ($value, $text) = @{ $v[$i] };
    my $f = defined $value ? figure($key, $name, value => $value, unit => $unit, source => $text)
                           : figure($key, $name, why => $text);
    push @f, $unit eq 'ms' ? timed($r, $f, 'track_wal_io_timing') : $f;
  }
  return @f;
}

# database_figures($r, \%pg_stat_database_delta or undef, $why) -> [figures]: block writes
# and their parts, checkpoints, WAL, the buffer hit ratio and read:write.
sub database_figures {
  my ($r, $delta, $db_why) = @_;
  my $s = server_version($r);
  my @f;
  if (!defined $s->{major}) {
    @f = map { figure($_->[0], $_->[1], why => "the server's version is $s->{why}") }
         ['block_writes', 'block writes'], ['checkpoint_figures', 'checkpoints'],
         ['wal_figures', 'WAL'];
  } else {
    push @f, block_writes($r, $s->{major}), checkpoints($r, $s->{major}), wal($r, $s->{major});
  }
  my $name = 'buffer hit ratio';
  if (!$delta) {
    push @f, figure('hit_ratio_pct', $name, why => $db_why // 'pg_stat_database not available');
  } else {
    my $acc = ($delta->{blks_hit} // 0) + ($delta->{blks_read} // 0);
    push @f, $acc ? figure('hit_ratio_pct', $name, value => 100 * $delta->{blks_hit} / $acc,
                           unit => '%', source => 'pg_stat_database: blks_hit / (blks_hit + '
                                                  . 'blks_read) of the database')
                  : figure('hit_ratio_pct', $name, why => 'no block was read or found in the '
                           . 'buffers');
  }
  my ($bw) = grep { $_->{key} eq 'block_writes' } @f;
  $name = 'read:write blocks';
  if (!$delta) {
    push @f, figure('read_write_ratio', $name, why => $db_why // 'pg_stat_database not available');
  } elsif (!defined $bw->{value}) {
    push @f, figure('read_write_ratio', $name, why => "block writes not available ($bw->{why})");
  } elsif (!$bw->{value}) {
    push @f, figure('read_write_ratio', $name, why => 'no block was written');
  } else {
    push @f, figure('read_write_ratio', $name, value => $delta->{blks_read} / $bw->{value},
                    unit => ':1', source => 'the TPC-E I/O study found about 9.7:1; blks_read of '
                                            . 'the database : block writes of the cluster');
  }
  return \@f;
}

# statement_columns(\@header) -> { total, read_time, write_time } (column names) or, for the
# block times, { times_why }. The extension's version decides, not the server's: a database
# whose pg_stat_statements was not updated (ALTER EXTENSION ... UPDATE) keeps the old columns.
sub statement_columns {
  my ($header) = @_;
  my %have = map { $_ => 1 } @$header;
  my %c;
  ($c{total}) = grep { $have{$_} } qw(total_exec_time total_time);  # 1.8 (13) renamed it
  if ($have{shared_blk_read_time} && $have{shared_blk_write_time}) {
    @c{qw(read_time write_time)} = qw(shared_blk_read_time shared_blk_write_time);
  } elsif ($have{blk_read_time} && $have{blk_write_time}) {
    # Shared blocks only, as their successors (1.11 renamed them when it added local_blk_*).
    @c{qw(read_time write_time)} = qw(blk_read_time blk_write_time);
  } else {
    $c{times_why} = 'pg_stat_statements has neither shared_blk_read_time nor blk_read_time';
  }
  return \%c;
}

1;
