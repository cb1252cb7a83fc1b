// WallFromMonotonic: its stamps are the wall clock's (to within the scheduling noise of a loaded
// machine) and keep the monotonic readings' spacing exactly.
#include "common/util/clock.h"

#include <cstdlib>

#include <gtest/gtest.h>

namespace bb {
namespace {

TEST(WallFromMonotonic, StampsAreTheWallClocksAndKeepTheMonotonicSpacing) {
  const WallFromMonotonic clock;
  const int64_t mono = MonotonicMicros();
  const int64_t wall = WallMicros();
  // The wall clock was read after the monotonic one: within 50 ms even on a loaded machine.
  EXPECT_LE(std::llabs(clock.Wall(mono) - wall), 50'000);
  EXPECT_EQ(clock.Wall(mono + 1'234'567) - clock.Wall(mono), 1'234'567);
}

}  // namespace
}  // namespace bb
