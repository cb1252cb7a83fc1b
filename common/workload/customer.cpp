#include "common/workload/customer.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "common/workload/ids.h"
#include "common/workload/person.h"
#include "common/workload/random.h"
#include "common/workload/word_lists.h"

namespace bb::workload {
namespace {

// Per-key draw budgets (see person.cpp). A basket takes at most 18 draws plus rare repeats.
constexpr uint64_t kPermissionDraws = 4;
constexpr uint64_t kBasketDraws = 64;
constexpr uint64_t kBalanceDraws = 2;
constexpr uint64_t kTaxRateDraws = 2;

struct AccountRange {
  int min;
  int max;
};
constexpr std::array<AccountRange, 3> kAccountsByTier = {{{1, 4}, {2, 8}, {5, 10}}};
constexpr std::array<int, 3> kTierRankStart = {0, 200, 800};
constexpr std::array<int, 3> kTierSize = {200, 600, 200};

// clause 1.4.2.3: basket size ranges by tier (rows) and number of accounts 1..10 (columns); {0, 0}
// where a tier cannot have that many accounts.
constexpr std::array<std::array<std::pair<int, int>, 10>, 3> kBasketSizes = {{
    {{{6, 14}, {4, 16}, {2, 18}, {2, 18}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}},
    {{{0, 0}, {7, 13}, {5, 15}, {4, 16}, {3, 17}, {2, 18}, {2, 18}, {2, 18}, {0, 0}, {0, 0}}},
    {{{0, 0}, {0, 0}, {0, 0}, {0, 0}, {4, 16}, {4, 16}, {3, 17}, {3, 17}, {2, 18}, {2, 18}}},
}};

}  // namespace

int CustomerModel::AccountCount(int64_t c_id) const {
  // The count follows the customer's scrambled position r inside its tier. Positions pair up
  // from both ends (r and size-1-r) with counts that add up to min + max, so every LU gets
  // exactly the tier averages 2.5 / 5 / 7.5, i.e. 5 000 accounts (clause 1.4.2.2; EGen's plain
  // "min + r mod width" gives 4 991).
  const auto tier = static_cast<size_t>(static_cast<int>(TierOf(c_id)) - 1);
  const AccountRange range = kAccountsByTier[tier];
  const int width = range.max - range.min + 1;
  const int r = TierRank(c_id) - kTierRankStart[tier];
  const int size = kTierSize[tier];
  if (r < size / 2) return range.min + r % width;
  return range.min + range.max - (range.min + (size - 1 - r) % width);
}

std::vector<int64_t> CustomerModel::AccountIds(int64_t c_id) const {
  std::vector<int64_t> ids;
  const int n = AccountCount(c_id);
  ids.reserve(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) ids.push_back(AccountId(c_id, k));
  return ids;
}

int64_t CustomerModel::AccountBroker(int64_t ca_id) const {
  Random rng = Random::ForKey(seeds::kAccountBroker, ca_id);
  return BrokerIdOfLoadUnit(LoadUnitOfCustomer(AccountOwner(ca_id)),
                            rng.Int64Range(0, kBrokersPerLoadUnit - 1));
}

int CustomerModel::AccountTaxStatus(int64_t ca_id) const {
  Random rng = Random::ForKey(seeds::kAccountTaxStatus, ca_id);
  const int point = rng.IntRange(1, 100);
  if (point <= 20) return 0;
  if (point <= 70) return 1;
  return 2;
}

std::string CustomerModel::AccountName(int64_t ca_id) const {
  const auto names =
      AccountTaxStatus(ca_id) == 0 ? NonTaxableAccountNames() : TaxableAccountNames();
  const int64_t owner = AccountOwner(ca_id);
  return fmt::format("{} {} {}", FirstName(owner), LastName(owner),
                     names[static_cast<size_t>(ca_id % static_cast<int64_t>(names.size()))]);
}

int64_t CustomerModel::AccountBalanceCents(int64_t ca_id) const {
  constexpr int64_t kMaxCents = 999'999'999;  // 9 999 999.99
  Random rng = Random::ForKey(seeds::kAccountBalance, ca_id, kBalanceDraws);
  if (rng.Percent(80)) return rng.Int64Range(0, kMaxCents);
  return rng.Int64Range(-kMaxCents, 0);
}

AccountExecutors CustomerModel::ExtraExecutors(int64_t ca_id) const {
  Random rng = Random::ForKey(seeds::kAccountPermissions, ca_id, kPermissionDraws);
  const int point = rng.IntRange(1, 100);
  AccountExecutors executors;
  executors.count = point <= 60 ? 0 : point <= 98 ? 1 : 2;
  const int64_t owner = AccountOwner(ca_id);
  int64_t first = 0;
  for (int i = 0; i < executors.count; ++i) {
    int64_t person;
    do {
      person = rng.Int64Range(1, kMaxPseudoPersonId);
    } while (person == owner || person == first);
    executors.persons[static_cast<size_t>(i)] = person;
    first = person;
  }
  return executors;
}

std::vector<AccountPermission> CustomerModel::AccountPermissions(int64_t ca_id) const {
  const AccountExecutors extra = ExtraExecutors(ca_id);
  std::vector<AccountPermission> rows;
  rows.push_back({"0000", AccountOwner(ca_id)});
  if (extra.count >= 1) rows.push_back({"0001", extra.persons[0]});
  if (extra.count >= 2) rows.push_back({"0011", extra.persons[1]});
  return rows;
}

std::pair<int, int> CustomerModel::BasketSizeRange(CustomerTier tier, int account_count) {
  return kBasketSizes[static_cast<size_t>(static_cast<int>(tier) - 1)]
                     [static_cast<size_t>(std::clamp(account_count, 1, 10) - 1)];
}

AccountBasket CustomerModel::BasketOf(int64_t ca_id) const {
  const int64_t owner = AccountOwner(ca_id);
  const auto [min, max] = BasketSizeRange(TierOf(owner), AccountCount(owner));
  Random rng = Random::ForKey(seeds::kAccountBasket, ca_id, kBasketDraws);
  AccountBasket basket;
  basket.size = rng.IntRange(min, max);
  const int64_t last = sizing_.Securities() - 1;
  const auto begin = basket.securities.begin();
  auto end = begin;
  while (end - begin < basket.size) {
    const int64_t s = rng.Int64Range(0, last);
    if (std::find(begin, end, s) == end) *end++ = s;
  }
  return basket;
}

std::vector<int64_t> CustomerModel::Basket(int64_t ca_id) const {
  const AccountBasket basket = BasketOf(ca_id);
  return {basket.securities.begin(), basket.securities.begin() + basket.size};
}

int64_t CustomerModel::AddressId(int64_t c_id) const { return CustomerAddressId(sizing_, c_id); }

CustomerTaxRates CustomerModel::TaxRateChoice(int64_t c_id) const {
  const ZipCode& zip = ZipCodes()[AddressZipIndex(AddressId(c_id))];
  Random rng = Random::ForKey(seeds::kTaxRateChoice, static_cast<uint64_t>(c_id), kTaxRateDraws);
  const auto national = TaxRates().National(zip.country());
  const auto division = TaxRates().OfDivision(zip.division);
  const auto n = static_cast<size_t>(rng.IntRange(0, static_cast<int>(national.size()) - 1));
  const auto d = static_cast<size_t>(rng.IntRange(0, static_cast<int>(division.size()) - 1));
  return CustomerTaxRates{&national[n], &division[d]};
}

}  // namespace bb::workload
