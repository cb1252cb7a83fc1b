// What the generated data says: trade ids, the reference's distributions, and trades, holdings
// and market tables consistent with each other.
#include "loader/generator_test_support.h"

namespace bb::loader::generator_test {

TEST_F(GeneratorTest, TradeIdsFillTheLoadUnitBlockSkippingAbortedOrdinals) {
  std::vector<int64_t> ids;
  for (const auto& f : data().Fields(Table::kTrade)) ids.push_back(std::stoll(std::string(f[0])));
  std::sort(ids.begin(), ids.end());
  const auto range = workload::TradeOrdinalsOfLoadUnit(kSizing, 0);
  ASSERT_FALSE(ids.empty());
  EXPECT_EQ(ids.front(), workload::TradeIdFromOrdinal(range.first));
  EXPECT_LE(ids.back(), workload::TradeIdFromOrdinal(range.last));
  for (int64_t id : ids) {
    EXPECT_FALSE(workload::IsAbortedTradeOrdinal(workload::TradeOrdinal(id))) << id;
  }
  // Every ordinal up to the last one is used unless aborted.
  const int64_t used = workload::TradeOrdinal(ids.back()) - range.first + 1;
  EXPECT_EQ(static_cast<int64_t>(ids.size()), used - (used + 50) / 101);
}

TEST_F(GeneratorTest, DistributionsFollowTheReference) {
  const auto trades = data().Fields(Table::kTrade);
  const double n = static_cast<double>(trades.size());
  std::map<std::string, int> types;
  int lifo = 0;
  int buys = 0;
  int cash_buys = 0;
  std::map<std::string, int> quantities;
  for (const auto& f : trades) {
    ++types[std::string(f[3])];
    lifo += f[14] == "t";
    const bool sell = f[3] == "TMS" || f[3] == "TLS" || f[3] == "TSL";
    if (sell) {
      EXPECT_EQ(f[4], "t") << "every sell is a cash trade";
    } else {
      ++buys;
      cash_buys += f[4] == "t";
    }
    ++quantities[std::string(f[6])];
  }
  // ±1 percentage point: several standard deviations at 115 200 trades.
  EXPECT_NEAR(types["TMB"] / n, 0.30, 0.01);
  EXPECT_NEAR(types["TMS"] / n, 0.30, 0.01);
  EXPECT_NEAR(types["TLB"] / n, 0.20, 0.01);
  EXPECT_NEAR(types["TLS"] / n, 0.10, 0.01);
  EXPECT_NEAR(types["TSL"] / n, 0.10, 0.01);
  EXPECT_NEAR((types["TMB"] + types["TMS"]) / n, 0.60, 0.01);
  EXPECT_NEAR(lifo / n, 0.35, 0.01);
  EXPECT_NEAR(static_cast<double>(cash_buys) / buys, 0.84, 0.01);
  EXPECT_EQ(quantities.size(), 4u);
  for (const char* q : {"100", "200", "400", "800"}) EXPECT_NEAR(quantities[q] / n, 0.25, 0.01);

  // Account permissions: 60 / 38 / 2 % of accounts with 1 / 2 / 3 rows (±2.5, ±2.5, ±1).
  std::map<std::string, int> per_account;
  for (const auto& f : data().Fields(Table::kAccountPermission)) ++per_account[std::string(f[0])];
  std::array<int, 4> by_count{};
  for (const auto& [account, count] : per_account)
    ++by_count[static_cast<size_t>(std::min(count, 3))];
  EXPECT_EQ(per_account.size(), 5000u);
  EXPECT_NEAR(by_count[1] / 5000.0, 0.60, 0.025);
  EXPECT_NEAR(by_count[2] / 5000.0, 0.38, 0.025);
  EXPECT_NEAR(by_count[3] / 5000.0, 0.02, 0.01);

  // Watch items: 50..150 per list, uniform (mean 100).
  std::map<std::string, int> per_list;
  for (const auto& f : data().Fields(Table::kWatchItem)) ++per_list[std::string(f[0])];
  EXPECT_EQ(per_list.size(), 1000u);
  int below_75 = 0;
  for (const auto& [list, count] : per_list) {
    EXPECT_GE(count, 50);
    EXPECT_LE(count, 150);
    below_75 += count < 75;
  }
  EXPECT_NEAR(below_75 / 1000.0, 25.0 / 101.0, 0.05);

  // Tier-weighted selection: tier-3 accounts trade about 3× as often as tier-1 accounts
  // per customer (clause 1.4.2.1): compare trades per customer of tier 3 and tier 1.
  std::map<std::string, std::string> tier_of_customer;
  for (const auto& f : data().Fields(Table::kCustomer)) tier_of_customer[std::string(f[0])] = f[7];
  std::map<std::string, std::string> owner;
  for (const auto& f : data().Fields(Table::kCustomerAccount)) owner[std::string(f[0])] = f[2];
  std::map<std::string, int> trades_by_tier;
  for (const auto& f : trades) ++trades_by_tier[tier_of_customer[owner[std::string(f[8])]]];
  // 200 customers in tiers 1 and 3 each: 10 % and 30 % of the draws.
  EXPECT_NEAR(trades_by_tier["1"] / n, 0.10, 0.01);
  EXPECT_NEAR(trades_by_tier["3"] / n, 0.30, 0.01);

  // Trade history: 2 rows for market orders, 3 for limit orders, in time order.
  std::unordered_map<std::string, std::vector<std::pair<std::string, std::string>>> history;
  for (const auto& f : data().Fields(Table::kTradeHistory)) {
    history[std::string(f[0])].emplace_back(std::string(f[2]), std::string(f[1]));
  }
  int bad = 0;
  for (const auto& f : trades) {
    auto h = history[std::string(f[0])];
    const bool market = f[3] == "TMB" || f[3] == "TMS";
    std::map<std::string, std::string> at(h.begin(), h.end());
    const bool ok = h.size() == (market ? 2u : 3u) && at.contains("SBMT") && at["CMPT"] == f[1] &&
                    at["SBMT"] <= at["CMPT"] && (market || at["PNDG"] <= at["SBMT"]);
    if (!ok && ++bad <= 3) ADD_FAILURE() << "trade history of " << f[0];
  }
  EXPECT_EQ(bad, 0);
}

TEST_F(GeneratorTest, TradesAreConsistent) {
  // Lookups from the other tables.
  std::map<std::string, std::pair<int, std::string>> account;  // ca_id -> (tax status, broker)
  std::map<std::string, std::string> owner;
  for (const auto& f : data().Fields(Table::kCustomerAccount)) {
    account[std::string(f[0])] = {std::stoi(std::string(f[4])), std::string(f[1])};
    owner[std::string(f[0])] = f[2];
  }
  std::map<std::string, std::string> tier;
  for (const auto& f : data().Fields(Table::kCustomer)) tier[std::string(f[0])] = f[7];
  std::map<std::string, std::string> exchange_of;
  for (const auto& f : data().Fields(Table::kSecurity)) exchange_of[std::string(f[0])] = f[4];
  std::map<std::string, std::pair<std::string, std::string>> commission;  // key -> rate
  std::vector<std::vector<std::string_view>> rates = data().Fields(Table::kCommissionRate);
  std::map<std::string, std::string> charge;
  for (const auto& f : data().Fields(Table::kCharge)) {
    charge[std::string(f[0]) + "/" + std::string(f[1])] = f[2];
  }
  auto cents = [](std::string_view v) {
    return static_cast<int64_t>(std::llround(std::stod(std::string(v)) * 100));
  };
  auto rate_for = [&](std::string_view t, std::string_view tt, std::string_view ex, int qty) {
    for (const auto& f : rates) {
      if (f[0] == t && f[1] == tt && f[2] == ex && std::stoi(std::string(f[3])) <= qty &&
          qty <= std::stoi(std::string(f[4]))) {
        return cents(f[5]);  // hundredths of a percent
      }
    }
    ADD_FAILURE() << "no commission rate";
    return int64_t{0};
  };

  std::unordered_map<std::string, std::vector<std::string_view>> settlement;
  for (const auto& f : data().Fields(Table::kSettlement)) settlement[std::string(f[0])] = f;
  std::unordered_map<std::string, std::vector<std::string_view>> cash;
  for (const auto& f : data().Fields(Table::kCashTransaction)) cash[std::string(f[0])] = f;

  std::map<std::string, std::pair<int64_t, int64_t>> broker_sums;  // count, commission
  int bad = 0;
  auto fail = [&bad](const std::string& what) {
    if (++bad <= 5) ADD_FAILURE() << what;
  };
  for (const auto& f : data().Fields(Table::kTrade)) {
    const std::string t_id(f[0]);
    const std::string ca(f[8]);
    const auto [tax_status, broker] = account.at(ca);
    const std::string c_tier = tier.at(owner.at(ca));
    const bool sell = f[3] == "TMS" || f[3] == "TLS" || f[3] == "TSL";
    const int qty = std::stoi(std::string(f[6]));
    const int64_t price = cents(f[10]);
    const int64_t chrg = cents(f[11]);
    const int64_t comm = cents(f[12]);
    const int64_t tax = cents(f[13]);
    broker_sums[broker].first += 1;
    broker_sums[broker].second += comm;
    if (f[2] != "CMPT") fail("status of " + t_id);
    if (chrg != cents(charge.at(std::string(f[3]) + "/" + c_tier))) fail("charge of " + t_id);
    const int64_t rate = rate_for(c_tier, f[3], exchange_of.at(std::string(f[5])), qty);
    if (comm != (qty * price * rate + 5000) / 10000) fail("commission of " + t_id);
    if (tax_status == 0 && tax != 0) fail("tax on a non-taxable account: " + t_id);
    if (price < 2000 || price > 3000) fail("price of " + t_id);
    // SE_AMT reproduces from the trade's fields (an invariant of loader/check.cpp).
    const auto& se = settlement.at(t_id);
    int64_t expected = sell ? qty * price - chrg - comm : -(qty * price + chrg + comm);
    if (tax_status == 1) expected -= tax;
    if (std::llabs(cents(se[3]) - expected) > 1) fail("settlement amount of " + t_id);
    if ((se[1] == "Cash Account") != (f[4] == "t")) fail("cash type of " + t_id);
    // Due date = completion date + 2 days.
    const std::string dts(f[1]);
    const auto due = workload::AddDays(
        workload::MakeDate(std::stoi(dts.substr(0, 4)), std::stoi(dts.substr(5, 2)),
                           std::stoi(dts.substr(8, 2))),
        2);
    if (workload::FormatDate(due) != se[2]) fail("due date of " + t_id);
    // CASH_TRANSACTION iff cash; CT_AMT = SE_AMT, at completion.
    const auto ct = cash.find(t_id);
    if ((ct != cash.end()) != (f[4] == "t")) fail("cash transaction of " + t_id);
    if (ct != cash.end() && (ct->second[2] != se[3] || ct->second[1] != f[1] ||
                             ct->second[3].find(" shares of ") == std::string_view::npos)) {
      fail("cash transaction fields of " + t_id);
    }
  }
  EXPECT_EQ(bad, 0);

  // Consistency conditions 1-2 (clause 7.3.2): broker totals.
  ASSERT_EQ(data().Count(Table::kBroker), 10);
  for (const auto& f : data().Fields(Table::kBroker)) {
    const auto& sums = broker_sums[std::string(f[0])];
    EXPECT_EQ(std::stoll(std::string(f[3])), sums.first) << f[0];
    EXPECT_EQ(cents(f[4]), sums.second) << f[0];
    EXPECT_GT(sums.first, 0) << f[0];
  }
}

TEST_F(GeneratorTest, HoldingsAreConsistent) {
  // Condition 3 (clause 7.3.2) and an invariant: HS_QTY = Σ H_QTY per (account, symbol), no zero
  // rows, every lot of a position has the same sign, and the history of each lot adds up to its
  // quantity.
  std::map<std::string, int64_t> summary;
  for (const auto& f : data().Fields(Table::kHoldingSummary)) {
    const int64_t qty = std::stoll(std::string(f[2]));
    EXPECT_NE(qty, 0);
    summary[std::string(f[0]) + "/" + std::string(f[1])] = qty;
  }
  std::map<std::string, int64_t> sums;
  std::map<std::string, int> signs;
  std::unordered_map<std::string, int64_t> lot_qty;
  for (const auto& f : data().Fields(Table::kHolding)) {
    const std::string key = std::string(f[1]) + "/" + std::string(f[2]);
    const int64_t qty = std::stoll(std::string(f[5]));
    ASSERT_NE(qty, 0);
    sums[key] += qty;
    signs[key] |= qty > 0 ? 1 : 2;
    lot_qty[std::string(f[0])] = qty;
  }
  EXPECT_EQ(sums, summary);
  for (const auto& [key, sign] : signs) EXPECT_NE(sign, 3) << key << " has long and short lots";

  // Holding history: per lot, Σ (after − before) is its open quantity (0 once closed); each
  // lot starts with a creation row (before 0) by its own trade.
  std::unordered_map<std::string, int64_t> history_sum;
  std::unordered_set<std::string> created;
  for (const auto& f : data().Fields(Table::kHoldingHistory)) {
    const std::string lot(f[0]);
    const int64_t before = std::stoll(std::string(f[2]));
    const int64_t after = std::stoll(std::string(f[3]));
    history_sum[lot] += after - before;
    if (before == 0) {
      EXPECT_EQ(f[0], f[1]) << "a lot is created by its own trade";
      EXPECT_TRUE(created.insert(lot).second);
    }
  }
  int bad = 0;
  for (const auto& [lot, delta] : history_sum) {
    const auto it = lot_qty.find(lot);
    const int64_t open = it == lot_qty.end() ? 0 : it->second;
    if (delta != open && ++bad <= 3) ADD_FAILURE() << "history of lot " << lot;
    if (!created.contains(lot) && ++bad <= 3) ADD_FAILURE() << "no creation row for " << lot;
  }
  EXPECT_EQ(bad, 0);
  for (const auto& [lot, qty] : lot_qty) EXPECT_TRUE(history_sum.contains(lot)) << lot;
  // LIFO and FIFO both happen: some trades close more than one lot.
  EXPECT_GT(data().Count(Table::kHoldingHistory), data().Count(Table::kTrade));
}

TEST_F(GeneratorTest, MarketTablesFollowTheReference) {
  for (const auto& f : data().Fields(Table::kDailyMarket)) {
    ASSERT_EQ(f.size(), 6u);
    const int64_t close = std::llround(std::stod(std::string(f[2])) * 100);
    ASSERT_GE(close, 2000);
    ASSERT_LE(close, 3000);
    ASSERT_EQ(std::llround(std::stod(std::string(f[3])) * 100), (close * 105 + 50) / 100);
    ASSERT_EQ(std::llround(std::stod(std::string(f[4])) * 100), (close * 92 + 50) / 100);
  }
  for (const auto& f : data().Fields(Table::kLastTrade)) {
    ASSERT_EQ(f.size(), 5u);
    EXPECT_EQ(f[1], "2005-01-05 09:00:00.000") << "end of initial trading at ITD 2";
    EXPECT_EQ(f[2], f[3]);
    EXPECT_EQ(f[4], "0");
  }
  int64_t listed = 0;
  for (const auto& f : data().Fields(Table::kExchange)) listed += std::stoll(std::string(f[2]));
  EXPECT_EQ(listed, 685);
  // Competitors are other companies of the same LU.
  for (const auto& f : data().Fields(Table::kCompanyCompetitor)) EXPECT_NE(f[0], f[1]);
}

}  // namespace bb::loader::generator_test
