#include "common/workload/mix.h"

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace bb::workload {
namespace {

using TT = TransactionType;

// The deck of clause 6.3.1, written out again so that a change to kDeckWeights shows here.
const std::map<TT, int> kReferenceCards = {
    {TT::kBrokerVolume, 49},    {TT::kCustomerPosition, 130}, {TT::kMarketWatch, 180},
    {TT::kSecurityDetail, 140}, {TT::kTradeLookup, 80},       {TT::kTradeOrder, 101},
    {TT::kTradeStatus, 190},    {TT::kTradeUpdate, 20},
};

// The required ranges of spec 6.3.1 in percent of the CE's transactions plus the MEE's
// (Market-Feed 1 %, Trade-Result 10 % of the whole mix). A deck card's share of the whole mix
// is cards / 890 × 89 %, i.e. cards / 10 %.
struct RequiredRange {
  double low;
  double high;
};
const std::map<TT, RequiredRange> kRequiredRanges = {
    {TT::kBrokerVolume, {4.875, 4.925}},  {TT::kCustomerPosition, {12.935, 13.065}},
    {TT::kMarketWatch, {17.910, 18.090}}, {TT::kSecurityDetail, {13.930, 14.070}},
    {TT::kTradeLookup, {7.960, 8.040}},   {TT::kTradeOrder, {10.049, 10.151}},
    {TT::kTradeStatus, {18.905, 19.095}}, {TT::kTradeUpdate, {1.990, 2.010}},
};

TEST(Mix, DeckHoldsTheReferenceCards) {
  int total = 0;
  for (const DeckWeight& w : kDeckWeights) {
    ASSERT_TRUE(kReferenceCards.contains(w.type)) << TransactionCode(w.type);
    EXPECT_EQ(w.cards, kReferenceCards.at(w.type)) << TransactionCode(w.type);
    EXPECT_EQ(DeckCards(w.type), w.cards);
    total += w.cards;
  }
  EXPECT_EQ(total, 890);
  EXPECT_EQ(kDeckSize, 890);
  for (const TT t : {TT::kMarketFeed, TT::kTradeResult, TT::kDataMaintenance, TT::kTradeCleanup}) {
    EXPECT_EQ(DeckCards(t), 0) << TransactionCode(t);
  }
}

TEST(Mix, CodesAndNamesRoundTrip) {
  const std::vector<std::string> codes = {"BV", "CP", "MF", "MW", "SD", "TL",
                                          "TO", "TR", "TS", "TU", "DM", "TC"};
  ASSERT_EQ(codes.size(), static_cast<size_t>(kTransactionTypeCount));
  std::set<std::string> names;
  for (int i = 0; i < kTransactionTypeCount; ++i) {
    const auto type = static_cast<TT>(i);
    EXPECT_EQ(TransactionCode(type), codes[static_cast<size_t>(i)]);
    EXPECT_EQ(TransactionTypeFromCode(codes[static_cast<size_t>(i)]), type);
    names.insert(std::string(TransactionName(type)));
  }
  EXPECT_EQ(names.size(), codes.size());
  EXPECT_EQ(TransactionName(TT::kTradeUpdate), "Trade-Update");
  EXPECT_FALSE(TransactionTypeFromCode("XX").has_value());
  EXPECT_FALSE(TransactionTypeFromCode("bv").has_value());
  EXPECT_FALSE(TransactionTypeFromCode("").has_value());
}

TEST(Mix, EveryPassOf890DrawsHoldsTheExactMix) {
  MixDeck deck(12345);
  for (int pass = 0; pass < 200; ++pass) {
    std::map<TT, int> counts;
    for (int i = 0; i < kDeckSize; ++i) {
      EXPECT_EQ(deck.position(), i);
      ++counts[deck.Next()];
    }
    ASSERT_EQ(counts, kReferenceCards) << "pass " << pass;
  }
  EXPECT_EQ(deck.position(), 0);
}

TEST(Mix, WholeMixFallsInsideTheRequiredRangesOverAnyLongRun) {
  // 1 000 003 draws: whole passes plus a partial one, as a measurement interval would cut.
  constexpr int kDraws = 1'000'003;
  MixDeck deck(777);
  std::map<TT, int> counts;
  for (int i = 0; i < kDraws; ++i) ++counts[deck.Next()];
  for (const auto& [type, range] : kRequiredRanges) {
    // The deck's share of the whole mix: the MEE adds MF 1 % and TR 10 % (89 % from the deck).
    const double pct = 89.0 * counts[type] / kDraws;
    EXPECT_GE(pct, range.low) << TransactionCode(type);
    EXPECT_LE(pct, range.high) << TransactionCode(type);
  }
}

TEST(Mix, PassesAreShuffledAndEachPositionIsUniform) {
  // The type at a fixed position of a pass follows the weights: over many passes, the first
  // card is a Trade-Status about 190/890 of the time. An unshuffled deck fails at once.
  constexpr int kPasses = 20'000;
  MixDeck deck(99);
  std::map<TT, int> first;
  std::set<std::vector<TT>> orders;
  for (int pass = 0; pass < kPasses; ++pass) {
    std::vector<TT> order;
    for (int i = 0; i < kDeckSize; ++i) order.push_back(deck.Next());
    ++first[order[0]];
    if (pass < 10) orders.insert(order);
  }
  EXPECT_EQ(orders.size(), 10u) << "consecutive passes repeat an order";
  for (const auto& [type, cards] : kReferenceCards) {
    const double expected = static_cast<double>(kPasses) * cards / kDeckSize;
    EXPECT_NEAR(first[type], expected, 5 * std::sqrt(expected) + 1) << TransactionCode(type);
  }
}

TEST(Mix, DeterministicPerSeed) {
  MixDeck a(42);
  MixDeck b(42);
  MixDeck c(43);
  int differ = 0;
  for (int i = 0; i < 5000; ++i) {
    const TT x = a.Next();
    ASSERT_EQ(x, b.Next());
    differ += x != c.Next() ? 1 : 0;
  }
  EXPECT_GT(differ, 1000);
}

}  // namespace
}  // namespace bb::workload
