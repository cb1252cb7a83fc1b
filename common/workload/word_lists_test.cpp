#include "common/workload/word_lists.h"

#include <set>
#include <string>

#include <gtest/gtest.h>

namespace bb::workload {
namespace {

std::set<std::string> Distinct(const std::vector<std::string>& words) {
  return {words.begin(), words.end()};
}

TEST(WordLists, FirstNamesAreWeightedAndShort) {
  for (const WeightedList* list : {&MaleFirstNames(), &FemaleFirstNames()}) {
    EXPECT_GE(list->size(), 100u);
    EXPECT_EQ(Distinct(list->words()).size(), list->size());
    EXPECT_GT(list->weight(0), 5 * list->weight(list->size() - 1));
    for (const std::string& name : list->words()) EXPECT_LE(name.size(), 11u) << name;
  }
}

TEST(WordLists, SurnamesAreManyDistinctAndSkewed) {
  const WeightedList& surnames = Surnames();
  EXPECT_GE(surnames.size(), 5000u);
  EXPECT_EQ(Distinct(surnames.words()).size(), surnames.size());
  uint64_t max_weight = 0;
  for (size_t i = 0; i < surnames.size(); ++i) {
    EXPECT_LE(surnames[i].size(), 15u) << surnames[i];
    max_weight = std::max(max_weight, surnames.weight(i));
  }
  // The commonest surname: noticeable but at most about 1 % of draws.
  EXPECT_LT(max_weight * 100, surnames.total_weight() * 2);
  EXPECT_GT(max_weight * 1000, surnames.total_weight());
}

TEST(WordLists, WeightedPickFollowsWeights) {
  const WeightedList list({"a", "b"}, {1, 3});
  Random rng(8);
  int b = 0;
  for (int i = 0; i < 100000; ++i) b += list.Pick(rng) == "b";
  EXPECT_NEAR(b / 100000.0, 0.75, 0.01);
  EXPECT_EQ(list.IndexAt(0), 0u);
  EXPECT_EQ(list.IndexAt(1), 1u);
  EXPECT_EQ(list.IndexAt(3), 1u);
}

TEST(WordLists, StreetsTownsAndCodes) {
  EXPECT_EQ(StreetNames().size(), 1000u);
  EXPECT_EQ(Distinct(StreetNames()).size(), 1000u);
  EXPECT_EQ(StreetSuffixes().size(), 17u);
  EXPECT_EQ(EmailDomains().size(), 6u);
  EXPECT_EQ(AreaCodes().size(), 284u);
  EXPECT_EQ(Distinct(AreaCodes().words()).size(), 284u);
  for (const std::string& code : AreaCodes().words()) EXPECT_EQ(code.size(), 3u);
  std::set<std::string> towns;
  for (int i = 0; i < 8000; ++i) towns.insert(TownName(i));
  EXPECT_EQ(towns.size(), 8000u);
  EXPECT_EQ(TaxableAccountNames().size(), 13u);
  EXPECT_EQ(NonTaxableAccountNames().size(), 11u);
}

TEST(WordLists, CompanyRootsAreDistinct) {
  EXPECT_EQ(CompanyNameRoots().size(), 250u);
  EXPECT_EQ(Distinct(CompanyNameRoots()).size(), 250u);
  EXPECT_EQ(CompanyNameDescriptors().size(), 20u);
}

}  // namespace
}  // namespace bb::workload
