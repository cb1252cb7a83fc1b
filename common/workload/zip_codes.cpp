#include "common/workload/zip_codes.h"

#include <algorithm>
#include <array>
#include <unordered_set>

#include <fmt/format.h>

#include "common/workload/word_lists.h"

namespace bb::workload {
namespace {

constexpr std::array<Division, kDivisionCount> kDivisions = {{
    {"AL", "Alabama", Country::kUsa},
    {"AK", "Alaska", Country::kUsa},
    {"AZ", "Arizona", Country::kUsa},
    {"AR", "Arkansas", Country::kUsa},
    {"CA", "California", Country::kUsa},
    {"CO", "Colorado", Country::kUsa},
    {"CT", "Connecticut", Country::kUsa},
    {"DE", "Delaware", Country::kUsa},
    {"DC", "District of Columbia", Country::kUsa},
    {"FL", "Florida", Country::kUsa},
    {"GA", "Georgia", Country::kUsa},
    {"HI", "Hawaii", Country::kUsa},
    {"ID", "Idaho", Country::kUsa},
    {"IL", "Illinois", Country::kUsa},
    {"IN", "Indiana", Country::kUsa},
    {"IA", "Iowa", Country::kUsa},
    {"KS", "Kansas", Country::kUsa},
    {"KY", "Kentucky", Country::kUsa},
    {"LA", "Louisiana", Country::kUsa},
    {"ME", "Maine", Country::kUsa},
    {"MD", "Maryland", Country::kUsa},
    {"MA", "Massachusetts", Country::kUsa},
    {"MI", "Michigan", Country::kUsa},
    {"MN", "Minnesota", Country::kUsa},
    {"MS", "Mississippi", Country::kUsa},
    {"MO", "Missouri", Country::kUsa},
    {"MT", "Montana", Country::kUsa},
    {"NE", "Nebraska", Country::kUsa},
    {"NV", "Nevada", Country::kUsa},
    {"NH", "New Hampshire", Country::kUsa},
    {"NJ", "New Jersey", Country::kUsa},
    {"NM", "New Mexico", Country::kUsa},
    {"NY", "New York", Country::kUsa},
    {"NC", "North Carolina", Country::kUsa},
    {"ND", "North Dakota", Country::kUsa},
    {"OH", "Ohio", Country::kUsa},
    {"OK", "Oklahoma", Country::kUsa},
    {"OR", "Oregon", Country::kUsa},
    {"PA", "Pennsylvania", Country::kUsa},
    {"RI", "Rhode Island", Country::kUsa},
    {"SC", "South Carolina", Country::kUsa},
    {"SD", "South Dakota", Country::kUsa},
    {"TN", "Tennessee", Country::kUsa},
    {"TX", "Texas", Country::kUsa},
    {"UT", "Utah", Country::kUsa},
    {"VT", "Vermont", Country::kUsa},
    {"VA", "Virginia", Country::kUsa},
    {"WA", "Washington", Country::kUsa},
    {"WV", "West Virginia", Country::kUsa},
    {"WI", "Wisconsin", Country::kUsa},
    {"WY", "Wyoming", Country::kUsa},
    {"AB", "Alberta", Country::kCanada},
    {"BC", "British Columbia", Country::kCanada},
    {"MB", "Manitoba", Country::kCanada},
    {"NB", "New Brunswick", Country::kCanada},
    {"NL", "Newfoundland and Labrador", Country::kCanada},
    {"NS", "Nova Scotia", Country::kCanada},
    {"NT", "Northwest Territories", Country::kCanada},
    {"NU", "Nunavut", Country::kCanada},
    {"ON", "Ontario", Country::kCanada},
    {"PE", "Prince Edward Island", Country::kCanada},
    {"QC", "Quebec", Country::kCanada},
    {"SK", "Saskatchewan", Country::kCanada},
    {"YT", "Yukon", Country::kCanada},
}};

// First letters of Canadian postal codes per province, in kDivisions order from AB.
constexpr std::array<std::string_view, 13> kCanadianFirstLetters = {
    "T", "V", "R", "E", "A", "B", "X", "X", "KLMNP", "C", "GHJ", "S", "Y"};
// Letters that may appear in a Canadian postal code (no D, F, I, O, Q, U).
constexpr std::string_view kCanadianLetters = "ABCEGHJKLMNPRSTVWXYZ";
// Weights in {1,2,3,4,5,8}: mostly small towns, a few heavy ones.
constexpr std::array<uint8_t, 20> kWeightDeck = {1, 1, 1, 1, 1, 1, 1, 1, 2, 2,
                                                 2, 2, 3, 3, 3, 4, 4, 5, 5, 8};
// Consecutive zip codes of a division share a town this often (about three codes a town).
constexpr int kZipCodesPerTown = 3;

uint8_t DrawWeight(Random& rng) {
  return kWeightDeck[static_cast<size_t>(
      rng.IntRange(0, static_cast<int>(kWeightDeck.size()) - 1))];
}

}  // namespace

std::span<const Division> Divisions() { return kDivisions; }

ZipCodeTable::ZipCodeTable() {
  Random rng(seeds::kZipCodes);
  rows_.reserve(kZipCodeCount);
  // US: increasing 5-digit codes with random gaps, in blocks of about equal size per state.
  int code = 1000;
  for (int i = 0; i < kUsZipCodeCount; ++i) {
    code += rng.IntRange(1, 9);
    const auto division = static_cast<uint8_t>(i * kUsDivisionCount / kUsZipCodeCount);
    rows_.push_back(ZipCode{fmt::format("{:05}", code), TownName(i / kZipCodesPerTown), division,
                            DrawWeight(rng)});
  }
  // Canada: "A1A 1A1" with the province's first letters, distinct, blocks per province.
  std::unordered_set<std::string> seen;
  constexpr int kProvinces = kDivisionCount - kUsDivisionCount;
  const auto letter = [&rng](std::string_view from) {
    return from[static_cast<size_t>(rng.IntRange(0, static_cast<int>(from.size()) - 1))];
  };
  for (int i = 0; i < kCanadianZipCodeCount; ++i) {
    const int province = i * kProvinces / kCanadianZipCodeCount;
    std::string postal;
    do {
      // One draw per character, in order (argument evaluation order is unspecified).
      postal.assign("A1A 1A1");
      postal[0] = letter(kCanadianFirstLetters[static_cast<size_t>(province)]);
      postal[1] = static_cast<char>('0' + rng.IntRange(0, 9));
      postal[2] = letter(kCanadianLetters);
      postal[4] = static_cast<char>('0' + rng.IntRange(0, 9));
      postal[5] = letter(kCanadianLetters);
      postal[6] = static_cast<char>('0' + rng.IntRange(0, 9));
    } while (!seen.insert(postal).second);
    const int town = kUsZipCodeCount / kZipCodesPerTown + 1 + i / kZipCodesPerTown;
    rows_.push_back(ZipCode{std::move(postal), TownName(town),
                            static_cast<uint8_t>(kUsDivisionCount + province), DrawWeight(rng)});
  }
  cumulative_.reserve(rows_.size());
  uint64_t total = 0;
  for (const ZipCode& row : rows_) {
    total += row.weight;
    cumulative_.push_back(total);
  }
}

size_t ZipCodeTable::PickIndex(Random& rng) const {
  const auto point =
      static_cast<uint64_t>(rng.Int64Range(0, static_cast<int64_t>(cumulative_.back()) - 1));
  return static_cast<size_t>(std::upper_bound(cumulative_.begin(), cumulative_.end(), point) -
                             cumulative_.begin());
}

const ZipCodeTable& ZipCodes() {
  static const ZipCodeTable table;
  return table;
}

}  // namespace bb::workload
