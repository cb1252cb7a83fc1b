#include "common/workload/customer.h"

#include <set>

#include <gtest/gtest.h>

#include "common/workload/ids.h"
#include "common/workload/person.h"

namespace bb::workload {
namespace {

const Sizing kSizing{.customers = 10000};

TEST(CustomerModel, ExactlyFiveThousandAccountsPerLoadUnitInTierRanges) {
  const CustomerModel model(kSizing);
  for (int64_t lu = 0; lu < kSizing.LoadUnits(); ++lu) {
    int accounts = 0;
    for (int64_t n = 1; n <= kCustomersPerLoadUnit; ++n) {
      const int64_t c_id = CustomerIdFromOrdinal(lu * kCustomersPerLoadUnit + n);
      const int count = model.AccountCount(c_id);
      switch (model.Tier(c_id)) {
        case CustomerTier::kOne:
          ASSERT_GE(count, 1);
          ASSERT_LE(count, 4);
          break;
        case CustomerTier::kTwo:
          ASSERT_GE(count, 2);
          ASSERT_LE(count, 8);
          break;
        case CustomerTier::kThree:
          ASSERT_GE(count, 5);
          ASSERT_LE(count, 10);
          break;
      }
      accounts += count;
    }
    EXPECT_EQ(accounts, kAccountsPerLoadUnit) << "LU " << lu;
  }
}

TEST(CustomerModel, AccountIdsBelongToTheirOwner) {
  const CustomerModel model(kSizing);
  const int64_t c_id = CustomerIdFromOrdinal(1234);
  const auto ids = model.AccountIds(c_id);
  ASSERT_EQ(static_cast<int>(ids.size()), model.AccountCount(c_id));
  for (int64_t ca : ids) {
    EXPECT_EQ(AccountOwner(ca), c_id);
    const int64_t broker = model.AccountBroker(ca);
    EXPECT_EQ(BrokerIndex(broker) / kBrokersPerLoadUnit, LoadUnitOfCustomer(c_id));
  }
}

TEST(CustomerModel, PermissionsAreSixtyThirtyEightTwoPercent) {
  const CustomerModel model(kSizing);
  std::array<int, 3> extra{};
  int accounts = 0;
  for (int64_t n = 1; n <= kSizing.customers; ++n) {
    const int64_t c_id = CustomerIdFromOrdinal(n);
    for (int64_t ca : model.AccountIds(c_id)) {
      const auto rows = model.AccountPermissions(ca);
      ASSERT_GE(rows.size(), 1u);
      ASSERT_LE(rows.size(), 3u);
      ASSERT_EQ(static_cast<int>(rows.size()) - 1, model.AdditionalPermissionCount(ca));
      EXPECT_EQ(rows[0].acl, "0000");
      EXPECT_EQ(rows[0].person_id, c_id);
      if (rows.size() >= 2) {
        EXPECT_EQ(rows[1].acl, "0001");
        EXPECT_GE(rows[1].person_id, 1);
        EXPECT_LE(rows[1].person_id, kMaxPseudoPersonId);
      }
      if (rows.size() == 3) {
        EXPECT_EQ(rows[2].acl, "0011");
        EXPECT_NE(rows[2].person_id, rows[1].person_id);
        EXPECT_NE(TaxId(rows[2].person_id), TaxId(rows[1].person_id));
      }
      ++extra[rows.size() - 1];
      ++accounts;
    }
  }
  ASSERT_EQ(accounts, 50000);
  // Binomial standard deviation at 50 000 accounts: 0.22 pp (60 %), 0.06 pp (2 %).
  EXPECT_NEAR(extra[0] / double(accounts), 0.60, 0.01);
  EXPECT_NEAR(extra[1] / double(accounts), 0.38, 0.01);
  EXPECT_NEAR(extra[2] / double(accounts), 0.02, 0.003);
}

TEST(CustomerModel, BasketsAreDistinctAndSizedByTheTable) {
  const CustomerModel model(kSizing);
  double total = 0;
  int accounts = 0;
  for (int64_t n = 1; n <= 3000; ++n) {
    const int64_t c_id = CustomerIdFromOrdinal(n);
    const auto [min, max] =
        CustomerModel::BasketSizeRange(model.Tier(c_id), model.AccountCount(c_id));
    ASSERT_GE(min, 2);
    ASSERT_LE(max, kMaxBasketSize);
    for (int64_t ca : model.AccountIds(c_id)) {
      const auto basket = model.Basket(ca);
      ASSERT_GE(static_cast<int>(basket.size()), min);
      ASSERT_LE(static_cast<int>(basket.size()), max);
      ASSERT_EQ(std::set<int64_t>(basket.begin(), basket.end()).size(), basket.size());
      for (int64_t s : basket) {
        ASSERT_GE(s, 0);
        ASSERT_LT(s, kSizing.Securities());
      }
      ASSERT_EQ(basket, model.Basket(ca));
      total += static_cast<double>(basket.size());
      ++accounts;
    }
  }
  EXPECT_NEAR(total / accounts, 10.0, 0.3);  // clause 1.4.2.3: about 10 per account
  EXPECT_EQ(CustomerModel::BasketSizeRange(CustomerTier::kOne, 1), std::make_pair(6, 14));
  EXPECT_EQ(CustomerModel::BasketSizeRange(CustomerTier::kThree, 10), std::make_pair(2, 18));
}

TEST(CustomerModel, TaxStatusBalanceAndName) {
  const CustomerModel model(kSizing);
  std::array<int, 3> status{};
  int negative = 0;
  constexpr int kAccounts = 40000;
  for (int64_t i = 0; i < kAccounts; ++i) {
    const int64_t ca = AccountId(CustomerIdFromOrdinal(1 + i / 4), static_cast<int>(i % 4));
    ++status[static_cast<size_t>(model.AccountTaxStatus(ca))];
    const int64_t balance = model.AccountBalanceCents(ca);
    ASSERT_LE(balance, 999'999'999);
    ASSERT_GE(balance, -999'999'999);
    negative += balance < 0;
  }
  EXPECT_NEAR(status[0] / double{kAccounts}, 0.20, 0.01);
  EXPECT_NEAR(status[1] / double{kAccounts}, 0.50, 0.01);
  EXPECT_NEAR(status[2] / double{kAccounts}, 0.30, 0.01);
  EXPECT_NEAR(negative / double{kAccounts}, 0.20, 0.01);
  const int64_t c_id = CustomerIdFromOrdinal(5);
  const std::string name = model.AccountName(AccountId(c_id, 0));
  EXPECT_EQ(name.rfind(FirstName(c_id) + " " + LastName(c_id) + " ", 0), 0u) << name;
  EXPECT_LE(name.size(), 50u);
}

TEST(CustomerModel, TaxRatesFollowTheZipCode) {
  const CustomerModel model(kSizing);
  for (int64_t n = 1; n <= 2000; ++n) {
    const int64_t c_id = CustomerIdFromOrdinal(n);
    const Address address = model.CustomerAddress(c_id);
    const CustomerTaxRates rates = model.TaxRateChoice(c_id);
    const bool us = address.zip().country() == Country::kUsa;
    ASSERT_EQ(rates.national->id.substr(0, 2), us ? "US" : "CN");
    ASSERT_EQ(rates.division->id.substr(0, 2), address.zip().division_code());
    ASSERT_EQ(address.id, CustomerAddressId(kSizing, c_id));
  }
}

}  // namespace
}  // namespace bb::workload
