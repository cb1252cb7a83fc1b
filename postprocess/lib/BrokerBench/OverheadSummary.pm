package BrokerBench::OverheadSummary;
# The tables of `brokerbench bench overhead` (controller/bench-overhead).
#
# overhead_tables reads its records file, one line per run (variant, repetition, results
# directory, pidstat file, tab-separated): per run and per variant (medians) the harness share
# and CPU µs per transaction on the database's host (results.json, "Where the CPU went"), the
# throughput, pidstat's count of the same processes over the same interval as a ratio to the
# report's, and the Brokerage House's round trips per transaction by type
# (bh/<host>/bh-stats.csv); and the database side: Trade-Result attempts per Trade-Result,
# retries of the other types, retry_exhausted, and sequential scans per second of the tables
# that must never be scanned whole (db/before and db/after pg_stat_user_tables.csv).
#
# pgbench_table gives the medians of `bench overhead --vs-pgbench`'s runs, whose lines
# pgbench_run_line and bh_run_line make from what one run measured.
use strict;
use warnings;
use Exporter 'import';
use JSON::PP ();
use Time::Local ();
use BrokerBench::Stats qw(median);

our @EXPORT_OK = qw(overhead_tables pgbench_table pgbench_run_line bh_run_line);

my @MIX = qw(BV CP MW SD TL TO TS TU);           # the customer emulator's transactions
my @ALL = qw(BV CP MF MW SD TL TO TR TS TU DM);  # round trips are shown for these
my %PIDSTAT = (bh => 'bb-brokerage-ho', ce => 'bb-customer-emu', mee => 'bb-market-emula',
               postgres => 'postgres');

my $NUMBER = qr/\A-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\z/;

sub slurp { open my $fh, '<', $_[0] or die "$_[0]: $!\n"; local $/; <$fh> }

# CPU seconds per group that pidstat saw in (from, to] (its -H timestamps end each interval).
sub pidstat_cpu {
  my ($path, $from_s, $to_s) = @_;
  my %cpu;
  open my $fh, '<', $path or return {};
  my %group = reverse %PIDSTAT;
  while (<$fh>) {
    next if /^#/ || !/\S/;
    my @f = split;
    next unless @f >= 10 && $f[0] =~ /\A\d+\z/;
    next unless $f[0] > $from_s && $f[0] <= $to_s;
    my $g = $group{ $f[-1] } // next;
    $cpu{$g} += $f[7] / 100;  # %CPU over one second
  }
  return \%cpu;
}

sub run_figures {
  my ($dir, $pidstat) = @_;
  my $j = JSON::PP->new->decode(slurp("$dir/results.json"));
  my ($h) = grep { $_->{database_host} } @{ $j->{cpu}{hosts} // [] };
  die "$dir: no CPU figures of the database's host ("
      . ($j->{cpu}{why} // 'no host ran PostgreSQL') . ")\n" unless $h;
  my $mi_s = $j->{mi}{seconds} || 1;
  my $customer = 0;
  $customer += $j->{transactions}{$_}{count} // 0 for @MIX;
  my %f = (
    customer_tps => $customer / $mi_s,
    all_tps      => $h->{transactions_per_s},
    harness_pct  => $h->{harness}{share_pct},
    busy_cores   => $h->{busy}{cores},
    retries_tr   => $j->{transactions}{TR}{retries},
    errors       => 0,
  );
  $f{errors} += $j->{transactions}{$_}{errors} // 0 for @ALL;
  $f{"${_}_us"} = $h->{groups}{$_}{us_per_txn} for qw(bh ce mee postgres);
  $f{harness_us} = $h->{harness}{us_per_txn};
  my $ps = pidstat_cpu($pidstat, $h->{from_us} / 1e6, $h->{to_us} / 1e6);
  for my $g (keys %PIDSTAT) {
    my $ours = $h->{groups}{$g}{cpu_s};
    $f{"check_$g"} = $ours && $ps->{$g} ? $ps->{$g} / $ours : undef;
  }
  database_figures($dir, $j, \%f);
  for my $csv (glob("$dir/bh/*/bh-stats.csv")) {
    my @lines = split /\n/, slurp($csv);
    my @head = split /,/, shift @lines;
    for (@lines) {
      my %row;
      @row{@head} = split /,/;
      $f{"trips_$row{type}"} = $row{db_round_trips} / $row{requests} if $row{requests};
    }
  }
  return \%f;
}

# Tables whose sequential scans issue 14 counted (INDUSTRY is fixed-size: shown, not judged).
my @SCANNED = qw(security last_trade company trade_request broker industry);

# relname => [seq_scan, snapshot time in seconds] from a pg_stat_user_tables.csv snapshot.
sub seq_scans {
  my ($path) = @_;
  open my $fh, '<', $path or return {};
  my @head = split /,/, scalar(<$fh>) // '';
  chomp @head;
  my %col = map { $head[$_] => $_ } 0 .. $#head;
  return {} unless defined $col{relname} && defined $col{seq_scan} && defined $col{snapshot_time};
  my %scans;
  while (my $line = <$fh>) {
    chomp $line;
    my @f = split /,/, $line;
    my ($y, $mo, $d, $h, $mi, $s) =
        $f[ $col{snapshot_time} ] =~ /\A(\d+)-(\d+)-(\d+) (\d+):(\d+):(\d+(?:\.\d+)?)/ or next;
    my $t = Time::Local::timegm(0, $mi, $h, $d, $mo - 1, $y) + $s;
    $scans{ $f[ $col{relname} ] } = [$f[ $col{seq_scan} ], $t];
  }
  return \%scans;
}

sub database_figures {
  my ($dir, $j, $f) = @_;
  my $tr = $j->{transactions}{TR} // {};
  my $rows = $tr->{rows_in_mi} || 0;
  $f->{tr_attempts} = $rows ? ($rows + ($tr->{retries} // 0)) / $rows : undef;
  my $exhausted = 0;
  for my $t (@ALL) {
    my $x = $j->{transactions}{$t} // next;
    $exhausted += ($x->{outcomes_in_mi}{retry_exhausted} // 0) + ($x->{outcomes_outside_mi}{retry_exhausted} // 0);
    next if $t eq 'TR' || !$x->{rows_in_mi};
    my $pct = 100 * ($x->{retries} // 0) / $x->{rows_in_mi};
    $f->{other_retry_pct} = $pct if !defined $f->{other_retry_pct} || $pct > $f->{other_retry_pct};
  }
  $f->{retry_exhausted} = $exhausted;
  my ($before, $after) = map { seq_scans("$dir/db/$_/pg_stat_user_tables.csv") } qw(before after);
  for my $t (@SCANNED) {
    next unless $before->{$t} && $after->{$t} && $after->{$t}[1] > $before->{$t}[1];
    $f->{"seq_$t"} = ($after->{$t}[0] - $before->{$t}[0]) / ($after->{$t}[1] - $before->{$t}[1]);
  }
}

sub fmt { my ($v, $p) = @_; defined $v ? sprintf($p, $v) : '-' }

# pgbench_table($runs_path): the medians per frames mode and connections of the pgbench and
# Brokerage House runs of `bench overhead --vs-pgbench`, from lines of key=value fields (frames,
# connections, driver, tps, driver_us, pg_us, and for the Brokerage House bh_us and client_us).
# A line without driver= is no run and is skipped; a run's figure that is not a number dies
# naming the file, the line, the field and the value.
sub pgbench_table {
  my ($runs) = @_;
  my (%v, @keys);
  my $n = 0;
  for my $line (split /\n/, slurp($runs)) {
    $n++;
    my %f = map { split /=/, $_, 2 } grep { /=/ } split ' ', $line;
    next unless defined $f{driver};
    for my $k (qw(frames connections)) {
      die "$runs:$n: no field $k\n" unless defined $f{$k};
    }
    die "$runs:$n: driver: '$f{driver}' is neither pgbench nor bh\n" unless $f{driver} =~ /\A(?:pgbench|bh)\z/;
    for my $k (grep { defined $f{$_} } qw(tps driver_us pg_us bh_us client_us)) {
      die "$runs:$n: $k: '$f{$k}' is not a number\n" unless $f{$k} =~ $NUMBER;
    }
    my $k = "$f{frames} $f{connections}";
    push @keys, $k unless $v{$k};
    push @{ $v{$k}{"$f{driver}_$_"} }, $f{$_} for grep { defined $f{$_} } qw(tps driver_us pg_us bh_us client_us);
  }
  my $m = sub { median(@{ $_[0]{ $_[1] } // [] }) // 0 };
  my $out = "\nMedians (µs per transaction):\n";
  $out .= sprintf "%-7s %5s %10s %10s %7s %10s %8s %8s %10s %7s %9s %9s %7s\n", qw(frames conns pgbench/s BH/s BH/pgb),
      qw(pgbench_us BH_us nb_us BH+nb_us drv/pgb pg@pgb pg@BH pg/pgb);
  for my $k (@keys) {
    my $x = $v{$k};
    my ($a, $b) = ($m->($x, 'pgbench_tps'), $m->($x, 'bh_tps'));
    my ($dp, $db) = ($m->($x, 'pgbench_driver_us'), $m->($x, 'bh_driver_us'));
    my ($gp, $gb) = ($m->($x, 'pgbench_pg_us'), $m->($x, 'bh_pg_us'));
    $out .= sprintf "%-7s %5s %10.1f %10.1f %6.2fx %10.1f %8.1f %8.1f %10.1f %6.2fx %9.1f %9.1f %6.2fx\n", split(' ', $k),
        $a, $b, $b / ($a || 1), $dp, $m->($x, 'bh_bh_us'), $m->($x, 'bh_client_us'), $db, $db / ($dp || 1),
        $gp, $gb, $gb / ($gp || 1);
  }
  $out .= "\nBH_us: bb-brokerage-house; nb_us: bb-netbench (the customer side); drv/pgb: (BH + netbench) / pgbench;\n"
        . "pg\@pgb, pg\@BH: PostgreSQL CPU per transaction under each driver; pg/pgb their ratio.\n";
  return $out;
}

# A whole number of CPU microseconds given on the command line, or die naming it.
sub cpu_us {
  my ($name, $v) = @_;
  die "$name: '" . ($v // '') . "' is not a number of microseconds\n" unless defined $v && $v =~ /\A-?\d+\z/;
  return $v;
}

# pgbench_run_line($output, $times, $pg_us) -> "tps= txns= seconds= driver_us= pg_us=": one
# pgbench run of --vs-pgbench from pgbench's report ($output: its "number of transactions
# actually processed", "tps = " and "duration: " lines), the CPU of pgbench ($times: the line of
# the shell's `times` for its reaped children, "XmY.YYYs XmY.YYYs", user and system) and
# PostgreSQL's CPU µs over the run ($pg_us).
sub pgbench_run_line {
  my ($output, $times, $pg_us) = @_;
  cpu_us('--pg-us', $pg_us);
  my ($n) = $output =~ /number of transactions actually processed: (\d+)/
    or die "pgbench's report: no 'number of transactions actually processed: N' line\n";
  my ($tps) = $output =~ /^tps = ([\d.]+)/m or die "pgbench's report: no 'tps = N' line\n";
  my ($secs) = $output =~ /^duration: (\S+)/m or die "pgbench's report: no 'duration: N s' line\n";
  die "pgbench's report: no transaction processed\n" unless $n > 0;
  my @t = split ' ', $times // '';
  die "--times: '" . ($times // '') . "' is not the shell's `times` line (XmY.YYYs XmY.YYYs)\n"
    unless @t == 2 && !grep { !/\A\d+m[\d.]+s\z/ } @t;
  my $cpu = 0;
  for my $t (@t) {
    my ($min, $sec) = $t =~ /\A(\d+)m([\d.]+)s\z/;
    $cpu += $min * 60 + $sec;
  }
  return sprintf "tps=%.1f txns=%d seconds=%s driver_us=%.2f pg_us=%.2f\n", $tps, $n, $secs,
                 $cpu * 1e6 / $n, $pg_us / $n;
}

# bh_run_line($client_line, $bh_us, $pg_us) -> "tps= txns= errors= bh_us= client_us= driver_us=
# pg_us=": one Brokerage House run of --vs-pgbench from bb-netbench client's key=value line and
# the CPU µs of the Brokerage House and of PostgreSQL over the run.
sub bh_run_line {
  my ($line, $bh_us, $pg_us) = @_;
  cpu_us('--bh-us', $bh_us);
  cpu_us('--pg-us', $pg_us);
  my %v = map { split /=/, $_, 2 } grep { /=/ } split ' ', $line // '';
  for my $k (qw(rps completed requests errors client_cpu_us_per_req)) {
    die "bb-netbench's line: no field $k\n" unless defined $v{$k};
    die "bb-netbench's line: $k: '$v{$k}' is not a number\n" unless $v{$k} =~ $NUMBER;
  }
  my $n = $v{completed} || $v{requests};
  die "bb-netbench's line: no request completed or sent\n" unless $n > 0;
  return sprintf "tps=%.1f txns=%d errors=%d bh_us=%.2f client_us=%.2f driver_us=%.2f pg_us=%.2f\n",
                 $v{rps}, $n, $v{errors}, $bh_us / $n, $v{client_cpu_us_per_req},
                 $bh_us / $n + $v{client_cpu_us_per_req}, $pg_us / $n;
}

# overhead_tables($records_path): the tables of the saturating runs (see the top).
sub overhead_tables {
  my ($records) = @_;
  my (%by_variant, @order);
  my $n = 0;
  for my $line (split /\n/, slurp($records)) {
    $n++;
    my ($variant, $rep, $dir, $pidstat, @more) = split /\t/, $line;
    die "$records:$n: '$line' is not variant<TAB>run<TAB>results directory<TAB>pidstat file\n"
      unless defined $pidstat && !@more && $rep =~ /\A\d+\z/;
    push @order, $variant unless $by_variant{$variant};
    push @{ $by_variant{$variant} }, [$rep, run_figures($dir, $pidstat)];
  }
  my @cols = (['cust/s', 'customer_tps', '%.0f'], ['all/s', 'all_tps', '%.0f'],
              ['harness', 'harness_pct', '%.1f%%'], ['BH_us', 'bh_us', '%.1f'],
              ['CE_us', 'ce_us', '%.1f'], ['MEE_us', 'mee_us', '%.1f'],
              ['harn_us', 'harness_us', '%.1f'], ['PG_us', 'postgres_us', '%.1f'],
              ['busy', 'busy_cores', '%.2f'], ['errors', 'errors', '%d'],
              ['TR_retries', 'retries_tr', '%d']);
  my $head = sprintf('%-9s %3s', 'variant', 'run') . join('', map { sprintf(' %10s', $_->[0]) } @cols);
  my $out = "\nPer run (the database's host, the measurement interval; µs = CPU µs per transaction,\n"
      . "all rows: customer transactions, Trade-Result and Market-Feed):\n$head\n";
  for my $v (@order) {
    for my $run (@{ $by_variant{$v} }) {
      my ($rep, $f) = @$run;
      $out .= sprintf('%-9s %3s', $v, $rep) . join('', map { sprintf(' %10s', fmt($f->{ $_->[1] }, $_->[2])) } @cols) . "\n";
    }
  }
  $out .= "\nMedians:\n$head\n";
  my %med;
  for my $v (@order) {
    my @runs = map { $_->[1] } @{ $by_variant{$v} };
    my %m = map { my $k = $_; ($k => median(map { $_->{$k} } @runs)) } keys %{ $runs[0] };
    $med{$v} = \%m;
    $out .= sprintf('%-9s %3s', $v, 'med') . join('', map { sprintf(' %10s', fmt($m{ $_->[1] }, $_->[2])) } @cols) . "\n";
  }
  if (@order > 1) {
    my $base = $order[-1];
    $out .= "\nRatios to $base (medians): " . join('; ', map {
      my $m = $med{$_};
      sprintf('%s customer transactions/s %.2fx, harness µs/txn %.2fx, PostgreSQL µs/txn %.2fx', $_,
              $m->{customer_tps} / ($med{$base}{customer_tps} || 1),
              ($m->{harness_us} // 0) / ($med{$base}{harness_us} || 1),
              ($m->{postgres_us} // 0) / ($med{$base}{postgres_us} || 1))
    } @order[0 .. $#order - 1]) . "\n";
  }
  $out .= "\nIndependent count: pidstat's CPU of the processes of the same names over the same\n"
      . "interval / the report's (1.00 = the same; pidstat misses exited backends, so PostgreSQL\n"
      . "can read low, and counts every process of those names on the host, another cluster's or\n"
      . "kit's too, which the report leaves out, so it reads high while others run):\n";
  $out .= sprintf "%-9s %8s %8s %8s %8s\n", 'variant', 'BH', 'CE', 'MEE', 'postgres';
  for my $v (@order) {
    $out .= sprintf "%-9s %8s %8s %8s %8s\n", $v, map { fmt($med{$v}{"check_$_"}, '%.3f') } qw(bh ce mee postgres);
  }
  $out .= "\nBrokerage House database round trips per transaction (medians):\n";
  $out .= sprintf "%-9s" . (' %6s' x @ALL) . "\n", 'variant', @ALL;
  for my $v (@order) {
    $out .= sprintf "%-9s" . (' %6s' x @ALL) . "\n", $v, map { fmt($med{$v}{"trips_$_"}, '%.2f') } @ALL;
  }
  $out .= "\nThe database side (medians): Trade-Result attempts per Trade-Result in the MI, the\n"
      . "highest retry share of another type, retry_exhausted over the whole run, and sequential\n"
      . "scans per second over the whole run (pg_stat_user_tables before and after):\n";
  $out .= sprintf "%-9s %11s %11s %9s" . (' %13s' x @SCANNED) . "\n", 'variant', 'TR_attempts', 'other_retry',
      'exhausted', @SCANNED;
  for my $v (@order) {
    $out .= sprintf "%-9s %11s %11s %9s" . (' %13s' x @SCANNED) . "\n", $v, fmt($med{$v}{tr_attempts}, '%.4f'),
        fmt($med{$v}{other_retry_pct}, '%.2f%%'), fmt($med{$v}{retry_exhausted}, '%d'),
        map { fmt($med{$v}{"seq_$_"}, '%.2f') } @SCANNED;
  }
  return $out;
}


1;
