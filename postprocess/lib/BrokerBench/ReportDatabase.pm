package BrokerBench::ReportDatabase;
# The report's database section: the server's version; the changes in pg_stat_database; block
# writes, checkpoints, WAL, hit ratio and read:write, each with the view and column it came
# from on that version or, where the version or the snapshots have none, why (PgStats.pm); the
# busiest tables and indexes; the run's role, with the statement that grants each optional
# privilege it lacks (Privileges.pm); the settings not at their default. memory_text: what the
# run knew of the database's memory (run --db-memory), for the top of the report too.
use strict;
use warnings;
use Exporter 'import';
use BrokerBench::Privileges qw(quote_ident);

our @EXPORT_OK = qw(database_section figure_value server_text memory_text human_bytes);

# "18.4 (run.conf)", or why the version is unknown.
sub server_text {
  my ($r) = @_;
  my $s = $r->{server} // {};
  return "unknown ($s->{why})" unless defined $s->{version};
  return $s->{version} unless defined $s->{version_num};  # told by the snapshots' columns
  return "$s->{version} (the server's own, from $s->{from})";
}

# 1.0 GB, 271 MB, 0.4 MB: binary units, as the controller's human_mb and PostgreSQL's MB.
sub human_bytes {
  my ($b) = @_;
  return 'unknown' unless defined $b;
  return sprintf('%.1f GB', $b / 1024**3) if $b >= 1024**3;
  return sprintf('%.0f MB', $b / 1024**2) if $b >= 10 * 1024**2;
  return sprintf('%.1f MB', $b / 1024**2);
}

# How each kind of memory cgroup (controller/lib/memcap.sh) is named in the report.
my %CGROUP_KIND = (
  v1         => 'a cgroup v1 memory cgroup (memory.limit_in_bytes)',
  v2         => 'a cgroup v2 memory cgroup (memory.max)',
  'v2-scope' => "a systemd scope's cgroup v2 memory.max (systemd-run --user --scope)",
);

# What the run knew of the database's memory, from run.conf's db_memory* (controller/lib/
# database.sh): the cap, its share of the database, the cgroup, the cgroup's peak and OOM kills,
# the memory settings sized for it and what the page cache held at the start; or that the
# embedded cluster was not capped, or that a --db server's memory is not the kit's to know.
sub memory_text {
  my ($s) = @_;
  my $req = $s->{db_memory};
  return 'not recorded (run.conf has no db_memory: a kit before run --db-memory)'
    unless defined $req;
  return "not capped (the embedded cluster could use the machine's memory)" if $req eq 'none';
  return 'not known to the kit (a --db server)' if $req eq 'unknown';
  my ($bytes, $db) = @$s{qw(db_memory_bytes db_memory_database_bytes)};
  my $t = "capped at " . human_bytes($bytes);
  if (defined $bytes && $db) {
    my $p = 100 * $bytes / $db;
    $t .= sprintf(' (%s %% of the %s database', ($p >= 10 ? sprintf('%.0f', $p)
                                                : sprintf('%.1f', $p) =~ s/\.0\z//r),
                  human_bytes($db));
    $t .= $req =~ /%\z/ ? ')' : ", --db-memory $req)";
  } else {
    $t .= " (--db-memory $req)";
  }
  my ($kind) = split ' ', $s->{db_memory_cgroup} // '';
  $t .= ' by ' . ($CGROUP_KIND{ $kind // '' } // "a memory cgroup of an unknown kind ('"
                                                 . ($kind // '') . "')");
  if (!exists $s->{db_memory_peak_bytes}) {
    $t .= '; peak and OOM kills not recorded (the run did not reach its end)';
  } else {
    $t .= '; peak ' . (defined $s->{db_memory_peak_bytes}
                       ? human_bytes($s->{db_memory_peak_bytes})
                       : 'unknown (no memory.peak: Linux before 5.19)');
    $t .= ', ' . (defined $s->{db_memory_oom_kills}
                  ? ($s->{db_memory_oom_kills} == 1 ? '1 OOM kill'
                                                    : "$s->{db_memory_oom_kills} OOM kills")
                  : 'OOM kills unknown');
  }
  my $set = $s->{db_memory_settings} // '';
  $t .= $set ne '' ? '; ' . join(', ', map { s/=/ /r } split ' ', $set) . ' (sized for the cap)'
                   : '; its memory settings as --set';
  $t .= sprintf('; %s of the %s data directory in the page cache at the start',
                human_bytes($s->{db_memory_cached_at_start_bytes}),
                human_bytes($s->{db_memory_data_dir_bytes}))
    if defined $s->{db_memory_cached_at_start_bytes};
  return $t;
}

# A figure's value with its unit, as the report and the comparison show it.
sub figure_value {
  my ($f) = @_;
  return undef unless defined $f->{value};
  my ($v, $u) = @$f{qw(value unit)};
  return sprintf('%.1f:1', $v) if $u eq ':1';
  return sprintf('%.2f %%', $v) if $u eq '%';
  return sprintf('%.1f ms', $v) if $u eq 'ms';
  return sprintf('%.0f bytes (%.1f MiB)', $v, $v / 1048576) if $u eq 'bytes';
  return sprintf('%.0f blocks', $v) if $u eq 'blocks';
  return sprintf('%.0f', $v);
}

# Figures whose key matches $re, as key-value rows: the value and where it came from, or why
# there is none; a figure's parts below it.
sub figure_rows {
  my ($figs, $re) = @_;
  my @rows;
  for my $f (grep { $_->{key} =~ $re } @$figs) {
    if (!defined $f->{value}) {
      push @rows, [$f->{name}, "not available: $f->{why}"];
      next;
    }
    push @rows, [$f->{name}, figure_value($f) . " ($f->{source})"];
    push @rows, map { ["  $_->[0]", sprintf('%.0f', $_->[1])] } @{ $f->{parts} // [] };
  }
  return @rows;
}

sub database_section {
  my ($r) = @_;
  my $db = $r->{database};
  my @blocks = ({ t => 'kv', rows => [['PostgreSQL', server_text($r)],
                                      ['Database memory', memory_text($r->{settings} // {})]] });
  if ($db->{available}) {
    my $d = $db->{delta};
    my @kv = map { [$_, $d->{$_}] } grep { exists $d->{$_} }
             qw(xact_commit xact_rollback blks_read blks_hit deadlocks temp_bytes tup_returned
                tup_fetched tup_inserted tup_updated tup_deleted);
    push @blocks, { t => 'p', text => "Changes in pg_stat_database for '$db->{name}' between "
                                      . 'the snapshots before and after the run (the whole '
                                      . 'run, not only the MI):' },
                  { t => 'kv', rows => \@kv };
  } else {
    push @blocks, { t => 'p', text => 'pg_stat_database: not available (' . ($db->{why} // '?')
                                      . ').' };
  }
  my $figs = $db->{figures} // [];
  if (@$figs) {
    my $major = $r->{server}{major};
    push @blocks, { t => 'p', text => 'Between the same snapshots, each figure from the view and '
                    . 'column that keeps it on '
                    . (defined $major ? "PostgreSQL $major" : "this server's version")
                    . ' (block writes, checkpoints and WAL: the whole cluster):' };
    push @blocks, { t => 'kv', rows => [figure_rows($figs, qr/\A(?:block_|read_write|hit_)/)] },
                  { t => 'kv', rows => [figure_rows($figs, qr/\Acheckpoint/)] },
                  { t => 'kv', rows => [figure_rows($figs, qr/\Awal_/)] };
    push @blocks, { t => 'p', text => 'Block writes are the relation blocks every process wrote '
                    . 'out of shared buffers or added to files (the checkpointer, the background '
                    . 'writer, backends, autovacuum...): PostgreSQL 14 and 15 count the two only '
                    . 'together, so every version gives both.' };
  }
  if ($db->{top_tables} && @{ $db->{top_tables} }) {
    push @blocks, { t => 'p', text => 'Tables with the most heap blocks read (changes in '
                                      . 'pg_statio_user_tables):' },
      { t => 'table', head => ['Table', 'heap_blks_read', 'heap_blks_hit', 'idx_blks_read',
                               'idx_blks_hit'], align => [qw(l r r r r)],
        rows => [map { [$_->{name}, @$_{qw(heap_blks_read heap_blks_hit idx_blks_read idx_blks_hit)}] }
                 @{ $db->{top_tables} }] };
  } else {
    push @blocks, { t => 'p', text => 'Tables: not available (pg_statio_user_tables snapshots '
                                      . 'missing).' };
  }
  if ($db->{top_indexes} && @{ $db->{top_indexes} }) {
    push @blocks, { t => 'p', text => 'Indexes with the most blocks read (pg_statio_user_indexes):' },
      { t => 'table', head => ['Index', 'idx_blks_read', 'idx_blks_hit'], align => [qw(l r r)],
        rows => [map { [$_->{name}, @$_{qw(idx_blks_read idx_blks_hit)}] } @{ $db->{top_indexes} }] };
  }
  push @blocks, privilege_blocks($r->{privileges});
  if ($db->{settings_not_default}) {
    my $list = $db->{settings_not_default};
    push @blocks, { t => 'p', text => 'PostgreSQL settings not at their default (db/settings.csv):' };
    push @blocks, @$list
      ? { t => 'table', head => ['Setting', 'Value', 'Unit', 'Source'], align => [qw(l l l l)],
          rows => [map { [@$_{qw(name setting unit source)}] } @$list] }
      : { t => 'p', text => 'none' };
  } else {
    push @blocks, { t => 'p', text => 'PostgreSQL settings: not available (db/settings.csv missing).' };
  }
  return { id => 'database', title => 'Database', blocks => \@blocks };
}

# The run's role: what it holds, and for each optional privilege it lacks, the statement an
# administrator runs and what it gives the report.
sub privilege_blocks {
  my ($p) = @_;
  return { t => 'p', text => "The run's role and its privileges: not recorded ("
                             . ($p->{why} // 'no db/privileges.csv') . ').' }
    unless $p && $p->{available};
  my $q = quote_ident($p->{role});
  if ($p->{superuser}) {
    return { t => 'p', text => "The run's role $q is a superuser: it has every privilege the "
                               . 'report uses (db/privileges.csv, read before the run).' };
  }
  my $owner = !defined $p->{database_owner} ? ''
            : $p->{database_owner} eq $p->{role} ? ', and owns the database'
            : ', and does not own the database (its owner is '
              . quote_ident($p->{database_owner}) . ')';
  my @blocks = ({ t => 'p', text => "The run's role $q is not a superuser$owner "
                                    . '(db/privileges.csv, read before the run). Optional '
                                    . 'privileges:' },
                { t => 'kv', rows => [map {
                    [$_->{privilege}, (!defined $_->{held} ? 'unknown' : $_->{held} ? 'yes' : 'no')
                                      . (defined $_->{note} ? " ($_->{note})" : '')]
                  } @{ $p->{items} }] });
  my @missing = grep { defined $_->{held} && !$_->{held} } @{ $p->{items} };
  my @needed = grep { !$_->{optional} } @missing;
  my @other = grep { $_->{optional} } @missing;
  if (@needed) {
    push @blocks, { t => 'p', text => 'Missing, each with what an administrator runs (as a '
                                      . 'superuser) to grant it; the rest of this report is '
                                      . 'complete without them:' },
      { t => 'list', items => [map { "$_->{privilege}: $_->{grant} It gives $_->{gives}." }
                               @needed] };
  } else {
    push @blocks, { t => 'p', text => 'Every privilege the report uses is held.' };
  }
  push @blocks, { t => 'list', items => [map { "Not needed by the report: $_->{privilege} "
                                               . "($_->{grant}): $_->{gives}." } @other] }
    if @other;
  return @blocks;
}

1;
