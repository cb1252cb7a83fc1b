package BrokerBench::RunList;
# The list of past runs (brokerbench results): every numbered results directory under a
# parent (var/results/NNNN), newest first, with its date, comment, TRTPS, verdict and kit
# commit from its results.json (written by bb-report). A directory without one is "no report"
# (its run.conf, when there is one, still gives the date, comment and commit).
use strict;
use warnings;
use Exporter 'import';
use JSON::PP ();
use BrokerBench::Csv qw(read_run_conf);

our @EXPORT_OK = qw(list_runs runs_text);

# list_runs($parent) -> (\@runs, \@problems) or (undef, $error). A run: { name, dir, started,
# comment, trtps, verdict, kit }; problems name a results.json that cannot be read.
sub list_runs {
  my ($parent) = @_;
  opendir(my $dh, $parent) or return (undef, "cannot read the directory '$parent': $!");
  my @names = sort { $b <=> $a || $a cmp $b } grep { /\A\d{4,}\z/ && -d "$parent/$_" } readdir $dh;
  closedir $dh;
  my (@runs, @problems);
  for my $name (@names) {
    my $dir = "$parent/$name";
    my $run = { name => $name, dir => $dir };
    my $json = "$dir/results.json";
    if (-e $json) {
      my $j = eval {
        open my $fh, '<:raw', $json or die "cannot open: $!\n";
        local $/;
        my $text = <$fh>;
        my $d = eval { JSON::PP->new->decode($text) }
          // die 'not valid JSON: ' . ($@ =~ s/(?: at \S+ line \d+\.)?\s+\z//r) . "\n";
        die "not a JSON object\n" unless ref $d eq 'HASH';
        $d;
      };
      if ($j) {
        my $s = ref $j->{settings} eq 'HASH' ? $j->{settings} : {};
        $run->{started} = $s->{started_utc};
        $run->{comment} = $s->{comment};
        $run->{kit}     = $s->{kit_commit};
        my $t = ref $j->{trtps} eq 'HASH' ? $j->{trtps} : {};
        $run->{trtps}   = $t->{measured_tpse} // $t->{measured};    # results.json v2, v1
        $run->{verdict} = ref $j->{verdict} eq 'HASH' ? $j->{verdict}{text} : undef;
        $run->{verdict} //= 'no verdict';
      } else {
        push @problems, "$json: cannot be read: " . ($@ =~ s/\s+\z//r);
        $run->{verdict} = 'unreadable report';
      }
    }
    unless (defined $run->{started}) {
      my ($conf) = -e "$dir/run.conf" ? read_run_conf("$dir/run.conf") : ({});
      $run->{started} = $conf->{started_utc};
      $run->{comment} //= $conf->{comment};
      $run->{kit}     //= $conf->{kit_commit};
      if (!defined $run->{verdict}) {
        my $st = $conf->{status};
        $run->{verdict} = 'no report' . (defined $st && $st ne 'complete' ? " (status $st)" : '');
      }
    }
    push @runs, $run;
  }
  return (\@runs, \@problems);
}

# runs_text(\@runs) -> the table brokerbench results prints.
sub runs_text {
  my ($runs) = @_;
  my @head = ('Results', 'Started (UTC)', 'TRTPS', 'Verdict', 'Kit', 'Comment');
  my @rows = map {
    [$_->{name}, defined $_->{started} ? $_->{started} =~ s/\A(\S+)T(\S+?)Z?\z/$1 $2/r : '-',
     defined $_->{trtps} ? sprintf('%.2f', $_->{trtps}) : '-', $_->{verdict}, $_->{kit} // '-',
     defined $_->{comment} && length $_->{comment} ? $_->{comment} : '-']
  } @$runs;
  my @w = map { my $i = $_; (sort { $b <=> $a } map { length $_->[$i] } \@head, @rows)[0] }
          0 .. $#head - 1;
  my $line = sub {
    my ($r) = @_;
    return join('  ', (map { $_ == 2 ? sprintf('%*s', $w[$_], $r->[$_])
                                     : sprintf('%-*s', $w[$_], $r->[$_]) } 0 .. $#w),
                $r->[-1]) . "\n";
  };
  return join('', $line->(\@head), $line->([map { '-' x $_ } @w, length $head[-1]]),
              map { $line->($_) } @rows);
}

1;
