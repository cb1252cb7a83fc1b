package BrokerBench::EndRecord;
# An emulator's end-of-run record (MIXLOG.md, "The end-of-run record"): its totals at its end,
# written beside its mix log (mix-ce-<pid>.end, mix-mee.end) only once it has reached its end.
# The report reads these, never the emulators' log lines.
use strict;
use warnings;
use Exporter 'import';

our @EXPORT_OK = qw(record_path read_end_record end_record_text write_end_record record_pairs
                    $RECORD_HEADER);

our $RECORD_HEADER = '# brokerbench end-of-run record v1';

# The keys each program's record must have for the reconciliation (Reconcile.pm).
my %REQUIRED = ('bb-customer-emulator' => [qw(stop sent rows in_flight)],
                'bb-market-emulator'   => [qw(stop orders_received limit_orders_triggered)]);

# record_path(MIX_LOG) -> the record beside it: "ce/h/mix-ce-42.csv" -> "ce/h/mix-ce-42.end".
sub record_path {
  my ($mix_log) = @_;
  return ($mix_log =~ s/(?<=.)\.csv\z//r) . '.end';
}

# read_end_record(PATH) -> (RECORD, undef) with RECORD = { key => value } in the file,
# or (undef, undef) when there is no file, or (undef, REASON) when it is not a record of a
# version we know or lacks a key its program's must have.
sub read_end_record {
  my ($path) = @_;
  open my $fh, '<', $path or return (undef, undef);
  my $head = <$fh> // '';
  $head =~ s/\r?\n\z//;
  return (undef, "its first line is '$head', not '$RECORD_HEADER'") if $head ne $RECORD_HEADER;
  my %rec;
  while (my $line = <$fh>) {
    $line =~ s/\r?\n\z//;
    next if $line eq '';
    my ($k, $v) = $line =~ /\A([a-z0-9_]+)=(.*)\z/
      or return (undef, "line $.: '$line' is not key=value");
    $rec{$k} = $v;
  }
  my $program = $rec{program} // '';
  my $need = $REQUIRED{$program} or return (undef, "it names no program we know ('$program')");
  my @missing = grep { !defined $rec{$_} } @$need;
  return (undef, 'it has no ' . join(', ', @missing)) if @missing;
  my @bad = grep { $_ ne 'stop' && $rec{$_} !~ /\A-?\d+\z/ } @$need;
  return (undef, join(', ', map { "$_ '$rec{$_}'" } @bad) . ' not a whole number') if @bad;
  return (\%rec, undef);
}

# end_record_text(PAIRS) -> the text of a record holding the [key, value] PAIRS in order (for
# the synthetic runs and the run copies, which write what an emulator would).
sub end_record_text {
  my (@pairs) = @_;
  return join('', "$RECORD_HEADER\n", map { "$_->[0]=$_->[1]\n" } @pairs);
}

# write_end_record(PATH, PAIRS): as the emulators do, whole to PATH.part, then renamed.
sub write_end_record {
  my ($path, @pairs) = @_;
  open my $fh, '>', "$path.part" or die "$path.part: $!\n";
  print {$fh} end_record_text(@pairs);
  close $fh or die "$path.part: $!\n";
  rename "$path.part", $path or die "$path: $!\n";
}

# record_pairs(TEXT) -> its [key, value] pairs in order (the version line left out): for
# RunCopies, which changes some values and keeps the rest in place.
sub record_pairs {
  my ($text) = @_;
  return map { /\A([a-z0-9_]+)=(.*)\z/ ? [$1, $2] : () } grep { $_ ne $RECORD_HEADER }
         split /\r?\n/, $text;
}

1;
