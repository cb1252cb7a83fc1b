// The input generator's building blocks (trade ordinals, seeds) and the inputs of Broker-Volume,
// Customer-Position, Market-Watch, Security-Detail and Trade-Lookup against the spec's ranges.
#include "common/workload/inputs_test_world.h"

namespace bb::workload::inputs_test {

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

}  // namespace bb::workload::inputs_test
