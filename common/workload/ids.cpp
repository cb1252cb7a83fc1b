#include "common/workload/ids.h"

namespace bb::workload {
namespace {

// WL_ID permutation (ids.h): c -> (c·631 + 97) mod 1000; 631·271 ≡ 1 (mod 1000).
constexpr int64_t kWatchListMultiplier = 631;
constexpr int64_t kWatchListInverse = 271;
constexpr int64_t kWatchListOffset = 97;

}  // namespace

int64_t WatchListId(int64_t c_id) {
  const int64_t c = CustomerOrdinal(c_id) - 1;
  const int64_t base = c - c % kCustomersPerLoadUnit;
  const int64_t low = c % kCustomersPerLoadUnit;
  return kIdentShift + base + (low * kWatchListMultiplier + kWatchListOffset) % 1000 + 1;
}

int64_t WatchListOwner(int64_t wl_id) {
  const int64_t w = wl_id - kIdentShift - 1;
  const int64_t base = w - w % kCustomersPerLoadUnit;
  const int64_t permuted = w % kCustomersPerLoadUnit;
  const int64_t low = ((permuted - kWatchListOffset + 1000) * kWatchListInverse) % 1000;
  return CustomerIdFromOrdinal(base + low + 1);
}

}  // namespace bb::workload
