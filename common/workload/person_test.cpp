#include "common/workload/person.h"

#include <algorithm>
#include <cctype>
#include <set>

#include <gtest/gtest.h>

#include "common/workload/ids.h"
#include "common/workload/word_lists.h"

namespace bb::workload {
namespace {

bool MatchesTaxIdPattern(const std::string& id) {
  static constexpr std::string_view kPattern = "999AA9999AA999";
  if (id.size() != kPattern.size()) return false;
  for (size_t i = 0; i < id.size(); ++i) {
    const bool digit = id[i] >= '0' && id[i] <= '9';
    const bool letter = id[i] >= 'A' && id[i] <= 'Z';
    if (kPattern[i] == '9' ? !digit : !letter) return false;
  }
  return true;
}

TEST(Person, TaxIdsFollowThePatternAndAreUnique) {
  std::set<std::string> ids;
  for (int64_t n = 1; n <= 10000; ++n) {
    const std::string id = TaxId(CustomerIdFromOrdinal(n));
    ASSERT_TRUE(MatchesTaxIdPattern(id)) << id;
    ids.insert(id);
  }
  EXPECT_EQ(ids.size(), 10000u);
}

TEST(Person, IsDeterministicPerKey) {
  const int64_t p = CustomerIdFromOrdinal(4242);
  EXPECT_EQ(TaxId(p), TaxId(p));
  EXPECT_EQ(FullNameWithInitial(p), FullNameWithInitial(p));
  EXPECT_EQ(DateOfBirth(p), DateOfBirth(p));
  EXPECT_EQ(Email(p, 1), Email(p, 1));
  EXPECT_NE(TaxId(p), TaxId(p + 1));
}

TEST(Person, FortyNinePercentMale) {
  int male = 0;
  constexpr int kPersons = 100000;
  for (int64_t p = 1; p <= kPersons; ++p) male += GenderOf(p) == Gender::kMale;
  EXPECT_NEAR(male / double{kPersons}, 0.49, 0.006);
}

TEST(Person, NamesComeFromTheGendersList) {
  int64_t p = 1;
  while (GenderOf(p) != Gender::kFemale) ++p;
  const auto& female = FemaleFirstNames().words();
  EXPECT_NE(std::find(female.begin(), female.end(), FirstName(p)), female.end());
  const std::string with_initial = FullNameWithInitial(p);
  EXPECT_EQ(with_initial, FirstName(p) + " " + MiddleInitial(p) + ". " + LastName(p));
  EXPECT_LE(with_initial.size(), 49u);
}

TEST(Person, BirthDatesFallInTheBrackets) {
  const Date oldest = MakeDate(1905, 1, 4);    // 99 years old on 2005-01-03
  const Date youngest = MakeDate(1995, 1, 3);  // 10 years old
  int under_19 = 0;
  constexpr int kPersons = 50000;
  for (int64_t p = 1; p <= kPersons; ++p) {
    const Date dob = DateOfBirth(p);
    ASSERT_GE(dob, oldest);
    ASSERT_LE(dob, youngest);
    under_19 += dob > MakeDate(1986, 1, 3);
  }
  EXPECT_NEAR(under_19 / double{kPersons}, 0.05, 0.005);
}

TEST(Person, PhonesAndEmails) {
  int with_extension = 0;
  for (int64_t p = 1; p <= 20000; ++p) {
    const Phone phone = PhoneOf(p, 0);
    ASSERT_EQ(phone.country, "011");
    ASSERT_EQ(phone.area.size(), 3u);
    ASSERT_EQ(phone.local.size(), 7u);
    with_extension += !phone.extension.empty();
    const std::string e1 = Email(p, 0);
    const std::string e2 = Email(p, 1);
    ASSERT_EQ(e1.substr(0, e1.find('@')), e2.substr(0, e2.find('@')));
    ASSERT_NE(e1.substr(e1.find('@')), e2.substr(e2.find('@')));
    ASSERT_EQ(e1.front(), FirstName(p).front());
  }
  EXPECT_NEAR(with_extension / 20000.0, 0.25, 0.015);
}

}  // namespace
}  // namespace bb::workload
