#include "common/workload/random.h"

#include <cmath>
#include <cstdint>

#include <gtest/gtest.h>

namespace bb::workload {
namespace {

TEST(Random, SkipAheadEqualsStepping) {
  for (uint64_t n : {0ULL, 1ULL, 2ULL, 3ULL, 63ULL, 64ULL, 1000ULL, 12345ULL, 100003ULL}) {
    Random stepped(seeds::kDefault);
    for (uint64_t i = 0; i < n; ++i) stepped.Next();
    EXPECT_EQ(Random::NthElement(seeds::kDefault, n), stepped.state()) << "n = " << n;
    Random skipped(seeds::kDefault);
    skipped.Skip(n);
    EXPECT_EQ(skipped.state(), stepped.state());
  }
}

TEST(Random, SkipAheadComposes) {
  const uint64_t a = 987'654'321'012ULL;
  const uint64_t b = 123'456'789ULL;
  EXPECT_EQ(Random::NthElement(Random::NthElement(7, a), b), Random::NthElement(7, a + b));
}

TEST(Random, FollowsTheLcgOfTheReference) {
  Random rng(1);
  EXPECT_EQ(rng.Next(), 1ULL * 6364136223846793005ULL + 1);
}

TEST(Random, ForKeyIsPositionedAtBaseSkippedByKey) {
  Random keyed = Random::ForKey(seeds::kTaxId, 42);
  Random manual(seeds::kTaxId);
  manual.Skip(42);
  EXPECT_EQ(keyed.Next(), manual.Next());
}

TEST(Random, RangeStaysInBoundsAndCoversThem) {
  Random rng(5);
  bool saw_min = false;
  bool saw_max = false;
  for (int i = 0; i < 10000; ++i) {
    const int64_t v = rng.Int64Range(-3, 3);
    ASSERT_GE(v, -3);
    ASSERT_LE(v, 3);
    saw_min |= v == -3;
    saw_max |= v == 3;
  }
  EXPECT_TRUE(saw_min);
  EXPECT_TRUE(saw_max);
  EXPECT_EQ(rng.Int64Range(9, 9), 9);
  // The full 64-bit range must not divide by zero or overflow.
  (void)rng.Int64Range(INT64_MIN, INT64_MAX);
}

TEST(Random, UsesTheHighBitsOfTheProduct) {
  Random rng(11);
  const uint64_t next = Random::NthElement(11, 1);
  __extension__ using U128 = unsigned __int128;
  const auto expected = static_cast<int64_t>((static_cast<U128>(next) * 100) >> 64);
  EXPECT_EQ(rng.Int64Range(0, 99), expected);
}

TEST(Random, PercentMatchesItsProbability) {
  Random rng(17);
  int hits = 0;
  constexpr int kDraws = 200000;
  for (int i = 0; i < kDraws; ++i) hits += rng.Percent(49) ? 1 : 0;
  EXPECT_NEAR(static_cast<double>(hits) / kDraws, 0.49, 0.005);
  EXPECT_FALSE(Random(3).Percent(0));
  EXPECT_TRUE(Random(3).Percent(100));
}

TEST(Random, DoublesLieOnTheGrid) {
  Random rng(23);
  for (int i = 0; i < 1000; ++i) {
    const double v = rng.DoubleIncrRange(20.0, 30.0, 0.01);
    ASSERT_GE(v, 20.0);
    ASSERT_LE(v, 30.0 + 1e-9);
    const double cents = v * 100.0;
    ASSERT_NEAR(cents, std::round(cents), 1e-6);
  }
}

TEST(Random, NegExpHasTheRequestedMean) {
  Random rng(29);
  double sum = 0;
  constexpr int kDraws = 200000;
  for (int i = 0; i < kDraws; ++i) {
    const double v = rng.NegExp(1.0);
    ASSERT_GE(v, 0.0);
    ASSERT_TRUE(std::isfinite(v));
    sum += v;
  }
  EXPECT_NEAR(sum / kDraws, 1.0, 0.02);
}

TEST(Random, NURandStaysInRangeAndIsSkewed) {
  Random rng(31);
  constexpr int kDraws = 200000;
  double sum = 0;
  for (int i = 0; i < kDraws; ++i) {
    const int64_t v = rng.NURand(0, 255, 255, 0);
    ASSERT_GE(v, 0);
    ASSERT_LE(v, 255);
    sum += static_cast<double>(v);
  }
  // OR of two uniform bytes: every bit is set with probability 3/4, mean 0.75·255 = 191.25,
  // far from the uniform 127.5: Market-Watch's weeks lean to later weeks.
  EXPECT_NEAR(sum / kDraws, 191.25, 1.0);

  // Trade-Lookup frame 1 style: in range [1, q], with some values much more frequent.
  const int64_t q = 1'000'000;
  for (int i = 0; i < 10000; ++i) {
    const int64_t v = rng.NURand(1, q, 65535, 7);
    ASSERT_GE(v, 1);
    ASSERT_LE(v, q);
  }
}

TEST(Random, IsDeterministic) {
  Random a(99);
  Random b(99);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(a.Int64Range(0, 1'000'000), b.Int64Range(0, 1'000'000));
}

}  // namespace
}  // namespace bb::workload
