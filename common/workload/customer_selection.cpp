#include "common/workload/customer_selection.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/workload/ids.h"

namespace bb::workload {
namespace {

constexpr int64_t kPermuteMultiplier = 677;
constexpr int64_t kPermuteInverse = 613;  // 677·613 ≡ 1 (mod 1000)
constexpr int64_t kPermuteHighMultiplier = 33;
constexpr int kTier1End = 200;  // scrambled positions [0, 200) are tier 1
constexpr int kTier2End = 800;  // [200, 800) tier 2, [800, 1000) tier 3

// The scrambled position of the chosen customer for a draw w in [0.0001, 2000] (clause 1.4.2.1).
int ScrambledPositionFor(double w) {
  double position;
  int lo;
  int hi;
  if (w <= 200.0) {
    position = std::ceil(std::sqrt(22500.0 + 500.0 * w) - 151.0);
    lo = 0;
    hi = kTier1End - 1;
  } else if (w <= 1400.0) {
    position = std::ceil(std::sqrt(290000.0 + 1000.0 * w) - 501.0);
    lo = kTier1End;
    hi = kTier2End - 1;
  } else {
    position = std::ceil(149.0 + std::sqrt(500.0 * w - 277500.0));
    lo = kTier2End;
    hi = 999;
  }
  // Rounding at a tier edge must not move a draw into the neighbouring tier.
  return std::clamp(static_cast<int>(position), lo, hi);
}

}  // namespace

int PermuteLow(int low, int64_t high) {
  return static_cast<int>((kPermuteMultiplier * low + kPermuteHighMultiplier * (high + 1)) % 1000);
}

int InversePermuteLow(int permuted, int64_t high) {
  const int64_t shifted = (permuted - kPermuteHighMultiplier * (high + 1)) % 1000 + 1000;
  return static_cast<int>((shifted * kPermuteInverse) % 1000);
}

int TierRank(int64_t c_id) {
  const int64_t n = CustomerOrdinal(c_id) - 1;
  return InversePermuteLow(static_cast<int>(n % kCustomersPerLoadUnit), n / kCustomersPerLoadUnit);
}

CustomerTier TierOf(int64_t c_id) {
  const int rank = TierRank(c_id);
  if (rank < kTier1End) return CustomerTier::kOne;
  if (rank < kTier2End) return CustomerTier::kTwo;
  return CustomerTier::kThree;
}

CustomerSelector::CustomerSelector(const Sizing& sizing)
    : CustomerSelector(sizing.LoadUnits(), 0, sizing.LoadUnits()) {}

Result<CustomerSelector> CustomerSelector::ForPartition(const Sizing& sizing, int64_t first_ordinal,
                                                        int64_t count) {
  if (first_ordinal < 1 || (first_ordinal - 1) % kCustomersPerLoadUnit != 0) {
    return Status::InvalidArgument(fmt::format(
        "--start-customer: '{}' is not the first customer of a load unit (1, 1001, 2001, ...)",
        first_ordinal));
  }
  if (count <= 0 || count % kCustomersPerLoadUnit != 0) {
    return Status::InvalidArgument(
        fmt::format("--partition-customers: '{}' is not a positive multiple of {}", count,
                    kCustomersPerLoadUnit));
  }
  if (first_ordinal - 1 + count > sizing.customers) {
    return Status::InvalidArgument(fmt::format(
        "--partition-customers: '{}' from customer {} goes beyond the {} configured customers",
        count, first_ordinal, sizing.customers));
  }
  return CustomerSelector(sizing.LoadUnits(), (first_ordinal - 1) / kCustomersPerLoadUnit,
                          count / kCustomersPerLoadUnit);
}

int64_t CustomerSelector::SelectInLoadUnit(Random& rng, int64_t load_unit) const {
  // w uniform in [0.0001, 2000] on a 1e-9 grid, drawn as an integer (no float in the draw).
  constexpr int64_t kGrid = 1'000'000'000;
  const int64_t w_units = rng.Int64Range(100'000, 2000 * kGrid);
  const double w = static_cast<double>(w_units) / static_cast<double>(kGrid);
  const int position = ScrambledPositionFor(w);
  return FirstCustomerIdOfLoadUnit(load_unit) + PermuteLow(position, load_unit);
}

int64_t CustomerSelector::Select(Random& rng) const {
  int64_t load_unit;
  if (partitioned() && rng.Percent(50)) {
    load_unit = partition_first_load_unit_ + rng.Int64Range(0, partition_load_units_ - 1);
  } else {
    load_unit = rng.Int64Range(0, total_load_units_ - 1);
  }
  return SelectInLoadUnit(rng, load_unit);
}

int64_t CustomerSelector::SelectUniform(Random& rng) const {
  return CustomerIdFromOrdinal(rng.Int64Range(1, total_load_units_ * kCustomersPerLoadUnit));
}

}  // namespace bb::workload
