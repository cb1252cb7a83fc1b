// Shared by the tests of the input variants' shares (inputs_variants_test.cpp here, and
// tests/ce_variants_test.cpp on the customer emulator's mix logs): a sequence of transactions
// with their input variants (the mix log's inputs column) cut into windows of a number of
// Trade-Orders, each window judged by clause 6.4.1's ranges as written (spec.h), the roll-back
// share among them. Only tests use it.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/workload/mix.h"
#include "common/workload/spec.h"

namespace bb::workload::variant_test {

// One transaction: its type and its input variant's tokens ("TLB q200 name lifo").
struct Sent {
  TransactionType type;
  std::string inputs;
};

// The shares of one window that fall outside clause 6.4.1's ranges, as text naming the type,
// the token, the share and the range; empty when every share is inside.
inline std::vector<std::string> MissedRanges(const std::vector<Sent>& sent, size_t begin,
                                             size_t end) {
  std::map<TransactionType, int64_t> count;
  std::map<std::pair<TransactionType, std::string>, int64_t> tokens;
  for (size_t i = begin; i < end; ++i) {
    ++count[sent[i].type];
    const std::string& text = sent[i].inputs;
    for (size_t at = 0; at < text.size();) {
      const size_t space = text.find(' ', at);
      const size_t stop = space == std::string::npos ? text.size() : space;
      ++tokens[{sent[i].type, text.substr(at, stop - at)}];
      at = stop + 1;
    }
  }
  std::vector<std::string> missed;
  const auto judge = [&](TransactionType type, const std::string& token, double low, double high) {
    const int64_t n = count[type];
    const int64_t k = tokens[{type, token}];
    const double pct = n ? 100.0 * static_cast<double>(k) / static_cast<double>(n) : 0;
    if (n == 0 || pct < low - 1e-9 || pct > high + 1e-9) {
      missed.push_back(fmt::format("{} {}: {:.3f} % ({} of {}), outside {}-{} %",
                                   TransactionCode(type), token, pct, k, n, low, high));
    }
  };
  for (const spec::InputVariantRange& r : spec::kInputVariantRanges) {
    judge(r.type, std::string(r.token), r.low_pct, r.high_pct);
  }
  judge(TransactionType::kTradeOrder, "rb", spec::kRollbackLowPct, spec::kRollbackHighPct);
  return missed;
}

// The positions of the Trade-Orders in `sent`.
inline std::vector<size_t> TradeOrderPositions(const std::vector<Sent>& sent) {
  std::vector<size_t> at;
  for (size_t i = 0; i < sent.size(); ++i) {
    if (sent[i].type == TransactionType::kTradeOrder) at.push_back(i);
  }
  return at;
}

// Judges every whole window of `trade_orders` Trade-Orders from the `offset`-th one (a window
// runs from its first Trade-Order to the next window's first, the other types between them
// included); returns the misses of each window, named by its first Trade-Order, and the number
// of windows judged.
inline std::pair<std::vector<std::string>, int> JudgeWindows(const std::vector<Sent>& sent,
                                                             size_t trade_orders, size_t offset) {
  const std::vector<size_t> at = TradeOrderPositions(sent);
  std::vector<std::string> misses;
  int windows = 0;
  for (size_t first = offset; first + trade_orders < at.size(); first += trade_orders) {
    ++windows;
    for (const std::string& m : MissedRanges(sent, at[first], at[first + trade_orders])) {
      misses.push_back(fmt::format("window from Trade-Order {}: {}", first, m));
    }
  }
  return {misses, windows};
}

// The Trade-Orders of a 2-hour measurement interval at 1000 customers and the nominal rate:
// 2 TRTPS for 7 200 s, one Trade-Result for every Trade-Order that does not roll back
// (14 400 x 101 / 100).
inline constexpr size_t kTwoHourTradeOrders = 14'545;

}  // namespace bb::workload::variant_test
