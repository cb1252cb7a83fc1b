package BrokerBench::Durability;
# The durability recount of a run that crossed a failure (controller/durability, issue 39;
# TPC-E clause 7.5): from the kit's own records, the mix logs' Trade-Orders and Trade-Results
# acknowledged as committed (outcome ok, mix log v3's trade_id) before the failure, checked
# against the database's state after recovery (durability/lookup.csv, which the controller
# writes from durability/acknowledged.csv, written here). A trade acknowledged and not in the
# state its frame left it is lost; requests in flight at the failure (started before it, ended
# after it) may go either way and are counted apart. The consistency conditions of clause 7.3.2
# on the recovered database (durability/check-db.txt, CheckDb.pm). Also the downtime (the
# failure to the end of the first transaction the database completed after it) and
# PostgreSQL's redo time from its log (db/postgresql.log). Nothing here when the run made no
# failure (no durability.conf).
use strict;
use warnings;
use Exporter 'import';
use Time::Local qw(timegm);
use BrokerBench::Format qw(utc_time);
use BrokerBench::Recovery qw(new_recovery add_row business_recovery);
use BrokerBench::CheckDb qw(read_check_db);

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
# code, acknowledged_utc, missing }], holding_history_looked_up (1, or 0 for a lookup.csv from
# before the column), in_flight, downtime_s, first_commit_code, redo_s, recovery_log => [lines],
# consistency (CheckDb.pm's), verdict (PASS, FAIL or undef), fail_reasons => [texts], why (when
# the trades were not recounted), and Recovery.pm's business recovery: rate_before_tps,
# recovery_threshold_tps, recovery_window_s, business_recovery_s (undef and recovery_why when
# not recovered), recovery_window_tps, outage and until_recovery (errors by outcome and
# transaction type, retries by type) }. FAIL when an acknowledged trade is lost or the
# consistency check failed; PASS when none is lost and the check did not fail (a check not made
# is said, not failed); no verdict otherwise.
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
  # A crash's restart waits for the killed postmaster's pid to be released (its reaper).
  $d{reaped_s} = ($c->{reaped_us} - $f) / 1e6 if defined $c->{reaped_us} && $c->{reaped_us} =~ /\A\d+\z/;
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
  # A failover's recovery is the promoted standby's (run --standby copies its log).
  recovery_from_log(\%d, $d{failure} eq 'failover' ? "$dir/db/standby.log" : "$dir/db/postgresql.log");
  # The plot's series (Plots.pm, DurabilityPlot.pm): not part of results.json.
  $r->{_durability_series} = business_recovery($rec, \%d);
  $d{consistency} = read_check_db("$dir/durability/check-db.txt", 'durability/check-db.txt');
  if ($v2) {
    $d{why} = "a mix log without trade ids ($v2: older than mix log v3): no recount";
  } elsif (open my $out, '>', "$dir/durability/acknowledged.csv") {
    print {$out} "trade_id\n", map { "$_\n" } sort { $a <=> $b } keys %ack;
    close $out;
    recount($r, \%d, \%ack, \%ack_us);
  } else {
    $d{why} = "durability/acknowledged.csv could not be written ($!): no recount";
  }
  my @fail;
  push @fail, "$d{lost} of $d{acknowledged_before} trades acknowledged as committed before the "
              . "$d{failure} lost" if $d{lost};
  push @fail, "consistency after recovery: $d{consistency}{why}"
    if $d{consistency}{result} eq 'FAIL';
  $d{fail_reasons} = \@fail;
  $d{verdict} = @fail ? 'FAIL' : defined $d{lost} ? 'PASS' : undef;
}

# lookup.csv's columns (controller/lib/durability.sh, lookup_acknowledged). holding_history came
# later: a lookup.csv without it is still read (results outlive the database they were looked up
# in, so a lookup cannot be made again), and the section says its holding rows were not looked up.
my @LOOKUP_COLUMNS = qw(trade_id found t_st_id t_is_cash settlement cash_transaction);

# recount($r, $d, \%ack, \%ack_us): each acknowledged trade against durability/lookup.csv, the
# database's state after recovery. A Trade-Order needs its TRADE row; a Trade-Result the trade
# completed with the rows its frames write for every completed trade (clause 3.3.8; our frames in
# brokerage_house/frames/trade_result.cpp and sql/trade_result.sql): its SETTLEMENT row (frame 6),
# its CASH_TRANSACTION row for a cash trade (frame 6), and at least one HOLDING_HISTORY row with
# HH_T_ID = the trade (frame 2 writes one for each lot the trade closes or changes and one for the
# lot it opens, and a trade of a positive quantity does at least one of those).
sub recount {
  my ($r, $d, $ack, $ack_us) = @_;
  my $rel = 'durability/lookup.csv';
  open my $lk, '<', "$r->{results_dir}/$rel" or do {
    $d->{why} = "the acknowledged trades were not looked up in the database (no $rel: "
                . 'controller/durability writes it after the run)';
    return;
  };
  my $head = <$lk> // '';
  $head =~ s/\r?\n\z//;
  my %col;
  my @names = split /,/, $head, -1;
  @col{@names} = 0 .. $#names;
  my @absent = grep { !exists $col{$_} } @LOOKUP_COLUMNS;
  if (@absent) {
    close $lk;
    $d->{why} = "$rel has no column " . join(', ', @absent) . " (its header: '$head'): no recount";
    $r->{_problem}->({ file => $rel, line => 1, kind => 'other', text => $head,
                       reason => "no column @absent" }) if $r->{_problem};
    return;
  }
  my $hh = exists $col{holding_history};
  $d->{holding_history_looked_up} = $hh ? 1 : 0;
  my %state;
  while (my $l = <$lk>) {
    $l =~ s/\r?\n\z//;
    my @v = split /,/, $l, -1;
    my %s = map { $_ => $v[ $col{$_} ] // '' } @LOOKUP_COLUMNS, $hh ? 'holding_history' : ();
    $state{ $s{trade_id} } = \%s;
  }
  close $lk;
  my @lost;
  for my $id (sort { $a <=> $b } keys %$ack) {
    my $s = $state{$id};
    my @missing;
    if (!$s) {
      push @missing, 'not looked up';
    } elsif ($s->{found} ne 't') {
      push @missing, 'no TRADE row';
    } elsif ($ack->{$id} eq 'TR') {
      push @missing, "T_ST_ID '$s->{t_st_id}', not 'CMPT'" if $s->{t_st_id} ne 'CMPT';
      push @missing, 'no SETTLEMENT row' if $s->{settlement} ne 't';
      push @missing, 'no CASH_TRANSACTION row (a cash trade)'
        if $s->{t_is_cash} eq 't' && $s->{cash_transaction} ne 't';
      push @missing, 'no HOLDING_HISTORY row of the trade' if $hh && $s->{holding_history} ne 't';
    }
    next unless @missing;
    push @lost, { trade_id => $id + 0, code => $ack->{$id},
                  acknowledged_utc => utc_time($ack_us->{$id}{ $ack->{$id} }),
                  missing => join('; ', @missing) };
  }
  $d->{lost} = scalar @lost;
  $d->{found} = $d->{acknowledged_before} - $d->{lost};
  $d->{lost_trades} = \@lost;
}

# PostgreSQL's crash recovery from its log: the last "redo starts at" / "redo done at ...
# elapsed: N s" (PostgreSQL 15 and later say the elapsed time) and "ready to accept
# connections" after the failure. A promoted standby says "redo done" too, but its elapsed time
# is its whole life as a standby; its cost is the promotion: from "received promote request" to
# "ready to accept connections" (promote_s), and no redo_s.
sub recovery_from_log {
  my ($d, $path) = @_;
  open my $fh, '<', $path or return;
  my (@lines, $redo, $promote_us);
  while (my $l = <$fh>) {
    next unless $l =~ /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d+))? (\S+) /;
    my $us = eval { timegm($6, $5, $4, $3, $2 - 1, $1) };
    next unless defined $us && ($8 eq 'UTC' || $8 eq 'GMT');
    $us = $us * 1e6 + (defined $7 ? substr("${7}000000", 0, 6) : 0);
    next unless $us >= $d->{failure_us};
    next unless $l =~ /redo starts at|redo done at|redo is not required|was interrupted|ready to accept connections|terminated by signal|crash recovery|promote request|new timeline|archive recovery complete/;
    chomp $l;
    push @lines, $l;
    $redo = $1 + 0 if $l =~ /redo done at .*elapsed: ([\d.]+) s/;
    $promote_us //= $us if $l =~ /received promote request/;
    if ($l =~ /ready to accept connections/ && !defined $d->{ready_s}) {
      $d->{ready_s} = ($us - $d->{failure_us}) / 1e6;
      $d->{promote_s} = ($us - $promote_us) / 1e6 if defined $promote_us;
    }
  }
  close $fh;
  $d->{redo_s} = $d->{failure} eq 'failover' ? undef : $redo;
  $d->{recovery_log} = [@lines[0 .. ($#lines < 19 ? $#lines : 19)]];
}

1;
