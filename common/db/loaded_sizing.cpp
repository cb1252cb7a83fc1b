#include "common/db/loaded_sizing.h"

#include <fmt/format.h>

namespace bb::db {

Result<workload::Sizing> ReadLoadedSizing(Connection& conn) {
  auto where = conn.Query(
      "SELECT current_database(), coalesce(current_schema(), '(none)'), "
      "to_regclass('brokerbench_load_info') IS NOT NULL");
  if (!where.ok()) return where.status().WithContext("looking for the load record");
  const auto& w = where->values[0];
  if (w[2] != "t") {
    return Status::NotFound(fmt::format(
        "database {} (schema {}) holds no brokerbench load (no brokerbench_load_info); load it "
        "with bb-loader (./brokerbench build-db), with --drop if an earlier load left tables",
        w[0].value_or(""), w[1].value_or("")));
  }
  auto rows = conn.Query(
      "SELECT customers, scale_factor, initial_trade_days, complete, "
      "to_char(started, 'YYYY-MM-DD HH24:MI:SS TZ') FROM brokerbench_load_info");
  if (!rows.ok()) {
    return rows.status().WithContext("reading the load record (brokerbench_load_info)");
  }
  if (rows->values.size() != 1) {
    return Status::InvalidArgument(fmt::format(
        "the load record (brokerbench_load_info) holds {} rows, not one: the database holds no "
        "usable load; load again with --drop",
        rows->values.size()));
  }
  const auto& r = rows->values[0];
  if (r[3] != "t") {
    return Status::InvalidArgument(fmt::format(
        "the database holds an incomplete load (brokerbench_load_info.complete is false: the "
        "load started at {} stopped early); load again with --drop",
        r[4].value_or("?")));
  }
  workload::Sizing sizing;
  sizing.customers = std::stoll(r[0].value_or("0"));
  sizing.scale_factor = std::stoll(r[1].value_or("0"));
  sizing.initial_trade_days = std::stoll(r[2].value_or("0"));
  return sizing;
}

}  // namespace bb::db
