// A database for the tests that run the frames: created on the test cluster, loaded by the
// loader (2 jobs) at `sizing`, with the server-side frame functions installed; or, for the
// tests that can also run at a benchmark's size, a database the kit has already loaded, named
// by BB_TEST_LOADED_DB (a libpq connection string): a 300-day database takes minutes and tens
// of gigabytes to load, which no test suite can do, and some plans only show at that size.
#pragma once

#include <string>
#include <string_view>

#include "common/util/status.h"
#include "common/workload/sizing.h"

namespace bb::testing {

// The environment variable that names an already loaded database.
inline constexpr char kLoadedDatabaseVariable[] = "BB_TEST_LOADED_DB";

// The reason a test gives when it skips on such a database (GTEST_SKIP() << ...).
inline constexpr std::string_view kNeedsOwnDatabase = "skipped: needs its own database";

// Its connection string; an error names the step that failed (create, load or install).
Result<std::string> CreateFramesDatabase(std::string_view prefix, const workload::Sizing& sizing);

// A database to run the frames on, and the sizing it was loaded with.
struct FramesDatabase {
  std::string conninfo;
  workload::Sizing sizing;
  // BB_TEST_LOADED_DB's database: of any size, with whatever runs have done to it (trades
  // beyond the loaded ones, names that Trade-Update toggled), and used by others after the
  // test, which must leave it fit for a run.
  bool loaded_by_kit = false;
};

// With BB_TEST_LOADED_DB set: that database, with the sizing of its load record (an error,
// naming the variable, when it has none or the load is incomplete) and the frame functions
// installed (as the Brokerage House does: replaced only when they are another build's).
// Otherwise CreateFramesDatabase(prefix, sizing).
Result<FramesDatabase> OpenFramesDatabase(std::string_view prefix, const workload::Sizing& sizing);

// Whether BB_TEST_LOADED_DB is set (and not empty).
bool UsingLoadedDatabase();

}  // namespace bb::testing
