#include "common/workload/tax_rates.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "common/workload/random.h"

namespace bb::workload {
namespace {

struct NationalRate {
  const char* id;
  const char* name;
  int32_t rate_e5;
};

constexpr int kUsNationalRates = 5;
constexpr std::array<NationalRate, kNationalTaxRateCount> kNationalRates = {{
    {"US1", "US Federal Income Tax Bracket 1", 15000},
    {"US2", "US Federal Income Tax Bracket 2", 27500},
    {"US3", "US Federal Income Tax Bracket 3", 30500},
    {"US4", "US Federal Income Tax Bracket 4", 35500},
    {"US5", "US Federal Income Tax Bracket 5", 39100},
    {"CN1", "Canadian Federal Income Tax Bracket 1", 16000},
    {"CN2", "Canadian Federal Income Tax Bracket 2", 22000},
    {"CN3", "Canadian Federal Income Tax Bracket 3", 26000},
    {"CN4", "Canadian Federal Income Tax Bracket 4", 29000},
}};

constexpr int kMaxRatesPerDivision = 10;
// Non-zero division rates are drawn in [0.00500, 0.25000] and sorted per division.
constexpr int kMinDivisionRateE5 = 500;
constexpr int kMaxDivisionRateE5 = 25000;

}  // namespace

std::string TaxRate::RateText() const {
  return fmt::format("{}.{:05}", rate_e5 / 100000, rate_e5 % 100000);
}

TaxRateTable::TaxRateTable() {
  for (const NationalRate& r : kNationalRates) rows_.push_back({r.id, r.name, r.rate_e5});

  Random rng(seeds::kTaxRates);
  // Rates per division: random in 1..10, then nudged until they sum to exactly 311.
  std::array<int, kDivisionCount> counts{};
  int total = 0;
  for (int& c : counts) {
    c = rng.IntRange(1, kMaxRatesPerDivision);
    total += c;
  }
  for (size_t i = 0; total != kDivisionTaxRateCount; i = (i + 1) % counts.size()) {
    if (total > kDivisionTaxRateCount && counts[i] > 1) {
      --counts[i];
      --total;
    } else if (total < kDivisionTaxRateCount && counts[i] < kMaxRatesPerDivision) {
      ++counts[i];
      ++total;
    }
  }
  // 23 divisions (the first 23 of a seeded shuffle) have a 0 rate as their first bracket.
  std::array<int, kDivisionCount> order{};
  for (int i = 0; i < kDivisionCount; ++i) order[static_cast<size_t>(i)] = i;
  for (int i = kDivisionCount - 1; i > 0; --i) {
    std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(rng.IntRange(0, i))]);
  }
  std::array<bool, kDivisionCount> has_zero{};
  for (int i = 0; i < kZeroDivisionTaxRates; ++i)
    has_zero[static_cast<size_t>(order[static_cast<size_t>(i)])] = true;

  division_begin_.reserve(kDivisionCount + 1);
  for (int d = 0; d < kDivisionCount; ++d) {
    division_begin_.push_back(rows_.size());
    const Division& division = Divisions()[static_cast<size_t>(d)];
    const int count = counts[static_cast<size_t>(d)];
    std::vector<int32_t> rates;
    for (int k = 0; k < count; ++k) {
      const bool zero = k == 0 && has_zero[static_cast<size_t>(d)];
      rates.push_back(zero ? 0 : rng.IntRange(kMinDivisionRateE5, kMaxDivisionRateE5));
    }
    std::sort(rates.begin(), rates.end());
    for (int k = 0; k < count; ++k) {
      rows_.push_back({fmt::format("{}{}", division.code, k + 1),
                       fmt::format("{} Income Tax Bracket {}", division.name, k + 1),
                       rates[static_cast<size_t>(k)]});
    }
  }
  division_begin_.push_back(rows_.size());
}

std::span<const TaxRate> TaxRateTable::National(Country country) const {
  const auto all = std::span<const TaxRate>(rows_);
  return country == Country::kUsa
             ? all.subspan(0, kUsNationalRates)
             : all.subspan(kUsNationalRates, kNationalTaxRateCount - kUsNationalRates);
}

std::span<const TaxRate> TaxRateTable::OfDivision(int division) const {
  const size_t begin = division_begin_[static_cast<size_t>(division)];
  const size_t end = division_begin_[static_cast<size_t>(division) + 1];
  return std::span<const TaxRate>(rows_).subspan(begin, end - begin);
}

const TaxRateTable& TaxRates() {
  static const TaxRateTable table;
  return table;
}

}  // namespace bb::workload
