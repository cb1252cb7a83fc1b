#include "common/workload/person.h"

#include <array>

#include <fmt/format.h>

#include "common/workload/random.h"
#include "common/workload/word_lists.h"

namespace bb::workload {
namespace {

// Per-key draw budgets: the key is multiplied by the number of draws an attribute takes, so
// neighbouring persons never share a draw.
constexpr uint64_t kTaxIdDraws = kTaxIdLength;
constexpr uint64_t kDateOfBirthDraws = 2;
constexpr uint64_t kPhoneDraws = 4;
constexpr uint64_t kEmailDraws = 2;

struct AgeBracket {
  int min_age;
  int max_age;
  int percent;
};
constexpr std::array<AgeBracket, 9> kAgeBrackets = {{{10, 18, 5},
                                                     {19, 24, 16},
                                                     {25, 34, 17},
                                                     {35, 44, 19},
                                                     {45, 54, 16},
                                                     {55, 64, 11},
                                                     {65, 74, 8},
                                                     {75, 84, 7},
                                                     {85, 99, 1}}};
// Ages are counted at the start of initial trading, 2005-01-03.
constexpr int kAgeReferenceYear = 2005;

constexpr std::array<int, kPhonesPerCustomer> kExtensionPercent = {25, 15, 5};

}  // namespace

Gender GenderOf(int64_t person_id) {
  Random rng = Random::ForKey(seeds::kGender, person_id);
  return rng.Percent(49) ? Gender::kMale : Gender::kFemale;
}

const std::string& FirstName(int64_t person_id) {
  Random rng = Random::ForKey(seeds::kFirstName, person_id);
  const WeightedList& list =
      GenderOf(person_id) == Gender::kMale ? MaleFirstNames() : FemaleFirstNames();
  return list.Pick(rng);
}

char MiddleInitial(int64_t person_id) {
  Random rng = Random::ForKey(seeds::kMiddleInitial, person_id);
  return static_cast<char>('A' + rng.IntRange(0, 25));
}

const std::string& LastName(int64_t person_id) {
  Random rng = Random::ForKey(seeds::kLastName, person_id);
  return Surnames().Pick(rng);
}

std::string FullName(int64_t person_id) {
  return fmt::format("{} {}", FirstName(person_id), LastName(person_id));
}

std::string FullNameWithInitial(int64_t person_id) {
  return fmt::format("{} {}. {}", FirstName(person_id), MiddleInitial(person_id),
                     LastName(person_id));
}

std::string TaxId(int64_t person_id) {
  static constexpr std::string_view kPattern = "999AA9999AA999";  // 9 digit, A letter
  Random rng = Random::ForKey(seeds::kTaxId, person_id, kTaxIdDraws);
  std::string id(kPattern);
  for (char& c : id) {
    c = c == '9' ? static_cast<char>('0' + rng.IntRange(0, 9))
                 : static_cast<char>('A' + rng.IntRange(0, 25));
  }
  return id;
}

Date DateOfBirth(int64_t person_id) {
  Random rng = Random::ForKey(seeds::kDateOfBirth, person_id, kDateOfBirthDraws);
  int point = rng.IntRange(1, 100);
  const AgeBracket* bracket = &kAgeBrackets.back();
  for (const AgeBracket& b : kAgeBrackets) {
    if (point <= b.percent) {
      bracket = &b;
      break;
    }
    point -= b.percent;
  }
  // Aged min..max on 2005-01-03: born after 2005-01-03 minus (max+1) years, on or before
  // 2005-01-03 minus min years.
  const Date earliest = MakeDate(kAgeReferenceYear - bracket->max_age - 1, 1, 4);
  const Date latest = MakeDate(kAgeReferenceYear - bracket->min_age, 1, 3);
  return AddDays(earliest, rng.IntRange(0, latest.days - earliest.days));
}

Phone PhoneOf(int64_t person_id, int n) {
  Random rng = Random::ForKey(seeds::kPhone, person_id * kPhonesPerCustomer + n, kPhoneDraws);
  Phone phone;
  phone.country = "011";
  phone.area = AreaCodes().Pick(rng);
  phone.local = fmt::format("{:07}", rng.IntRange(0, 9'999'999));
  if (rng.Percent(kExtensionPercent[static_cast<size_t>(n)])) {
    phone.extension = fmt::format("{:03}", rng.IntRange(0, 999));
  }
  return phone;
}

std::string Email(int64_t person_id, int n) {
  Random rng = Random::ForKey(seeds::kEmail, person_id, kEmailDraws);
  const auto domains = EmailDomains();
  const int count = static_cast<int>(domains.size());
  const int first = rng.IntRange(0, count - 1);
  int domain = first;
  if (n == 1) {
    // Any other domain: draw among the remaining ones and skip over the first.
    domain = rng.IntRange(0, count - 2);
    if (domain >= first) ++domain;
  }
  return fmt::format("{}{}{}", FirstName(person_id).front(), LastName(person_id),
                     domains[static_cast<size_t>(domain)]);
}

}  // namespace bb::workload
