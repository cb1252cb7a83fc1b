#include "common/workload/inputs.h"

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
#include "common/workload/market.h"
#include "common/workload/person.h"
#include "common/workload/tax_rates.h"
#include "common/workload/zip_codes.h"

// Heap allocations of this test binary, counted so that a test can check that generating an
// input allocates only the strings and vectors the input holds. Replacing the global operator
// new is the only way to observe that, hence a counter at namespace scope. The operators stay
// out of line so GCC does not pair an inlined free() with a new expression
// (-Wmismatched-new-delete).
namespace {
std::atomic<int64_t> heap_allocations{0};
}  // namespace

[[gnu::noinline]] void* operator new(std::size_t size) {
  heap_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace bb::workload {
namespace {

namespace pb = bb::protocol;

const Sizing kSizing{};  // 5 000 customers, SF 500, ITD 300

// Expects hits/total, in percent, inside the spec's required range [low, high].
void ExpectPercentIn(const std::string& what, int64_t hits, int64_t total, double low,
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

const World& DefaultWorld() {
  static const World world(kSizing);
  return world;
}

// A start timestamp of TL/TU frames 2-4: inside the initial trades and at least the frame's
// back-off before their end.
void ExpectStartTime(int64_t start, int64_t back_off_ms, const std::string& what) {
  const int64_t latest = kSizing.initial_trade_days * kMillisPerBusinessDay - back_off_ms;
  EXPECT_GE(start, WorkTimeToTimestamp(1).micros) << what;
  EXPECT_LE(start, WorkTimeToTimestamp(latest).micros) << what;
}

void ExpectLoadedTradeIds(const std::vector<int64_t>& ids, const std::string& what) {
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

// ---------------------------------------------------------------------------------------------
// The building blocks.

TEST(InputGenerator, LoadedTradeOrdinalsFollowTheLoaderRule) {
  // The loader walks each LU's block, skips aborted ordinals and stops after
  // TradesPerLoadUnit() trades (loader/trade_tables.cpp); replay that for several sizings.
  for (const int64_t sf : {500, 499, 333, 101, 7}) {
    const Sizing sizing{.customers = 2000, .scale_factor = sf, .initial_trade_days = 1};
    ASSERT_TRUE(sizing.Validate().ok()) << sf;
    const int64_t block = sizing.TradeIdBlockSize();
    for (int64_t lu = 0; lu < sizing.LoadUnits(); ++lu) {
      int64_t generated = 0;
      for (int64_t i = 0; i < block; ++i) {
        const int64_t ordinal = lu * block + 1 + i;
        bool loaded = false;
        if (!IsAbortedTradeOrdinal(ordinal) && generated < sizing.TradesPerLoadUnit()) {
          ++generated;
          loaded = true;
        }
        ASSERT_EQ(IsLoadedTradeOrdinal(sizing, ordinal), loaded) << "SF " << sf << " " << ordinal;
      }
    }
    EXPECT_FALSE(IsLoadedTradeOrdinal(sizing, 0));
    EXPECT_FALSE(IsLoadedTradeOrdinal(sizing, sizing.InitiatedTrades() + 1));
  }
}

TEST(InputGenerator, SmallestWorldStillHasTwentyDistinctTradeIds) {
  // The largest scale factor with one LU and one trade day leaves 28 loaded trades per LU:
  // frame 1 still finds 20 distinct loaded ids.
  const Sizing sizing{.customers = 1000, .scale_factor = 1'000'000, .initial_trade_days = 1};
  ASSERT_TRUE(sizing.Validate().ok());
  ASSERT_EQ(sizing.TradesPerLoadUnit(), 28);
  InputGenerator gen(sizing, 3);
  int frames = 0;
  for (int i = 0; i < 200; ++i) {
    const pb::TradeUpdateInput in = gen.TradeUpdate();
    if (in.frame != 1) continue;
    ++frames;
    ASSERT_EQ(in.trade_ids.size(), 20u);
    EXPECT_EQ(std::set<int64_t>(in.trade_ids.begin(), in.trade_ids.end()).size(), 20u);
    for (const int64_t id : in.trade_ids) {
      EXPECT_TRUE(IsLoadedTradeOrdinal(sizing, TradeOrdinal(id))) << id;
    }
  }
  EXPECT_GT(frames, 40);
}

TEST(InputGenerator, TimeOfDaySeedsDifferByTenthAndInstanceAndCanBeReplayed) {
  const int64_t now = 17'640'000'000;  // tenths of a second: late 2025
  std::set<RngSeed> seeds;
  for (int64_t t = now; t < now + 100; ++t) {
    for (uint32_t pid : {1u, 4242u, 4194303u}) seeds.insert(TimeOfDaySeed(t, pid));
  }
  EXPECT_EQ(seeds.size(), 300u);
  for (RngSeed s : seeds) EXPECT_LE(s, static_cast<RngSeed>(INT64_MAX)) << s;
  EXPECT_EQ(TimeOfDaySeed(now, 4242), TimeOfDaySeed(now, 4242));
  EXPECT_EQ(TimeOfDaySeed(now, 0), static_cast<RngSeed>(now));
}

TEST(InputGenerator, StreamSeedsDiffer) {
  std::set<RngSeed> seeds;
  for (uint64_t s = 0; s < 1000; ++s) seeds.insert(StreamSeed(7, s));
  EXPECT_EQ(seeds.size(), 1000u);
  EXPECT_EQ(StreamSeed(7, 3), StreamSeed(7, 3));
  EXPECT_NE(StreamSeed(7, 3), StreamSeed(8, 3));
}

// ---------------------------------------------------------------------------------------------
// One test per transaction: every input names something that exists, and every percentage of
// the generator falls inside the range clause 6.4.1 allows. Sample sizes keep each range at
// least four standard deviations away from its target.

TEST(InputGenerator, BrokerVolume) {
  const World& world = DefaultWorld();
  InputGenerator gen(kSizing, 1);
  std::set<std::string> sectors;
  for (const Sector& s : Sectors()) sectors.insert(std::string(s.name));
  std::map<size_t, int> lengths;
  for (int i = 0; i < 20'000; ++i) {
    const pb::BrokerVolumeInput in = gen.BrokerVolume();
    ASSERT_GE(in.broker_list.size(), 20u);
    ASSERT_LE(in.broker_list.size(), 40u);
    ++lengths[in.broker_list.size()];
    const std::set<std::string> distinct(in.broker_list.begin(), in.broker_list.end());
    ASSERT_EQ(distinct.size(), in.broker_list.size());
    for (const std::string& name : in.broker_list) ASSERT_TRUE(world.IsBrokerName(name)) << name;
    ASSERT_TRUE(sectors.contains(in.sector_name)) << in.sector_name;
  }
  EXPECT_EQ(lengths.size(), 21u);  // every length 20..40 occurs

  // With one LU there are only 10 brokers: the list holds all of them.
  InputGenerator small(Sizing{.customers = 1000}, 1);
  const pb::BrokerVolumeInput in = small.BrokerVolume();
  EXPECT_EQ(std::set<std::string>(in.broker_list.begin(), in.broker_list.end()).size(), 10u);
}

TEST(InputGenerator, CustomerPosition) {
  // Spec ranges: by tax id 48-52 %, get_history 48-52 %.
  const World& world = DefaultWorld();
  InputGenerator gen(kSizing, 2);
  constexpr int64_t kDraws = 200'000;
  int64_t by_tax_id = 0;
  int64_t history = 0;
  for (int64_t i = 0; i < kDraws; ++i) {
    const pb::CustomerPositionInput in = gen.CustomerPosition();
    int64_t c_id = in.cust_id;
    if (in.cust_id == 0) {
      ++by_tax_id;
      const auto found = world.CustomerOfTaxId(in.tax_id);
      ASSERT_TRUE(found.has_value()) << in.tax_id;
      c_id = *found;
    } else {
      ASSERT_TRUE(in.tax_id.empty());
      ASSERT_TRUE(world.IsCustomer(c_id)) << c_id;
    }
    ASSERT_GE(in.acct_id_idx, 0);
    ASSERT_LT(in.acct_id_idx, world.model().AccountCount(c_id));
    history += in.get_history ? 1 : 0;
  }
  ExpectPercentIn("CP by_tax_id", by_tax_id, kDraws, 48, 52);
  ExpectPercentIn("CP get_history", history, kDraws, 48, 52);
}

TEST(InputGenerator, MarketWatch) {
  // Spec ranges: industry 4.5-5.5 %, watch list 57-63 %, account 33-37 %.
  const World& world = DefaultWorld();
  InputGenerator gen(kSizing, 3);
  std::set<std::string> industries;
  for (const Industry& ind : Industries()) industries.insert(std::string(ind.name));
  constexpr int64_t kDraws = 200'000;
  int64_t by_industry = 0;
  int64_t by_watch_list = 0;
  int64_t by_account = 0;
  std::map<int, int64_t> weekdays;
  const Date first_day = DailyMarketBaseDate();
  const Date last_day = MakeDate(2004, 12, 31);
  Date latest = first_day;
  for (int64_t i = 0; i < kDraws; ++i) {
    const pb::MarketWatchInput in = gen.MarketWatch();
    const int modes = (in.acct_id != 0) + (in.cust_id != 0) + (!in.industry_name.empty());
    ASSERT_EQ(modes, 1);
    if (!in.industry_name.empty()) {
      ++by_industry;
      ASSERT_TRUE(industries.contains(in.industry_name)) << in.industry_name;
      // 2 500 companies: the window is all of them.
      ASSERT_EQ(in.starting_co_id, CompanyId(0));
      ASSERT_EQ(in.ending_co_id, CompanyId(kSizing.Companies() - 1));
    } else {
      ASSERT_EQ(in.starting_co_id, 0);
      ASSERT_EQ(in.ending_co_id, 0);
    }
    if (in.cust_id != 0) {
      ++by_watch_list;
      ASSERT_TRUE(world.IsCustomer(in.cust_id));
    }
    if (in.acct_id != 0) {
      ++by_account;
      ASSERT_TRUE(world.IsAccount(in.acct_id)) << in.acct_id;
    }
    const Date d{in.start_date};
    ASSERT_GE(d, AddDays(first_day, 7 * 5));  // week 5 at the earliest
    ASSERT_LE(d, last_day);
    ASSERT_LT(DayOfWeek(d), 5);
    ++weekdays[DayOfWeek(d)];
    latest = std::max(latest, d);
  }
  ExpectPercentIn("MW industry", by_industry, kDraws, 4.5, 5.5);
  ExpectPercentIn("MW watch list", by_watch_list, kDraws, 57, 63);
  ExpectPercentIn("MW account", by_account, kDraws, 33, 37);
  // Weekday weights Mon 20, Tue 7, Wed 6, Thu 7, Fri 60 % (EGen; the spec gives no range).
  const std::array<double, 5> weights = {20, 7, 6, 7, 60};
  for (int w = 0; w < 5; ++w) {
    ExpectPercentIn("MW weekday " + std::to_string(w), weekdays[w], kDraws,
                    weights[static_cast<size_t>(w)] - 0.5, weights[static_cast<size_t>(w)] + 0.5);
  }
  EXPECT_EQ(latest, last_day);  // week 260's Friday is the last DAILY_MARKET day
}

TEST(InputGenerator, MarketWatchIndustryWindowAboveTenLoadUnits) {
  const Sizing sizing{.customers = 15000};  // 7 500 companies
  InputGenerator gen(sizing, 4);
  int windows = 0;
  std::set<int64_t> starts;
  for (int i = 0; i < 100'000; ++i) {
    const pb::MarketWatchInput in = gen.MarketWatch();
    if (in.industry_name.empty()) continue;
    ++windows;
    ASSERT_GE(in.starting_co_id, CompanyId(0));
    ASSERT_EQ(in.ending_co_id, in.starting_co_id + 4999);
    ASSERT_LE(in.ending_co_id, CompanyId(sizing.Companies() - 1));
    starts.insert(in.starting_co_id);
  }
  EXPECT_GT(windows, 4000);
  EXPECT_TRUE(starts.contains(CompanyId(0)));
  EXPECT_TRUE(starts.contains(CompanyId(sizing.Companies() - 5000)));
}

TEST(InputGenerator, SecurityDetail) {
  // Spec range: access_lob 0.9-1.1 %.
  const World& world = DefaultWorld();
  InputGenerator gen(kSizing, 5);
  constexpr int64_t kDraws = 1'000'000;
  int64_t lob = 0;
  std::set<int> rows;
  const Date first_day = DailyMarketBaseDate();
  const Date last_day = MakeDate(2004, 12, 31);
  for (int64_t i = 0; i < kDraws; ++i) {
    const pb::SecurityDetailInput in = gen.SecurityDetail();
    lob += in.access_lob_flag ? 1 : 0;
    if (i >= 100'000) continue;
    ASSERT_TRUE(world.market().SecurityIndex(in.symbol).has_value()) << in.symbol;
    ASSERT_GE(in.max_rows_to_return, 5);
    ASSERT_LE(in.max_rows_to_return, 20);
    rows.insert(in.max_rows_to_return);
    // A trading day from which DAILY_MARKET still holds max_rows rows.
    const Date start{in.start_day};
    ASSERT_GE(start, first_day);
    ASSERT_LT(DayOfWeek(start), 5);
    ASSERT_LE(AddBusinessDays(start, in.max_rows_to_return - 1), last_day);
  }
  EXPECT_EQ(rows.size(), 16u);
  ExpectPercentIn("SD access_lob", lob, kDraws, 0.9, 1.1);
}

TEST(InputGenerator, TradeLookup) {
  // Spec ranges: frames 1, 2, 3 28.5-31.5 % each, frame 4 9.5-10.5 %.
  const World& world = DefaultWorld();
  InputGenerator gen(kSizing, 6);
  constexpr int64_t kDraws = 200'000;
  std::array<int64_t, 5> frames{};
  const int64_t end = EndOfInitialTradesForInputs(kSizing).micros;
  const int64_t max_acct_id = (kSizing.customers + kIdentShift) * 10;
  for (int64_t i = 0; i < kDraws; ++i) {
    const pb::TradeLookupInput in = gen.TradeLookup();
    ASSERT_GE(in.frame, 1);
    ASSERT_LE(in.frame, 4);
    ++frames[static_cast<size_t>(in.frame)];
    switch (in.frame) {
      case 1:
        ASSERT_EQ(in.max_trades, 20);
        ExpectLoadedTradeIds(in.trade_ids, "TL F1");
        break;
      case 2:
        ASSERT_EQ(in.max_trades, 20);
        ASSERT_TRUE(world.IsAccount(in.acct_id)) << in.acct_id;
        ExpectStartTime(in.start_trade_dts, 32 * 3'600'000, "TL F2");
        ASSERT_EQ(in.end_trade_dts, end);
        break;
      case 3:
        ASSERT_EQ(in.max_trades, 20);
        ASSERT_TRUE(world.market().SecurityIndex(in.symbol).has_value()) << in.symbol;
        ExpectStartTime(in.start_trade_dts, 200 * 60'000, "TL F3");
        ASSERT_EQ(in.end_trade_dts, end);
        ASSERT_EQ(in.max_acct_id, max_acct_id);
        break;
      case 4:
        ASSERT_TRUE(world.IsAccount(in.acct_id)) << in.acct_id;
        ExpectStartTime(in.start_trade_dts, 500 * 60'000, "TL F4");
        ASSERT_TRUE(in.trade_ids.empty());
        break;
    }
    if (HasFatalFailure()) return;
  }
  ExpectPercentIn("TL frame 1", frames[1], kDraws, 28.5, 31.5);
  ExpectPercentIn("TL frame 2", frames[2], kDraws, 28.5, 31.5);
  ExpectPercentIn("TL frame 3", frames[3], kDraws, 28.5, 31.5);
  ExpectPercentIn("TL frame 4", frames[4], kDraws, 9.5, 10.5);
  EXPECT_EQ(end, MakeTimestamp(2006, 2, 27, 9, 15).micros);
}

TEST(InputGenerator, TradeLookupIdsAreNonUniform) {
  // NURand(1, max, 65535, 7): some ordinals are drawn far more often than uniform would.
  InputGenerator gen(Sizing{.customers = 1000}, 7);
  std::map<int64_t, int> hits;
  int64_t ids = 0;
  while (ids < 400'000) {
    const pb::TradeLookupInput in = gen.TradeLookup();
    for (const int64_t id : in.trade_ids) ++hits[TradeOrdinal(id) / 1000], ++ids;
  }
  int max_bucket = 0;
  for (const auto& [bucket, n] : hits) max_bucket = std::max(max_bucket, n);
  const double uniform =
      static_cast<double>(ids) * 1000 / MaxInitialTradeOrdinal(Sizing{.customers = 1000});
  EXPECT_GT(max_bucket, 2 * uniform);
}

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

// ---------------------------------------------------------------------------------------------
// Partitions, determinism, the wire, allocations.

TEST(InputGenerator, PartitionDrawsHalfFromItsCustomersAndHalfFromAll) {
  // 20 LUs, the CE owns LUs 5..9: 50 % partition + 50 % × 5/20 from the whole range = 62.5 %
  // of customer-initiated inputs name a partition customer; Data-Maintenance uses the whole
  // range (25 %).
  const Sizing sizing{.customers = 20000};
  auto gen = InputGenerator::ForPartition(sizing, 13, 5001, 5000);
  ASSERT_TRUE(gen.ok()) << gen.status().message();
  EXPECT_TRUE(gen->selector().partitioned());
  const auto in_partition = [](int64_t c_id) {
    const int64_t lu = LoadUnitOfCustomer(c_id);
    return lu >= 5 && lu < 10;
  };
  constexpr int64_t kDraws = 200'000;
  int64_t inside = 0;
  int64_t dm_inside = 0;
  std::map<int64_t, int64_t> per_lu;
  for (int64_t i = 0; i < kDraws; ++i) {
    const int64_t owner = AccountOwner(gen.value().TradeStatus().acct_id);
    inside += in_partition(owner) ? 1 : 0;
    ++per_lu[LoadUnitOfCustomer(owner)];
    const int64_t dm_owner =
        AccountOwner(gen.value().DataMaintenance(pb::MaintenanceTable::kAccountPermission).acct_id);
    dm_inside += in_partition(dm_owner) ? 1 : 0;
  }
  ExpectPercentIn("partition share", inside, kDraws, 61.5, 63.5);
  ExpectPercentIn("DM partition share", dm_inside, kDraws, 24, 26);
  ASSERT_EQ(per_lu.size(), 20u);
  for (const auto& [lu, n] : per_lu) {
    const double expected = lu >= 5 && lu < 10 ? 12.5 : 2.5;  // percent per LU
    ExpectPercentIn("LU " + std::to_string(lu), n, kDraws, expected * 0.93, expected * 1.07);
  }
}

TEST(InputGenerator, PartitionErrorsNameTheOption) {
  const Sizing sizing{.customers = 20000};
  auto bad_start = InputGenerator::ForPartition(sizing, 1, 1500, 5000);
  ASSERT_FALSE(bad_start.ok());
  EXPECT_NE(bad_start.status().message().find("--start-customer: '1500'"), std::string::npos)
      << bad_start.status().message();
  auto too_many = InputGenerator::ForPartition(sizing, 1, 15001, 10000);
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.status().message().find("--partition-customers"), std::string::npos)
      << too_many.status().message();
}

template <typename F>
void ExpectSameSequences(F generate) {
  InputGenerator a(kSizing, 1234);
  InputGenerator b(kSizing, 1234);
  InputGenerator c(kSizing, 1235);
  int differ = 0;
  for (int i = 0; i < 500; ++i) {
    const auto x = generate(a);
    ASSERT_EQ(x, generate(b));
    differ += x == generate(c) ? 0 : 1;
  }
  EXPECT_GT(differ, 250);
}

TEST(InputGenerator, DeterministicPerSeed) {
  ExpectSameSequences([](InputGenerator& g) { return g.BrokerVolume(); });
  ExpectSameSequences([](InputGenerator& g) { return g.CustomerPosition(); });
  ExpectSameSequences([](InputGenerator& g) { return g.MarketWatch(); });
  ExpectSameSequences([](InputGenerator& g) { return g.SecurityDetail(); });
  ExpectSameSequences([](InputGenerator& g) { return g.TradeLookup(); });
  ExpectSameSequences([](InputGenerator& g) { return g.TradeOrder(); });
  ExpectSameSequences([](InputGenerator& g) { return g.TradeStatus(); });
  ExpectSameSequences([](InputGenerator& g) { return g.TradeUpdate(); });
  ExpectSameSequences(
      [](InputGenerator& g) { return g.DataMaintenance(pb::MaintenanceTable::kAddress); });
  // A copy continues the same stream.
  InputGenerator a(kSizing, 5);
  a.TradeOrder();
  InputGenerator b = a;
  EXPECT_EQ(a.TradeOrder(), b.TradeOrder());
}

template <typename M>
void ExpectEncodes(const M& m) {
  std::vector<uint8_t> buffer;
  pb::Writer w(buffer);
  const Status s = pb::Encode(m, w);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_GT(buffer.size(), 0u);
}

TEST(InputGenerator, InputsPassTheProtocolsEncoder) {
  // The default world and a large one (copied company names " #k", symbols "-k").
  for (const Sizing& sizing : {kSizing, Sizing{.customers = 300'000}}) {
    InputGenerator gen(sizing, 14);
    for (int i = 0; i < 5000; ++i) {
      ExpectEncodes(gen.BrokerVolume());
      ExpectEncodes(gen.CustomerPosition());
      ExpectEncodes(gen.MarketWatch());
      ExpectEncodes(gen.SecurityDetail());
      ExpectEncodes(gen.TradeLookup());
      ExpectEncodes(gen.TradeOrder());
      ExpectEncodes(gen.TradeStatus());
      ExpectEncodes(gen.TradeUpdate());
      ExpectEncodes(gen.DataMaintenance(static_cast<pb::MaintenanceTable>(i % 12)));
      if (HasFatalFailure()) return;
    }
    ExpectEncodes(gen.TradeCleanup());
  }
}

// Heap blocks an input owns: each string beyond the small-string buffer, each vector buffer.
int64_t HeapBlocks(const std::string& s) { return s.capacity() > std::string().capacity(); }
template <typename T>
int64_t HeapBlocks(const std::vector<T>& v) {
  int64_t n = v.capacity() > 0 ? 1 : 0;
  if constexpr (std::is_same_v<T, std::string>) {
    for (const std::string& s : v) n += HeapBlocks(s);
  }
  return n;
}
int64_t HeapBlocks(const pb::BrokerVolumeInput& m) {
  return HeapBlocks(m.broker_list) + HeapBlocks(m.sector_name);
}
int64_t HeapBlocks(const pb::CustomerPositionInput& m) { return HeapBlocks(m.tax_id); }
int64_t HeapBlocks(const pb::MarketWatchInput& m) { return HeapBlocks(m.industry_name); }
int64_t HeapBlocks(const pb::SecurityDetailInput& m) { return HeapBlocks(m.symbol); }
int64_t HeapBlocks(const pb::TradeLookupInput& m) {
  return HeapBlocks(m.trade_ids) + HeapBlocks(m.symbol);
}
int64_t HeapBlocks(const pb::TradeOrderInput& m) {
  return HeapBlocks(m.exec_f_name) + HeapBlocks(m.exec_l_name) + HeapBlocks(m.exec_tax_id) +
         HeapBlocks(m.symbol) + HeapBlocks(m.co_name) + HeapBlocks(m.issue) +
         HeapBlocks(m.trade_type_id) + HeapBlocks(m.st_pending_id) + HeapBlocks(m.st_submitted_id);
}
int64_t HeapBlocks(const pb::TradeStatusInput&) { return 0; }
int64_t HeapBlocks(const pb::TradeUpdateInput& m) {
  return HeapBlocks(m.trade_ids) + HeapBlocks(m.symbol);
}
int64_t HeapBlocks(const pb::DataMaintenanceInput& m) {
  return HeapBlocks(m.symbol) + HeapBlocks(m.tx_id);
}

// Generates n inputs; expects no heap allocation beyond the blocks the inputs own, and prints
// the time per input (information only).
template <typename F>
void ExpectOnlyOwnAllocations(const char* name, F generate, const Sizing& sizing) {
  constexpr int kWarmUp = 1000;  // builds the lazily made word lists and market base list
  constexpr int kInputs = 50'000;
  InputGenerator gen(sizing, 15);
  for (int i = 0; i < kWarmUp; ++i) generate(gen);
  int64_t extra = 0;
  int64_t total_ns = 0;
  for (int i = 0; i < kInputs; ++i) {
    const int64_t before = heap_allocations.load(std::memory_order_relaxed);
    const auto t0 = std::chrono::steady_clock::now();
    const auto in = generate(gen);
    const auto t1 = std::chrono::steady_clock::now();
    const int64_t allocations = heap_allocations.load(std::memory_order_relaxed) - before;
    total_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count();
    extra += std::max<int64_t>(0, allocations - HeapBlocks(in));
  }
  EXPECT_EQ(extra, 0) << name << ": allocations beyond the input's own strings and vectors";
  std::cout << "[ timing ] " << name << " (" << sizing.customers
            << " customers): " << static_cast<double>(total_ns) / kInputs / 1000.0
            << " us per input\n";
}

TEST(InputGenerator, AllocatesOnlyWhatTheInputHolds) {
  for (const Sizing& sizing : {kSizing, Sizing{.customers = 300'000}}) {
    ExpectOnlyOwnAllocations(
        "BrokerVolume", [](InputGenerator& g) { return g.BrokerVolume(); }, sizing);
    ExpectOnlyOwnAllocations(
        "CustomerPosition", [](InputGenerator& g) { return g.CustomerPosition(); }, sizing);
    ExpectOnlyOwnAllocations(
        "MarketWatch", [](InputGenerator& g) { return g.MarketWatch(); }, sizing);
    ExpectOnlyOwnAllocations(
        "SecurityDetail", [](InputGenerator& g) { return g.SecurityDetail(); }, sizing);
    ExpectOnlyOwnAllocations(
        "TradeLookup", [](InputGenerator& g) { return g.TradeLookup(); }, sizing);
    ExpectOnlyOwnAllocations(
        "TradeOrder", [](InputGenerator& g) { return g.TradeOrder(); }, sizing);
    ExpectOnlyOwnAllocations(
        "TradeStatus", [](InputGenerator& g) { return g.TradeStatus(); }, sizing);
    ExpectOnlyOwnAllocations(
        "TradeUpdate", [](InputGenerator& g) { return g.TradeUpdate(); }, sizing);
    ExpectOnlyOwnAllocations(
        "DataMaintenance",
        [](InputGenerator& g) { return g.DataMaintenance(pb::MaintenanceTable::kTaxrate); },
        sizing);
  }
}

}  // namespace
}  // namespace bb::workload
