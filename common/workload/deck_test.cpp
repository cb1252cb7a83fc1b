#include "common/workload/deck.h"

#include <array>
#include <cmath>
#include <cstdlib>
#include <vector>

#include <gtest/gtest.h>

namespace bb::workload {
namespace {

// Deals `n` cards and returns their kinds.
template <int... Counts>
std::vector<int> DealMany(Deck<Counts...>& deck, Random& rng, int n) {
  std::vector<int> kinds;
  kinds.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) kinds.push_back(deck.Deal(rng));
  return kinds;
}

TEST(Deck, EveryPassHoldsEachKindExactlyItsCount) {
  Deck<3, 3, 2, 1, 1> deck;
  static_assert(decltype(deck)::kSize == 10);
  Random rng(99);
  for (int pass = 0; pass < 1000; ++pass) {
    std::array<int, 5> seen{};
    for (int i = 0; i < 10; ++i) {
      EXPECT_EQ(deck.position(), i);
      ++seen[static_cast<size_t>(deck.Deal(rng))];
    }
    ASSERT_EQ(seen, (std::array<int, 5>{3, 3, 2, 1, 1})) << "pass " << pass;
  }
  EXPECT_EQ(deck.position(), 0);
}

TEST(Deck, PassesAreShuffledAnew) {
  // A deck that repeated its first pass would keep its shares and lose its randomness.
  Deck<1, 1, 1, 1, 1, 1, 1, 1> deck;
  Random rng(5);
  const std::vector<int> first = DealMany(deck, rng, 8);
  int same = 0;
  for (int pass = 0; pass < 100; ++pass) same += DealMany(deck, rng, 8) == first ? 1 : 0;
  EXPECT_LT(same, 3);  // 8! orders: a repeat now and then, not every pass
}

// The deck's promise (deck.h): any run of consecutive deals, of any length and from any
// position, holds each kind less than twice its count away from its exact share. Independent
// draws with the same probabilities break it within a few thousand windows.
template <int... Counts>
int64_t WindowsOffBy2Counts(const std::vector<int>& kinds) {
  constexpr int kSize = (Counts + ...);
  constexpr std::array<int, sizeof...(Counts)> kCounts = {Counts...};
  int64_t off = 0;
  for (size_t kind = 0; kind < kCounts.size(); ++kind) {
    const double p = static_cast<double>(kCounts[kind]) / kSize;
    for (const int length : {1, kSize / 2 + 1, kSize, kSize + 1, 2 * kSize - 1, 3 * kSize + 7}) {
      int64_t in = 0;  // of `kind` among kinds[start, start + length)
      for (int i = 0; i < length; ++i)
        in += kinds[static_cast<size_t>(i)] == static_cast<int>(kind);
      for (size_t start = 0; start + static_cast<size_t>(length) <= kinds.size(); ++start) {
        if (start > 0) {
          in -= kinds[start - 1] == static_cast<int>(kind);
          in += kinds[start + static_cast<size_t>(length) - 1] == static_cast<int>(kind);
        }
        if (std::abs(static_cast<double>(in) - p * length) >= 2.0 * kCounts[kind]) ++off;
      }
    }
  }
  return off;
}

TEST(Deck, AnyRunStaysWithinTwiceACountOfTheExactShare) {
  Random rng(2026);
  Deck<1, 100> roll_back;
  Deck<3, 3, 2, 1, 1> trade_type;
  Deck<33, 33, 34> frames;
  EXPECT_EQ((WindowsOffBy2Counts<1, 100>(DealMany(roll_back, rng, 20'000))), 0);
  EXPECT_EQ((WindowsOffBy2Counts<3, 3, 2, 1, 1>(DealMany(trade_type, rng, 20'000))), 0);
  EXPECT_EQ((WindowsOffBy2Counts<33, 33, 34>(DealMany(frames, rng, 20'000))), 0);

  // The same check fails on independent draws: it can tell a deck from a die.
  std::vector<int> drawn;
  for (int i = 0; i < 20'000; ++i) drawn.push_back(rng.IntRange(1, 101) == 1 ? 0 : 1);
  EXPECT_GT((WindowsOffBy2Counts<1, 100>(drawn)), 0);
}

TEST(Deck, SameSeedSameDeal) {
  Deck<7, 13> a, b;
  Random ra(42), rb(42);
  EXPECT_EQ(DealMany(a, ra, 500), DealMany(b, rb, 500));
}

}  // namespace
}  // namespace bb::workload
