package BrokerBench::RunCopies;
# A long run made of a short one: the rows of the short run's measurement interval (MI)
# repeated N times, each copy shifted in time by the MI's length, for the tests and benchmarks
# of the report on many rows (t/99-bounded-memory.t, bb-bench-report). The copy's figures follow
# from the original's: every count of the MI times N, every count outside the MI the same,
# every share, mean, percentile and the throughput the same (N copies of a list have the same
# nearest-rank percentiles as the list).
#
# The MI is [the latest START, the earliest STOP] of the customer emulator logs, L its length.
# A row inside the MI (start >= MI start, end <= MI end) is written N times, shifted by 0, L,
# ..., (N-1) L; a row that ends after the MI's end, and every STOP marker, is shifted by
# (N-1) L; everything else stays. run.conf's finished_utc and duration_s, the counts of the
# emulators' end-of-run records (MIXLOG.md) that the report reconciles (sent and rows of a
# customer emulator's, orders_received of the market emulator's), and the trades the database
# completed (db/after/completed-trades.csv) follow; every other file is copied as it is
# (the CPU samples, for one, then cover only the first copy). Reads only files, so any version
# of bb-report can read the result. Memory: the original's rows, once.
use strict;
use warnings;
use Exporter 'import';
use File::Copy qw(copy);
use File::Find ();
use File::Path qw(make_path);
use File::Spec;
use POSIX qw(strftime);
use Time::Local qw(timegm);

our @EXPORT_OK = qw(copy_run);

my $US = 1_000_000;

sub role_of {
  my ($rel) = @_;
  return $1 if $rel =~ m{(?:\A|/)(ce|mee)/};
  return 'ce' if $rel =~ m{(?:\A|/)mix-ce-[^/]*\z};
  return 'mee' if $rel =~ m{(?:\A|/)mix-mee[^/]*\z};
  return '';
}

# The lines of a mix log: (header lines, [[start, rest of the line, end]...], [[t, marker]]).
sub read_log {
  my ($path) = @_;
  open my $fh, '<:raw', $path or die "$path: $!\n";
  my @head = (scalar <$fh>, scalar <$fh>);
  my (@rows, @markers);
  while (my $line = <$fh>) {
    if ($line =~ /\A(\d+),(START|STOP),/) {
      push @markers, [$1, $2, substr($line, length $1)];
    } elsif ($line =~ /\A(\d+)(,[A-Z]{2},[^,]*,[^,]*,(\d+),.*\n)\z/s) {
      push @rows, [$1, $2, $1 + $3];
    } else {
      die "$path:$.: not a mix log row: $line";
    }
  }
  return (\@head, \@rows, \@markers);
}

sub utc_add {
  my ($utc, $us) = @_;
  my ($y, $mo, $d, $h, $mi, $s) = $utc =~ /\A(\d+)-(\d+)-(\d+)T(\d+):(\d+):(\d+)Z\z/
    or return $utc;
  my $t = timegm($s, $mi, $h, $d, $mo - 1, $y) + int(($us + $US - 1) / $US);
  return strftime('%Y-%m-%dT%H:%M:%SZ', gmtime $t);
}

sub slurp {
  open my $fh, '<:raw', $_[0] or die "$_[0]: $!\n";
  local $/;
  return scalar <$fh>;
}

sub spew {
  my ($path, $text) = @_;
  open my $fh, '>:raw', $path or die "$path: $!\n";
  print {$fh} $text;
  close $fh or die "$path: $!\n";
}

# copy_run(from => DIR, to => DIR, copies => N) -> { copies, mi_start_us, mi_end_us, shift_us,
# rows (written), rows_in_mi (of one copy) }. Dies naming the problem.
sub copy_run {
  my (%o) = @_;
  my ($from, $to, $n) = @o{qw(from to copies)};
  die "copies must be a whole number of 1 or more\n" unless $n =~ /\A[1-9]\d*\z/;
  my (@mix, @other);
  File::Find::find({ no_chdir => 1, wanted => sub {
    return unless -f $_;
    my $rel = File::Spec->abs2rel($_, $from);
    return if $rel =~ m{\A(?:report\.(?:txt|html)|results\.json|plots/)};
    push @{ $rel =~ m{(?:\A|/)mix-[^/]*\.csv\z} ? \@mix : \@other }, $rel;
  } }, $from);
  die "no mix log below $from\n" unless @mix;
  my %logs = map { $_ => [read_log("$from/$_")] } @mix;
  my (@starts, @stops);
  for my $rel (grep { role_of($_) eq 'ce' } @mix) {
    for my $m (@{ $logs{$rel}[2] }) {
      push @{ $m->[1] eq 'START' ? \@starts : \@stops }, $m->[0];
    }
  }
  die "the customer emulator logs of $from have no START and STOP\n" unless @starts && @stops;
  my ($s0) = sort { $b <=> $a } @starts;
  my ($e0) = sort { $a <=> $b } @stops;
  die "the MI of $from is empty\n" unless $e0 > $s0;
  my $len = $e0 - $s0;
  my $last_shift = ($n - 1) * $len;
  my (%mi_rows, %tr_ok);    # per mix log: rows in the MI, TR rows ok in it
  my $written = 0;
  my $in_mi = 0;
  for my $rel (@mix) {
    my ($head, $rows, $markers) = @{ $logs{$rel} };
    my (@pre, @mi, @post);
    for my $row (@$rows) {
      if ($row->[0] >= $s0 && $row->[2] <= $e0) {
        push @mi, $row;
        $mi_rows{$rel}++;
        $tr_ok{$rel}++ if $row->[1] =~ /\A,TR,[^,]*,ok,/;
      } else {
        push @{ $row->[2] > $e0 ? \@post : \@pre }, $row;
      }
    }
    $in_mi += @mi;
    make_path(File::Spec->catpath('', (File::Spec->splitpath("$to/$rel"))[1], ''));
    open my $fh, '>:raw', "$to/$rel" or die "$to/$rel: $!\n";
    print {$fh} @$head;
    print {$fh} "$_->[0]$_->[2]" for grep { $_->[1] eq 'START' } @$markers;
    print {$fh} "$_->[0]$_->[1]" for @pre;
    for my $k (0 .. $n - 1) {
      my $shift = $k * $len;
      print {$fh} $_->[0] + $shift, $_->[1] for @mi;
    }
    print {$fh} $_->[0] + $last_shift, $_->[1] for @post;
    print {$fh} $_->[0] + $last_shift, $_->[2] for grep { $_->[1] eq 'STOP' } @$markers;
    close $fh or die "$to/$rel: $!\n";
    $written += @pre + $n * @mi + @post;
  }
  %logs = ();
  my %is_mix = map { $_ => role_of($_) } @mix;

  for my $rel (@other) {
    my $dst = "$to/$rel";
    make_path(File::Spec->catpath('', (File::Spec->splitpath($dst))[1], ''));
    if ($rel eq 'run.conf') {
      my $text = slurp("$from/$rel");
      $text =~ s/^(finished_utc=)(\S+)$/$1 . utc_add($2, $last_shift)/me;
      $text =~ s/^(duration_s=)(\d+)$/$1 . int($len * $n \/ $US)/me;
      spew($dst, $text);
    } elsif (my ($mix) = $rel =~ m{\A(.*)\.end\z}) {
      # An emulator's end-of-run record beside its mix log (MIXLOG.md): the counts the report
      # reconciles follow the copies; every other line stays as it is.
      my $role = $is_mix{"$mix.csv"} // '';
      my $more = ($n - 1) * ($role eq 'ce' ? $mi_rows{"$mix.csv"} // 0 : $tr_ok{"$mix.csv"} // 0);
      my $keys = $role eq 'ce' ? qr/sent|rows/ : $role eq 'mee' ? qr/orders_received/ : qr/(?!)/;
      spew($dst, slurp("$from/$rel") =~ s/^($keys)=(\d+)$/"$1=" . ($2 + $more)/mger);
    } elsif ($rel eq 'db/after/completed-trades.csv') {
      copy_completed("$from/$rel", $dst, $s0, $e0, $n);
    } else {
      copy("$from/$rel", $dst) or die "copy $rel: $!\n";
    }
  }
  return { copies => $n, mi_start_us => $s0, mi_end_us => $e0 + $last_shift, shift_us => $len,
           rows => $written, rows_in_mi => $in_mi };
}

# The trades completed in the MI, once per copy (new trade ids), the later ones shifted.
sub copy_completed {
  my ($src, $dst, $s0, $e0, $n) = @_;
  open my $in, '<:raw', $src or die "$src: $!\n";
  open my $out, '>:raw', $dst or die "$dst: $!\n";
  print {$out} scalar(<$in>) // '';
  my @mi;
  while (my $line = <$in>) {
    my ($id, $t) = $line =~ /\A(\d+),(\d+)/ or next;
    if ($t >= $s0 && $t <= $e0) {
      push @mi, [$id, $t];
    } else {
      printf {$out} "%d,%d\n", $id, $t > $e0 ? $t + ($n - 1) * ($e0 - $s0) : $t;
    }
  }
  for my $k (0 .. $n - 1) {
    printf {$out} "%d,%d\n", $_->[0] + $k * 1_000_000_000, $_->[1] + $k * ($e0 - $s0) for @mi;
  }
  close $out or die "$dst: $!\n";
}

1;
