package BrokerBench::Durability;
# The durability recount of a run that crossed a failure (controller/durability, issue 39;
# TPC-E clause 7.5): from the kit's own records, the mix logs' Trade-Orders and Trade-Results
# acknowledged as committed (outcome ok, mix log v3's trade_id) before the failure, checked
# against the database's state after recovery (durability/lookup.csv, which the controller
# writes from durability/acknowledged.csv, written here). A trade acknowledged and not in the
# state its frame left it is lost; requests in flight at the failure (started before it, ended
# after it) may go either way and are counted apart. Also the downtime (the failure to the end
# of the first transaction the database completed after it) and PostgreSQL's redo time from its
# log (db/postgresql.log). Nothing here when the run made no failure (no durability.conf).
use strict;
use warnings;
use Exporter 'import';
use Time::Local qw(timegm);
use BrokerBench::Format qw(utc_time);
use BrokerBench::Recovery qw(new_recovery add_row business_recovery);

our @EXPORT_OK = qw(durability);

sub read_conf {
  my ($path) = @_;
  open my $fh, '<', $path or return undef;
  my %c;
  while (my $l = <$fh>) {
    chomp $l;
    $c{$1} = $2 if $l =~ /\A([a-z_]+)=(.*)\z/;
  }
  close $fh;
  return \%c;
}

# durability($r): $r->{durability} = { failure, failure_utc, acknowledged_before (trades),
# acknowledged_trade_orders, acknowledged_trade_results, found, lost, lost_trades => [{ trade_id,
# code, acknowledged_utc, missing }], in_flight, downtime_s, first_commit_code, redo_s,
# recovery_log => [lines], verdict (PASS, FAIL or undef), why (when no verdict), and
# Recovery.pm's business recovery: rate_before_tps, recovery_threshold_tps, recovery_window_s,
# business_recovery_s (undef and recovery_why when not recovered), recovery_window_tps, outage
# and until_recovery (errors by outcome and transaction type, retries by type) }.
sub durability {
  my ($r) = @_;
  my $dir = $r->{results_dir};
  my $c = read_conf("$dir/durability/durability.conf") or return;
  my %d = (failure => $c->{failure}, before_s => $c->{before_s} + 0, after_s => $c->{after_s} + 0,
           verdict => undef);
  $r->{durability} = \%d;
  my $f = $c->{failure_us};
  unless (defined $f && $f =~ /\A[1-9]\d{0,18}\z/) {
    $d{why} = 'no failure was made (durability/durability.conf has no failure_us: the run ended '
              . 'before it, or the crash failed)';
    return;
  }
  $d{failure_us} = $f + 0;
  $d{failure_utc} = utc_time($f);
  $d{killed_processes} = $c->{killed_processes} + 0 if defined $c->{killed_processes};
  # The mix logs: acknowledged before (code per trade: TR over TO), in flight, the first commit.
  my (%ack, %ack_us, $v2, $first_end, $first_code);
  my ($in_flight, $to_n, $tr_n) = (0, 0, 0);
  my $rec = new_recovery($f);
  for my $path (sort(glob("$dir/ce/*/mix-*.csv"), glob("$dir/mee/*/mix-*.csv"))) {
    open my $fh, '<', $path or next;
    my $h = <$fh> // '';
    <$fh>;
    unless ($h =~ /mix log v3/) {
      $v2 = $path;
      next;
    }
    while (my $l = <$fh>) {
      chomp $l;
      $l =~ s/\r\z//;
      my @x = split /,/, $l, -1;
      next unless @x == 10 && $x[0] =~ /\A\d+\z/ && $x[4] =~ /\A\d+\z/;
      my ($t, $code, $oc, $id) = @x[0, 1, 3, 9];
      my $e = $t + $x[4];
      add_row($rec, $code, $oc, $e, $x[4], $x[5] =~ /\A\d+\z/ ? $x[5] : 0)
        if $code =~ /\A[A-Z]{2}\z/;
      if ($oc eq 'ok' && $t >= $f && (!defined $first_end || $e < $first_end)) {
        ($first_end, $first_code) = ($e, $code);
      }
      next unless $code eq 'TO' || $code eq 'TR';
      if ($t < $f && $e >= $f) {
        $in_flight++;
        next;
      }
      next unless $oc eq 'ok' && $e < $f && $id =~ /\A[1-9]\d*\z/;
      $code eq 'TO' ? $to_n++ : $tr_n++;
      $ack{$id} = $code if !$ack{$id} || $code eq 'TR';
      $ack_us{$id}{$code} = $e;
    }
    close $fh;
  }
  $d{in_flight} = $in_flight;
  $d{acknowledged_trade_orders} = $to_n;
  $d{acknowledged_trade_results} = $tr_n;
  $d{acknowledged_before} = scalar keys %ack;
  $d{downtime_s} = defined $first_end ? ($first_end - $f) / 1e6 : undef;
  $d{first_commit_code} = $first_code;
  recovery_from_log(\%d, "$dir/db/postgresql.log");
  # The plot's series (Plots.pm, DurabilityPlot.pm): not part of results.json.
  $r->{_durability_series} = business_recovery($rec, \%d);
  if ($v2) {
    $d{why} = "a mix log without trade ids ($v2: older than mix log v3): no recount";
    return;
  }
  if (open my $out, '>', "$dir/durability/acknowledged.csv") {
    print {$out} "trade_id\n", map { "$_\n" } sort { $a <=> $b } keys %ack;
    close $out;
  }
  my $lookup = "$dir/durability/lookup.csv";
  open my $lk, '<', $lookup or do {
    $d{why} = 'the acknowledged trades were not looked up in the database (no '
              . 'durability/lookup.csv: controller/durability writes it after the run)';
    return;
  };
  my %state;
  <$lk>;
  while (my $l = <$lk>) {
    chomp $l;
    my ($id, $found, $st, $cash, $se, $ct) = split /,/, $l, -1;
    $state{$id} = { found => $found, st => $st, cash => $cash, se => $se, ct => $ct };
  }
  close $lk;
  my @lost;
  for my $id (sort { $a <=> $b } keys %ack) {
    my $s = $state{$id};
    my @missing;
    if (!$s) {
      push @missing, 'not looked up';
    } elsif ($s->{found} ne 't') {
      push @missing, 'no TRADE row';
    } elsif ($ack{$id} eq 'TR') {
      push @missing, "T_ST_ID '$s->{st}', not 'CMPT'" if $s->{st} ne 'CMPT';
      push @missing, 'no SETTLEMENT row' if $s->{se} ne 't';
      push @missing, 'no CASH_TRANSACTION row (a cash trade)' if $s->{cash} eq 't' && $s->{ct} ne 't';
    }
    next unless @missing;
    push @lost, { trade_id => $id + 0, code => $ack{$id},
                  acknowledged_utc => utc_time($ack_us{$id}{ $ack{$id} }),
                  missing => join('; ', @missing) };
  }
  $d{lost} = scalar @lost;
  $d{found} = $d{acknowledged_before} - $d{lost};
  $d{lost_trades} = \@lost;
  $d{verdict} = @lost ? 'FAIL' : 'PASS';
}

# PostgreSQL's crash recovery from its log: the last "redo starts at" / "redo done at ...
# elapsed: N s" (PostgreSQL 15 and later say the elapsed time) and "ready to accept
# connections" after the failure.
sub recovery_from_log {
  my ($d, $path) = @_;
  open my $fh, '<', $path or return;
  my (@lines, $redo);
  while (my $l = <$fh>) {
    next unless $l =~ /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d+))? (\S+) /;
    my $us = eval { timegm($6, $5, $4, $3, $2 - 1, $1) };
    next unless defined $us && ($8 eq 'UTC' || $8 eq 'GMT');
    $us = $us * 1e6 + (defined $7 ? substr("${7}000000", 0, 6) : 0);
    next unless $us >= $d->{failure_us};
    next unless $l =~ /redo starts at|redo done at|redo is not required|was interrupted|ready to accept connections|terminated by signal|crash recovery/;
    chomp $l;
    push @lines, $l;
    $redo = $1 + 0 if $l =~ /redo done at .*elapsed: ([\d.]+) s/;
    $d->{ready_s} //= ($us - $d->{failure_us}) / 1e6 if $l =~ /ready to accept connections/;
  }
  close $fh;
  $d->{redo_s} = $redo;
  $d->{recovery_log} = [@lines[0 .. ($#lines < 19 ? $#lines : 19)]];
}

1;
