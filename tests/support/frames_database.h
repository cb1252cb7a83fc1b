// A database for the tests that run the frames: created on the test cluster, loaded by the
// loader (2 jobs) at `sizing`, with the server-side frame functions installed.
#pragma once

#include <string>
#include <string_view>

#include "common/util/status.h"
#include "common/workload/sizing.h"

namespace bb::testing {

// Its connection string; an error names the step that failed (create, load or install).
Result<std::string> CreateFramesDatabase(std::string_view prefix, const workload::Sizing& sizing);

}  // namespace bb::testing
