package BrokerBench::Spec;
# The TPC-E rules the report judges a run by, as data. Clause numbers are those of the TPC-E
# specification v1.14.0.
#
# The constants the programs share (mix ranges, response-time limits, input-variant ranges,
# the roll-back, Data-Maintenance, sizing and throughput rules) are defined once, in C++
# (common/workload/spec.h), and read here from spec.json beside this file: `bb-spec --json`'s
# output, which spec_json_test checks. The kit's file, not the run's: the post-processor needs
# no build, and a results directory is judged by the rules of the kit that reports it.
use strict;
use warnings;
use Exporter 'import';
use File::Basename qw(dirname);
use JSON::PP ();

our @EXPORT_OK = qw(
  @MIX_CODES @ALL_CODES @CE_CODES @MEE_CODES %NAME %MIX_RANGE %RT_LIMIT
  @OUTCOMES %OUTCOME_INDEX @VALID_OUTCOMES @ERROR_OUTCOMES %IS_VALID %IS_ERROR
  $DM_GAP_MIN_S $DM_GAP_MAX_S $DM_MAX_S $TO_ROLLBACK_P @TO_ROLLBACK_RANGE
  @INPUT_VARIANTS %INPUT_CHOICES %INPUT_TOKENS
  $MI_MIN_S $STEADY_RAMP_UP_S $MIN_CUSTOMERS $SCALE_FACTOR $INITIAL_TRADE_DAYS
  $TRTPS_LOW $TRTPS_HIGH
  $STEADY_LONG_WINDOW_S $STEADY_LONG_SLIDE_S $STEADY_LONG_TOL
  $STEADY_SHORT_WINDOW_S $STEADY_SHORT_SLIDE_S $STEADY_SHORT_TOL $STEADY_MIN_WINDOW_S
  $STEADY_FALSE_ALARM $STEADY_DISPERSION_BUCKET_S $SHARE_FALSE_ALARM
  $NOT_COMPARABLE
);

# The ten types of the transaction mix (clause 6.3.1), then Data-Maintenance and
# Trade-Cleanup, which are not part of the mix.
our @MIX_CODES = qw(BV CP MF MW SD TL TO TR TS TU);
our @ALL_CODES = (@MIX_CODES, qw(DM TC));
# Who sends what: the customer emulator drives eight mix types plus DM and TC; the market
# emulator drives Trade-Result and Market-Feed.
our @CE_CODES  = qw(BV CP MW SD TL TO TS TU DM TC);
our @MEE_CODES = qw(MF TR);

# spec.json, decoded; dies naming the file when it is missing or broken.
my $SPEC = do {
  my $file = dirname(__FILE__) . '/spec.json';
  open(my $fh, '<', $file) or die "BrokerBench::Spec: cannot read $file: $!\n";
  local $/;
  my $text = <$fh>;
  my $json = eval { JSON::PP->new->decode($text) }
    or die "BrokerBench::Spec: $file is not JSON: $@";
  $json->{format} == 1 or die "BrokerBench::Spec: $file: format '$json->{format}' is not 1\n";
  $json;
};

our %NAME = (
  BV => 'Broker-Volume',   CP => 'Customer-Position', MF => 'Market-Feed',
  MW => 'Market-Watch',    SD => 'Security-Detail',   TL => 'Trade-Lookup',
  TO => 'Trade-Order',     TR => 'Trade-Result',      TS => 'Trade-Status',
  TU => 'Trade-Update',    DM => 'Data-Maintenance',  TC => 'Trade-Cleanup',
);

# Required mix ranges in percent, inclusive (clause 6.3.1).
our %MIX_RANGE = %{ $SPEC->{mix_range_pct} };

# 90th-percentile response-time limits in seconds; the average must not exceed them either
# (clause 6.5.1).
our %RT_LIMIT = %{ $SPEC->{response_time_limit_s} };

# Outcomes of the mix log (postprocess/MIXLOG.md), in the writer's order.
our @OUTCOMES = qw(ok rollback warning invalid retry_exhausted db_error net_error timeout);
our %OUTCOME_INDEX = map { $OUTCOMES[$_] => $_ } 0 .. $#OUTCOMES;
# Valid transactions: the ones the spec counts in the mix and the response times (clause
# 6.3.2); Trade-Order's intended roll-back is a valid transaction.
our @VALID_OUTCOMES = qw(ok rollback warning);
# Errors: the harness or the network failed. Never a rollback (docs/ARCHITECTURE.md, "never
# conflate").
our @ERROR_OUTCOMES = qw(retry_exhausted db_error net_error timeout);
our %IS_VALID = map { $_ => 1 } @VALID_OUTCOMES;
our %IS_ERROR = map { $_ => 1 } @ERROR_OUTCOMES;

# Data-Maintenance: one every 60 s, consecutive ones 58..62 s apart, each done in 55 s
# (clause 6.3.3).
our $DM_GAP_MIN_S = $SPEC->{dm_gap_min_s};
our $DM_GAP_MAX_S = $SPEC->{dm_gap_max_s};
our $DM_MAX_S     = $SPEC->{dm_max_s};

# Trade-Order's roll_it_back is drawn as 1 in 101, and its share of the
# Trade-Orders in the MI must lie in this range, in percent, inclusive (clause 6.4.1).
our $TO_ROLLBACK_P = 1 / $SPEC->{rollback_one_in};
our @TO_ROLLBACK_RANGE = @{ $SPEC->{rollback_range_pct} };

# Input variants with a required share of their type's transactions, in percent, inclusive
# (clause 6.4.1): [code, token in the mix log's inputs column (MIXLOG.md), what it
# stands for, low, high]. The target is the middle of the range. Trade-Order's roll_it_back
# (token rb) is judged apart, from the outcome ($TO_ROLLBACK_P).
our @INPUT_VARIANTS = @{ $SPEC->{input_variants} };
# The choices of which a row carries exactly one token each (MIXLOG.md).
our %INPUT_CHOICES = (
  CP => [[qw(cust tax)]],
  MW => [[qw(industry watch acct)]],
  TL => [[qw(f1 f2 f3 f4)]],
  TO => [[qw(TMB TMS TLB TLS TSL)], [qw(q100 q200 q400 q800)]],
  TU => [[qw(f1 f2 f3)]],
);
# Every token a row of each code may carry; codes not named carry none.
our %INPUT_TOKENS;
$INPUT_TOKENS{ $_->[0] }{ $_->[1] } = 1 for @INPUT_VARIANTS;
for my $code (keys %INPUT_CHOICES) {
  $INPUT_TOKENS{$code}{$_} = 1 for map { @$_ } @{ $INPUT_CHOICES{$code} };
}
$INPUT_TOKENS{TO}{rb} = 1;

# Run structure and sizing (clauses 6.6.1, 2.6.1.2, 2.6.1.4, 2.6.1.5).
our $MI_MIN_S           = $SPEC->{mi_min_s};
# The ramp-up after which as many Trade-Results come back as Trade-Orders go out: a limit
# order triggers within one 900 s period of the price curve.
our $STEADY_RAMP_UP_S   = $SPEC->{steady_ramp_up_s};
our $MIN_CUSTOMERS      = $SPEC->{min_customers};
our $SCALE_FACTOR       = $SPEC->{scale_factor};
our $INITIAL_TRADE_DAYS = $SPEC->{initial_trade_days};

# Reported throughput: 80..100 % of nominal reports the measured figure, 100..102 % reports
# the nominal one, anything else is invalid (clauses 6.6.8, 6.7).
our $TRTPS_LOW  = $SPEC->{reported_low};
our $TRTPS_HIGH = $SPEC->{reported_high};

# Sustainable throughput (clause 6.6.3): 1-hour windows sliding by 10 minutes
# within 2 %, 10-minute windows sliding by 1 minute within 20 % of the reported throughput.
our $STEADY_LONG_WINDOW_S  = 3600;
our $STEADY_LONG_SLIDE_S   = 600;
our $STEADY_LONG_TOL       = 0.02;
our $STEADY_SHORT_WINDOW_S = 600;
our $STEADY_SHORT_SLIDE_S  = 60;
our $STEADY_SHORT_TOL      = 0.20;
# Our own rule for an MI shorter than 2 hours, which the spec has none for (see
# Throughput.pm, steadiness): the windows scaled down to no less than this, each judged against
# the noise of a steady run's count so that a steady run fails by chance with at most
# $STEADY_FALSE_ALARM probability over all its windows; the noise (dispersion) measured over
# buckets of this length.
our $STEADY_MIN_WINDOW_S        = 30;
our $STEADY_FALSE_ALARM         = 0.01;
our $STEADY_DISPERSION_BUCKET_S = 10;
# Likewise for the shares an MI shorter than 2 hours judges by widened ranges (the mix, the
# input variants, the roll-backs; Verdict.pm, widened_range): a run whose shares are drawn right
# fails any of them by chance with at most this probability.
our $SHARE_FALSE_ALARM = 0.01;

our $NOT_COMPARABLE =
  'These results are TPC-E-style: brokerbench follows the TPC-E rules but uses no TPC code '
  . 'or data, and its results are not comparable with published TPC-E results.';

1;
