// CustomerModel: everything about a customer and its accounts that the loader writes and the
// customer emulator must re-derive without the database (clause 1.4.2 and EGen's rules): tier,
// number of accounts and their ids, each account's broker, tax status, name, balance,
// permissions (with the pseudo-persons allowed to trade) and security basket, and the
// customer's address, zip code and two tax rates.
//
// Ownership and thread-safety: holds only a Sizing; immutable; share it between threads.
// Person attributes (names, tax ids) come from person.h; securities are indexes into the
// configured securities (market.h maps an index to a symbol).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/workload/address.h"
#include "common/workload/customer_selection.h"
#include "common/workload/sizing.h"
#include "common/workload/tax_rates.h"

namespace bb::workload {

inline constexpr int kMaxBasketSize = 18;

// One row of ACCOUNT_PERMISSION: the acl and the person whose names and tax id the row holds
// (the owner's C_ID, or a pseudo-person id).
struct AccountPermission {
  std::string_view acl;  // "0000" owner, "0001", "0011"
  int64_t person_id;
};

struct CustomerTaxRates {
  const TaxRate* national;  // US1..US5 or CN1..CN4
  const TaxRate* division;  // a rate of the zip's division
};

struct AccountBasket {
  std::array<int64_t, kMaxBasketSize> securities{};  // security indexes, first `size` used
  int size = 0;
};

struct AccountExecutors {
  std::array<int64_t, 2> persons{};  // the "0001" row's person, then the "0011" row's
  int count = 0;                     // 0, 1 or 2
};

class CustomerModel {
 public:
  explicit CustomerModel(const Sizing& sizing) : sizing_(sizing) {}
  const Sizing& sizing() const { return sizing_; }

  CustomerTier Tier(int64_t c_id) const { return TierOf(c_id); }
  // Tier 1: 1-4, tier 2: 2-8, tier 3: 5-10 accounts; exactly 5 000 per LU (clause 1.4.2.2).
  int AccountCount(int64_t c_id) const;
  std::vector<int64_t> AccountIds(int64_t c_id) const;

  int64_t AccountBroker(int64_t ca_id) const;    // one of the 10 brokers of the owner's LU
  int AccountTaxStatus(int64_t ca_id) const;     // 0 (20 %), 1 (50 %), 2 (30 %)
  std::string AccountName(int64_t ca_id) const;  // "<First> <Last> <type>"
  int64_t AccountBalanceCents(int64_t ca_id) const;
  // Additional executors beyond the owner: 0 (60 %), 1 (38 %), 2 (2 %), each a pseudo-person
  // id other than the owner and each other. Allocation-free, for the driver's hot path.
  AccountExecutors ExtraExecutors(int64_t ca_id) const;
  int AdditionalPermissionCount(int64_t ca_id) const { return ExtraExecutors(ca_id).count; }
  // All permission rows, owner first ("0000", then "0001" and "0011" for the extra ones).
  std::vector<AccountPermission> AccountPermissions(int64_t ca_id) const;
  // The account's basket: distinct security indexes (0-based, over all configured
  // securities), size by the clause 1.4.2.3 table. Allocation-free; Basket() is the same as a
  // vector.
  AccountBasket BasketOf(int64_t ca_id) const;
  std::vector<int64_t> Basket(int64_t ca_id) const;
  // The [min, max] basket size for a tier and the customer's number of accounts (clause 1.4.2.3).
  static std::pair<int, int> BasketSizeRange(CustomerTier tier, int account_count);

  int64_t AddressId(int64_t c_id) const;
  Address CustomerAddress(int64_t c_id) const { return MakeAddress(AddressId(c_id), true); }
  // One national and one division rate from the customer's zip code.
  CustomerTaxRates TaxRateChoice(int64_t c_id) const;

 private:
  Sizing sizing_;
};

}  // namespace bb::workload
