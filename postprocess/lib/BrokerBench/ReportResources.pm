package BrokerBench::ReportResources;
# The report's sections on where the run's time and resources went: the CPU per process group,
# the database's waits, its top statements, the CPU profile, each host's system figures, the Brokerage House's totals and the market emulator (its waits, and
# the trades it left at its end). Each returns a section for Render.pm.
use strict;
use warnings;
use Exporter 'import';
use BrokerBench::Spec qw(@ALL_CODES %NAME);
use BrokerBench::Cpu qw(%CPU_GROUP_NAME);
use BrokerBench::Format qw(f1 pct unknown);

our @EXPORT_OK = qw(cpu_section waits_section statements_section profile_section
                    system_section bh_section mee_section);

sub system_section {
  my ($r) = @_;
  my $sys = $r->{system};
  my @blocks;
  if (!@{ $sys->{hosts} }) {
    push @blocks, { t => 'p', text => 'Not available (' . ($sys->{why} // 'no readable '
                                      . 'sys/<host>/sysstat.csv') . ').' };
  } else {
    # Averages in the MI, '-' where there are none.
    my $avg = sub {
      my ($h, $col, $div) = @_;
      my $v = $h->{avg} ? $h->{avg}{$col} : undef;
      return defined $v ? f1($v / ($div // 1)) : '-';
    };
    my (@cpu, @mem);
    for my $h (@{ $sys->{hosts} }) {
      push @cpu, [$h->{host}, $h->{samples_in_mi},
                  map { $avg->($h, $_) } qw(cpu_user_pct cpu_system_pct cpu_iowait_pct
                                            cpu_idle_pct disk_read_kb_s disk_write_kb_s)];
      push @mem, [$h->{host}, (map { $avg->($h, $_, 1024) } qw(mem_used_kb mem_cached_kb
                                                               mem_free_kb)),
                  map { $avg->($h, $_) } qw(net_rx_kb_s net_tx_kb_s)];
    }
    push @blocks, { t => 'table',
                    head => ['Host', 'Samples', 'user %', 'system %', 'iowait %', 'idle %',
                             'read KB/s', 'write KB/s'],
                    align => [qw(l r r r r r r r)], rows => \@cpu };
    push @blocks, { t => 'table',
                    head => ['Host', 'used MiB', 'cached MiB', 'free MiB', 'net in KB/s',
                             'net out KB/s'],
                    align => [qw(l r r r r r)], rows => \@mem }
      if grep { $_->{memory_and_network} } @{ $sys->{hosts} };
    push @blocks, { t => 'p', text => 'Averages over the 1-second samples inside the MI '
                    . '(sys/<host>/sysstat.csv): CPU of all cores; disk reads and writes of all '
                    . 'whole disks; memory as free(1) counts it (used = total - available, '
                    . 'cached = buffers + page cache + reclaimable slabs, PostgreSQL\'s shared '
                    . 'buffers included); network received and sent on every interface but the '
                    . 'loopback. KB = 1024 bytes.' };
    my @old = map { $_->{host} } grep { !$_->{memory_and_network} } @{ $sys->{hosts} };
    push @blocks, { t => 'p', text => 'No memory or network figures for ' . join(', ', @old)
                                      . ': its sysstat.csv is from a kit that did not sample '
                                      . 'them.' } if @old;
  }
  return { id => 'system', title => 'System', blocks => \@blocks };
}

sub cpu_section {
  my ($r) = @_;
  my $cpu = $r->{cpu};
  my @blocks;
  if (!@{ $cpu->{hosts} }) {
    push @blocks, { t => 'p', text => 'Not available (' . ($cpu->{why} // 'no readable '
                                      . 'sys/<host>/proc_cpu.csv') . ').' };
    return { id => 'cpu', title => 'Where the CPU went', blocks => \@blocks };
  }
  for my $h (@{ $cpu->{hosts} }) {
    my $label = "Host $h->{host}" . ($h->{database_host} ? " (the database's host)" : '');
    if (!$h->{harness}) {
      push @blocks, { t => 'p', text => "$label: " . ($h->{why} // 'no figures') . '.' };
      next;
    }
    push @blocks, { t => 'p', text => sprintf('%s: %.1f s of the measurement interval, %d '
                                              . 'transactions (%.1f/s, every mix log row: '
                                              . 'Trade-Result and Market-Feed included), %.2f '
                                              . 'of %.0f cores busy.', $label, $h->{seconds},
                                              $h->{transactions}, $h->{transactions_per_s} // 0,
                                              $h->{busy}{cores} // 0, $h->{cores} // 0) };
    my $row = sub {
      my ($name, $f) = @_;
      return [$name, defined $f->{cores} ? sprintf('%.3f', $f->{cores}) : '-',
              defined $f->{share_pct} ? sprintf('%.1f %%', $f->{share_pct}) : '-',
              defined $f->{us_per_txn} ? sprintf('%.1f', $f->{us_per_txn}) : '-'];
    };
    my @rows = map { $row->($CPU_GROUP_NAME{$_}, $h->{groups}{$_}) } qw(bh ce mee);
    push @rows, $row->('harness (the three above)', $h->{harness});
    push @rows, map { $row->($CPU_GROUP_NAME{$_}, $h->{groups}{$_}) } qw(postgres monitor controller);
    push @rows, $row->('not attributed to these', $h->{unattributed});
    push @rows, $row->('busy, all', $h->{busy});
    push @rows, $row->('soft interrupts (within busy)', $h->{softirq});
    push @blocks, { t => 'table', head => ['Process', 'Cores', 'Share of busy CPU',
                                           'CPU us per transaction'],
                    align => [qw(l r r r)], rows => \@rows, rule_before => [3, 8],
                    strong_rows => $h->{database_host} ? [3] : [] };
  }
  push @blocks, { t => 'p', text => 'Measured by sampling /proc once a second on every host '
                  . '(postprocess/bb-cpu-sampler): utime+stime of each process, found by name, '
                  . "PostgreSQL with its exited backends (the postmaster's cutime+cstime); "
                  . 'busy = all cores less idle and iowait. Differences between the first and '
                  . 'the last sample inside the measurement interval. "Not attributed" is '
                  . 'other processes and kernel work charged to no process. Soft interrupts '
                  . '(loopback TCP among them) are shown for what they are: the kernel '
                  . 'charges some of them to the process they interrupted, the rest to none.' };
  push @blocks, { t => 'p', text => "Warning: $cpu->{warning}." } if $cpu->{warning};
  return { id => 'cpu', title => 'Where the CPU went', blocks => \@blocks };
}

sub waits_section {
  my ($r) = @_;
  my $w = $r->{waits};
  my $title = 'Where the database waited';
  unless (@{ $w->{hosts} }) {
    return { id => 'waits', title => $title,
             blocks => [{ t => 'p', text => 'Not available (' . ($w->{why} // '?') . ').' }] };
  }
  my @blocks;
  my $row = sub {
    my ($e, @name) = @_;
    return [@name, $e->{samples}, pct($e->{share_pct}), sprintf('%.2f', $e->{avg_backends})];
  };
  for my $h (@{ $w->{hosts} }) {
    unless ($h->{top}) {
      push @blocks, { t => 'p', text => "Host $h->{host}: $h->{why}." };
      next;
    }
    my $st = $h->{avg_by_state};
    my $states = join(', ', map { sprintf('%s %.2f', $_, $st->{$_}) }
                            sort { $st->{$b} <=> $st->{$a} || $a cmp $b } keys %$st);
    push @blocks, { t => 'p', text => sprintf('Host %s: %d samples in the measurement interval; '
                                              . 'client backends of the database on average '
                                              . '%.2f, of which %.2f active%s.', $h->{host},
                                              $h->{samples_in_mi}, $h->{avg_backends},
                                              $h->{avg_active},
                                              $states ? " (the others: $states)" : '') };
    if (!$h->{active_samples}) {
      push @blocks, { t => 'p', text => 'No backend was active in any sample.' };
      next;
    }
    push @blocks,
      { t => 'table', head => ['Wait type', 'Samples', 'Share', 'Avg backends'],
        align => [qw(l r r r)], rows => [map { $row->($_, $_->{type}) } @{ $h->{by_type} }] },
      { t => 'table', head => ['Wait type', 'Wait event', 'Samples', 'Share', 'Avg backends'],
        align => [qw(l l r r r)],
        rows => [map { $row->($_, $_->{type}, $_->{event}) } @{ $h->{top} }] };
    push @blocks, { t => 'p', text => "The $w->{top} most frequent of $h->{waits_seen} waits." }
      if $h->{waits_seen} > @{ $h->{top} };
  }
  push @blocks, { t => 'p', text => 'pg_stat_activity sampled once a second on the database\'s '
                  . 'host (controller/wait-sampler, sys/<host>/waits.csv): every active client '
                  . 'backend of the database counts once per sample, under its wait event. CPU = '
                  . 'active with no wait event: running, or in a wait PostgreSQL does not '
                  . 'instrument. Share = part of all active-backend samples in the measurement '
                  . 'interval; Avg backends = samples / samples taken, the average number of '
                  . 'backends in that wait. Plot: db-waits.' };
  return { id => 'waits', title => $title, blocks => \@blocks };
}

sub statements_section {
  my ($r) = @_;
  my $st = $r->{statements};
  my $title = 'Top statements';
  unless ($st->{available}) {
    return { id => 'statements', title => $title,
             blocks => [{ t => 'p', text => "Not available: $st->{why}." }] };
  }
  # Block read and write times where the server measured them (PgStats.pm names the columns).
  my $bt = $st->{block_times} // { why => 'not read' };
  my @times = $bt->{source} ? qw(read_ms write_ms) : ();
  my @rows = map {
    my $s = $_;
    [sprintf('%.1f', $s->{total_ms}), pct($s->{share_pct}), $s->{calls},
     sprintf('%.3f', $s->{mean_ms}), @$s{qw(rows shared_blks_hit shared_blks_read)},
     (map { sprintf('%.1f', $s->{$_}) } @times), $s->{text}]
  } @{ $st->{top} };
  my @blocks = ({ t => 'p', text => sprintf('pg_stat_statements of the database from %s to %s '
                                            . '(read at the START and the STOP of the '
                                            . 'measurement interval; %s): %d statements, %d '
                                            . 'calls, %.1f s of execution in all.',
                                            $st->{from} // 'unknown', $st->{to} // 'unknown',
                                            $st->{reset} // 'reset unknown', $st->{statements},
                                            $st->{calls}, $st->{total_ms} / 1000) });
  push @blocks, @rows
    ? { t => 'table', head => ['Total ms', 'Share', 'Calls', 'Mean ms', 'Rows', 'Shared hit',
                               'Shared read', (@times ? ('Read ms', 'Write ms') : ()),
                               'Statement'],
        align => [qw(r r r r r r r), (map { 'r' } @times), 'l'], rows => \@rows }
    : { t => 'p', text => 'No statement ran in between.' };
  push @blocks, { t => 'p', text => $bt->{source}
    ? "Read ms and write ms: time spent reading and writing shared blocks ($bt->{source})"
      . ($bt->{timing_unknown} ? '; 0 when track_io_timing was off, which db/settings.csv does '
                                 . 'not say' : '') . '.'
    : "Block read and write times: not available: $bt->{why}." };
  push @blocks, { t => 'p', text => "The $st->{top_n} statements with the most execution time "
                  . '(planning not included); shared hit/read = shared buffer blocks found in '
                  . 'and read into shared buffers. The text is shortened (results.json has it '
                  . 'whole). With pg_stat_statements.track = top (its default) a server-side '
                  . "frame counts as the call of its function; 'all' lists the statements inside "
                  . 'it too.' };
  return { id => 'statements', title => $title, blocks => \@blocks };
}

sub profile_section {
  my ($r) = @_;
  my $p = $r->{profile};
  my @blocks;
  for my $h (@{ $p->{hosts} }) {
    push @blocks, { t => 'kv', rows => [["Host $h->{host}", $h->{status}],
                                        $h->{svg} ? ['Flame graph', "$h->{svg} (open it in a "
                                                     . 'browser; hover over a frame for its name '
                                                     . 'and share)'] : (),
                                        $h->{folded} ? ['Folded stacks', $h->{folded}] : ()] };
  }
  if (!@blocks) {
    push @blocks, { t => 'p', text => $p->{asked}
      ? 'Asked for (--profile) but not made: the run did not reach its measurement interval, '
        . 'or the database\'s host is not known (see run.log).'
      : 'Not recorded (brokerbench run --profile records one on the database\'s host).' };
  }
  push @blocks, { t => 'p', text => 'perf record -a -g at 99 Hz on the database\'s host for '
                  . 'the measurement interval (controller/profile): every process, the kernel '
                  . 'included; a stack starts with its process name.' } if @{ $p->{hosts} };
  return { id => 'profile', title => 'CPU profile (flame graph)', blocks => \@blocks };
}

sub bh_section {
  my ($r) = @_;
  my $bh = $r->{bh};
  my @blocks;
  if (!@{ $bh->{hosts} }) {
    push @blocks, { t => 'p', text => 'Not available (' . ($bh->{why} // 'no readable '
                                      . 'bh/<host>/bh-stats.csv') . ').' };
  }
  for my $h (@{ $bh->{hosts} }) {
    my $f = sub { defined $_[0] ? sprintf($_[1], $_[0]) : '-' };
    my @rows = map {
      my $t = $h->{types}{$_};
      [$NAME{$_}, $_, $t->{requests}, $f->($t->{round_trips_per_txn}, '%.2f'),
       $f->($t->{statements_per_txn}, '%.2f'), $t->{retries}, $f->($t->{server_ms_avg}, '%.3f')]
    } grep { $h->{types}{$_} } @ALL_CODES;
    push @blocks, { t => 'p', text => "Host $h->{host}:" },
                  { t => 'table', head => ['Transaction', 'Code', 'Requests', 'Round trips/txn',
                                           'Statements/txn', 'Retries', 'Server ms (avg)'],
                    align => [qw(l l r r r r r)], rows => \@rows };
  }
  push @blocks, { t => 'p', text => "The Brokerage House's own totals over the whole run "
                  . '(bh/<host>/bh-stats.csv), ramp-up included. A round trip is a group of '
                  . 'statements sent to PostgreSQL together and answered before the next: '
                  . 'with server-side frames a transaction is one (BEGIN, the call and COMMIT '
                  . 'together), with client-side frames one per statement. Retries and failed '
                  . 'attempts count. Server time includes the wait for a database worker.'
                  . (defined $r->{settings}{frames} ? " This run: $r->{settings}{frames}-side frames." : '') };
  return { id => 'bh', title => 'Brokerage House: database work per transaction', blocks => \@blocks };
}

sub mee_section {
  my ($r) = @_;
  my $m = $r->{mee};
  my @rows = map {
    my $w = $m->{wait}{$_};
    [$NAME{$_}, $w->{rows_in_mi},
     map { my $ms = $w->{"wait_${_}_ms"}; defined $ms ? sprintf('%.3f', $ms) : '-' } qw(p50 p90 max)]
  } qw(TR MF);
  my @blocks = (
    { t => 'table', head => ['Delivery', 'Rows in MI', 'wait median (ms)', 'wait p90 (ms)',
                             'wait max (ms)'], align => [qw(l r r r r)], rows => \@rows },
    { t => 'p', text => 'wait = time between a delivery being due and being sent (its queueing '
                        . 'in the market emulator), over all rows of the MI whatever their '
                        . 'outcome; percentiles by nearest rank; median, p90 and maximum read '
                        . 'from histograms (exact below 2.048 ms, above at most 0.1 % over the '
                        . 'true value).' },
  );
  push @blocks, end_of_run_blocks($m, $r->{reconciliation}{mee});
  return { id => 'mee', title => 'Market emulator', blocks => \@blocks };
}

# The states of pending-trades.csv, in the report's order and words.
my @PENDING_STATES = ('limit trigger armed', 'in its completion delay');
my %PENDING_TEXT = (
  'limit trigger armed'     => 'limit orders whose trigger price was not reached',
  'in its completion delay' => 'orders within their completion delay (at most 5 s)',
);

# Pending orders and failed trades at the end of the run (MarketEmulator.pm, end_of_run_trades).
sub end_of_run_blocks {
  my ($m, $rec) = @_;
  my ($p, $f) = ($m->{pending_trades}, $m->{failed_trades});
  if (!$p->{hosts}) {
    return { t => 'p', text => 'Pending and failed trades: not available (no '
                               . 'mee/<host>/failed-trades.csv or pending-trades.csv).' };
  }
  my @blocks;
  my $unknown = join(', ', @{ $p->{hosts_unknown} });
  if (!$p->{known}) {
    push @blocks, { t => 'p', text => "Pending at the end: unknown: the market emulator on "
                    . "$unknown wrote no pending-trades.csv, so it never reached its end (it was "
                    . 'killed or died; the last lines of its mee.log may say more).'
                    . ($rec && $rec->{open_in_database}
                       ? " The database left $rec->{open_in_database}{total} trades open after "
                         . 'the run (db/after/open-trades.csv).' : '') };
  } elsif (!$p->{total}) {
    push @blocks, { t => 'p', text => 'Pending at the end: none.' };
  } else {
    my $s = $p->{by_state};
    my @states = ((grep { $s->{$_} } @PENDING_STATES),
                  (sort grep { !$PENDING_TEXT{$_} } keys %$s));
    push @blocks, { t => 'p', text => "Pending at the end: $p->{total} ("
                    . join('; ', map { ($PENDING_TEXT{$_} // $_) . ": $s->{$_}" } @states)
                    . '). Not failures: the market had not finished with them when the run '
                    . 'stopped, and Trade-Cleanup cancels them before the next run.' };
  }
  my $so_far = $f->{complete} ? ''
             : " recorded before the market emulator on $unknown stopped without reaching its "
               . 'end (those it would have found at its end are unknown)';
  if (!$f->{total}) {
    push @blocks, { t => 'p', text => $f->{complete} ? 'Failed trades: none.'
                                                     : "Failed trades: none$so_far." };
  } else {
    push @blocks, { t => 'p', text => "Failed trades: $f->{total}$so_far, by reason:" },
      { t => 'table', head => ['Reason', 'Trades'], align => [qw(l r)],
        rows => [map { [$_, $f->{by_reason}{$_}] }
                 sort { $f->{by_reason}{$b} <=> $f->{by_reason}{$a} || $a cmp $b }
                 keys %{ $f->{by_reason} }] };
  }
  return @blocks;
}

1;
