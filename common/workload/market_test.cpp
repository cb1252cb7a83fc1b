#include "common/workload/market.h"

#include <set>

#include <gtest/gtest.h>

#include "common/workload/industries.h"

namespace bb::workload {
namespace {

// 12 LUs: beyond the 10-LU base list, so copies with suffixes are covered.
const Sizing kSizing{.customers = 12000};

TEST(Market, SymbolsAreUniqueAndRoundTrip) {
  const Market market(kSizing);
  ASSERT_EQ(market.securities(), 12 * 685);
  std::set<std::string> symbols;
  for (int64_t s = 0; s < market.securities(); ++s) {
    const std::string symbol = market.Symbol(s);
    ASSERT_LE(symbol.size(), 15u) << symbol;
    ASSERT_TRUE(symbols.insert(symbol).second) << "duplicate " << symbol;
    const auto back = market.SecurityIndex(symbol);
    ASSERT_TRUE(back.has_value()) << symbol;
    ASSERT_EQ(*back, s) << symbol;
  }
  EXPECT_EQ(market.Symbol(kBaseSecurities), market.Symbol(0) + "-a");
  EXPECT_FALSE(market.SecurityIndex("NOSUCH").has_value());
  EXPECT_FALSE(market.SecurityIndex(market.Symbol(0) + "-zz").has_value());  // not configured
  EXPECT_FALSE(market.SecurityIndex(market.Symbol(0) + "-A").has_value());
  EXPECT_FALSE(Market(Sizing{.customers = 1000}).SecurityIndex(market.Symbol(700)).has_value());
}

TEST(Market, SymbolsHaveTheReferenceShape) {
  const Market market(kSizing);
  for (int64_t s = 0; s < kBaseSecurities; ++s) {
    const std::string symbol = market.Symbol(s);
    const Issue issue = market.SecurityIssue(s);
    std::string base = symbol;
    if (issue != Issue::kCommon) {
      const std::string suffix =
          std::string("PR") + static_cast<char>('A' + static_cast<int>(issue) - 1);
      ASSERT_EQ(symbol.substr(symbol.size() - 3), suffix);
      base = symbol.substr(0, symbol.size() - 3);
      ASSERT_EQ(base,
                market.Symbol(market.CompanySecurity(market.SecurityCompany(s), Issue::kCommon)));
    }
    ASSERT_GE(base.size(), 1u);
    ASSERT_LE(base.size(), 7u);
    for (char c : base) ASSERT_TRUE(c >= 'A' && c <= 'Z') << symbol;
  }
}

TEST(Market, IssuesPerLoadUnitFollowTheReference) {
  const Market market(kSizing);
  for (int64_t lu : {0, 1, 11}) {
    std::array<int, kIssueKinds> issues{};
    std::array<int, kIssueKinds + 1> companies_with{};
    for (int64_t s = lu * 685; s < (lu + 1) * 685; ++s) {
      ++issues[static_cast<size_t>(market.SecurityIssue(s))];
      const int64_t company = market.SecurityCompany(s);
      ASSERT_EQ(company / kCompaniesPerLoadUnit, lu);
      ASSERT_EQ(market.CompanySecurity(company, market.SecurityIssue(s)), s);
      ASSERT_LT(static_cast<int>(market.SecurityIssue(s)), market.CompanyIssueCount(company));
    }
    for (int64_t c = lu * 500; c < (lu + 1) * 500; ++c)
      ++companies_with[static_cast<size_t>(market.CompanyIssueCount(c))];
    EXPECT_EQ(issues, (std::array<int, kIssueKinds>{500, 100, 50, 25, 10}));
    EXPECT_EQ(companies_with, (std::array<int, kIssueKinds + 1>{0, 400, 50, 25, 15, 10}));
  }
}

TEST(Market, CompanyNamesAreUniqueWithCopySuffixes) {
  const Market market(kSizing);
  std::set<std::string> names;
  std::set<int> industries;
  for (int64_t c = 0; c < market.companies(); ++c) {
    const std::string name = market.CompanyName(c);
    ASSERT_LE(name.size(), 60u);
    ASSERT_TRUE(names.insert(name).second) << name;
    industries.insert(market.CompanyIndustry(c));
    ASSERT_LE(market.CompanyDescription(c).size(), 150u);
    ASSERT_LE(market.CompanyCeo(c).size(), 46u);
    ASSERT_LE(market.SecurityName(market.CompanySecurity(c, Issue::kCommon)).size(), 70u);
  }
  EXPECT_EQ(market.CompanyName(5000), market.CompanyName(0) + " #1");
  EXPECT_GT(industries.size(), 95u);
  EXPECT_EQ(market.SecurityName(0), "COMMON of " + market.CompanyName(0));
  std::set<std::string_view> ratings;
  for (int64_t c = 0; c < 2000; ++c) ratings.insert(market.CompanySpRating(c));
  EXPECT_EQ(ratings.size(), 39u);
}

TEST(Market, ExchangesSplitAboutEqually) {
  const Market market(kSizing);
  const auto counts = market.ExchangeSecurityCounts();
  int64_t total = 0;
  std::array<int64_t, kExchangeCount> direct{};
  for (int64_t s = 0; s < market.securities(); ++s)
    ++direct[static_cast<size_t>(market.SecurityExchange(s))];
  EXPECT_EQ(counts, direct);
  for (int64_t c : counts) {
    total += c;
    EXPECT_NEAR(c / double(market.securities()), 0.25, 0.02);
  }
  EXPECT_EQ(total, market.securities());
  EXPECT_EQ(Exchanges()[1].id, "NASDAQ");
}

}  // namespace
}  // namespace bb::workload
