#include "common/db/loaded_sizing.h"

#include <string>

namespace bb::db {

Result<workload::Sizing> ReadLoadedSizing(Connection& conn) {
  auto rows = conn.Query(
      "SELECT customers, scale_factor, initial_trade_days, complete FROM brokerbench_load_info");
  if (!rows.ok() || rows->values.size() != 1) {
    return Status::NotFound(
        "the database holds no brokerbench load (no brokerbench_load_info row); run bb-loader");
  }
  const auto& r = rows->values[0];
  if (r[3] != "t") {
    return Status::InvalidArgument(
        "the database holds an incomplete load (brokerbench_load_info.complete is false): the "
        "loader stopped early; load again with --drop");
  }
  workload::Sizing sizing;
  sizing.customers = std::stoll(r[0].value_or("0"));
  sizing.scale_factor = std::stoll(r[1].value_or("0"));
  sizing.initial_trade_days = std::stoll(r[2].value_or("0"));
  return sizing;
}

}  // namespace bb::db
