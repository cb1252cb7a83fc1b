#include "tests/support/frames_database.h"

#include <fmt/format.h>

#include "brokerage_house/frame_runner.h"
#include "loader/loader.h"
#include "tests/support/test_cluster.h"

namespace bb::testing {

Result<std::string> CreateFramesDatabase(std::string_view prefix, const workload::Sizing& sizing) {
  auto conninfo = CreateDatabase(prefix);
  if (!conninfo.ok()) return conninfo.status();
  auto loaded = loader::Load(loader::LoadOptions{sizing, *conninfo, 2, false, {}}, nullptr);
  if (!loaded.ok()) {
    return Status::DbError(fmt::format("loading {}: {}", *conninfo, loaded.status().message()));
  }
  Status installed = bh::InstallFrameFunctions(*conninfo);
  if (!installed.ok()) {
    return Status::DbError(
        fmt::format("installing the frame functions in {}: {}", *conninfo, installed.message()));
  }
  return conninfo;
}

}  // namespace bb::testing
