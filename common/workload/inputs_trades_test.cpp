// The inputs of Trade-Order, Trade-Status, Trade-Update, Data-Maintenance and Trade-Cleanup
// against the spec's ranges, and the variant each input names.
#include "common/workload/inputs_test_world.h"

namespace bb::workload::inputs_test {

TEST(InputGenerator, TradeOrder) {
  // Spec ranges: third-party executor 9.5-10.5 %; by company name 38-42 %; each quantity 24-26 %;
  // TMB 29.7-30.3, TMS 29.7-30.3, TLB 19.8-20.2, TLS 9.9-10.1, TSL 9.9-10.1 %; margin
  // 7.5-8.5 %; LIFO 33-37 %; roll back 0.94-1.04 %.
  const World& world = DefaultWorld();
  InputGenerator gen(kSizing, 8);
  constexpr int64_t kDraws = 2'000'000;
  constexpr int64_t kChecked = 200'000;  // inputs checked against the world
  int64_t third_party = 0;
  int64_t by_name = 0;
  int64_t margin = 0;
  int64_t lifo = 0;
  int64_t roll_back = 0;
  int64_t last_of_two = 0;
  std::map<int32_t, int64_t> quantities;
  std::map<std::string, int64_t> types;
  std::set<int64_t> prices;
  for (int64_t i = 0; i < kDraws; ++i) {
    const pb::TradeOrderInput in = gen.TradeOrder();
    const int64_t owner = AccountOwner(in.acct_id);
    const bool owner_executes = in.exec_tax_id == TaxId(owner);
    third_party += owner_executes ? 0 : 1;
    by_name += in.symbol.empty() ? 1 : 0;
    ++quantities[in.trade_qty];
    ++types[in.trade_type_id];
    margin += in.type_is_margin ? 1 : 0;
    lifo += in.is_lifo ? 1 : 0;
    roll_back += in.roll_it_back ? 1 : 0;
    ASSERT_TRUE(!in.type_is_margin || in.trade_type_id == "TMB" || in.trade_type_id == "TLB")
        << "a margin sell";
    if (i >= kChecked) continue;

    ASSERT_TRUE(world.IsAccount(in.acct_id)) << in.acct_id;
    const auto security = world.SecurityOf(in);
    ASSERT_TRUE(security.has_value()) << in.symbol << "|" << in.co_name << "|" << in.issue;
    const std::vector<int64_t> basket = world.model().Basket(in.acct_id);
    ASSERT_NE(std::find(basket.begin(), basket.end(), *security), basket.end());

    // The executor is a person of the account's ACCOUNT_PERMISSION rows, with that person's
    // names and tax id; a third party is the only extra person, or the second of two.
    const std::vector<AccountPermission> rows = world.model().AccountPermissions(in.acct_id);
    const auto row = std::find_if(rows.begin(), rows.end(), [&](const AccountPermission& ap) {
      return TaxId(ap.person_id) == in.exec_tax_id;
    });
    ASSERT_NE(row, rows.end()) << "executor without permission on " << in.acct_id;
    ASSERT_EQ(in.exec_f_name, FirstName(row->person_id));
    ASSERT_EQ(in.exec_l_name, LastName(row->person_id));
    if (!owner_executes) {
      ASSERT_EQ(row->person_id, rows.back().person_id);
      if (rows.size() == 3) ++last_of_two;
    }

    ASSERT_GE(in.requested_price, 2000);
    ASSERT_LE(in.requested_price, 3000);
    prices.insert(in.requested_price);
    ASSERT_EQ(in.st_pending_id, "PNDG");
    ASSERT_EQ(in.st_submitted_id, "SBMT");
  }
  ExpectPercentIn("TO third-party executor", third_party, kDraws, 9.5, 10.5);
  ExpectPercentIn("TO by company name", by_name, kDraws, 38, 42);
  for (const int32_t q : {100, 200, 400, 800}) {
    ExpectPercentIn("TO qty " + std::to_string(q), quantities[q], kDraws, 24, 26);
  }
  EXPECT_EQ(quantities.size(), 4u);
  ExpectPercentIn("TO TMB", types["TMB"], kDraws, 29.7, 30.3);
  ExpectPercentIn("TO TMS", types["TMS"], kDraws, 29.7, 30.3);
  ExpectPercentIn("TO TLB", types["TLB"], kDraws, 19.8, 20.2);
  ExpectPercentIn("TO TLS", types["TLS"], kDraws, 9.9, 10.1);
  ExpectPercentIn("TO TSL", types["TSL"], kDraws, 9.9, 10.1);
  EXPECT_EQ(types.size(), 5u);
  ExpectPercentIn("TO margin", margin, kDraws, 7.5, 8.5);
  ExpectPercentIn("TO LIFO", lifo, kDraws, 33, 37);
  ExpectPercentIn("TO roll back", roll_back, kDraws, 0.94, 1.04);
  EXPECT_EQ(prices.size(), 1001u);  // every cent from 20.00 to 30.00
  EXPECT_GT(last_of_two, 0);        // accounts with two extra executors do occur
}

TEST(InputGenerator, TradeStatus) {
  const World& world = DefaultWorld();
  InputGenerator gen(kSizing, 9);
  std::map<CustomerTier, int64_t> tiers;
  constexpr int64_t kDraws = 200'000;
  for (int64_t i = 0; i < kDraws; ++i) {
    const pb::TradeStatusInput in = gen.TradeStatus();
    ASSERT_TRUE(world.IsAccount(in.acct_id)) << in.acct_id;
    ++tiers[TierOf(AccountOwner(in.acct_id))];
  }
  // The non-uniform selector picks tiers 10 / 60 / 30 % (clause 1.4.2.1).
  ExpectPercentIn("tier 1", tiers[CustomerTier::kOne], kDraws, 9.5, 10.5);
  ExpectPercentIn("tier 2", tiers[CustomerTier::kTwo], kDraws, 59, 61);
  ExpectPercentIn("tier 3", tiers[CustomerTier::kThree], kDraws, 29, 31);
}

TEST(InputGenerator, TradeUpdate) {
  // Spec ranges: frames 1 and 2 31-35 % each, frame 3 32-36 %.
  const World& world = DefaultWorld();
  InputGenerator gen(kSizing, 10);
  constexpr int64_t kDraws = 200'000;
  std::array<int64_t, 4> frames{};
  const int64_t end = EndOfInitialTradesForInputs(kSizing).micros;
  for (int64_t i = 0; i < kDraws; ++i) {
    const pb::TradeUpdateInput in = gen.TradeUpdate();
    ASSERT_GE(in.frame, 1);
    ASSERT_LE(in.frame, 3);
    ++frames[static_cast<size_t>(in.frame)];
    ASSERT_EQ(in.max_trades, 20);
    ASSERT_EQ(in.max_updates, 20);
    switch (in.frame) {
      case 1:
        ExpectLoadedTradeIds(in.trade_ids, "TU F1");
        break;
      case 2:
        ASSERT_TRUE(world.IsAccount(in.acct_id)) << in.acct_id;
        ExpectStartTime(in.start_trade_dts, 32 * 3'600'000, "TU F2");
        ASSERT_EQ(in.end_trade_dts, end);
        break;
      case 3:
        ASSERT_TRUE(world.market().SecurityIndex(in.symbol).has_value()) << in.symbol;
        ExpectStartTime(in.start_trade_dts, 200 * 60'000, "TU F3");
        ASSERT_EQ(in.end_trade_dts, end);
        ASSERT_EQ(in.max_acct_id, (kSizing.customers + kIdentShift) * 10);
        break;
    }
    if (HasFatalFailure()) return;
  }
  ExpectPercentIn("TU frame 1", frames[1], kDraws, 31, 35);
  ExpectPercentIn("TU frame 2", frames[2], kDraws, 31, 35);
  ExpectPercentIn("TU frame 3", frames[3], kDraws, 32, 36);
}

TEST(InputGenerator, DataMaintenance) {
  using T = pb::MaintenanceTable;
  const World& world = DefaultWorld();
  InputGenerator gen(kSizing, 11);
  const auto is_company = [&](int64_t co_id) {
    return CompanyIndex(co_id) >= 0 && CompanyIndex(co_id) < kSizing.Companies();
  };
  int64_t address_of_customer = 0;
  std::set<int32_t> increments;
  std::set<int32_t> days;
  constexpr int kDraws = 20'000;
  for (int i = 0; i < kDraws; ++i) {
    for (uint8_t t = 0; t <= pb::kMaxMaintenanceTable; ++t) {
      const auto table = static_cast<T>(t);
      const pb::DataMaintenanceInput in = gen.DataMaintenance(table);
      ASSERT_EQ(in.table, table);
      const bool wants_acct = table == T::kAccountPermission;
      const bool wants_c = table == T::kCustomer || table == T::kCustomerTaxrate ||
                           table == T::kWatchItem || (table == T::kAddress && in.co_id == 0);
      const bool wants_co = table == T::kCompany || table == T::kFinancial ||
                            table == T::kNewsItem || (table == T::kAddress && in.c_id == 0);
      const bool wants_symbol = table == T::kDailyMarket || table == T::kSecurity;
      ASSERT_EQ(in.acct_id != 0, wants_acct) << pb::MaintenanceTableName(table);
      ASSERT_EQ(in.c_id != 0, wants_c) << pb::MaintenanceTableName(table);
      ASSERT_EQ(in.co_id != 0, wants_co) << pb::MaintenanceTableName(table);
      ASSERT_EQ(!in.symbol.empty(), wants_symbol) << pb::MaintenanceTableName(table);
      ASSERT_EQ(!in.tx_id.empty(), table == T::kTaxrate);
      ASSERT_EQ(in.day_of_month != 0, table == T::kDailyMarket);
      if (wants_acct) {
        ASSERT_TRUE(world.IsAccount(in.acct_id));
      }
      if (wants_c) {
        ASSERT_TRUE(world.IsCustomer(in.c_id));
      }
      if (wants_co) {
        ASSERT_TRUE(is_company(in.co_id));
      }
      if (wants_symbol) {
        ASSERT_TRUE(world.market().SecurityIndex(in.symbol).has_value());
      }
      if (table == T::kAddress && in.c_id != 0) ++address_of_customer;
      if (table == T::kDailyMarket) {
        ASSERT_GE(in.day_of_month, 1);
        ASSERT_LE(in.day_of_month, 31);
        days.insert(in.day_of_month);
        increments.insert(in.vol_incr);
      }
      if (table == T::kTaxrate) {
        ASSERT_TRUE(world.IsDivisionTaxRate(in.tx_id)) << in.tx_id;
      }
    }
  }
  EXPECT_EQ(days.size(), 31u);
  EXPECT_EQ(increments, (std::set<int32_t>{-3, -2, -1, 1, 2, 3}));
  // 67 % customer addresses (EGen; the spec gives no range).
  ExpectPercentIn("DM address of a customer", address_of_customer, kDraws, 65, 69);
}

TEST(InputGenerator, TradeCleanup) {
  const InputGenerator gen(kSizing, 12);
  const pb::TradeCleanupInput in = gen.TradeCleanup();
  EXPECT_EQ(in.st_canceled_id, "CNCL");
  EXPECT_EQ(in.st_pending_id, "PNDG");
  EXPECT_EQ(in.st_submitted_id, "SBMT");
  // ITD·8·3600·(customers/SF)·1.01 + 1 + shift.
  EXPECT_EQ(in.start_trade_id, 17'452'800 * 5 + 1 + kTradeIdShift);
}

// The variant an input must report, rebuilt from the input itself (InputVariant's vocabulary).
std::string ExpectedVariant(const pb::CustomerPositionInput& in) {
  return std::string(in.cust_id == 0 ? "tax" : "cust") + (in.get_history ? " hist" : "");
}
std::string ExpectedVariant(const pb::MarketWatchInput& in) {
  return !in.industry_name.empty() ? "industry" : in.cust_id != 0 ? "watch" : "acct";
}
std::string ExpectedVariant(const pb::SecurityDetailInput& in) {
  return in.access_lob_flag ? "lob" : "";
}
std::string ExpectedVariant(const pb::TradeLookupInput& in) {
  return "f" + std::to_string(in.frame);
}
std::string ExpectedVariant(const pb::TradeUpdateInput& in) {
  return "f" + std::to_string(in.frame);
}
std::string ExpectedVariant(const pb::TradeOrderInput& in) {
  std::string v = in.trade_type_id + " q" + std::to_string(in.trade_qty);
  if (!in.co_name.empty()) v += " name";
  if (in.exec_tax_id != TaxId(AccountOwner(in.acct_id))) v += " tp";
  if (in.type_is_margin) v += " margin";
  if (in.is_lifo) v += " lifo";
  if (in.roll_it_back) v += " rb";
  return v;
}

TEST(InputGenerator, VariantNamesTheChoicesOfTheLastInput) {
  InputGenerator gen(kSizing, 13);
  constexpr int64_t kDraws = 1'000'000;
  size_t longest = 0;
  std::map<std::string, int64_t> count;
  for (int64_t i = 0; i < kDraws; ++i) {
    const pb::TradeOrderInput to = gen.TradeOrder();
    const std::string_view v = gen.variant().view();
    ASSERT_EQ(v, ExpectedVariant(to));
    longest = std::max(longest, v.size());
    if (i % 10 != 0) continue;  // the other types are cheaper to check on fewer draws
    ++count[std::string(v.substr(0, 3))];
    const auto cp = gen.CustomerPosition();
    ASSERT_EQ(gen.variant().view(), ExpectedVariant(cp));
    ++count["CP " + std::string(gen.variant().view())];
    const auto mw = gen.MarketWatch();
    ASSERT_EQ(gen.variant().view(), ExpectedVariant(mw));
    ++count["MW " + std::string(gen.variant().view())];
    const auto sd = gen.SecurityDetail();
    ASSERT_EQ(gen.variant().view(), ExpectedVariant(sd));
    const auto tl = gen.TradeLookup();
    ASSERT_EQ(gen.variant().view(), ExpectedVariant(tl));
    ++count["TL " + std::string(gen.variant().view())];
    const auto tu = gen.TradeUpdate();
    ASSERT_EQ(gen.variant().view(), ExpectedVariant(tu));
    ++count["TU " + std::string(gen.variant().view())];
    // Types without a counted choice report none, whatever came before.
    gen.BrokerVolume();
    ASSERT_EQ(gen.variant().view(), "");
    gen.TradeOrder();
    gen.TradeStatus();
    ASSERT_EQ(gen.variant().view(), "");
  }
  // Every choice occurs, and the longest Trade-Order variant (all five flags) fits whole.
  EXPECT_EQ(longest, std::string_view("TMB q800 name tp margin lifo rb").size());
  for (const char* v : {"TMB", "TMS", "TLB", "TLS", "TSL", "CP cust", "CP tax hist", "MW industry",
                        "MW watch", "MW acct", "TL f1", "TL f4", "TU f1", "TU f3"}) {
    EXPECT_GT(count[v], 0) << v;
  }
}

}  // namespace bb::workload::inputs_test
