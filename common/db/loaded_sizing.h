// The sizing a loaded database holds, as the loader recorded it (brokerbench_load_info): what
// the Brokerage House, bb-txn and the loader's own checks compare their options with.
//
// Thread-safety: uses the connection given, from the calling thread.
#pragma once

#include "common/db/connection.h"
#include "common/util/status.h"
#include "common/workload/sizing.h"

namespace bb::db {

// The sizing recorded by the loader, or an error saying the database holds no complete load.
Result<workload::Sizing> ReadLoadedSizing(Connection& conn);

}  // namespace bb::db
