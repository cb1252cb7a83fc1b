// The TPC-E rules a run is judged by and paced from, as data, defined here once. The customer
// emulator's deck is in mix.h (its cards are the mix); everything else the report judges
// against is here, and `bb-spec --json` (spec/main.cpp) prints it for the post-processor
// (postprocess/lib/BrokerBench/spec.json, checked against this file by spec_json_test) and
// the controller (`bb-spec --pacing`). Clause numbers are those of the TPC-E specification
// v1.14.0.
#pragma once

#include <array>
#include <string_view>

#include "common/workload/mix.h"
#include "common/workload/price_curve.h"

namespace bb::workload::spec {

using TT = TransactionType;

// Required mix ranges in percent of all ten types, inclusive (clause 6.3.1). Their middles are
// the deck's shares scaled by the customer emulator's 89 % (spec_test checks it), and 10 % and
// 1 % for the market emulator's Trade-Result and Market-Feed.
struct MixRange {
  TT type;
  double low_pct;
  double high_pct;
};
inline constexpr std::array<MixRange, 10> kMixRanges = {{
    {TT::kBrokerVolume, 4.875, 4.925},
    {TT::kCustomerPosition, 12.935, 13.065},
    {TT::kMarketFeed, 0.995, 1.005},
    {TT::kMarketWatch, 17.910, 18.090},
    {TT::kSecurityDetail, 13.930, 14.070},
    {TT::kTradeLookup, 7.960, 8.040},
    {TT::kTradeOrder, 10.049, 10.151},
    {TT::kTradeResult, 9.950, 10.050},
    {TT::kTradeStatus, 18.905, 19.095},
    {TT::kTradeUpdate, 1.990, 2.010},
}};
// The customer emulator's share of the mix: all but Trade-Result (10 %) and Market-Feed (1 %).
inline constexpr double kCustomerEmulatorShare = 0.89;

// 90th-percentile response-time limits in seconds; the average must not exceed them either
// (clause 6.5.1).
struct ResponseTimeLimit {
  TT type;
  int seconds;
};
inline constexpr std::array<ResponseTimeLimit, 10> kResponseTimeLimits = {{
    {TT::kBrokerVolume, 3},
    {TT::kCustomerPosition, 3},
    {TT::kMarketFeed, 2},
    {TT::kMarketWatch, 3},
    {TT::kSecurityDetail, 3},
    {TT::kTradeLookup, 3},
    {TT::kTradeOrder, 2},
    {TT::kTradeResult, 2},
    {TT::kTradeStatus, 1},
    {TT::kTradeUpdate, 3},
}};

// Input variants with a required share of their type's transactions, in percent, inclusive
// (clause 6.4.1): the token the mix log's inputs column carries for it (postprocess/MIXLOG.md),
// what it stands for, and the range; the generator (inputs.cpp) aims at the middle.
// Trade-Order's roll_it_back (token rb) is judged apart, from the outcome (below).
struct InputVariantRange {
  TT type;
  std::string_view token;
  std::string_view what;
  double low_pct;
  double high_pct;
};
inline constexpr std::array<InputVariantRange, 26> kInputVariantRanges = {{
    {TT::kCustomerPosition, "tax", "by_tax_id", 48, 52},
    {TT::kCustomerPosition, "hist", "get_history", 48, 52},
    {TT::kMarketWatch, "industry", "by industry", 4.5, 5.5},
    {TT::kMarketWatch, "watch", "by watch list", 57, 63},
    {TT::kMarketWatch, "acct", "by account", 33, 37},
    {TT::kSecurityDetail, "lob", "access_lob", 0.9, 1.1},
    {TT::kTradeLookup, "f1", "frame 1", 28.5, 31.5},
    {TT::kTradeLookup, "f2", "frame 2", 28.5, 31.5},
    {TT::kTradeLookup, "f3", "frame 3", 28.5, 31.5},
    {TT::kTradeLookup, "f4", "frame 4", 9.5, 10.5},
    {TT::kTradeOrder, "tp", "third-party executor", 9.5, 10.5},
    {TT::kTradeOrder, "name", "security by company name", 38, 42},
    {TT::kTradeOrder, "margin", "type_is_margin", 7.5, 8.5},
    {TT::kTradeOrder, "lifo", "is_lifo", 33, 37},
    {TT::kTradeOrder, "TMB", "market buy (TMB)", 29.7, 30.3},
    {TT::kTradeOrder, "TMS", "market sell (TMS)", 29.7, 30.3},
    {TT::kTradeOrder, "TLB", "limit buy (TLB)", 19.8, 20.2},
    {TT::kTradeOrder, "TLS", "limit sell (TLS)", 9.9, 10.1},
    {TT::kTradeOrder, "TSL", "stop-loss (TSL)", 9.9, 10.1},
    {TT::kTradeOrder, "q100", "trade_qty 100", 24, 26},
    {TT::kTradeOrder, "q200", "trade_qty 200", 24, 26},
    {TT::kTradeOrder, "q400", "trade_qty 400", 24, 26},
    {TT::kTradeOrder, "q800", "trade_qty 800", 24, 26},
    {TT::kTradeUpdate, "f1", "frame 1", 31, 35},
    {TT::kTradeUpdate, "f2", "frame 2", 31, 35},
    {TT::kTradeUpdate, "f3", "frame 3", 32, 36},
}};

// Trade-Order's roll_it_back is drawn as 1 in 101; its share of the valid Trade-Orders in the
// measurement interval must lie in this range, in percent, inclusive (clause 6.4.1).
inline constexpr int kRollbackOneIn = 101;
inline constexpr double kRollbackLowPct = 0.94;
inline constexpr double kRollbackHighPct = 1.04;

// Data-Maintenance: one every 60 s, consecutive ones 58..62 s apart, each done in 55 s
// (clause 6.3.3).
inline constexpr int kDmIntervalSeconds = 60;
inline constexpr int kDmGapMinSeconds = 58;
inline constexpr int kDmGapMaxSeconds = 62;
inline constexpr int kDmMaxSeconds = 55;

// Run structure and sizing (clauses 6.6.1, 2.6.1.2, 2.6.1.4, 2.6.1.5).
inline constexpr int kMeasurementIntervalMinSeconds = 7200;
inline constexpr int kMinCustomers = 5000;
inline constexpr int kScaleFactor = 500;
inline constexpr int kInitialTradeDays = 300;
// The ramp-up that steady state needs (clause 6.6: the measurement interval lies in it): a
// limit order triggers within one period of the price curve (price_curve.h), so only once the
// users have run this long do as many Trade-Results come back as Trade-Orders go out.
inline constexpr int kSteadyRampUpSeconds = static_cast<int>(kPricePeriodMs / 1000);

// Reported throughput: 80..100 % of nominal reports the measured figure, 100..102 % the
// nominal one, anything else is invalid (clauses 6.6.8, 6.7).
inline constexpr double kReportedLow = 0.80;
inline constexpr double kReportedHigh = 1.02;

// Nominal throughput (clause 6.7): customers / scale factor Trade-Results a second.
double NominalTrtps(long long customers, long long scale_factor);
// Customer transactions per Trade-Result: one Trade-Order in 890 / 101 customer transactions
// (the deck, mix.h), of which 1 in 101 rolls back and makes no Trade-Result: 8.9.
double CustomerTransactionsPerTradeResult();
// The interval from one request's start to the next that makes USERS users offer the nominal
// throughput (the emulator paces start to start, so response times do not slow the rate).
double AutoPacingSeconds(long long users, long long customers, long long scale_factor);

}  // namespace bb::workload::spec
