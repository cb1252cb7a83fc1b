// The audit of a loaded database (bb-loader --check, brokerbench check-db): row counts against
// the formulas of clause 2.6, the consistency conditions of spec clause 7.3.2, and invariants
// the frames imply that hold after a load (the "invariant:" checks of check.cpp).
//
// Thread-safety: RunChecks uses the connection given, from the calling thread.
#pragma once

#include <string>
#include <vector>

#include "common/db/connection.h"
#include "common/util/status.h"
#include "common/workload/sizing.h"

namespace bb::loader {

struct CheckResult {
  std::string name;  // what was checked, e.g. "rows: trade = 1728000"
  bool passed = false;
  bool skipped = false;  // a rule of a fresh load only, and the database has run since
  std::string detail;    // the measured value, or how many rows break the rule
};

// Runs every check; a database error ends the audit with that error. `sizing` is what the
// database should hold (read from brokerbench_load_info by db::ReadLoadedSizing). Once the
// database holds run-time trades (ids from the Trade-Cleanup start id on), the rules that
// describe a fresh load only (row counts of growing tables, every trade completed, no pending
// request, LT_VOL 0) are reported as skipped; every other rule holds after a run as well.
Result<std::vector<CheckResult>> RunChecks(db::Connection& conn, const workload::Sizing& sizing);

}  // namespace bb::loader
