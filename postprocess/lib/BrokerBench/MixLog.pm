package BrokerBench::MixLog;
# Reader of the mix log, versions 1, 2 and 3 (postprocess/MIXLOG.md). One pass over each file, as
# a stream: rows are not kept, they are added to the aggregates of Aggregates.pm (shared by all
# files: raw rows from every file and host are merged, never averaged). A bad line is reported
# as FILE:LINE with the reason and the text, and the rest of the file is read; a file whose
# header names an unknown version is refused as a whole.
# Speed matters (the report's time is this loop's): the file is read in blocks of 1 MB, each
# line matched once by an anchored regular expression whose fields cannot overlap (no
# backtracking); the code, status, outcome and inputs of a row are one key, looked up once; a
# row costs a few array operations. Only lines that fail the match go through the slow
# diagnosis that names the problem (MixLogFormat.pm); a good row the match refused (a CR before
# its newline, no newline at the end of the file) goes through it again as the emulators write
# it.
use strict;
use warnings;
use Exporter 'import';
use BrokerBench::MixLogFormat qw(open_log format_of diagnose inputs_problem quote_text
                                 %ROLE_CODES);
use BrokerBench::Aggregates qw(key_of tick_for add_sums seg_of end_file VALID ERROR
                               SPECIAL IS_TR IS_DM IS_TC WAIT_SLOT ERROR_SLOT);
use BrokerBench::Histogram qw(bucket_of $INDEX_TABLE $TABLE_LIMIT);

# The buckets of the response times below 65.536 ms, as an array: an element is cheaper to read
# than vec() (2 MB).
my @INDEX = unpack('n*', substr($INDEX_TABLE, 0, 2 * 65536));

our @EXPORT_OK = qw(read_mix_log);

# read_mix_log(%args) -> the file's summary:
#   path (to open), rel (the name used in messages), role ('ce' or 'mee'), host,
#   aggregates (Aggregates.pm's, with its plan), problem (a callback taking {file, line,
#   reason, text}), range (optional: the run's time range, { start_us, end_us, start_utc,
#   end_utc }).
# With a range, a row or marker outside it, or a wait_us longer than it, is a problem and is
# left out: the time series are indexed by time from the run's start.
# Summary: { file, host, role, version, rows, starts => [us...], stops => [us...],
#            first_start_us, last_end_us, problems, refused (a reason, or undef) }
sub read_mix_log {
  my (%a) = @_;
  my ($path, $rel, $role, $g, $report, $range) = @a{qw(path rel role aggregates problem range)};
  my %sum = (file => $rel, host => $a{host}, role => $role, rows => 0, starts => [],
             stops => [], first_start_us => undef, last_end_us => undef, problems => 0,
             refused => undef);
  my $problem = sub {
    my ($line, $reason, $text) = @_;
    $sum{problems}++;
    $report->({ file => $rel, line => $line, reason => $reason,
                text => defined $text ? quote_text($text) : '' });
  };
  my ($fh, $version, $at_line, $refused, $refusal, $head) = open_log($path);
  unless ($fh) {
    $sum{refused} = $refused;
    $problem->($at_line, $refusal, $head);
    return \%sum;
  }
  my $fmt = format_of($version);
  $sum{version} = $version;

  my $allowed = $ROLE_CODES{$role};
  my $is_mee  = $role eq 'mee' ? 1 : 0;
  my $plan    = $g->{plan};
  # Without a range nothing is outside it (the limits are 0 and 2 x the largest start_us).
  my ($lo, $hi) = $range ? @$range{qw(start_us end_us)} : (0, 2e19);
  my $max_wait = $hi - $lo;
  # Without an MI no row is in it.
  my ($mis, $mie) = defined $plan->{mi_start_us} ? @$plan{qw(mi_start_us mi_end_us)} : (9e18, -1);
  my ($base, $has_ticks) = ($plan->{base_us} // 0, defined $plan->{tick_us});
  my ($steady_cuts, $cpu_cuts) = @$plan{qw(steady_cuts cpu_cuts)};
  my $outside = sub {
    my ($what, $v) = @_;
    return $v < $lo ? "$what $v is before the run's time range (which starts $range->{start_utc})"
                    : "$what $v is after the run's time range (which ends $range->{end_utc})";
  };
  my $marker = sub {
    my ($ln, $what, $t, $line) = @_;
    if ($t < $lo || $t > $hi) {
      $problem->($ln, $outside->("$what marker at", $t) . '; marker left out', $line);
      return;
    }
    push @{ $sum{ $what eq 'START' ? 'starts' : 'stops' } }, $t + 0;
  };
  # The aggregates, as lexicals for the loop.
  my ($XCI, $XOI, $XKIND, $CNT, $RETRIES, $TR10, $STEADY, $CPU, $DM) =
    @$g{qw(x_ci x_oi x_kind cnt retries tr10 steady cpu dm)};
  my $KEY = $g->{key}{"$role $version"} //= {};
  # The current tick (by completion time): its histograms (Histogram.pm's arrays, one a slot,
  # all made when the tick opens) and its sums, kept here and added to the tick's when the
  # rows move to another tick (Aggregates.pm has the slots).
  my ($tk, $tk_lo, $tk_hi, @cur, @cs, @cmin, @cmax) = (undef, 0, -1);
  my $to_tick = sub {
    my ($e) = @_;
    add_sums($g, $tk, \@cs, \@cmin, \@cmax) if defined $tk;
    ($tk, $tk_lo, $tk_hi, my $h) = tick_for($g, $e);
    @cur = @$h;
    @cs = ();
    @cmin = (9e18) x WAIT_SLOT;
    @cmax = (-1) x WAIT_SLOT;
  };
  my ($sj, $sg_lo, $sg_hi) = (0, 0, -1);              # the steadiness segment of the last TR
  my ($cj, $cs_lo, $cs_hi) = (0, 0, -1);              # the CPU segment of the last row
  my ($first, $last, $ln, $not_rows) = (9e18, -1, 2, 0);
  my $buf = '';
  my $one = '';           # a good row the fast match refused, as the emulator writes it
  my $eof = 0;
  local $/ = \(1 << 20);
  while (1) {
    # The hot loop of the post-processor: one pass over every row. $text is $buf, or $one.
    # Reading a capture costs as much as a tenth of the match: each is read once, and the
    # retries (rarely not 0) only when the match that wants 0 fails. That first match also
    # takes no sign in spec_status, user and wait_us (each optional "-" costs a twentieth of
    # the match): a row with one (an invalid status, the customer emulator's user -1, a
    # negative wait) goes to the second, which takes every good row. The quantifiers are
    # possessive (a field's characters never backtrack: a comma follows each).
    # $1 start_us, $2 "code,spec_status,outcome", $3 response_us, $4 retries, $5 wait_us,
    # $6 ",inputs" (v2), ",inputs," (v3: the trade id's digits after it are matched, not
    # captured: only the key's part is) or '' (v1); key_of tells the versions' apart.
    # The row's fields and figures, declared once: a "my" in the loop costs its clearing at
    # every row.
    my ($retries, $x, $ci, $t, $r, $e, $in, $kind, $w, $aw, $ws) = (0);
    for my $text (pos($one) ? $one : $buf) {
      while (1) {
        if ($text =~ /\G(\d{1,19}+),([A-Z]{2},\d{1,10}+,[a-z_]{2,16}+),(\d{1,19}+),0(),\d{1,19}+,(\d{1,19}+)(,[0-9A-Za-z ]{0,39}+,?|)(?:(?<=,)[1-9]\d{0,18}+)?+\n/gc) {
        } elsif ($text =~ /\G(\d{1,19}+),([A-Z]{2},-?\d{1,10}+,[a-z_]{2,16}+),(\d{1,19}+),(\d{1,10}+),-?\d{1,19}+,(-?\d{1,19}+)(,[0-9A-Za-z ]{0,39}+,?|)(?:(?<=,)[1-9]\d{0,18}+)?+\n/gc) {
          $retries = $4 + 0;
        } else {
          last;
        }
        $ln++;
        # The key: code, status, outcome and input variant. Each distinct one is checked once
        # (key_of), then looked up.
        $x = $KEY->{ $2 . $6 } // do {
          my ($key, $inputs) = ($2, $6);
          my ($new, $why) = key_of($g, $KEY, $key, $inputs, $role, $version, $allowed,
                                   \&inputs_problem);
          $new // do {
            $not_rows++;
            $retries = 0;
            my $line = substr($text, $-[0], $+[0] - $-[0] - 1);
            $problem->($ln, (diagnose($line, $allowed, $role, $fmt))[0] // $why
                            // 'unexpected code or outcome', $line);
            next;
          };
        };
        $e = ($t = $1) + ($r = $3);
        # 19 digits fit an unsigned integer; a sum past 2^64 becomes a float, still compared
        # right. The MI lies in the run's time range: a row in it is in the range.
        if ($t >= $mis && $e <= $mie) {
          $in = 1;
        } else {
          $in = 0;
          if ($t < $lo || $e > $hi) {
            $not_rows++;
            $retries = 0;
            $problem->($ln, ($t < $lo || $t > $hi ? $outside->('start_us', $t)
                             : "response_us $r ends the row after the run's time range (which "
                               . "ends $range->{end_utc})") . '; row left out',
                       substr($text, $-[0], $+[0] - $-[0] - 1));
            next;
          }
        }
        &$to_tick($e) if $e < $tk_lo || $e >= $tk_hi;
        $kind = $XKIND->[$x];
        if ($kind & SPECIAL) {
          if ($is_mee) {
            $w = $5;
            if ($w < 0) {
              $aw = -$w;
              $ws = 2;
            } else {
              ($aw, $ws) = ($w, 0);
            }
            if ($aw > $max_wait) {
              $not_rows++;
              $retries = 0;
              $problem->($ln, sprintf("wait_us $w is longer than the run's time range (%.0f s); "
                                      . 'row left out', $max_wait / 1e6),
                         substr($text, $-[0], $+[0] - $-[0] - 1));
              next;
            }
            $ws += ($kind & IS_TR ? WAIT_SLOT : WAIT_SLOT + 4) + $in;
            $cur[$ws][$aw < 65536 ? $INDEX[$aw] : $aw < $TABLE_LIMIT ? vec($INDEX_TABLE, $aw, 16)
                                                                     : bucket_of($aw)]++;
            $cs[$ws] += $w;
          }
          if ($kind & IS_TC) {
            $in = 1;    # Trade-Cleanup runs once before the MI: its row covers the whole log
          } elsif ($kind & IS_DM) {
            push @$DM, [$t + 0, $r + 0, $XOI->[$x]];
          } elsif (($kind & (IS_TR | VALID)) == (IS_TR | VALID)) {
            $TR10->[($e - $base) / 10_000_000]++ if $has_ticks;
            if ($in) {
              ($sj, $sg_lo, $sg_hi) = seg_of($steady_cuts, $e) if $e < $sg_lo || $e >= $sg_hi;
              $STEADY->[$sj]++;
            } elsif ($t < $mie && $e > $mis) {
              $g->{tr_edge}++;    # in flight at an MI edge: the database may stamp it inside
            }
          }
        }
        $CNT->[$x * 2 + $in]++;
        if ($retries) {
          $RETRIES->[$x * 2 + $in] += $retries;
          $retries = 0;
        }
        ($cj, $cs_lo, $cs_hi) = seg_of($cpu_cuts, $t) if $t < $cs_lo || $t >= $cs_hi;
        $CPU->[$cj]++;
        $first = $t if $t < $first;
        $last = $e if $e > $last;
        if ($kind & VALID) {
          $ci = 2 * $XCI->[$x] + $in;    # the slot
          $cur[$ci][$r < 65536 ? $INDEX[$r] : $r < $TABLE_LIMIT ? vec($INDEX_TABLE, $r, 16)
                                                             : bucket_of($r)]++;
          $cs[$ci] += $r;
          $cmin[$ci] = $r if $r < $cmin[$ci];
          $cmax[$ci] = $r if $r > $cmax[$ci];
        } elsif ($in && $kind & ERROR) {
          $cs[ ERROR_SLOT + $XCI->[$x] ]++;
        }
      }
    }
    if (pos($one)) {
      if (pos($one) != length $one) {    # cannot be: the diagnosis took it for a good row
        $ln++;
        $not_rows++;
        $problem->($ln, 'a row this reader could not take (please report it)', $one =~ s/\n\z//r);
      }
      $one = '';
      next;
    }
    # The fast match stopped: at the end of the block, before a line cut by the block's end, or
    # at a line it refuses.
    my $at = pos($buf) // 0;
    my $nl = index($buf, "\n", $at);
    if ($nl < 0 && !$eof) {
      $buf = substr($buf, $at);
      my $block = <$fh>;
      if (defined $block) { $buf .= $block } else { $eof = 1 }
      pos($buf) = 0;
      next;
    }
    last if $at >= length $buf;
    my $has_nl = $nl >= 0;
    my $line = substr($buf, $at, $has_nl ? $nl - $at : length($buf) - $at);
    pos($buf) = $has_nl ? $nl + 1 : length $buf;
    if ($line =~ $fmt->{marker}) {
      my ($t, $what) = ($1, $2);
      $ln++;
      $not_rows++;
      $problem->($ln, 'no newline at the end of the file: the last line may be cut (its fields '
                      . 'are complete, so the row was counted)', $line) unless $has_nl;
      $marker->($ln, $what, $t, $line =~ s/\r\z//r);
      next;
    }
    $line =~ s/\r\z//;
    my ($reason, $f) = diagnose($line, $allowed, $role, $fmt);
    if (!$has_nl) {
      if (defined $reason) {
        $not_rows++;
        $problem->(++$ln, "line cut mid-way (no newline at the end of the file): $reason", $line);
        next;
      }
      $problem->($ln + 1, 'no newline at the end of the file: the last line may be cut (its '
                          . 'fields are complete, so the row was counted)', $line);
    } elsif (defined $reason) {
      $not_rows++;
      $problem->(++$ln, $reason, $line);
      next;
    }
    if ($f->[1] eq 'START' || $f->[1] eq 'STOP') {
      $not_rows++;
      $marker->(++$ln, $f->[1], $f->[0], $line);
      next;
    }
    # Once more through the fast match, as the emulator writes it (pos 0 would read as "not
    # in use": the line starts with a newline, which the match skips).
    $one = join(',', "\n$f->[0]", @$f[1 .. $#$f]) . "\n";
    pos($one) = 1;
  }
  close $fh;
  add_sums($g, $tk, \@cs, \@cmin, \@cmax) if defined $tk;
  end_file($g);
  my $rows = $ln - 2 - $not_rows;
  $sum{rows}           = $rows;
  $sum{first_start_us} = $rows ? $first : undef;
  $sum{last_end_us}    = $rows ? $last : undef;
  return \%sum;
}

1;
