package BrokerBench::Aggregates;
# What the report keeps of the mix log rows: aggregates that MixLog.pm's reader fills in its
# one pass over each file, and from which every figure of the report is made. Their size
# depends on the run's length in ticks and on the spread of its response times, never on its
# number of rows.
#
# A plan, fixed before the first row is read (Inputs.pm: the measurement interval (MI) from the
# markers, the run's time range, and the time cuts the steadiness check and "Where the CPU
# went" ask for), says what to aggregate by:
#   - a key is the code, spec status, outcome and input variant of a row; per key, in or outside
#     the MI: rows and retries (the input variants' counts are the valid keys' in the MI);
#   - per tick (10 s, or 60 s when the MI is 10 minutes or more, from a whole number of minutes
#     before the MI's start) and code, by completion time: a histogram of the valid rows'
#     response times (Histogram.pm) and their exact sum, minimum and maximum, in the MI and
#     outside it apart; the errors in the MI; the market emulator's waits likewise; the valid
#     Trade-Results per 10 s;
#   - the valid Trade-Results of the MI between consecutive steadiness cuts, and every row
#     between consecutive CPU cuts (by start time): counts between fixed points in time are
#     exact only if the points are known before the rows;
#   - each Data-Maintenance row (one a minute: start, response time, outcome).
# A tick's histograms are Perl arrays while rows arrive for it, and packed (Histogram.pm)
# once the reader has moved 3 ticks past it; a row for a packed tick reopens it. The MI's
# histograms per code are the sums of the ticks' (collect), made once after the last file.
use strict;
use warnings;
use Exporter 'import';
use BrokerBench::Spec qw(@ALL_CODES @OUTCOMES %OUTCOME_INDEX %IS_VALID %IS_ERROR);
use BrokerBench::Histogram qw(pack_hist pack_span unpack_hist add_into);

our @EXPORT_OK = qw(new_aggregates key_of variant_counts tick_for add_sums seg_of end_file
                    code_index VALID ERROR SPECIAL IS_TR IS_MF IS_DM IS_TC WAIT_SLOT ERROR_SLOT
                    MIN_SLOT MAX_SLOT HIST_SLOTS);

# What the reader does with a row of a key (x_kind, bits).
use constant { VALID => 1, ERROR => 2, IS_TR => 4, IS_MF => 8, IS_DM => 16, IS_TC => 32 };
use constant SPECIAL => IS_TR | IS_MF | IS_DM | IS_TC;
# A tick's slots, of histograms and of sums: per code 2 x its index + in the MI (0 or 1), the
# valid rows' response times; from WAIT_SLOT the market emulator's waits, WAIT_SLOT + 0 TR,
# + 4 MF, + 2 when negative (the histogram of -wait), + 1 in the MI. Sums only: from ERROR_SLOT,
# per code, the errors in the MI; the response times' exact minimum and maximum of each of the
# first slots at MIN_SLOT + slot and MAX_SLOT + slot.
use constant WAIT_SLOT  => 2 * @ALL_CODES;
use constant HIST_SLOTS => 2 * @ALL_CODES + 8;
use constant ERROR_SLOT => 2 * @ALL_CODES + 8;
use constant MIN_SLOT   => 3 * @ALL_CODES + 8;
use constant MAX_SLOT   => 5 * @ALL_CODES + 8;
my %CODE_INDEX = map { $ALL_CODES[$_] => $_ } 0 .. $#ALL_CODES;
my %SPECIAL = (TR => IS_TR, MF => IS_MF, DM => IS_DM, TC => IS_TC);
# Distinct keys remembered per role and version; past this (a log of random statuses) new ones
# are checked again each time.
my $MAX_KEYS = 10_000;

sub code_index { $CODE_INDEX{ $_[0] } }

# new_aggregates($plan): $plan = { lo_us, hi_us (the run's time range, or undef), mi_start_us,
# mi_end_us (or undef), base_us, tick_us (undef: no time axis), steady_cuts, cpu_cuts }.
sub new_aggregates {
  my ($plan) = @_;
  my $g = {
    plan    => $plan,
    key     => {},                   # role and version -> { "TO,0,ok,TLB q200 name" -> x }
    x_ci    => [], x_oi => [], x_kind => [], x_code => [], x_vi => [],
    cnt     => [], retries => [],    # [x * 2 + in]
    # Input variants: per code, text -> id (v2) and the id of "not logged" (v1); id 0 stands for
    # the market emulator's rows, which carry none.
    variant_v2 => [map { {} } @ALL_CODES], variant_v1 => [],
    v_code  => [undef], v_text => [undef],
    open    => {},                   # tick -> [slot arrays] being filled
    packed  => [],                   # tick -> [slot strings]
    sum     => [],                   # tick -> [slot sums, then errors]
    tr10    => [],                   # valid Trade-Results per 10 s from base_us
    tr_edge => 0,                    # valid Trade-Results that began before an MI edge and
                                     # ended after it
    steady  => [], cpu => [],        # counts between cuts (index j + 1; 0: before the first)
    dm      => [],                   # [start, response, outcome] of each DM row
  };
  for my $ci (0 .. $#ALL_CODES) {
    push @{ $g->{v_code} }, $ci;
    push @{ $g->{v_text} }, undef;
    $g->{variant_v1}[$ci] = $#{ $g->{v_code} };
  }
  return $g;
}

# key_of($g, \%keys, "CODE,STATUS,OUTCOME", $inputs, $role, $version, \%allowed_codes,
# \&inputs_problem) -> x for a key not seen before in a log of this role and version (%keys),
# or (undef, $why). $inputs is what follows the wait_us column: '' in v1, a comma and the input
# variant in v2 (nothing after the comma in a market emulator's row). $why is undef for a code
# the log's emulator does not send, an outcome this reader does not know or a row of the other
# version's column count (the caller's diagnosis names them), or why the inputs are not a
# variant the emulator writes.
sub key_of {
  my ($g, $keys, $key, $inputs, $role, $version, $allowed, $problem_of) = @_;
  my ($code, undef, $oc) = split /,/, $key;
  return (undef, undef) unless $allowed->{$code} && defined $OUTCOME_INDEX{$oc};
  my $ci = $CODE_INDEX{$code};
  my $vi;
  if ($version eq 'v1') {
    return (undef, undef) if $inputs ne '';
    $vi = $g->{variant_v1}[$ci];
  } else {
    # v2 ",inputs"; v3 ",inputs," (the trade id follows, outside the key).
    return (undef, undef) unless $version eq 'v2' ? $inputs =~ /\A,[^,]*\z/
                                                  : $inputs =~ /\A,[^,]*,\z/;
    my $text = substr($inputs, 1, length($inputs) - ($version eq 'v2' ? 1 : 2));
    my $why = $role eq 'mee' && $text eq '' ? undef : $problem_of->($code, $text);
    return (undef, $why) if defined $why;
    $vi = $role eq 'mee' ? 0 : ($g->{variant_v2}[$ci]{$text} //= do {
      push @{ $g->{v_code} }, $ci;
      push @{ $g->{v_text} }, $text;
      $#{ $g->{v_code} };
    });
  }
  my $x = @{ $g->{x_ci} };
  push @{ $g->{x_ci} }, $ci;
  push @{ $g->{x_code} }, $code;
  push @{ $g->{x_oi} }, $OUTCOME_INDEX{$oc};
  push @{ $g->{x_vi} }, $vi;
  push @{ $g->{x_kind} }, ($IS_VALID{$oc} ? VALID : 0) | ($IS_ERROR{$oc} ? ERROR : 0)
                          | ($SPECIAL{$code} // 0);
  $keys->{"$key$inputs"} = $x if keys %$keys < $MAX_KEYS;
  return $x;
}

# variant_counts($g) -> [valid rows of the MI per variant id] (ids: v_code, v_text).
sub variant_counts {
  my ($g) = @_;
  my @n = (0) x @{ $g->{v_code} };
  for my $x (grep { $g->{x_kind}[$_] & VALID } 0 .. $#{ $g->{x_vi} }) {
    $n[ $g->{x_vi}[$x] ] += $g->{cnt}[2 * $x + 1] // 0;
  }
  return \@n;
}

# tick_for($g, $end_us) -> (tick, from_us, to_us, \@slot_arrays) of the tick holding
# $end_us, every slot's array made. Opening a tick packs the ones 3 or more ticks behind it.
sub tick_for {
  my ($g, $e) = @_;
  my $p = $g->{plan};
  my $tk = defined $p->{tick_us} ? int(($e - $p->{base_us}) / $p->{tick_us}) : 0;
  $tk = 0 if $tk < 0;
  my $open = $g->{open};
  my $h = $open->{$tk};
  unless ($h) {
    for my $old (grep { $_ < $tk - 2 } keys %$open) {
      pack_tick($g, $old);
    }
    $h = $open->{$tk} = [map { [] } 1 .. HIST_SLOTS];
  }
  my ($from, $to) = defined $p->{tick_us}
    ? ($p->{base_us} + $tk * $p->{tick_us}, $p->{base_us} + ($tk + 1) * $p->{tick_us})
    : (-9e18, 9e18);
  return ($tk, $from, $to, $h);
}

# add_sums($g, $tick, \@sums, \@min, \@max): adds a reader's sums of a tick to the tick's, and
# its minimum and maximum response time per slot.
sub add_sums {
  my ($g, $tk, $sums, $min, $max) = @_;
  my $dst = $g->{sum}[$tk] //= [];
  for my $i (0 .. $#$sums) {
    $dst->[$i] += $sums->[$i] if $sums->[$i];
  }
  for my $i (grep { $max->[$_] >= 0 } 0 .. $#$max) {
    $dst->[ MIN_SLOT + $i ] = $min->[$i]
      unless defined $dst->[ MIN_SLOT + $i ] && $dst->[ MIN_SLOT + $i ] <= $min->[$i];
    $dst->[ MAX_SLOT + $i ] = $max->[$i]
      unless defined $dst->[ MAX_SLOT + $i ] && $dst->[ MAX_SLOT + $i ] >= $max->[$i];
  }
}

# Packs an open tick's histograms, adding them to what was packed of it before.
sub pack_tick {
  my ($g, $tk) = @_;
  my $h = delete $g->{open}{$tk};
  my $dst = $g->{packed}[$tk] //= [];
  for my $slot (grep { @{ $h->[$_] } } 0 .. $#$h) {
    my $packed = pack_hist($h->[$slot]);
    $dst->[$slot] = defined $dst->[$slot]
      ? pack_span(add_into(unpack_hist($dst->[$slot]), unpack_hist($packed)))
      : $packed;
  }
}

# end_file($g): packs every open tick (after each file, and before the figures are made).
sub end_file {
  my ($g) = @_;
  pack_tick($g, $_) for sort { $a <=> $b } keys %{ $g->{open} };
}

# seg_of(\@cuts, $us) -> (j + 1, from, to): the segment [cuts[j], cuts[j+1]) holding $us; 0
# before the first cut, the last index after the last.
sub seg_of {
  my ($cuts, $v) = @_;
  return (0, -9e18, 9e18) unless @$cuts;
  return (0, -9e18, $cuts->[0]) if $v < $cuts->[0];
  return (scalar @$cuts, $cuts->[-1], 9e18) if $v >= $cuts->[-1];
  my ($lo, $hi) = (0, $#$cuts);    # cuts[lo] <= v < cuts[hi]
  while ($hi - $lo > 1) {
    my $mid = ($lo + $hi) >> 1;
    if ($v < $cuts->[$mid]) { $hi = $mid } else { $lo = $mid }
  }
  return ($lo + 1, $cuts->[$lo], $cuts->[$hi]);
}

1;
