#include "common/workload/zip_codes.h"

#include <cctype>
#include <set>
#include <string>

#include <gtest/gtest.h>

namespace bb::workload {
namespace {

bool IsCanadianPostalCode(const std::string& c) {
  auto letter = [](char ch) {
    return ch >= 'A' && ch <= 'Z' && std::string_view("DFIOQU").find(ch) == std::string::npos;
  };
  auto digit = [](char ch) { return ch >= '0' && ch <= '9'; };
  return c.size() == 7 && letter(c[0]) && digit(c[1]) && letter(c[2]) && c[3] == ' ' &&
         digit(c[4]) && letter(c[5]) && digit(c[6]);
}

TEST(ZipCodes, HaveTheReferenceShape) {
  const ZipCodeTable& zips = ZipCodes();
  ASSERT_EQ(zips.size(), 14741u);
  ASSERT_EQ(Divisions().size(), 64u);
  int us = 0;
  int canada = 0;
  std::set<std::string> codes;
  std::set<int> divisions;
  for (const ZipCode& z : zips.rows()) {
    codes.insert(z.code);
    divisions.insert(z.division);
    EXPECT_FALSE(z.town.empty());
    EXPECT_TRUE(std::set<int>({1, 2, 3, 4, 5, 8}).count(z.weight)) << int{z.weight};
    EXPECT_EQ(z.tax_key(), z.division + 1);
    if (z.country() == Country::kUsa) {
      ++us;
      ASSERT_EQ(z.code.size(), 5u) << z.code;
      for (char c : z.code) ASSERT_TRUE(std::isdigit(static_cast<unsigned char>(c))) << z.code;
    } else {
      ++canada;
      ASSERT_TRUE(IsCanadianPostalCode(z.code)) << z.code;
    }
  }
  EXPECT_EQ(us, 9215);
  EXPECT_EQ(canada, 5526);
  EXPECT_EQ(codes.size(), 14741u);
  EXPECT_EQ(divisions.size(), 64u);
}

TEST(ZipCodes, PickFollowsWeights) {
  const ZipCodeTable& zips = ZipCodes();
  Random rng(3);
  std::array<int, 9> picks_by_weight{};
  std::array<int, 9> rows_by_weight{};
  for (const ZipCode& z : zips.rows()) ++rows_by_weight[z.weight];
  constexpr int kDraws = 300000;
  for (int i = 0; i < kDraws; ++i) ++picks_by_weight[zips[zips.PickIndex(rng)].weight];
  // Rows of weight 8 are picked 8 times as often as rows of weight 1.
  const double w1 = picks_by_weight[1] / double(rows_by_weight[1]);
  const double w8 = picks_by_weight[8] / double(rows_by_weight[8]);
  EXPECT_NEAR(w8 / w1, 8.0, 0.5);
}

}  // namespace
}  // namespace bb::workload
