// Customer tiers and the non-uniform customer selector (clauses 1.4.2.1, 6.4.2; the formulas
// are EGen's).
//
// Tiers are fixed at load time by a per-LU permutation of the customer's position in its LU:
// exactly 200 tier-1, 600 tier-2 and 200 tier-3 customers per LU. The run-time selector (also
// used by the loader for initial trades inside one LU) draws a tier with probability
// 10/60/30 % and, within a tier, favours higher scrambled positions, so a tier-3 customer is
// picked about three times as often as a tier-1 customer.
//
// Ownership and thread-safety: CustomerSelector is an immutable value; Select() takes the
// caller's generator, so one selector may be shared by many threads.
#pragma once

#include <cstdint>

#include "common/util/status.h"
#include "common/workload/random.h"
#include "common/workload/sizing.h"

namespace bb::workload {

enum class CustomerTier : int { kOne = 1, kTwo = 2, kThree = 3 };

// The permutation p(low, high) = (677·low + 33·(high+1)) mod 1000 of clause 1.4.2.1 and its inverse
// (multiplier 613). `low` is the 0-based position in the LU, `high` the 0-based LU.
int PermuteLow(int low, int64_t high);
int InversePermuteLow(int permuted, int64_t high);

// The customer's scrambled position in its LU, 0..999: < 200 tier 1, < 800 tier 2, else 3.
int TierRank(int64_t c_id);
CustomerTier TierOf(int64_t c_id);

class CustomerSelector {
 public:
  // Selects from all configured customers.
  explicit CustomerSelector(const Sizing& sizing);

  // Selects for a CE that owns `count` customers starting at customer ordinal
  // `first_ordinal` (1-based): half the draws come from the partition, half from all
  // customers (clause 6.4.2). The partition must start on an LU boundary, hold whole LUs and lie
  // inside the configured customers.
  static Result<CustomerSelector> ForPartition(const Sizing& sizing, int64_t first_ordinal,
                                               int64_t count);

  // A customer id (C_ID) by the tier-weighted rule of clause 1.4.2.1.
  int64_t Select(Random& rng) const;
  // The same rule restricted to one LU (initial trade generation).
  int64_t SelectInLoadUnit(Random& rng, int64_t load_unit) const;
  // A uniformly chosen customer of the whole range (Data-Maintenance's c_id, clause 6.4.1).
  int64_t SelectUniform(Random& rng) const;

  bool partitioned() const { return partition_load_units_ != total_load_units_; }
  int64_t partition_first_load_unit() const { return partition_first_load_unit_; }
  int64_t partition_load_units() const { return partition_load_units_; }

 private:
  CustomerSelector(int64_t total_load_units, int64_t first_lu, int64_t lus)
      : total_load_units_(total_load_units),
        partition_first_load_unit_(first_lu),
        partition_load_units_(lus) {}

  int64_t total_load_units_;
  int64_t partition_first_load_unit_;
  int64_t partition_load_units_;
};

}  // namespace bb::workload
