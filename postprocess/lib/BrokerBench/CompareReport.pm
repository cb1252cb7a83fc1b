package BrokerBench::CompareReport;
# Writes compare.txt, compare.html and compare.json from a comparison (Compare.pm). The text
# and the HTML are rendered by Render.pm from one list of sections, as the report is, so they
# say the same thing; the HTML has the plots inline.
use strict;
use warnings;
use Exporter 'import';
use JSON::PP ();
use BrokerBench::Render qw(render_text render_html write_atomic);

our @EXPORT_OK = qw(write_compare build_sections headline_lines);

# Plot names in page order, with what each shows (ComparePlots.pm draws them).
our @PLOTS = (
  ['trtps',           'Trade-Results per second of each run over time'],
  ['rt-distribution', 'Response-time distribution of each type in each run'],
);

sub fmt {
  my ($f, $v) = @_;
  return defined $v ? sprintf($f, $v) : '-';
}

sub change {
  my ($c, $base, $value) = @_;
  return sprintf('%+.1f %%', $c) if defined $c;
  return '-' unless defined $base && defined $value && $value != 0;
  return 'new';    # from 0 to something: no percentage
}

# One line per compared run.
sub headline_lines {
  my ($cmp) = @_;
  return [map {
    my $t = $_->{trtps};
    my $n = $_->{counts};
    sprintf('%s vs %s: TRTPS %s vs %s (%s): %s. Other figures: %d worse, %d better, %d within '
            . 'noise, %d not judged.', $_->{run}, $_->{base}, fmt('%.2f', $t->{value}),
            fmt('%.2f', $t->{base}), change($t->{change_pct}, $t->{base}, $t->{value}),
            $t->{verdict}, @$n{'worse', 'better', 'within noise', 'not judged'})
  } @{ $cmp->{comparisons} }];
}

# The figure tables: [id, title, how a value is shown ($figure, $value, whether it is the
# compared run's), the paragraphs under it].
my @TABLES = (
  ['throughput', 'Throughput (per second of the MI)', sub { fmt($_[0]{id} eq 'trtps' ? '%.2f' : '%.3f', $_[1]) },
   ['Valid transactions (ok, rollback, warning) completed in the measurement interval, per '
    . 'second of it. TRTPS = valid Trade-Results (clause 6.6.8), measured, before the 80-102 % '
    . 'rule. Data-Maintenance runs every 60 s by rule and is left out.']],
  ['avg', 'Average response time (ms)', sub { fmt('%.2f', defined $_[1] ? 1000 * $_[1] : undef) },
   ['Over the valid transactions whose start and end lie inside the MI, as in each run\'s '
    . 'report.']],
  ['p90', '90th-percentile response time (ms)', sub { fmt('%.2f', defined $_[1] ? 1000 * $_[1] : undef) },
   ['Nearest rank, as in each run\'s report. Judged through the share of each interval\'s '
    . 'transactions slower than the base run\'s 90th percentile (see the rule below).']],
  ['errors', 'Errors in the MI', sub { $_[2] ? $_[0]{count} : $_[0]{base_count} },
   ['Transactions that ended with an error (retry_exhausted, db_error, net_error, timeout) in '
    . 'the MI. The change is that of errors per second of the MI, so runs of different lengths '
    . 'compare. Judged only where a run has some.']],
  ['cpu', 'Where the CPU went: share of the database host\'s busy CPU', sub { defined $_[1] ? sprintf('%.1f %%', $_[1]) : '-' },
   ['From each run\'s "Where the CPU went" (the host where PostgreSQL used the most CPU). Only '
    . 'the harness\'s share is judged: it is what the kit takes from the database it '
    . 'measures; the process groups are shown beside it.']],
);

sub build_sections {
  my ($cmp, $plots) = @_;
  my @s;
  push @s, { id => 'top', title => 'brokerbench compare', blocks => [
    { t => 'headline', lines => headline_lines($cmp) },
    { t => 'kv', rows => [['Base', $cmp->{base}],
                          ['Output directory', $cmp->{out_dir} // '-'],
                          ['Generated', $cmp->{generated_utc}]] },
    { t => 'p', text => $cmp->{statement} },
  ] };
  push @s, runs_section($cmp);
  push @s, figure_section($cmp, @$_) for @TABLES;
  push @s, database_section($cmp);
  push @s, settings_section($cmp);
  push @s, plots_section($plots);
  push @s, rule_section($cmp);
  return \@s;
}

sub runs_section {
  my ($cmp) = @_;
  my @rows = map {
    [$_->{label} . ($_->{label} eq $cmp->{base} ? ' (base)' : ''),
     defined $_->{started_utc} ? $_->{started_utc} =~ s/\A(\S+)T(\S+?)Z?\z/$1 $2/r : '-',
     $_->{verdict} . ($_->{reasons} ? " ($_->{reasons})" : ''), fmt('%.2f', $_->{trtps}),
     fmt('%.0f s', $_->{mi_s}), "$_->{intervals} x $_->{interval_s} s", $_->{kit_commit} // '-',
     $_->{comment} // '-']
  } @{ $cmp->{runs} };
  my @blocks = (
    { t => 'table', head => ['Run', 'Started (UTC)', 'Verdict (reasons)', 'TRTPS', 'MI',
                             'Intervals', 'Kit', 'Comment'],
      align => [qw(l l l r r r l l)], rows => \@rows },
    { t => 'kv', rows => [map { [$_->{label}, $_->{dir}] } @{ $cmp->{runs} }] },
  );
  my @problems = grep { $_->{problems} } @{ $cmp->{runs} };
  push @blocks, { t => 'p', text => 'Input problems (each run\'s report lists them): '
                  . join(', ', map { "$_->{label} $_->{problems}" } @problems) . '.' } if @problems;
  return { id => 'runs', title => 'Runs', blocks => \@blocks };
}

sub figure_section {
  my ($cmp, $id, $title, $show, $notes) = @_;
  my @comps = @{ $cmp->{comparisons} };
  my @figs = grep { $_->{table} eq $id } @{ $comps[0]{figures} };
  my @blocks;
  if ($id eq 'errors' && !grep { $_->{base_count} || $_->{count} } map { my $c = $_;
        grep { $_->{table} eq 'errors' } @{ $c->{figures} } } @comps) {
    push @blocks, { t => 'p', text => 'No run has an error in its MI.' };
  } elsif ($id eq 'cpu' && !grep { defined $_->{base} || defined $_->{value} }
                           map { my $c = $_; grep { $_->{table} eq 'cpu' } @{ $c->{figures} } }
                           @comps) {
    push @blocks, { t => 'p', text => 'Not available: no run has a database host in its '
                                      . 'sys/<host>/proc_cpu.csv.' };
  } else {
    my @rows;
    for my $i (0 .. $#figs) {
      my $f0 = $figs[$i];
      next if $id eq 'errors' && !grep { my $c = $_;
                grep { $_->{id} eq $f0->{id} && ($_->{base_count} || $_->{count}) }
                @{ $c->{figures} } } @comps;
      my @row = ($f0->{label}, $id eq 'cpu' ? () : $f0->{code}, $show->($f0, $f0->{base}, 0));
      for my $c (@comps) {
        my ($f) = grep { $_->{id} eq $f0->{id} } @{ $c->{figures} };
        push @row, $show->($f, $f->{value}, 1), change($f->{change_pct}, $f->{base}, $f->{value}),
                   $f->{verdict} // '-';
      }
      push @rows, \@row;
    }
    push @blocks, { t => 'table',
                    head => [$id eq 'cpu' ? 'Process' : ('Transaction', 'Code'),
                             "$cmp->{base} (base)", map { ($_->{run}, 'Change', 'Verdict') } @comps],
                    align => [$id eq 'cpu' ? 'l' : qw(l l), 'r', map { qw(r r l) } @comps],
                    rows => \@rows,
                    ($id eq 'throughput' ? (rule_before => [1]) : ()) };
    push @blocks, map { { t => 'p', text => $_ } } @$notes;
    my @why = map { my $c = $_; map { "$c->{run}, $_->{label}: $_->{why}" }
                                grep { $_->{table} eq $id && $_->{why} } @{ $c->{figures} } } @comps;
    push @blocks, { t => 'p', text => 'Not judged: ' . join('; ', @why) . '.' } if @why;
  }
  return { id => $id, title => $title, blocks => \@blocks };
}

sub database_section {
  my ($cmp) = @_;
  my $db = $cmp->{database};
  my @runs = @{ $cmp->{runs} };
  my $title = 'Database (no verdict)';
  unless (@{ $db->{rows} }) {
    my @why = map { "$runs[$_]{label}: " . ($db->{why}[$_] // 'no figures') } 0 .. $#runs;
    return { id => 'database', title => $title,
             blocks => [{ t => 'p', text => 'Not available (' . join('; ', @why) . ').' }] };
  }
  my $num = sub {
    my ($v) = @_;
    return '-' unless defined $v;
    return $v == int($v) && abs($v) < 1e15 ? sprintf('%d', $v) : sprintf('%.2f', $v);
  };
  # A figure a run has not got shows as n/a; why, and where each run took a figure from when
  # the runs took it from different views (servers of different versions), under the table.
  my $cell = sub {
    my ($row, $i) = @_;
    return defined $row->{values}[$i] || !$row->{whys} ? $num->($row->{values}[$i]) : 'n/a';
  };
  my @rows = map {
    my $row = $_;
    [$row->{name}, $cell->($row, 0),
     map { ($cell->($row, $_),
            change($row->{changes}[$_ - 1], $row->{values}[0], $row->{values}[$_])) } 1 .. $#runs]
  } @{ $db->{rows} };
  my @notes;
  for my $row (grep { $_->{whys} } @{ $db->{rows} }) {
    push @notes, map { "$row->{name}, $runs[$_]{label}: n/a, $row->{whys}[$_]" }
                 grep { defined $row->{whys}[$_] } 0 .. $#runs;
    my %from = map { $_ => 1 } grep { defined } @{ $row->{sources} };
    push @notes, "$row->{name}: " . join('; ', map { "$runs[$_]{label} from $row->{sources}[$_]" }
                                               grep { defined $row->{sources}[$_] } 0 .. $#runs)
      if keys %from > 1;
  }
  return { id => 'database', title => $title, blocks => [
    { t => 'table', head => ['Figure', "$runs[0]{label} (base)",
                             map { ($runs[$_]{label}, 'Change') } 1 .. $#runs],
      align => ['l', 'r', map { qw(r r) } 1 .. $#runs], rows => \@rows },
    (@notes ? { t => 'list', items => \@notes } : ()),
    { t => 'p', text => 'Each run\'s report\'s database figures: changes in pg_stat_database '
                        . 'and in the views that keep block writes, checkpoints and WAL on each '
                        . 'run\'s server version, between the snapshots before and after the run '
                        . '(the whole run, ramp-up included, so totals grow with its length). '
                        . ((grep { ($_->{key} // '') =~ /\Adb_memory_/ } @{ $db->{rows} })
                           ? 'The memory cgroup\'s figures (run --db-memory, from run.conf): its '
                             . 'peak and OOM kills over the run, its usage at the end, and the '
                             . 'data directory and what the page cache held of it at the start. '
                           : '')
                        . 'No verdict: a snapshot pair gives one figure per run and no '
                        . 'variation to judge a change against.' },
  ] };
}

sub settings_section {
  my ($cmp) = @_;
  my @runs = @{ $cmp->{runs} };
  my $rows = $cmp->{settings};
  my $title = 'Settings that differ';
  return { id => 'settings', title => $title, blocks => [
    { t => 'p', text => 'None: the server\'s version, run.conf (the dates aside), readme.txt\'s '
                        . 'host lines and db/settings.csv are alike in every run.' }] } unless @$rows;
  return { id => 'settings', title => $title, blocks => [
    { t => 'table', head => ['Source', 'Setting', map { $_->{label} } @runs],
      align => [('l') x (2 + @runs)],
      rows => [map { [$_->{source}, $_->{name}, map { $_ // '(not set)' } @{ $_->{values} }] }
               @$rows] },
    { t => 'p', text => 'server: the version the PostgreSQL server reported (run.conf, else '
                        . 'db/settings.csv). '
                        . 'run.conf: every key but started_utc, finished_utc and metrics (the '
                        . 'kit\'s commit, the hosts and the seeds among them); readme.txt: '
                        . 'the lines on the machine (controller, uname, compiler, database, host); '
                        . 'pg_settings: db/settings.csv as the run began, the server\'s own '
                        . 'settings (not psql\'s client and session ones).' },
  ] };
}

sub plots_section {
  my ($plots) = @_;
  return { id => 'plots', title => 'Plots', blocks => [
    { t => 'p', text => 'Not made (bb-compare --no-plots).' }] } unless $plots;
  my @blocks = map {
    { t => 'plot', name => $_->[0], title => $_->[1],
      %{ $plots->{ $_->[0] } // { status => 'failed', note => 'not made' } } }
  } @PLOTS;
  push @blocks, { t => 'p', text => 'Each plot has its data and gnuplot script in plots/data/; '
                                    . 're-plot with: cd plots/data && gnuplot NAME.gp' };
  return { id => 'plots', title => 'Plots', blocks => \@blocks };
}

sub rule_section {
  my ($cmp) = @_;
  my @items = map {
    sprintf('%s vs %s: TRTPS at %s; the other %d judged figures each at %s.', $_->{run},
            $_->{base}, pct($_->{primary_level}), $_->{family_size},
            defined $_->{family_level} ? pct($_->{family_level}) : '-')
  } @{ $cmp->{comparisons} };
  return { id => 'rule', title => 'How a change is judged', blocks => [
    { t => 'p', text => $cmp->{rule}{text} },
    { t => 'list', items => \@items },
  ] };
}

sub pct {
  my ($x) = @_;
  my $p = sprintf('%.3f', 100 * $x);
  $p =~ s/\.?0+\z//;
  return "$p %";
}

# write_compare($cmp, $dir, $plots) -> path of compare.txt. Dies naming a file it cannot write.
sub write_compare {
  my ($cmp, $dir, $plots) = @_;
  my $sections = build_sections($cmp, $plots);
  write_atomic("$dir/compare.txt", render_text($sections));
  write_atomic("$dir/compare.html",
               render_html($sections, results_dir => $dir,
                           title => 'brokerbench compare: '
                                    . join(' ', map { $_->{label} } @{ $cmp->{runs} })));
  my %data = (%$cmp, $plots ? (plots => $plots) : ());
  write_atomic("$dir/compare.json", JSON::PP->new->canonical->pretty->encode(\%data));
  return "$dir/compare.txt";
}

1;
