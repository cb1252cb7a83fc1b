// Shared by the input generator's tests (inputs_test.cpp, inputs_trades_test.cpp,
// inputs_properties_test.cpp): the default sizing, the reverse look-ups of the loaded world that
// only a test needs, and the checks several tests make.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <new>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <gtest/gtest.h>

#include "common/protocol/codec.h"
#include "common/workload/calendar.h"
#include "common/workload/ids.h"
#include "common/workload/industries.h"
#include "common/workload/inputs.h"
#include "common/workload/market.h"
#include "common/workload/person.h"
#include "common/workload/tax_rates.h"
#include "common/workload/zip_codes.h"

namespace bb::workload::inputs_test {

namespace pb = bb::protocol;

inline const Sizing kSizing{};  // 5 000 customers, SF 500, ITD 300

// Expects hits/total, in percent, inside the spec's required range [low, high].
inline void ExpectPercentIn(const std::string& what, int64_t hits, int64_t total, double low,
                            double high) {
  const double pct = 100.0 * static_cast<double>(hits) / static_cast<double>(total);
  EXPECT_GE(pct, low) << what << ": " << hits << " of " << total;
  EXPECT_LE(pct, high) << what << ": " << hits << " of " << total;
}

// Reverse look-ups that only the test needs (the driver never maps names back to ids).
class World {
 public:
  explicit World(const Sizing& sizing) : sizing_(sizing), model_(sizing), market_(sizing) {
    for (int64_t n = 1; n <= sizing.customers; ++n) {
      const int64_t c_id = CustomerIdFromOrdinal(n);
      customer_of_tax_id_.emplace(TaxId(c_id), c_id);
    }
    for (int64_t i = 0; i < market_.companies(); ++i) company_of_name_[market_.CompanyName(i)] = i;
    for (int64_t b = 0; b < sizing.Brokers(); ++b) {
      broker_names_.insert(FullNameWithInitial(BrokerPersonId(BrokerId(b))));
    }
  }

  const Sizing& sizing() const { return sizing_; }
  const CustomerModel& model() const { return model_; }
  const Market& market() const { return market_; }

  bool IsCustomer(int64_t c_id) const {
    return CustomerOrdinal(c_id) >= 1 && CustomerOrdinal(c_id) <= sizing_.customers;
  }
  // The owner exists and the slot is one of its accounts.
  bool IsAccount(int64_t ca_id) const {
    const int64_t owner = AccountOwner(ca_id);
    return IsCustomer(owner) && AccountSlot(ca_id) < model_.AccountCount(owner);
  }
  std::optional<int64_t> CustomerOfTaxId(const std::string& tax_id) const {
    const auto it = customer_of_tax_id_.find(tax_id);
    if (it == customer_of_tax_id_.end()) return std::nullopt;
    return it->second;
  }
  bool IsBrokerName(const std::string& name) const { return broker_names_.contains(name); }
  // The security a Trade-Order names, by symbol or by company name and issue.
  std::optional<int64_t> SecurityOf(const pb::TradeOrderInput& in) const {
    if (!in.symbol.empty()) {
      if (!in.co_name.empty() || !in.issue.empty()) return std::nullopt;
      return market_.SecurityIndex(in.symbol);
    }
    const auto it = company_of_name_.find(in.co_name);
    if (it == company_of_name_.end()) return std::nullopt;
    for (int k = 0; k < market_.CompanyIssueCount(it->second); ++k) {
      const auto issue = static_cast<Issue>(k);
      if (IssueName(issue) == in.issue) return market_.CompanySecurity(it->second, issue);
    }
    return std::nullopt;
  }
  bool IsDivisionTaxRate(const std::string& tx_id) const {
    for (int d = 0; d < kDivisionCount; ++d) {
      for (const TaxRate& r : TaxRates().OfDivision(d)) {
        if (r.id == tx_id) return true;
      }
    }
    return false;
  }

 private:
  Sizing sizing_;
  CustomerModel model_;
  Market market_;
  std::unordered_map<std::string, int64_t> customer_of_tax_id_;
  std::unordered_map<std::string, int64_t> company_of_name_;
  std::unordered_set<std::string> broker_names_;
};

inline const World& DefaultWorld() {
  static const World world(kSizing);
  return world;
}

// A start timestamp of TL/TU frames 2-4: inside the initial trades and at least the frame's
// back-off before their end.
inline void ExpectStartTime(int64_t start, int64_t back_off_ms, const std::string& what) {
  const int64_t latest = kSizing.initial_trade_days * kMillisPerBusinessDay - back_off_ms;
  EXPECT_GE(start, WorkTimeToTimestamp(1).micros) << what;
  EXPECT_LE(start, WorkTimeToTimestamp(latest).micros) << what;
}

inline void ExpectLoadedTradeIds(const std::vector<int64_t>& ids, const std::string& what) {
  ASSERT_EQ(ids.size(), 20u) << what;
  std::set<int64_t> distinct(ids.begin(), ids.end());
  EXPECT_EQ(distinct.size(), ids.size()) << what;
  for (const int64_t id : ids) {
    const int64_t ordinal = TradeOrdinal(id);
    ASSERT_GE(ordinal, 1) << what;
    ASSERT_LE(ordinal, MaxInitialTradeOrdinal(kSizing)) << what;
    ASSERT_FALSE(IsAbortedTradeOrdinal(ordinal)) << what << " drew aborted ordinal " << ordinal;
    ASSERT_TRUE(IsLoadedTradeOrdinal(kSizing, ordinal)) << what;
  }
}

}  // namespace bb::workload::inputs_test
