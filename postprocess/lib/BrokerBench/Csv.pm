package BrokerBench::Csv;
# Readers for the small text inputs of a results directory: RFC 4180 CSV as `psql --csv`
# writes it (header row, quoted fields with doubled quotes, quoted line breaks) and run.conf
# (key=value lines, '#' comments). Mix logs have their own fast reader (MixLog.pm).
use strict;
use warnings;
use Exporter 'import';

our @EXPORT_OK = qw(parse_csv read_csv read_run_conf is_count);

# is_count($field): a whole number of at most 20 digits (the monitor's counters: microseconds,
# ticks, bytes, sectors), no sign, no space.
sub is_count { defined $_[0] && $_[0] =~ /\A\d{1,20}\z/ }

# parse_csv($text) -> (\@records, $error). Each record is an array of fields. $error names
# the first problem (an unterminated quote) or is undef.
sub parse_csv {
  my ($text) = @_;
  my @records;
  my @fields;
  pos($text) = 0;
  my $len = length $text;
  return (\@records, undef) if $len == 0;
  while (1) {
    my $field;
    if ($text =~ /\G"((?:[^"]++|"")*+)"/gc) {
      ($field = $1) =~ s/""/"/g;
    } else {
      $text =~ /\G([^",\r\n]*+)/gc;
      $field = $1;
    }
    push @fields, $field;
    next if $text =~ /\G,/gc;
    if ($text =~ /\G(?:\r\n|\n|\r)/gc) {
      push @records, [@fields] unless @fields == 1 && $fields[0] eq '';
      @fields = ();
      last if pos($text) >= $len;
      next;
    }
    if (pos($text) >= $len) {
      push @records, [@fields] unless @fields == 1 && $fields[0] eq '';
      last;
    }
    my $at   = pos($text);
    my $line = 1 + (substr($text, 0, $at) =~ tr/\n//);
    return (\@records, "line $line: unterminated quoted field or stray quote");
  }
  return (\@records, undef);
}

# read_csv($path) -> { header => [...], rows => [ {col => value} ... ] } or (undef, $error).
sub read_csv {
  my ($path) = @_;
  open my $fh, '<', $path or return (undef, "$path: cannot open: $!");
  local $/;
  my $text = <$fh>;
  close $fh;
  $text = '' unless defined $text;
  my ($records, $err) = parse_csv($text);
  return (undef, "$path: $err") if $err;
  return (undef, "$path: empty (no header row)") unless @$records;
  my $header = shift @$records;
  my @rows;
  my $n = 1;
  for my $r (@$records) {
    $n++;
    if (@$r != @$header) {
      return (undef, sprintf("%s: record %d has %d fields, the header has %d", $path, $n,
                             scalar @$r, scalar @$header));
    }
    my %h;
    @h{@$header} = @$r;
    push @rows, \%h;
  }
  return ({ header => $header, rows => \@rows }, undef);
}

# read_run_conf($path) -> (\%settings, \@problems, \%line_of_key). A missing file gives
# ({}, [problem], {}). Problems are { line, reason, text }.
sub read_run_conf {
  my ($path) = @_;
  my %conf;
  my %line_of;
  my @problems;
  open my $fh, '<', $path
    or return ({}, [{ line => 0, reason => "cannot open: $!", text => '' }], {});
  my $n = 0;
  while (my $line = <$fh>) {
    $n++;
    $line =~ s/\r?\n\z//;
    next if $line =~ /\A\s*(#|\z)/;
    if ($line =~ /\A\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(.*)\z/) {
      my ($k, $v) = ($1, $2);
      $v =~ s/\A\s+|\s+\z//g;
      $conf{$k}    = $v;
      $line_of{$k} = $n;
    } else {
      push @problems, { line => $n, reason => 'not a key=value line', text => $line };
    }
  }
  close $fh;
  return (\%conf, \@problems, \%line_of);
}

1;
