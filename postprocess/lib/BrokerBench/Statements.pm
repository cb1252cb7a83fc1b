package BrokerBench::Statements;
# "Top statements": what pg_stat_statements counted in the benchmark database during the
# measurement interval. controller/run has controller/db-snapshot read the view at the MI's
# START (db/mi-start/, after resetting it where the role may) and at its STOP (db/mi-end/);
# the figures here are the differences, per statement (userid, dbid, queryid, toplevel), so
# they hold whether or not the reset was allowed.
use strict;
use warnings;
use Exporter 'import';
use BrokerBench::Csv qw(read_csv);
use BrokerBench::PgStats qw(statement_columns setting);
use BrokerBench::Privileges qw(create_extension_advice);

our @EXPORT_OK = qw(statement_stats shorten);

our $TOP = 10;
our $TEXT_CHARS = 48;

my @KEY = qw(userid dbid queryid toplevel);
my @COUNTERS = qw(calls rows shared_blks_hit shared_blks_read);

sub is_number { defined $_[0] && $_[0] =~ /\A-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?\z/ }

# A statement's text on one line, at most $TEXT_CHARS characters (… marks a cut).
sub shorten {
  my ($text) = @_;
  $text = join ' ', split ' ', $text // '';
  return length $text > $TEXT_CHARS ? substr($text, 0, $TEXT_CHARS - 3) . '...' : $text;
}

# The snapshot of WHEN (mi-start, mi-end): ({ rows => {key => row}, time }) or (undef, why).
sub snapshot {
  my ($r, $when) = @_;
  my $rel = "db/$when/pg_stat_statements.csv";
  my $path = "$r->{results_dir}/$rel";
  return (undef, "$rel is missing") unless -e $path;
  my ($csv, $err) = read_csv($path);
  if (!$csv) {
    $err =~ s/\A\Q$r->{results_dir}\E\///;
    $r->{_problem}->({ file => $rel, line => 0, kind => 'other', reason => $err, text => '' });
    return (undef, $err);
  }
  my %have = map { $_ => 1 } @{ $csv->{header} };
  my $cols = statement_columns($csv->{header});
  my @missing = grep { !$have{$_} } 'queryid', 'query', @COUNTERS;
  push @missing, 'total_exec_time' unless $cols->{total};
  return (undef, "$rel lacks the columns " . join(', ', @missing)) if @missing;
  my @times = $cols->{read_time} ? @$cols{qw(read_time write_time)} : ();
  my %rows;
  my $line = 1;
  for my $row (@{ $csv->{rows} }) {
    $line++;
    my ($bad) = grep { !is_number($row->{$_}) } $cols->{total}, @COUNTERS, @times;
    if (defined $bad) {
      $r->{_problem}->({ file => $rel, line => $line, kind => 'other', text => '',
                         reason => "not a number in $bad: '" . ($row->{$bad} // '') . "'" });
      next;
    }
    $row->{total_ms} = $row->{ $cols->{total} };
    @$row{qw(read_ms write_ms)} = @$row{@times} if @times;
    $rows{ join("\t", map { $row->{$_} // '' } @KEY) } = $row;
  }
  return ({ rows => \%rows, cols => $cols,
            time => @{ $csv->{rows} } ? $csv->{rows}[0]{snapshot_time} : undef });
}

# Where the statements' block read and write times come from, or why there are none:
# { source } or { why }.
sub block_times {
  my ($r, $start, $end) = @_;
  my ($cs, $ce) = ($start->{cols}, $end->{cols});
  return { why => $ce->{times_why} // $cs->{times_why} } unless $cs->{read_time} && $ce->{read_time};
  return { why => "the two readings have different columns ($cs->{read_time}, "
                  . "$ce->{read_time}): the extension was updated in between" }
    if $cs->{read_time} ne $ce->{read_time};
  my $timing = setting($r, 'track_io_timing');
  return { why => 'not measured: track_io_timing was off (db/settings.csv)' }
    if defined $timing && $timing eq 'off';
  return { source => "pg_stat_statements.$ce->{read_time} and $ce->{write_time}",
           timing_unknown => !defined $timing };
}

# statement_stats($r): sets $r->{statements} = { available, why | top => [...], from, to,
# reset, total_ms, calls, statements }.
sub statement_stats {
  my ($r) = @_;
  my $st = { available => 0, top_n => $TOP };
  $r->{statements} = $st;
  my $note = "$r->{results_dir}/db/mi-start/pg_stat_statements.txt";
  if (open my $fh, '<', $note) {
    chomp(my $first = <$fh> // '');
    $st->{reset} = $first;
  }
  if (defined $st->{reset} && $st->{reset} =~ /\Anot installed/) {
    $st->{why} = create_extension_advice($r);
    return;
  }
  # An empty snapshot: psql read nothing, and the note says what the database answered (e.g.
  # the library not preloaded yet). That is the reason, not an input problem.
  if (-e "$r->{results_dir}/db/mi-start/pg_stat_statements.csv"
      && -z _ && ($st->{reset} // '') =~ /ERROR:\s*(.+)/) {
    $st->{why} = "the database answered: $1";
    $st->{why} .= ' (the embedded cluster loads it from its next start: ./brokerbench db stop, '
                  . 'then ./brokerbench db start)' if $1 =~ /shared_preload_libraries/;
    return;
  }
  my ($start, $why_start) = snapshot($r, 'mi-start');
  my ($end, $why_end) = snapshot($r, 'mi-end');
  if (!$start || !$end) {
    $st->{why} = ($why_start // $why_end)
      . ' (a run made before this version, one that never reached its measurement interval, '
      . 'or a query that failed: db/snapshot.err)';
    return;
  }
  $st->{from} = $start->{time};
  $st->{to}   = $end->{time};
  $st->{block_times} = block_times($r, $start, $end);
  my @times = $st->{block_times}{source} ? qw(read_ms write_ms) : ();
  my (@list, $total_ms, $calls);
  # In a fixed order: a sum of floating-point times in hash order differs in its last digits
  # from one run of bb-report to the next.
  for my $k (sort keys %{ $end->{rows} }) {
    my ($e, $s) = ($end->{rows}{$k}, $start->{rows}{$k});
    # An entry evicted and made anew in between counts from zero.
    $s = undef if $s && $e->{calls} < $s->{calls};
    my %d = map { $_ => $e->{$_} - ($s ? $s->{$_} : 0) } 'total_ms', @COUNTERS, @times;
    next unless $d{calls} > 0;
    $d{mean_ms} = $d{total_ms} / $d{calls};
    $d{query} = $e->{query};
    $d{text} = shorten($e->{query});
    $d{toplevel} = $e->{toplevel} if defined $e->{toplevel};
    $total_ms += $d{total_ms};
    $calls += $d{calls};
    push @list, \%d;
  }
  @list = sort { $b->{total_ms} <=> $a->{total_ms} || $a->{text} cmp $b->{text} } @list;
  $st->{available}  = 1;
  $st->{statements} = scalar @list;
  $st->{total_ms}   = $total_ms // 0;
  $st->{calls}      = $calls // 0;
  for my $d (@list) {
    $d->{share_pct} = $total_ms ? 100 * $d->{total_ms} / $total_ms : undef;
  }
  splice @list, $TOP if @list > $TOP;
  $st->{top} = \@list;
}

1;
