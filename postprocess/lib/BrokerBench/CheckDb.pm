package BrokerBench::CheckDb;
# The audit of the database after a durability run's recovery (issue 39; TPC-E clause 7.3.2's
# consistency conditions are required after a load and after the recovery of clause 7.5).
# controller/lib/durability.sh's check_recovered runs bb-loader --check (what 'brokerbench
# check-db' runs) on the recovered database and keeps its output, then "exit status: N", in
# durability/check-db.txt. Its lines are "PASS|FAIL|SKIP  <check>  [<detail>]" and a last
# "N passed, N failed, N skipped"; the three conditions are the checks named "7.3.2 condition
# N: ...". The other checks (row counts, trade ids, the kit's invariants; those that hold only
# after a fresh load are skipped on a database that has run) are counted beside them.
use strict;
use warnings;
use Exporter 'import';

our @EXPORT_OK = qw(read_check_db);

my $CONDITIONS = 3;    # clause 7.3.2's consistency conditions

# read_check_db($path, $shown) -> { result => 'PASS', 'FAIL' or 'not checked', why (FAIL, not
# checked), exit_status, conditions => [{ condition, result, name, detail }] (1 to 3; result
# 'missing' when its line is not there), others => { passed, failed, skipped }, failed_checks
# => [{ name, detail }] (conditions included) }. $shown names the file in the texts. FAIL when a
# check failed, a condition is missing, the audit did not finish (no summary line), or it
# exited other than 0.
sub read_check_db {
  my ($path, $shown) = @_;
  open my $fh, '<', $path or return {
    result => 'not checked',
    why => "no $shown (results from before the kit audited the recovered database, or the "
           . 'audit was not run)' };
  my (%cond, @failed, $summary, $exit, $said);
  my %others = (passed => 0, failed => 0, skipped => 0);
  while (my $l = <$fh>) {
    chomp $l;
    $l =~ s/\r\z//;
    if ($l =~ /\A(PASS|FAIL|SKIP)  (.+?)  \[(.*)\]\z/) {
      my ($res, $name, $detail) = ($1, $2, $3);
      push @failed, { name => $name, detail => $detail } if $res eq 'FAIL';
      if ($name =~ /\A7\.3\.2 condition ([1-9]): /) {
        $cond{$1} = { condition => $1 + 0, result => $res, name => $name, detail => $detail };
      } else {
        $others{ { PASS => 'passed', FAIL => 'failed', SKIP => 'skipped' }->{$res} }++;
      }
    } elsif ($l =~ /\A(\d+) passed, (\d+) failed, (\d+) skipped\z/) {
      $summary = $l;
    } elsif ($l =~ /\Aexit status: (\d+)\z/) {
      $exit = $1 + 0;
    } elsif ($l =~ /\S/ && $l !~ /\AAuditing a database of /) {
      $said = $l;    # the last thing it said otherwise: an error, when it stopped
    }
  }
  close $fh;
  my %c = (exit_status => $exit, others => \%others, failed_checks => \@failed,
           conditions => [map { $cond{$_} // { condition => $_, result => 'missing' } }
                          1 .. $CONDITIONS]);
  my @why;
  if (!defined $summary) {
    push @why, sprintf('the audit did not finish (%s%s)',
                       defined $exit ? "exit status $exit" : 'no exit status',
                       defined $said ? ": $said" : '');
  } else {
    push @why, "7.3.2 condition $_->{condition} is not in $shown"
      for grep { $_->{result} eq 'missing' } @{ $c{conditions} };
    push @why, map { "$_->{name} FAIL ($_->{detail})" } @failed;
    push @why, "it exited with status $exit though no check failed"
      if !@failed && defined $exit && $exit != 0;
  }
  $c{result} = @why ? 'FAIL' : 'PASS';
  $c{why} = join('; ', @why) if @why;
  return \%c;
}

1;
