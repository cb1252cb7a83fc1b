#include "common/workload/price_curve.h"

#include <gtest/gtest.h>

#include "common/workload/random.h"

namespace bb::workload {
namespace {

TEST(PriceCurve, StaysWithinTwentyAndThirtyAndIsPeriodic) {
  for (int64_t s : {0, 1, 2, 684, 6850, 123456}) {
    const PriceCurve curve(s);
    int64_t lowest = kPriceHighCents;
    int64_t highest = kPriceLowCents;
    for (int64_t t = -kPricePeriodMs; t < 2 * kPricePeriodMs; t += 97) {
      const int64_t p = curve.PriceCentsAt(t);
      ASSERT_GE(p, kPriceLowCents);
      ASSERT_LE(p, kPriceHighCents);
      ASSERT_EQ(p, curve.PriceCentsAt(t + kPricePeriodMs));
      ASSERT_EQ(p, curve.PriceCentsAt(t + 7 * kPricePeriodMs));
      lowest = std::min(lowest, p);
      highest = std::max(highest, p);
    }
    EXPECT_EQ(lowest, kPriceLowCents);
    EXPECT_EQ(highest, kPriceHighCents);
  }
}

TEST(PriceCurve, IsTriangularWithTheReferencePhase) {
  // Security 0 at t = 0 is 253 791 ms into the period: rising, 20 + 253.791/45 dollars.
  const PriceCurve curve(0);
  EXPECT_TRUE(curve.RisingAt(0));
  EXPECT_EQ(curve.PriceCentsAt(0), 2000 + (253'791 + 225) / 450);
  // One cent per 450 ms while rising.
  EXPECT_EQ(curve.PriceCentsAt(4500) - curve.PriceCentsAt(0), 10);
  // Trading time so far shifts the phase by whole seconds.
  EXPECT_EQ(PriceCurve(0, 10).PriceCentsAt(0), curve.PriceCentsAt(10'000));
  EXPECT_EQ(PriceCurve(0, 900).PriceCentsAt(0), curve.PriceCentsAt(0));
}

TEST(PriceCurve, CrossingTimeHitsThePriceToTheCent) {
  Random rng(77);
  for (int i = 0; i < 20000; ++i) {
    const PriceCurve curve(rng.Int64Range(0, 100'000));
    const int64_t from = rng.Int64Range(0, 10 * kPricePeriodMs);
    const int64_t price = rng.Int64Range(kPriceLowCents, kPriceHighCents);
    const auto t = curve.NextTimeAtPrice(from, price);
    ASSERT_TRUE(t.has_value());
    ASSERT_GE(*t, from);
    ASSERT_LT(*t - from, kPricePeriodMs);
    ASSERT_EQ(curve.PriceCentsAt(*t), price) << "from " << from << " t " << *t;
  }
}

TEST(PriceCurve, CrossingTimeIsTheFirstOne) {
  const PriceCurve curve(3);
  const int64_t from = 12'345;
  const int64_t now = curve.PriceCentsAt(from);
  // A price a dollar away in the direction of travel is reached after about 45 s.
  const int64_t target = curve.RisingAt(from) ? now + 100 : now - 100;
  if (target >= kPriceLowCents && target <= kPriceHighCents) {
    const auto t = curve.NextTimeAtPrice(from, target);
    ASSERT_TRUE(t.has_value());
    EXPECT_NEAR(static_cast<double>(*t - from), 45'000.0, 450.0);
  }
  // Scanning forward ms by ms never meets the price strictly before the returned time's cent
  // window (the curve rounds to cents: the window is ±225 ms around the exact crossing).
  for (int64_t price : {2000, 2001, 2500, 2999, 3000}) {
    const auto t = curve.NextTimeAtPrice(from, price);
    ASSERT_TRUE(t.has_value());
    for (int64_t u = from; u < *t - 225; u += 1) ASSERT_NE(curve.PriceCentsAt(u), price) << u;
  }
  EXPECT_FALSE(curve.NextTimeAtPrice(0, 1999).has_value());
  EXPECT_FALSE(curve.NextTimeAtPrice(0, 3001).has_value());
}

}  // namespace
}  // namespace bb::workload
