package BrokerBench::MixLog;
# Reader of the mix log, version 1 (postprocess/MIXLOG.md). One pass over each file; rows go
# into a store shared by all files (raw rows from every file and host are merged, never
# averaged). A bad line is reported as FILE:LINE with the reason and the text, and the rest of
# the file is read; a file whose header names an unknown version is refused as a whole.
#
# The store holds, per transaction code, parallel columns (see the B_* constants): start_us,
# response_us, the outcome as one digit per row (an index into @OUTCOMES), retries (sparse:
# row index -> retries, only rows with retries > 0) and, for market emulator rows, wait_us.
# Speed matters (a million rows in a second or two): each line is matched once by an anchored
# regular expression whose fields cannot overlap (no backtracking); only lines that fail it go
# through the slow diagnosis that names the problem.
use strict;
use warnings;
use Exporter 'import';
use BrokerBench::Spec qw(@ALL_CODES @CE_CODES @MEE_CODES %OUTCOME_INDEX);

our @EXPORT_OK = qw(new_store read_mix_log B_START B_RESP B_OUTCOME B_RETRIES B_WAIT
                    HEADER COLUMNS);

use constant {
  B_START   => 0,
  B_RESP    => 1,
  B_OUTCOME => 2,
  B_RETRIES => 3,
  B_WAIT    => 4,
};
use constant HEADER  => '# brokerbench mix log v1';
use constant COLUMNS => 'start_us,code,spec_status,outcome,response_us,retries,user,wait_us';

my @COLUMN_NAMES = split /,/, COLUMNS;
my %ROLE_CODES   = (ce => { map { $_ => 1 } @CE_CODES }, mee => { map { $_ => 1 } @MEE_CODES });
my %ROLE_NAME    = (ce => 'customer emulator', mee => 'market emulator');
my %KNOWN_CODE   = map { $_ => 1 } @ALL_CODES;

# The longest line text quoted in a problem.
my $MAX_QUOTE = 120;

sub new_store {
  return { map { $_ => [[], [], '', {}, []] } @ALL_CODES };
}

sub quote_text {
  my ($text) = @_;
  $text = substr($text, 0, $MAX_QUOTE) . '...' if length $text > $MAX_QUOTE;
  $text =~ s/([\x00-\x1f\x7f])/sprintf('\\x%02x', ord $1)/ge;
  return $text;
}

# read_mix_log(%args) -> the file's summary:
#   path (to open), rel (the name used in messages), role ('ce' or 'mee'), host,
#   store (from new_store), problem (a callback taking {file, line, reason, text}).
# Summary: { file, host, role, rows, starts => [us...], stops => [us...], first_start_us,
#            last_end_us, problems, refused (a reason, or undef) }
sub read_mix_log {
  my (%a) = @_;
  my ($path, $rel, $role, $store, $report) = @a{qw(path rel role store problem)};
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
  if ($h1 ne HEADER) {
    if ($h1 =~ /\A# brokerbench mix log (v\S*)\s*\z/) {
      $sum{refused} = "unknown version $1";
      $problem->(1, "unknown mix log version '$1' (this reader knows v1); file skipped", $h1);
    } else {
      $sum{refused} = 'not a mix log';
      $problem->(1, "not a brokerbench mix log (line 1 should be '" . HEADER
                    . "'); file skipped", $h1);
    }
    return \%sum;
  }
  my $h2 = <$fh>;
  $h2 = '' unless defined $h2;
  $h2 =~ s/\r?\n\z//;
  if ($h2 ne COLUMNS) {
    $sum{refused} = 'unexpected column line';
    $problem->(2, "unexpected column line (v1 has '" . COLUMNS . "'); file skipped", $h2);
    return \%sum;
  }

  my $allowed = $ROLE_CODES{$role};
  my %bucket  = map { $_ => $store->{$_} } keys %$allowed;
  my $is_mee  = $role eq 'mee';
  my ($first, $last_end);
  my $rows = 0;
  my $ln   = 2;
  while (defined(my $line = <$fh>)) {
    $ln++;
    my ($t, $code, $oc, $resp, $retries, $wait);
    if ($line =~ /\A(\d{1,19}),([A-Z]{2}),-?\d{1,10},([a-z_]{2,16}),(\d{1,19}),(\d{1,10}),-?\d{1,19},(-?\d{1,19})\n\z/) {
      ($t, $code, $oc, $resp, $retries, $wait) = ($1, $2, $3, $4, $5, $6);
    } elsif ($line =~ /\A(\d{1,19}),(START|STOP),,,,,,\n\z/) {
      push @{ $sum{ $2 eq 'START' ? 'starts' : 'stops' } }, $1 + 0;
      next;
    } else {
      my $has_nl = ($line =~ s/\n\z//);
      $line =~ s/\r\z//;
      my ($reason, $f) = diagnose($line, $allowed, $role);
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
        push @{ $sum{ $f->[1] eq 'START' ? 'starts' : 'stops' } }, $f->[0] + 0;
        next;
      }
      ($t, $code, $oc, $resp, $retries, $wait) = @$f[0, 1, 3, 4, 5, 7];
    }
    my $b  = $bucket{$code};
    my $oi = $OUTCOME_INDEX{$oc};
    unless ($b && defined $oi) {
      my ($reason) = diagnose($line =~ s/\r?\n\z//r, $allowed, $role);
      $problem->($ln, $reason // "unexpected code or outcome", $line);
      next;
    }
    $t += 0;
    $resp += 0;
    my $i = scalar @{ $b->[B_START] };
    push @{ $b->[B_START] }, $t;
    push @{ $b->[B_RESP] }, $resp;
    $b->[B_OUTCOME] .= $oi;
    $b->[B_RETRIES]{$i} = $retries + 0 if $retries;
    push @{ $b->[B_WAIT] }, $wait + 0 if $is_mee;
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

# diagnose($line_without_newline, \%allowed_codes, $role) -> ($reason) for a bad line, or
# (undef, \@fields) for a good one. Slow and thorough; only lines that fail the fast match
# come here.
sub diagnose {
  my ($line, $allowed, $role) = @_;
  return ('empty line') if $line eq '';
  my @f = split /,/, $line, -1;
  if (@f != 8) {
    return (sprintf('wrong column count: %d, expected 8', scalar @f));
  }
  my ($t, $code) = @f[0, 1];
  return (field_problem('start_us', $t)) if $t !~ /\A\d{1,19}\z/;
  if ($code eq 'START' || $code eq 'STOP') {
    for my $i (2 .. 7) {
      return ("$code marker with a value in column $COLUMN_NAMES[$i]: '$f[$i]'")
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
  return (undef, \@f);
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
