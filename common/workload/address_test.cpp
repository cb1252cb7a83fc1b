#include "common/workload/address.h"

#include <gtest/gtest.h>

namespace bb::workload {
namespace {

TEST(Address, BuildsLinesAndCountry) {
  int with_line2 = 0;
  int apartments = 0;
  for (int64_t id = 1; id <= 20000; ++id) {
    const Address a = MakeAddress(id, true);
    ASSERT_FALSE(a.line1.empty());
    ASSERT_LE(a.line1.size(), 80u);
    const int number = std::stoi(a.line1);
    ASSERT_GE(number, 100);
    ASSERT_LE(number, 25000);
    if (!a.line2.empty()) {
      ++with_line2;
      apartments += a.line2.rfind("Apt. ", 0) == 0;
    }
    const bool us = a.zip().code[0] >= '0' && a.zip().code[0] <= '9';
    ASSERT_EQ(a.country(), us ? "USA" : "CANADA");
    ASSERT_EQ(a.zip_index, AddressZipIndex(id));
  }
  EXPECT_NEAR(with_line2 / 20000.0, 0.40, 0.015);
  EXPECT_NEAR(apartments / double(with_line2), 0.75, 0.02);
  EXPECT_TRUE(MakeAddress(5, false).line2.empty());
  EXPECT_EQ(MakeAddress(77, true).line1, MakeAddress(77, true).line1);
}

}  // namespace
}  // namespace bb::workload
