#include "tests/support/frames_database.h"

#include <cstdlib>

#include <fmt/format.h>

#include "brokerage_house/frame_runner.h"
#include "common/db/connection.h"
#include "common/db/loaded_sizing.h"
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

bool UsingLoadedDatabase() {
  const char* value = std::getenv(kLoadedDatabaseVariable);
  return value != nullptr && *value != '\0';
}

Result<FramesDatabase> OpenFramesDatabase(std::string_view prefix, const workload::Sizing& sizing) {
  if (!UsingLoadedDatabase()) {
    auto created = CreateFramesDatabase(prefix, sizing);
    if (!created.ok()) return created.status();
    return FramesDatabase{*created, sizing, false};
  }
  const std::string conninfo = std::getenv(kLoadedDatabaseVariable);
  auto conn = db::Connection::Open(conninfo);
  if (!conn.ok()) {
    return Status::DbError(
        fmt::format("{}: cannot connect: {}", kLoadedDatabaseVariable, conn.status().message()));
  }
  auto loaded = db::ReadLoadedSizing(**conn);
  if (!loaded.ok()) {
    return Status::InvalidArgument(
        fmt::format("{} names no database the kit has loaded completely: {}",
                    kLoadedDatabaseVariable, loaded.status().message()));
  }
  Status installed = bh::InstallFrameFunctions(conninfo);
  if (!installed.ok()) {
    return Status::DbError(fmt::format("{}: installing the frame functions: {}",
                                       kLoadedDatabaseVariable, installed.message()));
  }
  return FramesDatabase{conninfo, *loaded, true};
}

}  // namespace bb::testing
