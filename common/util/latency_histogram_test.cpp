// LatencyHistogram: exact below 64 µs, within its bucket width (1/32) above, never under.
#include "common/util/latency_histogram.h"

#include <gtest/gtest.h>

namespace bb {
namespace {

TEST(LatencyHistogram, IsExactForSmallValues) {
  LatencyHistogram h;
  for (int v = 1; v <= 50; ++v) h.Record(v);
  EXPECT_EQ(h.count(), 50);
  EXPECT_EQ(h.Percentile(0.5), 25);
  EXPECT_EQ(h.Percentile(0.9), 45);
  EXPECT_EQ(h.Percentile(1.0), 50);
  EXPECT_DOUBLE_EQ(h.Mean(), 25.5);
}

TEST(LatencyHistogram, StaysWithinItsBucketWidthAndNeverUnderStates) {
  LatencyHistogram h;
  for (int64_t v = 1; v <= 100'000; ++v) h.Record(v * 10);  // 10 µs .. 1 s
  for (double f : {0.5, 0.9, 0.99}) {
    const double exact = f * 1'000'000;
    const auto got = static_cast<double>(h.Percentile(f));
    EXPECT_GE(got, exact) << f;
    EXPECT_LE(got, exact * (1 + 1.0 / 32)) << f;
  }
  EXPECT_EQ(h.max(), 1'000'000);
  EXPECT_EQ(h.Percentile(1.0), 1'000'000);
}

TEST(LatencyHistogram, MergesAndHandlesEmpty) {
  LatencyHistogram a, b;
  EXPECT_EQ(a.Percentile(0.9), 0);
  a.Record(100);
  b.Record(-5);  // clamped to 0
  b.Record(7'000'000'000);
  a.Merge(b);
  EXPECT_EQ(a.count(), 3);
  EXPECT_EQ(a.max(), 7'000'000'000);
  EXPECT_EQ(a.Percentile(0.0001), 0);
}

}  // namespace
}  // namespace bb
