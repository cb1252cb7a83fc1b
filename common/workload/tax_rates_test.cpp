#include "common/workload/tax_rates.h"

#include <set>

#include <gtest/gtest.h>

namespace bb::workload {
namespace {

TEST(TaxRates, HaveNineNationalAnd311DivisionRates) {
  const TaxRateTable& t = TaxRates();
  ASSERT_EQ(t.rows().size(), 320u);
  std::set<std::string> ids;
  int zeros = 0;
  int division_rows = 0;
  for (const TaxRate& r : t.rows()) {
    ids.insert(r.id);
    EXPECT_NE(r.name.find("Tax"), std::string::npos) << r.name;
    EXPECT_LE(r.name.size(), 50u) << r.name;
    EXPECT_LE(r.id.size(), 4u);
    EXPECT_GE(r.rate_e5, 0);
    EXPECT_LT(r.rate_e5, 100000);
  }
  EXPECT_EQ(ids.size(), 320u);
  for (int d = 0; d < kDivisionCount; ++d) {
    const auto rates = t.OfDivision(d);
    EXPECT_GE(rates.size(), 1u);
    EXPECT_LE(rates.size(), 10u);
    division_rows += static_cast<int>(rates.size());
    for (const TaxRate& r : rates) {
      EXPECT_EQ(r.id.substr(0, 2), Divisions()[static_cast<size_t>(d)].code);
      zeros += r.rate_e5 == 0;
    }
  }
  EXPECT_EQ(division_rows, 311);
  EXPECT_EQ(zeros, 23);
  ASSERT_EQ(t.National(Country::kUsa).size(), 5u);
  ASSERT_EQ(t.National(Country::kCanada).size(), 4u);
  EXPECT_EQ(t.National(Country::kUsa)[0].id, "US1");
  EXPECT_EQ(t.National(Country::kUsa)[0].RateText(), "0.15000");
  EXPECT_EQ(t.National(Country::kUsa)[4].RateText(), "0.39100");
  EXPECT_EQ(t.National(Country::kCanada)[3].id, "CN4");
  EXPECT_EQ(t.National(Country::kCanada)[3].rate_e5, 29000);
}

}  // namespace
}  // namespace bb::workload
