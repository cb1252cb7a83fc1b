// bb-spec: prints the TPC-E constants of common/workload/spec.h, so that the Perl
// post-processor and the bash controller read them instead of keeping copies.
//
//   bb-spec --json                                  every constant as one JSON object
//   bb-spec --pacing USERS CUSTOMERS SCALE_FACTOR   the auto pacing in seconds (3 decimals)
#include <charconv>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "common/workload/mix.h"
#include "common/workload/spec.h"

namespace {

namespace wl = bb::workload;
namespace spec = bb::workload::spec;

constexpr std::string_view kUsage = R"(Usage: bb-spec --json
       bb-spec --pacing USERS CUSTOMERS SCALE_FACTOR

Prints the TPC-E constants brokerbench judges and paces runs by (common/workload/spec.h).
  --json       every constant as one JSON object (postprocess/lib/BrokerBench/spec.json is
               this output; spec_json_test checks that it is)
  --pacing     the interval in seconds from one request's start to the next that makes USERS
               users offer the nominal throughput of CUSTOMERS at SCALE_FACTOR (clause 6.7)
)";

// Our own strings only (codes, tokens, descriptions): no escaping needed, but refuse any
// that would need it rather than write broken JSON.
std::string Quoted(std::string_view s) {
  for (char c : s) {
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) {
      throw std::invalid_argument(fmt::format("bb-spec: cannot quote '{}'", s));
    }
  }
  return fmt::format("\"{}\"", s);
}

std::string Json() {
  std::string out = "{\n  \"format\": 1,\n  \"source\": \"common/workload/spec.h\",\n";
  out += fmt::format("  \"deck_size\": {},\n  \"deck\": {{", wl::kDeckSize);
  for (size_t i = 0; i < wl::kDeckWeights.size(); ++i) {
    out += fmt::format("{}{}: {}", i ? ", " : "", Quoted(wl::TransactionCode(wl::kDeckWeights[i].type)),
                       wl::kDeckWeights[i].cards);
  }
  out += "},\n  \"mix_range_pct\": {\n";
  for (size_t i = 0; i < spec::kMixRanges.size(); ++i) {
    const auto& r = spec::kMixRanges[i];
    out += fmt::format("    {}: [{}, {}]{}\n", Quoted(wl::TransactionCode(r.type)), r.low_pct,
                       r.high_pct, i + 1 < spec::kMixRanges.size() ? "," : "");
  }
  out += "  },\n  \"response_time_limit_s\": {";
  for (size_t i = 0; i < spec::kResponseTimeLimits.size(); ++i) {
    const auto& l = spec::kResponseTimeLimits[i];
    out += fmt::format("{}{}: {}", i ? ", " : "", Quoted(wl::TransactionCode(l.type)), l.seconds);
  }
  out += "},\n  \"input_variants\": [\n";
  for (size_t i = 0; i < spec::kInputVariantRanges.size(); ++i) {
    const auto& v = spec::kInputVariantRanges[i];
    out += fmt::format("    [{}, {}, {}, {}, {}]{}\n", Quoted(wl::TransactionCode(v.type)),
                       Quoted(v.token), Quoted(v.what), v.low_pct, v.high_pct,
                       i + 1 < spec::kInputVariantRanges.size() ? "," : "");
  }
  out += "  ],\n";
  out += fmt::format("  \"rollback_one_in\": {},\n", spec::kRollbackOneIn);
  out += fmt::format("  \"rollback_range_pct\": [{}, {}],\n", spec::kRollbackLowPct,
                     spec::kRollbackHighPct);
  out += fmt::format("  \"dm_interval_s\": {},\n", spec::kDmIntervalSeconds);
  out += fmt::format("  \"dm_gap_min_s\": {},\n", spec::kDmGapMinSeconds);
  out += fmt::format("  \"dm_gap_max_s\": {},\n", spec::kDmGapMaxSeconds);
  out += fmt::format("  \"dm_max_s\": {},\n", spec::kDmMaxSeconds);
  out += fmt::format("  \"mi_min_s\": {},\n", spec::kMeasurementIntervalMinSeconds);
  out += fmt::format("  \"steady_ramp_up_s\": {},\n", spec::kSteadyRampUpSeconds);
  out += fmt::format("  \"min_customers\": {},\n", spec::kMinCustomers);
  out += fmt::format("  \"scale_factor\": {},\n", spec::kScaleFactor);
  out += fmt::format("  \"initial_trade_days\": {},\n", spec::kInitialTradeDays);
  out += fmt::format("  \"reported_low\": {},\n", spec::kReportedLow);
  out += fmt::format("  \"reported_high\": {},\n", spec::kReportedHigh);
  out += fmt::format("  \"customer_transactions_per_trade_result\": {}\n}}\n",
                     spec::CustomerTransactionsPerTradeResult());
  return out;
}

// A whole number in [1, 10^12] for the argument NAME, or -1 after saying why.
long long Whole(std::string_view name, std::string_view text) {
  long long v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 1 || v > 1'000'000'000'000) {
    fmt::print(stderr, "bb-spec: --pacing: {} '{}' is not a whole number from 1 to 10^12\n",
               name, text);
    return -1;
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view mode = argc > 1 ? argv[1] : "";
  if (mode == "-h" || mode == "--help") {
    fmt::print("{}", kUsage);
    return 0;
  }
  if (mode == "--json" && argc == 2) {
    fmt::print("{}", Json());
    return 0;
  }
  if (mode == "--pacing" && argc == 5) {
    const long long users = Whole("USERS", argv[2]);
    const long long customers = Whole("CUSTOMERS", argv[3]);
    const long long sf = Whole("SCALE_FACTOR", argv[4]);
    if (users < 0 || customers < 0 || sf < 0) return 2;
    fmt::print("{:.3f}\n", spec::AutoPacingSeconds(users, customers, sf));
    return 0;
  }
  fmt::print(stderr, "bb-spec: {}\n{}", mode.empty() ? "no mode given" :
             fmt::format("'{}' with {} argument(s) is not a mode (see below)", mode, argc - 2),
             kUsage);
  return 2;
}
