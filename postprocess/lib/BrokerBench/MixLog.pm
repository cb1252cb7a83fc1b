package BrokerBench::MixLog;
# Reader of the mix log, versions 1 and 2 (postprocess/MIXLOG.md). One pass over each file;
# rows go into a store shared by all files (raw rows from every file and host are merged,
# never averaged). A bad line is reported as FILE:LINE with the reason and the text, and the
# rest of the file is read; a file whose header names an unknown version is refused as a whole.
#
# The store holds, per transaction code, parallel columns (see the B_* constants): start_us,
# response_us, the outcome as one digit per row (an index into @OUTCOMES), retries (sparse:
# row index -> retries, only rows with retries > 0), for market emulator rows wait_us, and the
# input variant as a 32-bit index per row (pack 'N') into the code's list of distinct inputs
# texts (B_VARIANTS), where index 0 is undef: not logged (a v1 row).
# Speed matters (a million rows in a second or two): each line is matched once by an anchored
# regular expression whose fields cannot overlap (no backtracking); only lines that fail it go
# through the slow diagnosis that names the problem.
use strict;
use warnings;
use Exporter 'import';
use BrokerBench::Spec qw(@ALL_CODES @CE_CODES @MEE_CODES %OUTCOME_INDEX %INPUT_CHOICES
                         %INPUT_TOKENS);

our @EXPORT_OK = qw(new_store read_mix_log read_markers B_START B_RESP B_OUTCOME B_RETRIES
                    B_WAIT B_INPUTS B_VARIANTS HEADER COLUMNS);

use constant {
  B_START    => 0,
  B_RESP     => 1,
  B_OUTCOME  => 2,
  B_RETRIES  => 3,
  B_WAIT     => 4,
  B_INPUTS   => 5,
  B_VARIANTS => 6,
  B_VINDEX   => 7,   # inputs text -> its index in B_VARIANTS, packed (the reader's own)
};
# The version the emulators write now.
use constant HEADER  => '# brokerbench mix log v2';
use constant COLUMNS => 'start_us,code,spec_status,outcome,response_us,retries,user,wait_us,inputs';

# Every version this reader knows: its column line, the fast match of a row and of a marker.
my $ROW_V1 = qr/\A(\d{1,19}),([A-Z]{2}),-?\d{1,10},([a-z_]{2,16}),(\d{1,19}),(\d{1,10}),-?\d{1,19},(-?\d{1,19})\n\z/;
my %FORMAT = (
  v1 => { columns => 'start_us,code,spec_status,outcome,response_us,retries,user,wait_us',
          row => $ROW_V1, marker => qr/\A(\d{1,19}),(START|STOP),,,,,,\n\z/ },
  v2 => { columns => COLUMNS,
          row => qr/\A(\d{1,19}),([A-Z]{2}),-?\d{1,10},([a-z_]{2,16}),(\d{1,19}),(\d{1,10}),-?\d{1,19},(-?\d{1,19}),([0-9A-Za-z ]{0,39})\n\z/,
          marker => qr/\A(\d{1,19}),(START|STOP),,,,,,,\n\z/ },
);
$FORMAT{$_}{names} = [split /,/, $FORMAT{$_}{columns}] for keys %FORMAT;
my $MAX_INPUTS = 39;
my %ROLE_CODES   = (ce => { map { $_ => 1 } @CE_CODES }, mee => { map { $_ => 1 } @MEE_CODES });
my %ROLE_NAME    = (ce => 'customer emulator', mee => 'market emulator');
my %KNOWN_CODE   = map { $_ => 1 } @ALL_CODES;

# The longest line text quoted in a problem.
my $MAX_QUOTE = 120;

sub new_store {
  return { map { $_ => [[], [], '', {}, [], '', [undef], {}] } @ALL_CODES };
}

sub quote_text {
  my ($text) = @_;
  $text = substr($text, 0, $MAX_QUOTE) . '...' if length $text > $MAX_QUOTE;
  $text =~ s/([\x00-\x1f\x7f])/sprintf('\\x%02x', ord $1)/ge;
  return $text;
}

# read_markers($path) -> ([START us...], [STOP us...]): a quick first look at a log's markers,
# from which the run's time range is found before its rows are read (read_mix_log checks
# every line; a line this does not take for a marker is left to it). Reads blocks of 1 MB and
# lets the regular expression engine skip to the markers: a tenth of the time of reading lines.
sub read_markers {
  my ($path) = @_;
  my (@starts, @stops);
  open my $fh, '<:raw', $path or return (\@starts, \@stops);
  my $take = sub {
    my ($text, $end) = @_;
    while ($text =~ /^(\d{1,19}),(START|STOP),+\r?$/mg) {
      last if $-[0] >= $end;
      push @{ $2 eq 'START' ? \@starts : \@stops }, $1 + 0;
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
  return (\@starts, \@stops);
}

# read_mix_log(%args) -> the file's summary:
#   path (to open), rel (the name used in messages), role ('ce' or 'mee'), host,
#   store (from new_store), problem (a callback taking {file, line, reason, text}),
#   range (optional: the run's time range, { start_us, end_us, start_utc, end_utc }).
# With a range, a row or marker outside it, or a wait_us longer than it, is a problem and is
# left out: the time series are indexed by time from the run's start, so one such row would
# size them (start_us 0 made them 23 GB).
# Summary: { file, host, role, rows, starts => [us...], stops => [us...], first_start_us,
#            last_end_us, problems, refused (a reason, or undef) }
sub read_mix_log {
  my (%a) = @_;
  my ($path, $rel, $role, $store, $report, $range) = @a{qw(path rel role store problem range)};
  my %sum = (file => $rel, host => $a{host}, role => $role, rows => 0, starts => [],
             stops => [], first_start_us => undef, last_end_us => undef, problems => 0,
             refused => undef);
  my $problem = sub {
    my ($line, $reason, $text) = @_;
    $sum{problems}++;
    $report->({ file => $rel, line => $line, reason => $reason,
                text => defined $text ? quote_text($text) : '' });
  };

  my $fh;
  unless (open $fh, '<:raw', $path) {
    $sum{refused} = "cannot open: $!";
    $problem->(0, "cannot open: $!; file skipped");
    return \%sum;
  }
  my $h1 = <$fh>;
  if (!defined $h1) {
    $sum{refused} = 'empty file';
    $problem->(1, 'empty file (no header line); file skipped');
    return \%sum;
  }
  $h1 =~ s/\r?\n\z//;
  my $version;
  if ($h1 =~ /\A# brokerbench mix log (v\S*)\s*\z/) {
    $version = $1;
    unless ($FORMAT{$version}) {
      $sum{refused} = "unknown version $version";
      $problem->(1, "unknown mix log version '$version' (this reader knows "
                    . join(' and ', sort keys %FORMAT) . '); file skipped', $h1);
      return \%sum;
    }
  } else {
    $sum{refused} = 'not a mix log';
    $problem->(1, "not a brokerbench mix log (line 1 should be '" . HEADER
                  . "'); file skipped", $h1);
    return \%sum;
  }
  my $fmt = $FORMAT{$version};
  $sum{version} = $version;
  my $h2 = <$fh>;
  $h2 = '' unless defined $h2;
  $h2 =~ s/\r?\n\z//;
  if ($h2 ne $fmt->{columns}) {
    $sum{refused} = 'unexpected column line';
    $problem->(2, "unexpected column line ($version has '$fmt->{columns}'); file skipped", $h2);
    return \%sum;
  }

  my $allowed = $ROLE_CODES{$role};
  my %bucket  = map { $_ => $store->{$_} } keys %$allowed;
  my $is_mee  = $role eq 'mee';
  my ($row_re, $marker_re) = @$fmt{qw(row marker)};
  my $no_inputs = pack('N', 0);
  # Without a range nothing is outside it (the limits are 0 and 2 x the largest start_us).
  my ($lo, $hi) = $range ? @$range{qw(start_us end_us)} : (0, 2e19);
  my $max_wait = $hi - $lo;
  my $outside = sub {
    my ($what, $v) = @_;
    return $v < $lo ? "$what $v is before the run's time range (which starts $range->{start_utc})"
                    : "$what $v is after the run's time range (which ends $range->{end_utc})";
  };
  my $marker = sub {
    my ($ln, $what, $t, $line) = @_;
    if ($t < $lo || $t > $hi) {
      $problem->($ln, $outside->("$what marker at", $t) . '; marker left out',
                 $line =~ s/\r?\n\z//r);
      return;
    }
    push @{ $sum{ $what eq 'START' ? 'starts' : 'stops' } }, $t + 0;
  };
  my ($first, $last_end);
  my $rows = 0;
  my $ln   = 2;
  while (defined(my $line = <$fh>)) {
    $ln++;
    my ($t, $code, $oc, $resp, $retries, $wait, $inputs);
    if ($line =~ $row_re) {
      ($t, $code, $oc, $resp, $retries, $wait, $inputs) = ($1, $2, $3, $4, $5, $6, $7);
    } elsif ($line =~ $marker_re) {
      $marker->($ln, $2, $1, $line);
      next;
    } else {
      my $has_nl = ($line =~ s/\n\z//);
      $line =~ s/\r\z//;
      my ($reason, $f) = diagnose($line, $allowed, $role, $fmt);
      if (!$has_nl) {
        if (defined $reason) {
          $problem->($ln, "line cut mid-way (no newline at the end of the file): $reason", $line);
          next;
        }
        $problem->($ln, 'no newline at the end of the file: the last line may be cut '
                        . '(its fields are complete, so the row was counted)', $line);
      } elsif (defined $reason) {
        $problem->($ln, $reason, $line);
        next;
      }
      if ($f->[1] eq 'START' || $f->[1] eq 'STOP') {
        $marker->($ln, $f->[1], $f->[0], $line);
        next;
      }
      ($t, $code, $oc, $resp, $retries, $wait, $inputs) = @$f[0, 1, 3, 4, 5, 7, 8];
    }
    my $b  = $bucket{$code};
    my $oi = $OUTCOME_INDEX{$oc};
    unless ($b && defined $oi) {
      my ($reason) = diagnose($line =~ s/\r?\n\z//r, $allowed, $role, $fmt);
      $problem->($ln, $reason // "unexpected code or outcome", $line);
      next;
    }
    # The input variant: each distinct text of a code is checked once, then interned.
    my $vi = $no_inputs;
    if (defined $inputs) {
      $vi = $b->[B_VINDEX]{$inputs};
      unless (defined $vi) {
        if (defined(my $reason = inputs_problem($code, $inputs))) {
          $problem->($ln, $reason, $line =~ s/\r?\n\z//r);
          next;
        }
        push @{ $b->[B_VARIANTS] }, $inputs;
        $vi = $b->[B_VINDEX]{$inputs} = pack('N', $#{ $b->[B_VARIANTS] });
      }
    }
    $t += 0;
    $resp += 0;
    # 19 digits fit an unsigned integer; a sum past 2^64 becomes a float, still compared right.
    if ($t < $lo || $t > $hi || $t + $resp > $hi || ($is_mee && abs($wait) > $max_wait)) {
      my $why = $t < $lo || $t > $hi ? $outside->('start_us', $t)
              : $t + $resp > $hi     ? "response_us $resp ends the row after the run's time "
                                       . "range (which ends $range->{end_utc})"
              : sprintf("wait_us $wait is longer than the run's time range (%.0f s)",
                        $max_wait / 1e6);
      $problem->($ln, "$why; row left out", $line =~ s/\r?\n\z//r);
      next;
    }
    my $i = scalar @{ $b->[B_START] };
    push @{ $b->[B_START] }, $t;
    push @{ $b->[B_RESP] }, $resp;
    $b->[B_OUTCOME] .= $oi;
    $b->[B_RETRIES]{$i} = $retries + 0 if $retries;
    push @{ $b->[B_WAIT] }, $wait + 0 if $is_mee;
    $b->[B_INPUTS] .= $vi;
    $rows++;
    $first = $t if !defined $first || $t < $first;
    $last_end = $t + $resp if !defined $last_end || $t + $resp > $last_end;
  }
  close $fh;
  $sum{rows}           = $rows;
  $sum{first_start_us} = $first;
  $sum{last_end_us}    = $last_end;
  return \%sum;
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
