// The TAXRATE fixed table (clause 2.6): 9 national rates (the spec's US1..US5, CN1..CN4)
// and 311 division rates of our own, 1-10 per division (64 divisions), 23 of them 0, with
// TX_ID = division code + ordinal ("NY1", "NY2", ... "NY10") and names containing "Tax"
// (Data-Maintenance toggles "Tax"/"tax").
//
// Ownership and thread-safety: TaxRates() returns an immutable table built on first use.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/workload/zip_codes.h"

namespace bb::workload {

struct TaxRate {
  std::string id;                // TX_ID
  std::string name;              // TX_NAME
  int32_t rate_e5;               // TX_RATE × 100 000 (NUM(6,5) exactly)
  std::string RateText() const;  // e.g. "0.15000"
};

inline constexpr int kNationalTaxRateCount = 9;
inline constexpr int kDivisionTaxRateCount = 311;
inline constexpr int kZeroDivisionTaxRates = 23;

class TaxRateTable {
 public:
  TaxRateTable();
  // All 320 rows: the national rates first, then the divisions in Divisions() order.
  const std::vector<TaxRate>& rows() const { return rows_; }
  std::span<const TaxRate> National(Country country) const;
  std::span<const TaxRate> OfDivision(int division) const;

 private:
  std::vector<TaxRate> rows_;
  std::vector<size_t> division_begin_;  // kDivisionCount + 1 offsets into rows_
};

const TaxRateTable& TaxRates();

}  // namespace bb::workload
