// The SECTOR (12 rows) and INDUSTRY (102 rows) fixed tables (clause 2.6). Sector ids and
// names are the spec's; the industry names are our own, with EGen's per-sector counts
// (BM 11, CC 12, CG 7, CN 8, CO 1, EN 4, FN 10, HC 4, SV 25, TC 11, TR 6, UT 3).
//
// Thread-safety: immutable constant data.
#pragma once

#include <span>
#include <string_view>

namespace bb::workload {

struct Sector {
  std::string_view id;    // SC_ID, 2 characters
  std::string_view name;  // SC_NAME
};

struct Industry {
  std::string_view id;         // IN_ID, 2 characters
  std::string_view name;       // IN_NAME
  std::string_view sector_id;  // IN_SC_ID
};

inline constexpr int kSectorCount = 12;
inline constexpr int kIndustryCount = 102;

std::span<const Sector> Sectors();
std::span<const Industry> Industries();

}  // namespace bb::workload
