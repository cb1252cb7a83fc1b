package BrokerBench::BhStats;
# The Brokerage House's own totals per transaction type (bh/<host>/bh-stats.csv, written by
# bb-brokerage-house --stats-file when it stops): requests, retries, time in the server, and
# the database round trips and statements each transaction took. Whole run, not only the MI.
use strict;
use warnings;
use Exporter 'import';
use BrokerBench::Csv qw(read_csv);

our @EXPORT_OK = qw(bh_stats);

my @COLS = qw(type requests retries server_us db_round_trips db_statements);

sub bh_stats {
  my ($r) = @_;
  my $bh = { hosts => [] };
  $r->{bh} = $bh;
  my @paths = sort glob("$r->{results_dir}/bh/*/bh-stats.csv");
  unless (@paths) {
    $bh->{why} = 'no bh/<host>/bh-stats.csv';
    return;
  }
  for my $path (@paths) {
    my ($host) = $path =~ m{/bh/([^/]+)/bh-stats\.csv\z};
    my $rel = "bh/$host/bh-stats.csv";
    my ($csv, $err) = read_csv($path);
    my @missing = $csv ? grep { my $c = $_; !grep { $_ eq $c } @{ $csv->{header} } } @COLS : ();
    if (!$csv || @missing) {
      $r->{_problem}->({ file => $rel, line => $csv ? 1 : 0, kind => 'other', text => '',
                         reason => $csv ? 'missing columns: ' . join(', ', @missing) : $err });
      next;
    }
    my %types;
    my $line = 1;
    for my $row (@{ $csv->{rows} }) {
      $line++;
      my ($bad) = grep { $row->{$_} !~ /\A\d{1,20}\z/ } @COLS[1 .. $#COLS];
      if (defined $bad || $row->{type} !~ /\A[A-Z]{2}\z/) {
        $r->{_problem}->({ file => $rel, line => $line, kind => 'other',
                           text => join(',', map { $row->{$_} // '' } @{ $csv->{header} }),
                           reason => defined $bad ? "not a count in $bad: '$row->{$bad}'"
                                                  : "not a transaction code: '$row->{type}'" });
        next;
      }
      my $n = $row->{requests};
      $types{ $row->{type} } = {
        requests            => $n + 0,
        retries             => $row->{retries} + 0,
        round_trips_per_txn => $n ? $row->{db_round_trips} / $n : undef,
        statements_per_txn  => $n ? $row->{db_statements} / $n : undef,
        server_ms_avg       => $n ? $row->{server_us} / $n / 1000 : undef,
      };
    }
    push @{ $bh->{hosts} }, { host => $host, types => \%types };
  }
}

1;
