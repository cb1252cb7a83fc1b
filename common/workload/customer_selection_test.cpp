#include "common/workload/customer_selection.h"

#include <array>
#include <map>

#include <gtest/gtest.h>

#include "common/workload/ids.h"

namespace bb::workload {
namespace {

TEST(CustomerTiers, PermutationAndInverseRoundTrip) {
  for (int64_t high : {0, 1, 9, 123}) {
    for (int low = 0; low < 1000; ++low) {
      ASSERT_EQ(InversePermuteLow(PermuteLow(low, high), high), low);
    }
  }
  EXPECT_EQ(PermuteLow(0, 0), 33);
  EXPECT_EQ(PermuteLow(1, 0), 710);
}

TEST(CustomerTiers, ExactlyTwoHundredSixHundredTwoHundredPerLoadUnit) {
  for (int64_t lu : {0, 1, 2, 9, 41}) {
    std::array<int, 4> counts{};
    for (int64_t n = 1; n <= kCustomersPerLoadUnit; ++n) {
      const int64_t c_id = CustomerIdFromOrdinal(lu * kCustomersPerLoadUnit + n);
      ++counts[static_cast<size_t>(TierOf(c_id))];
    }
    EXPECT_EQ(counts[1], 200) << "LU " << lu;
    EXPECT_EQ(counts[2], 600) << "LU " << lu;
    EXPECT_EQ(counts[3], 200) << "LU " << lu;
  }
}

TEST(CustomerSelector, DrawsTiersTenSixtyThirtyPercent) {
  const Sizing sizing{.customers = 10000};
  const CustomerSelector selector(sizing);
  Random rng(1234);
  constexpr int kDraws = 1'000'000;
  std::array<int, 4> tier_draws{};
  std::map<int64_t, int> per_customer;
  for (int i = 0; i < kDraws; ++i) {
    const int64_t c_id = selector.Select(rng);
    ASSERT_GE(CustomerOrdinal(c_id), 1);
    ASSERT_LE(CustomerOrdinal(c_id), sizing.customers);
    ++tier_draws[static_cast<size_t>(TierOf(c_id))];
    ++per_customer[c_id];
  }
  // Binomial standard deviation at 1e6 draws is below 0.05 percentage points; allow 0.3.
  EXPECT_NEAR(tier_draws[1] / double{kDraws}, 0.10, 0.003);
  EXPECT_NEAR(tier_draws[2] / double{kDraws}, 0.60, 0.003);
  EXPECT_NEAR(tier_draws[3] / double{kDraws}, 0.30, 0.003);
  // Per customer: tier 3 is picked about three times as often as tier 1 (spec 1.4.2.1).
  const double per_t1 = tier_draws[1] / (0.2 * sizing.customers);
  const double per_t3 = tier_draws[3] / (0.2 * sizing.customers);
  EXPECT_NEAR(per_t3 / per_t1, 3.0, 0.1);
  // Every customer can be drawn.
  EXPECT_EQ(per_customer.size(), static_cast<size_t>(sizing.customers));
}

TEST(CustomerSelector, StaysInsideTheLoadUnitWhenAsked) {
  const CustomerSelector selector(Sizing{.customers = 5000});
  Random rng(7);
  for (int i = 0; i < 10000; ++i)
    ASSERT_EQ(LoadUnitOfCustomer(selector.SelectInLoadUnit(rng, 3)), 3);
}

TEST(CustomerSelector, PartitionDrawsHalfFromItsOwnRange) {
  const Sizing sizing{.customers = 10000};
  auto selector = CustomerSelector::ForPartition(sizing, 2001, 2000);
  ASSERT_TRUE(selector.ok()) << selector.status().message();
  ASSERT_TRUE(selector->partitioned());
  Random rng(99);
  constexpr int kDraws = 400'000;
  int inside = 0;
  for (int i = 0; i < kDraws; ++i) {
    const int64_t lu = LoadUnitOfCustomer(selector->Select(rng));
    inside += (lu == 2 || lu == 3) ? 1 : 0;
  }
  // 50 % from the partition plus 50 % × 2/10 of the global draws = 60 %.
  EXPECT_NEAR(inside / double{kDraws}, 0.60, 0.005);
}

TEST(CustomerSelector, RejectsBadPartitions) {
  const Sizing sizing{.customers = 10000};
  EXPECT_EQ(CustomerSelector::ForPartition(sizing, 1500, 1000).status().message(),
            "--start-customer: '1500' is not the first customer of a load unit (1, 1001, 2001, "
            "...)");
  EXPECT_EQ(CustomerSelector::ForPartition(sizing, 1, 1500).status().message(),
            "--partition-customers: '1500' is not a positive multiple of 1000");
  EXPECT_EQ(CustomerSelector::ForPartition(sizing, 9001, 2000).status().message(),
            "--partition-customers: '2000' from customer 9001 goes beyond the 10000 configured "
            "customers");
}

TEST(CustomerSelector, UniformCoversTheRange) {
  const CustomerSelector selector(Sizing{.customers = 2000});
  Random rng(5);
  int first_lu = 0;
  for (int i = 0; i < 100000; ++i) first_lu += LoadUnitOfCustomer(selector.SelectUniform(rng)) == 0;
  EXPECT_NEAR(first_lu / 100000.0, 0.5, 0.01);
}

}  // namespace
}  // namespace bb::workload
