#include "common/workload/ids.h"

#include <set>

#include <gtest/gtest.h>

namespace bb::workload {
namespace {

TEST(Ids, CustomerAndAccountBlocks) {
  const int64_t c = CustomerIdFromOrdinal(1);
  EXPECT_EQ(c, 4'300'000'001);
  EXPECT_EQ(CustomerOrdinal(c), 1);
  EXPECT_EQ(LoadUnitOfCustomer(CustomerIdFromOrdinal(1000)), 0);
  EXPECT_EQ(LoadUnitOfCustomer(CustomerIdFromOrdinal(1001)), 1);
  EXPECT_EQ(FirstCustomerIdOfLoadUnit(3), CustomerIdFromOrdinal(3001));
  EXPECT_EQ(AccountId(c, 0), (c - 1) * 10 + 1);
  for (int k = 0; k < kMaxAccountsPerCustomer; ++k) {
    EXPECT_EQ(AccountOwner(AccountId(c, k)), c);
    EXPECT_EQ(AccountSlot(AccountId(c, k)), k);
  }
  EXPECT_EQ(AccountOwner(AccountId(c + 1, 0)), c + 1);
}

TEST(Ids, AddressesFollowExchangesThenCompaniesThenCustomers) {
  const Sizing s{.customers = 5000};
  EXPECT_EQ(ExchangeAddressId(0), kIdentShift + 1);
  EXPECT_EQ(CompanyAddressId(0), kIdentShift + 5);
  EXPECT_EQ(CustomerAddressId(s, CustomerIdFromOrdinal(1)), kIdentShift + 4 + 2500 + 1);
  EXPECT_EQ(BrokerIdOfLoadUnit(2, 3), kIdentShift + 24);
  EXPECT_EQ(CompanyIndex(CompanyId(77)), 77);
  EXPECT_EQ(NewsItemId(0, 0), 1);
  EXPECT_EQ(NewsItemId(4, 1), 10);
}

TEST(Ids, WatchListIdsPermuteEachLoadUnit) {
  for (int64_t lu : {0, 1, 7}) {
    std::set<int64_t> ids;
    for (int64_t n = 1; n <= kCustomersPerLoadUnit; ++n) {
      const int64_t c = CustomerIdFromOrdinal(lu * kCustomersPerLoadUnit + n);
      const int64_t wl = WatchListId(c);
      ASSERT_EQ(LoadUnitOfCustomer(wl), lu);  // the same id range as the LU's customers
      ASSERT_EQ(WatchListOwner(wl), c);
      ids.insert(wl);
    }
    EXPECT_EQ(ids.size(), static_cast<size_t>(kCustomersPerLoadUnit));
  }
}

TEST(Ids, LoadTradeBlocksSkipOrdinal51Mod101) {
  const Sizing s{.customers = 5000};
  const TradeOrdinalRange lu0 = TradeOrdinalsOfLoadUnit(s, 0);
  const TradeOrdinalRange lu1 = TradeOrdinalsOfLoadUnit(s, 1);
  EXPECT_EQ(lu0.first, 1);
  EXPECT_EQ(lu0.last, 17'452'800);
  EXPECT_EQ(lu1.first, lu0.last + 1);
  int64_t kept = 0;
  for (int64_t o = lu0.first; o <= lu0.last; ++o) kept += IsAbortedTradeOrdinal(o) ? 0 : 1;
  EXPECT_EQ(kept, s.TradesPerLoadUnit());
  EXPECT_TRUE(IsAbortedTradeOrdinal(51));
  EXPECT_TRUE(IsAbortedTradeOrdinal(152));
  EXPECT_FALSE(IsAbortedTradeOrdinal(50));
  EXPECT_EQ(SkipAbortedTradeOrdinal(51), 52);
  EXPECT_EQ(SkipAbortedTradeOrdinal(50), 50);
  EXPECT_EQ(TradeIdFromOrdinal(1), 200'000'000'000'001);
  EXPECT_EQ(TradeOrdinal(TradeIdFromOrdinal(99)), 99);
}

TEST(Ids, TradeCleanupStartsAfterTheLoadIds) {
  const Sizing s{.customers = 5000};
  // ITD·8·3600·(customers/SF)·1.01 + 1 + shift.
  EXPECT_EQ(TradeCleanupStartId(s), 300LL * 28800 * 10 * 101 / 100 + 1 + kTradeIdShift);
  EXPECT_EQ(MaxInitialTradeOrdinal(s), 87'264'000);
}

}  // namespace
}  // namespace bb::workload
