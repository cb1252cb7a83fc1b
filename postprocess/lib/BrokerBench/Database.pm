package BrokerBench::Database;
# The database's side of the run: its pg_stat_* and pg_statio_* snapshots before and after
# (differences; block writes, checkpoints, WAL, hit ratio and read:write, each from the view
# and column that keeps it on the server's version, PgStats.pm; the busiest tables and
# indexes; the settings that are not the default), and the metric counted again in the
# database (trades completed in the measurement interval), which must agree with the market
# emulator's count.
use strict;
use warnings;
use Exporter 'import';
use List::Util qw(sum0);
use BrokerBench::Csv qw(read_csv);
use BrokerBench::Format qw(is_number fmt_pct);
use BrokerBench::Result qw(add_reason add_note mi_ok);
use BrokerBench::PgStats qw(read_snapshot database_figures);

our @EXPORT_OK = qw(database database_trade_count);

# --- the metric counted in the database --------------------------------------------------

# How far, beyond the Trade-Results in flight at the MI's edges or in doubt (below), the
# database's count of trades completed in the MI may be from the driver's count of valid
# Trade-Results: the hosts' clocks (the Brokerage House stamps T_DTS, the emulators their rows)
# may differ a little.
our $DB_COUNT_TOLERANCE = 0.005;

# A driver-independent check of the metric (clause 6.6.8 counts valid Trade-Results completed
# in the MI): controller/db-snapshot reads after the run the T_DTS of the CMPT trade history
# row of every trade the run completed, and how many trades are left submitted (SBMT) or
# pending (PNDG). Our rule: the two count the same commits. The driver counts a Trade-Result
# that began and ended in the MI; the Brokerage House stamps T_DTS between the two, so a
# Trade-Result that began before an MI edge and ended after it (the mix logs tell how many) may
# be in the database's count and not in the driver's; so may one in the MI that got no reply
# (net_error, timeout: in doubt, it may have committed). A count outside [driver - 0.5 %,
# driver + those at an edge + those in doubt + 0.5 %] makes the run INVALID: Trade-Results the
# driver counted that the database does not hold, or the other way round. (A flat 0.5 % failed
# short runs: at 107 Trade-Results one in flight at an edge was 0.9 %.)
sub database_trade_count {
  my ($r) = @_;
  my $x = { checked => 0 };
  $r->{db_trade_count} = $x;
  my ($open) = read_snapshot($r, 'after', 'open-trades');
  if ($open) {
    $x->{open}{ $_->{status} } = $_->{trades} for @{ $open->{rows} };
    $x->{open}{$_} //= 0 for qw(SBMT PNDG);
  }
  my $path = "$r->{results_dir}/db/after/completed-trades.csv";
  unless (-e $path) {
    $x->{skipped} = 'db/after/completed-trades.csv is missing';
    add_note($r, 'metric in the database', "not checked: $x->{skipped}");
    return;
  }
  my $driver = $r->{trtps}{trade_results_in_mi};
  unless (mi_ok($r) && defined $driver) {
    $x->{skipped} = 'no measurement interval or no Trade-Result count';
    return;
  }
  # One line a completed trade (a long run has hundreds of thousands): read as a stream, and a
  # bad line is an input problem naming its file and line, not a silent skip.
  my ($t0, $t1) = ($r->{mi}{start_us}, $r->{mi}{end_us});
  my $in = 0;
  my $file = 'db/after/completed-trades.csv';
  if (open my $fh, '<', $path) {
    my $head = <$fh>;
    unless (defined $head) {    # psql writes nothing when the query fails
      $x->{skipped} = "$file is empty (the query failed: see db/snapshot.err)";
      add_note($r, 'metric in the database', "not checked: $x->{skipped}");
      return;
    }
    $head =~ s/\r?\n\z//;
    if ($head ne 'trade_id,completed_us') {
      $r->{_problem}->({ file => $file, line => 1, kind => 'other',
                         reason => 'the header is not trade_id,completed_us', text => $head });
    }
    while (my $line = <$fh>) {
      if ($line =~ /\A\d+,(\d{1,19})\r?\n?\z/) {
        $in++ if $1 >= $t0 && $1 <= $t1;
      } else {
        $line =~ s/\r?\n\z//;
        $r->{_problem}->({ file => $file, line => $., kind => 'other',
                           reason => 'not trade_id,completed_us (two whole numbers)',
                           text => $line });
      }
    }
    close $fh;
  } else {
    $x->{skipped} = "$file: $!";
    add_note($r, 'metric in the database', "not checked: $x->{skipped}");
    return;
  }
  my $tr    = $r->{transactions}{TR};
  my $edge  = $tr->{across_mi_edges} // 0;
  my $doubt = sum0(map { $tr->{error_outcomes}{$_} // 0 } qw(net_error timeout));
  my $slack = $DB_COUNT_TOLERANCE * $driver;
  $x->{checked}    = 1;
  $x->{database}   = $in;
  $x->{driver}     = $driver;
  $x->{at_edges}   = $edge;
  $x->{in_doubt}   = $doubt;
  $x->{difference} = $in - $driver;
  $x->{relative}   = $driver ? ($in - $driver) / $driver : ($in ? 1 : 0);
  $x->{tolerance}  = $DB_COUNT_TOLERANCE;
  if ($in < $driver - $slack || $in > $driver + $edge + $doubt + $slack) {
    add_reason($r, 'metric in the database', '6.6.8',
               sprintf('the database holds %d trades completed in the MI (T_DTS of their CMPT '
                       . "trade history rows), the market emulator's mix logs %d valid "
                       . 'Trade-Results, %d more in flight at its edges and %d in doubt (no '
                       . 'reply): they differ by %+d (%+.2f %%), more than those and %s',
                       $in, $driver, $edge, $doubt, $x->{difference}, 100 * $x->{relative},
                       fmt_pct($DB_COUNT_TOLERANCE)));
  }
}

# --- database (pg_stat_* snapshots before and after the run) --------------------------------

sub num0 { is_number($_[0]) ? $_[0] : 0 }

sub database {
  my ($r) = @_;
  my $db = { available => 0 };
  $r->{database} = $db;
  my $name = $r->{settings}{db_name};

  my ($before, $eb) = read_snapshot($r, 'before', 'pg_stat_database');
  my ($after, $ea) = read_snapshot($r, 'after', 'pg_stat_database');
  if (!$before || !$after) {
    $db->{why} = $eb // $ea;
  } elsif (!defined $name) {
    $db->{why} = 'run.conf has no db_name, so the database row is unknown';
  } else {
    my ($rb) = grep { ($_->{datname} // '') eq $name } @{ $before->{rows} };
    my ($ra) = grep { ($_->{datname} // '') eq $name } @{ $after->{rows} };
    if (!$rb || !$ra) {
      $db->{why} = "no row for the database '$name' in pg_stat_database";
    } else {
      $db->{available} = 1;
      $db->{name} = $name;
      for my $k (qw(blks_read blks_hit xact_commit xact_rollback deadlocks temp_bytes
                    tup_returned tup_fetched tup_inserted tup_updated tup_deleted)) {
        next unless exists $ra->{$k};
        $db->{delta}{$k} = num0($ra->{$k}) - num0($rb->{$k});
      }
    }
  }

  # Every figure whose view or column depends on the server's version; the plain numbers of
  # those that have one also under their key, for results.json's readers.
  $db->{figures} = database_figures($r, $db->{available} ? $db->{delta} : undef, $db->{why});
  for my $f (grep { defined $_->{value} } @{ $db->{figures} }) {
    $db->{ $f->{key} } = $f->{value}
      if $f->{key} =~ /\A(?:hit_ratio_pct|block_writes|read_write_ratio)\z/;
  }

  for my $kind (['tables', 'pg_statio_user_tables', 'heap_blks_read',
                 [qw(heap_blks_read heap_blks_hit idx_blks_read idx_blks_hit)]],
                ['indexes', 'pg_statio_user_indexes', 'idx_blks_read',
                 [qw(idx_blks_read idx_blks_hit)]]) {
    my ($label, $file, $key, $cols) = @$kind;
    my ($sb) = read_snapshot($r, 'before', $file);
    my ($sa) = read_snapshot($r, 'after', $file);
    next unless $sb && $sa;
    my $id = sub {
      my ($row) = @_;
      join '.', grep { defined && length } @$row{qw(schemaname relname)},
        ($label eq 'indexes' ? $row->{indexrelname} : ());
    };
    my %before = map { $id->($_) => $_ } @{ $sb->{rows} };
    my @list;
    for my $row (@{ $sa->{rows} }) {
      my $k = $id->($row);
      my $old = $before{$k} // {};
      push @list, { name => $k, map { $_ => num0($row->{$_}) - num0($old->{$_}) } @$cols };
    }
    @list = sort { $b->{$key} <=> $a->{$key} || $a->{name} cmp $b->{name} } @list;
    splice @list, 10 if @list > 10;
    $db->{"top_$label"} = \@list;
  }

  my $spath = "$r->{results_dir}/db/settings.csv";
  if (-e $spath) {
    my ($csv, $err) = read_csv($spath);
    if ($csv) {
      $db->{settings_not_default} = [
        map { { name => $_->{name}, setting => $_->{setting}, unit => $_->{unit} // '',
                source => $_->{source} // '' } }
        # 'client' and 'session' values are psql's own, not the server's configuration.
        grep { defined $_->{source} && $_->{source} !~ /\A(?:default|client|session)\z/ }
        @{ $csv->{rows} } ];
    } else {
      $r->{_problem}->({ file => 'db/settings.csv', line => 0, kind => 'other',
                         reason => $err =~ s/\A\Q$r->{results_dir}\E\///r, text => '' });
    }
  }
}

1;
