// ADDRESS rows derived from an address id, by EGen's rules: street line, optional second line
// (customers only), zip code chosen by weight, country from the zip. The customer's zip also
// decides its tax rates, so the customer emulator can find it without the database.
//
// Thread-safety: pure functions over immutable tables.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/workload/zip_codes.h"

namespace bb::workload {

struct Address {
  int64_t id = 0;        // AD_ID
  std::string line1;     // AD_LINE1 "<n> <street> <suffix>"
  std::string line2;     // AD_LINE2, empty when none
  size_t zip_index = 0;  // row of ZipCodes()
  const ZipCode& zip() const { return ZipCodes()[zip_index]; }
  std::string_view country() const {  // AD_CTRY
    return zip().country() == Country::kUsa ? "USA" : "CANADA";
  }
};

// The zip code row for an address id: a weighted pick seeded by AD_ID.
size_t AddressZipIndex(int64_t ad_id);
// The whole row; `customer` adds the optional second line (60 % empty, else 75 % "Apt. n",
// 25 % "Suite n").
Address MakeAddress(int64_t ad_id, bool customer);

}  // namespace bb::workload
