package BrokerBench::MixLogFormat;
# The mix log format, versions 1, 2 and 3 (postprocess/MIXLOG.md), as the reader (MixLog.pm) needs
# it: each version's column line and markers, a log's header (a file whose header names an
# unknown version is refused as a whole), the quick first look at the markers, and the slow
# diagnosis that names the problem of a line the reader's fast match refused.
use strict;
use warnings;
use Exporter 'import';
use BrokerBench::Spec qw(@ALL_CODES @CE_CODES @MEE_CODES %OUTCOME_INDEX %INPUT_CHOICES
                         %INPUT_TOKENS);

our @EXPORT_OK = qw(open_log format_of read_markers diagnose inputs_problem quote_text
                    %ROLE_CODES HEADER COLUMNS);

# The version the emulators write now.
use constant HEADER  => '# brokerbench mix log v3';
use constant COLUMNS =>
  'start_us,code,spec_status,outcome,response_us,retries,user,wait_us,inputs,trade_id';

# Every version this reader knows: its column line and the match of a marker (the match of a
# row is written out in the loop of MixLog.pm's read_mix_log: a pattern in a variable costs a
# quarter of the loop's time more).
my %FORMAT = (
  v1 => { columns => 'start_us,code,spec_status,outcome,response_us,retries,user,wait_us',
          marker => qr/\A(\d{1,19}),(START|STOP),{6}\r?\z/,
          markers => qr/^(\d{1,19}),(START|STOP),{6}\r?$/m },
  v2 => { columns => 'start_us,code,spec_status,outcome,response_us,retries,user,wait_us,inputs',
          marker => qr/\A(\d{1,19}),(START|STOP),{7}\r?\z/,
          markers => qr/^(\d{1,19}),(START|STOP),{7}\r?$/m },
  v3 => { columns => COLUMNS,
          marker => qr/\A(\d{1,19}),(START|STOP),{8}\r?\z/,
          markers => qr/^(\d{1,19}),(START|STOP),{8}\r?$/m },
);
$FORMAT{$_}{names} = [split /,/, $FORMAT{$_}{columns}] for keys %FORMAT;
my $MAX_INPUTS = 39;
our %ROLE_CODES  = (ce => { map { $_ => 1 } @CE_CODES }, mee => { map { $_ => 1 } @MEE_CODES });
my %ROLE_NAME    = (ce => 'customer emulator', mee => 'market emulator');
my %KNOWN_CODE   = map { $_ => 1 } @ALL_CODES;

# "v1, v2 and v3".
sub known_versions {
  my @v = sort keys %FORMAT;
  return join(', ', @v[0 .. $#v - 1]) . " and $v[-1]";
}

# format_of($version) -> { columns, names, marker (the match of a marker line, without its
# newline), markers (of every marker in a block) }.
sub format_of { $FORMAT{ $_[0] } }

# The longest line text quoted in a problem.
my $MAX_QUOTE = 120;

sub quote_text {
  my ($text) = @_;
  $text = substr($text, 0, $MAX_QUOTE) . '...' if length $text > $MAX_QUOTE;
  $text =~ s/([\x00-\x1f\x7f])/sprintf('\\x%02x', ord $1)/ge;
  return $text;
}

# open_log($path) -> ($fh, $version) or (undef, undef, $line, $refusal, $reason, $text): the
# file opened after its two header lines, or why it is refused.
sub open_log {
  my ($path) = @_;
  open my $fh, '<:raw', $path or return (undef, undef, 0, "cannot open: $!", "cannot open: $!; file skipped");
  my $h1 = <$fh>;
  return (undef, undef, 1, 'empty file', 'empty file (no header line); file skipped')
    unless defined $h1;
  $h1 =~ s/\r?\n\z//;
  unless ($h1 =~ /\A# brokerbench mix log (v\S*)\s*\z/) {
    return (undef, undef, 1, 'not a mix log', "not a brokerbench mix log (line 1 should be '"
                                              . HEADER . "'); file skipped", $h1);
  }
  my $version = $1;
  return (undef, undef, 1, "unknown version $version",
          "unknown mix log version '$version' (this reader knows " . known_versions()
          . '); file skipped', $h1) unless $FORMAT{$version};
  my $fmt = $FORMAT{$version};
  my $h2 = <$fh> // '';
  $h2 =~ s/\r?\n\z//;
  return (undef, undef, 2, 'unexpected column line',
          "unexpected column line ($version has '$fmt->{columns}'); file skipped", $h2)
    if $h2 ne $fmt->{columns};
  return ($fh, $version);
}

# read_markers($path) -> { version, refused, starts => [us...], stops => [us...] }: a quick first
# look at a log's markers, from which the run's time range and the measurement interval are
# found before its rows are read. It takes exactly the lines read_mix_log takes for markers
# (before the run's time range leaves some out): blocks of 1 MB in which the regular expression
# engine skips to them, a tenth of the time of reading the rows.
sub read_markers {
  my ($path) = @_;
  my %m = (starts => [], stops => []);
  my ($fh, $version, undef, $refused) = open_log($path);
  unless ($fh) {
    $m{refused} = $refused;
    return \%m;
  }
  $m{version} = $version;
  my $re = $FORMAT{$version}{markers};
  my $take = sub {
    my ($text, $end) = @_;
    while ($text =~ /$re/g) {
      last if $-[0] >= $end;
      push @{ $m{ $2 eq 'START' ? 'starts' : 'stops' } }, $1 + 0;
    }
  };
  my $tail = '';
  local $/ = \(1 << 20);
  while (defined(my $block = <$fh>)) {
    $block = $tail . $block;
    my $end = rindex($block, "\n") + 1;    # the last line may go on in the next block
    $tail = substr($block, $end);
    $take->($block, $end);
  }
  $take->($tail, length $tail);
  close $fh;
  return \%m;
}


# diagnose($line_without_newline, \%allowed_codes, $role, $format) -> ($reason) for a bad
# line, or (undef, \@fields) for a good one. Slow and thorough; only lines that fail the fast
# match come here.
sub diagnose {
  my ($line, $allowed, $role, $fmt) = @_;
  my $names = $fmt->{names};
  return ('empty line') if $line eq '';
  my @f = split /,/, $line, -1;
  if (@f != @$names) {
    return (sprintf('wrong column count: %d, expected %d', scalar @f, scalar @$names));
  }
  my ($t, $code) = @f[0, 1];
  return (field_problem('start_us', $t)) if $t !~ /\A\d{1,19}\z/;
  if ($code eq 'START' || $code eq 'STOP') {
    for my $i (2 .. $#$names) {
      return ("$code marker with a value in column $names->[$i]: '$f[$i]'")
        if $f[$i] ne '';
    }
    return (undef, \@f);
  }
  return ("unknown code '$code'") unless $KNOWN_CODE{$code};
  unless ($allowed->{$code}) {
    my $other = $role eq 'ce' ? 'mee' : 'ce';
    return ("$code row in a $ROLE_NAME{$role} log (only a $ROLE_NAME{$other} sends $code)");
  }
  return (field_problem('spec_status', $f[2], 1)) if $f[2] !~ /\A-?\d{1,10}\z/;
  return ("unknown outcome '$f[3]'") unless defined $OUTCOME_INDEX{ $f[3] };
  return (field_problem('response_us', $f[4])) if $f[4] !~ /\A\d{1,19}\z/;
  return (field_problem('retries', $f[5]))     if $f[5] !~ /\A\d{1,10}\z/;
  # The customer emulator writes user -1 for its Data-Maintenance and Trade-Cleanup rows.
  return (field_problem('user', $f[6], 1))     if $f[6] !~ /\A-?\d{1,19}\z/;
  return (field_problem('wait_us', $f[7], 1))  if $f[7] !~ /\A-?\d{1,19}\z/;
  if (@f > 8) {
    return ("inputs is longer than $MAX_INPUTS characters: '" . quote_text($f[8]) . "'")
      if length $f[8] > $MAX_INPUTS;
    return ("inputs is not tokens of letters and digits separated by spaces: '"
            . quote_text($f[8]) . "'") if $f[8] !~ /\A[0-9A-Za-z ]*\z/;
  }
  # v3: the trade id, empty when the row has none (never 0).
  if (@f > 9 && $f[9] ne '' && $f[9] !~ /\A[1-9]\d{0,18}\z/) {
    return ("trade_id is 0 (a row without a trade id leaves the column empty)") if $f[9] =~ /\A0+\z/;
    return (field_problem('trade_id', $f[9]));
  }
  return (undef, \@f);
}

# inputs_problem($code, $inputs) -> why a row's input variant is not one the customer
# emulator writes (MIXLOG.md), or undef.
sub inputs_problem {
  my ($code, $inputs) = @_;
  return undef if $inputs eq '' && !$INPUT_CHOICES{$code};
  my $known = $INPUT_TOKENS{$code} // {};
  return "inputs: $code rows carry none, but this one has '$inputs'" unless %$known;
  my @tokens = split / /, $inputs, -1;
  my %seen;
  for my $tok (@tokens) {
    return "inputs: '$inputs' has an empty token (a leading, trailing or double space)"
      if $tok eq '';
    return "inputs: unknown token '$tok' for $code" unless $known->{$tok};
    return "inputs: token '$tok' twice" if $seen{$tok}++;
  }
  for my $choice (@{ $INPUT_CHOICES{$code} // [] }) {
    my $n = grep { $seen{$_} } @$choice;
    return "inputs of $code: " . ($n ? 'more than one' : 'none') . ' of ' . join(', ', @$choice)
      . ($inputs eq '' ? ' (empty)' : " in '$inputs'") unless $n == 1;
  }
  return undef;
}

sub field_problem {
  my ($name, $value, $signed) = @_;
  return "$name is empty" if $value eq '';
  my $kind = $signed ? 'an integer' : 'a non-negative integer';
  return "$name is negative: '$value'" if !$signed && $value =~ /\A-\d+\z/;
  return "$name is too long for $kind: '$value'" if $value =~ /\A-?\d+\z/;
  return "$name is not $kind: '" . quote_text($value) . "'";
}


1;
