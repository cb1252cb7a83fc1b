#include "common/workload/industries.h"

#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

namespace bb::workload {
namespace {

TEST(Industries, HaveTheReferenceCountsPerSector) {
  ASSERT_EQ(Sectors().size(), 12u);
  ASSERT_EQ(Industries().size(), 102u);
  std::map<std::string_view, int> per_sector;
  std::set<std::string_view> ids;
  std::set<std::string_view> names;
  for (const Industry& in : Industries()) {
    ++per_sector[in.sector_id];
    EXPECT_EQ(in.id.size(), 2u);
    EXPECT_LE(in.name.size(), 50u);
    ids.insert(in.id);
    names.insert(in.name);
  }
  EXPECT_EQ(ids.size(), 102u);
  EXPECT_EQ(names.size(), 102u);
  const std::map<std::string_view, int> expected = {{"BM", 11}, {"CC", 12}, {"CG", 7},  {"CN", 8},
                                                    {"CO", 1},  {"EN", 4},  {"FN", 10}, {"HC", 4},
                                                    {"SV", 25}, {"TC", 11}, {"TR", 6},  {"UT", 3}};
  EXPECT_EQ(per_sector, expected);
  for (const Sector& s : Sectors()) EXPECT_EQ(per_sector.count(s.id), 1u) << s.id;
}

}  // namespace
}  // namespace bb::workload
