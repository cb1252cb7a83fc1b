#include "common/workload/spec.h"

#include <set>

#include <gtest/gtest.h>

namespace bb::workload::spec {
namespace {

// Each range's middle is the deck's share of the type (mix.h) in the customer emulator's 89 %,
// or the market emulator's 10 % and 1 %: a card moved in the deck or a range mistyped shows.
TEST(SpecTest, MixRangesAreCenteredOnTheDeck) {
  double middles = 0;
  for (const MixRange& r : kMixRanges) {
    SCOPED_TRACE(TransactionCode(r.type));
    ASSERT_LT(r.low_pct, r.high_pct);
    const double middle = (r.low_pct + r.high_pct) / 2;
    double want = 100.0 * kCustomerEmulatorShare * DeckCards(r.type) / kDeckSize;
    if (r.type == TT::kTradeResult) want = 10;
    if (r.type == TT::kMarketFeed) want = 1;
    EXPECT_NEAR(middle, want, 0.001);
    middles += middle;
  }
  EXPECT_NEAR(middles, 100, 0.01);
}

TEST(SpecTest, EveryMixTypeHasOneRangeAndOneLimit) {
  std::set<TT> ranged, limited;
  for (const MixRange& r : kMixRanges) EXPECT_TRUE(ranged.insert(r.type).second);
  for (const ResponseTimeLimit& l : kResponseTimeLimits) {
    EXPECT_TRUE(limited.insert(l.type).second);
    EXPECT_TRUE(l.seconds >= 1 && l.seconds <= 3) << TransactionCode(l.type);
  }
  EXPECT_EQ(ranged, limited);
  EXPECT_EQ(ranged.count(TT::kDataMaintenance) + ranged.count(TT::kTradeCleanup), 0u);
}

// The choices among several of one input add up to 100 % at their middles.
TEST(SpecTest, InputVariantChoicesAddUpToAWhole) {
  auto middle_sum = [](TT type, std::initializer_list<std::string_view> tokens) {
    double sum = 0;
    for (const InputVariantRange& v : kInputVariantRanges) {
      for (std::string_view t : tokens) {
        if (v.type == type && v.token == t) sum += (v.low_pct + v.high_pct) / 2;
      }
    }
    return sum;
  };
  EXPECT_DOUBLE_EQ(middle_sum(TT::kMarketWatch, {"industry", "watch", "acct"}), 100);
  EXPECT_DOUBLE_EQ(middle_sum(TT::kTradeLookup, {"f1", "f2", "f3", "f4"}), 100);
  EXPECT_DOUBLE_EQ(middle_sum(TT::kTradeOrder, {"TMB", "TMS", "TLB", "TLS", "TSL"}), 100);
  EXPECT_DOUBLE_EQ(middle_sum(TT::kTradeOrder, {"q100", "q200", "q400", "q800"}), 100);
  EXPECT_DOUBLE_EQ(middle_sum(TT::kTradeUpdate, {"f1", "f2", "f3"}), 100);
}

// 1 000 customers at scale factor 500 are 2 Trade-Results a second, 8.9 customer transactions
// per Trade-Result (890 cards, 101 Trade-Orders, 1 in 101 rolled back): 17.8 a second, so 10
// users each start one every 10 / 17.8 s.
TEST(SpecTest, AutoPacingOffersTheNominalThroughput) {
  EXPECT_DOUBLE_EQ(NominalTrtps(1000, 500), 2);
  EXPECT_NEAR(CustomerTransactionsPerTradeResult(), 8.9, 1e-12);
  EXPECT_NEAR(AutoPacingSeconds(10, 1000, 500), 10 / 17.8, 1e-12);
  EXPECT_NEAR(AutoPacingSeconds(250, 5000, 500), 250 / 89.0, 1e-12);
}

}  // namespace
}  // namespace bb::workload::spec
