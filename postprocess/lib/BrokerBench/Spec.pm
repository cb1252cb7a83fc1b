package BrokerBench::Spec;
# The TPC-E rules the report judges a run by, as data. Clause numbers are those of the TPC-E
# specification v1.14.0.
use strict;
use warnings;
use Exporter 'import';

our @EXPORT_OK = qw(
  @MIX_CODES @ALL_CODES @CE_CODES @MEE_CODES %NAME %MIX_RANGE %RT_LIMIT
  @OUTCOMES %OUTCOME_INDEX @VALID_OUTCOMES @ERROR_OUTCOMES %IS_VALID %IS_ERROR
  $DM_GAP_MIN_S $DM_GAP_MAX_S $DM_MAX_S $TO_ROLLBACK_P @TO_ROLLBACK_RANGE
  @INPUT_VARIANTS %INPUT_CHOICES %INPUT_TOKENS
  $MI_MIN_S $MIN_CUSTOMERS $SCALE_FACTOR $INITIAL_TRADE_DAYS
  $TRTPS_LOW $TRTPS_HIGH
  $STEADY_LONG_WINDOW_S $STEADY_LONG_SLIDE_S $STEADY_LONG_TOL
  $STEADY_SHORT_WINDOW_S $STEADY_SHORT_SLIDE_S $STEADY_SHORT_TOL $STEADY_MIN_WINDOW_S
  $STEADY_FALSE_ALARM $STEADY_DISPERSION_BUCKET_S
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

our %NAME = (
  BV => 'Broker-Volume',   CP => 'Customer-Position', MF => 'Market-Feed',
  MW => 'Market-Watch',    SD => 'Security-Detail',   TL => 'Trade-Lookup',
  TO => 'Trade-Order',     TR => 'Trade-Result',      TS => 'Trade-Status',
  TU => 'Trade-Update',    DM => 'Data-Maintenance',  TC => 'Trade-Cleanup',
);

# Required mix ranges in percent, inclusive (clause 6.3.1).
our %MIX_RANGE = (
  BV => [4.875, 4.925],  CP => [12.935, 13.065], MF => [0.995, 1.005],
  MW => [17.910, 18.090], SD => [13.930, 14.070], TL => [7.960, 8.040],
  TO => [10.049, 10.151], TR => [9.950, 10.050], TS => [18.905, 19.095],
  TU => [1.990, 2.010],
);

# 90th-percentile response-time limits in seconds; the average must not exceed them either
# (clause 6.5.1).
our %RT_LIMIT = (
  BV => 3, CP => 3, MF => 2, MW => 3, SD => 3, TL => 3, TO => 2, TR => 2, TS => 1, TU => 3,
);

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
our $DM_GAP_MIN_S = 58;
our $DM_GAP_MAX_S = 62;
our $DM_MAX_S     = 55;

# Trade-Order's roll_it_back is drawn as 1 in 101 (clause 6.4.1), and its share of the
# Trade-Orders in the MI must lie in this range, in percent, inclusive (clause 6.4.1).
our $TO_ROLLBACK_P = 1 / 101;
our @TO_ROLLBACK_RANGE = (0.94, 1.04);

# Input variants with a required share of their type's transactions, in percent, inclusive
# (clause 6.4.1): [code, token in the mix log's inputs column (MIXLOG.md), what it
# stands for, low, high]. The target is the middle of the range. Trade-Order's roll_it_back
# (token rb) is judged apart, from the outcome ($TO_ROLLBACK_P).
our @INPUT_VARIANTS = (
  [CP => 'tax',      'by_tax_id',                     48,   52],
  [CP => 'hist',     'get_history',                   48,   52],
  [MW => 'industry', 'by industry',                   4.5,  5.5],
  [MW => 'watch',    'by watch list',                 57,   63],
  [MW => 'acct',     'by account',                    33,   37],
  [SD => 'lob',      'access_lob',                    0.9,  1.1],
  [TL => 'f1',       'frame 1',                       28.5, 31.5],
  [TL => 'f2',       'frame 2',                       28.5, 31.5],
  [TL => 'f3',       'frame 3',                       28.5, 31.5],
  [TL => 'f4',       'frame 4',                       9.5,  10.5],
  [TO => 'tp',       'third-party executor',          9.5,  10.5],
  [TO => 'name',     'security by company name',      38,   42],
  [TO => 'margin',   'type_is_margin',                7.5,  8.5],
  [TO => 'lifo',     'is_lifo',                       33,   37],
  [TO => 'TMB',      'market buy (TMB)',              29.7, 30.3],
  [TO => 'TMS',      'market sell (TMS)',             29.7, 30.3],
  [TO => 'TLB',      'limit buy (TLB)',               19.8, 20.2],
  [TO => 'TLS',      'limit sell (TLS)',              9.9,  10.1],
  [TO => 'TSL',      'stop-loss (TSL)',               9.9,  10.1],
  [TO => 'q100',     'trade_qty 100',                 24,   26],
  [TO => 'q200',     'trade_qty 200',                 24,   26],
  [TO => 'q400',     'trade_qty 400',                 24,   26],
  [TO => 'q800',     'trade_qty 800',                 24,   26],
  [TU => 'f1',       'frame 1',                       31,   35],
  [TU => 'f2',       'frame 2',                       31,   35],
  [TU => 'f3',       'frame 3',                       32,   36],
);
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
our $MI_MIN_S           = 7200;
our $MIN_CUSTOMERS      = 5000;
our $SCALE_FACTOR       = 500;
our $INITIAL_TRADE_DAYS = 300;

# Reported throughput: 80..100 % of nominal reports the measured figure, 100..102 % reports
# the nominal one, anything else is invalid (clauses 6.6.8, 6.7).
our $TRTPS_LOW  = 0.80;
our $TRTPS_HIGH = 1.02;

# Sustainable throughput (clause 6.6.3): 1-hour windows sliding by 10 minutes
# within 2 %, 10-minute windows sliding by 1 minute within 20 % of the reported throughput.
our $STEADY_LONG_WINDOW_S  = 3600;
our $STEADY_LONG_SLIDE_S   = 600;
our $STEADY_LONG_TOL       = 0.02;
our $STEADY_SHORT_WINDOW_S = 600;
our $STEADY_SHORT_SLIDE_S  = 60;
our $STEADY_SHORT_TOL      = 0.20;
# Our own rule for an MI shorter than 2 hours, which the spec has none for (see
# Analysis.pm, steadiness): the windows scaled down to no less than this, each judged against
# the noise of a steady run's count so that a steady run fails by chance with at most
# $STEADY_FALSE_ALARM probability over all its windows; the noise (dispersion) measured over
# buckets of this length.
our $STEADY_MIN_WINDOW_S        = 30;
our $STEADY_FALSE_ALARM         = 0.01;
our $STEADY_DISPERSION_BUCKET_S = 10;

our $NOT_COMPARABLE =
  'These results are TPC-E-style: brokerbench follows the TPC-E rules but uses no TPC code '
  . 'or data, and its results are not comparable with published TPC-E results.';

1;
