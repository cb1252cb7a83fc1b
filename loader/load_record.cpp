#include "loader/load_record.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <unistd.h>

namespace bb::loader {

namespace {

std::string_view PartName(UnitPart part) {
  switch (part) {
    case UnitPart::kFixed:
      return "fixed";
    case UnitPart::kCustomers:
      return "customers";
    case UnitPart::kMarket:
      return "market";
    case UnitPart::kTrades:
      return "trades";
  }
  return "unknown";
}

std::string Literal(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

std::string Text(const std::optional<std::string>& value) { return value.value_or(""); }

// "(part, load_unit)" keys of units, for an IN list.
std::string UnitKeys(const std::vector<WorkUnit>& units) {
  std::string keys;
  for (const WorkUnit& u : units) {
    keys +=
        fmt::format("{}({}, {})", keys.empty() ? "" : ", ", Literal(PartName(u.part)), u.load_unit);
  }
  return keys;
}

// A claim as the record holds it, for messages: "the loader on host h (10.0.0.3, pid 42)".
std::string Claimant(const std::vector<std::optional<std::string>>& row) {
  return fmt::format("the loader on host {} ({}, pid {})", Text(row[2]),
                     row[3] ? *row[3] : "a local socket", Text(row[4]));
}

const char* kClaimColumns =
    "part, load_unit, loader_host, host(client_addr), loader_pid, finished IS NOT NULL, "
    "to_char(started, 'YYYY-MM-DD HH24:MI:SS TZ')";

std::string UnitNameOf(const std::vector<std::optional<std::string>>& row) {
  const std::string part = Text(row[0]);
  if (part == "fixed") return "fixed tables";
  return fmt::format("{} of load unit {}", part, Text(row[1]));
}

}  // namespace

Status CreateLoadRecord(db::Connection& conn, const workload::Sizing& sizing) {
  return conn.Execute(fmt::format(
      "CREATE TABLE {0} (customers BIGINT NOT NULL, scale_factor INTEGER NOT NULL, "
      "initial_trade_days INTEGER NOT NULL, started TIMESTAMPTZ NOT NULL, finished TIMESTAMPTZ, "
      "complete BOOLEAN NOT NULL); "
      "INSERT INTO {0} VALUES ({2}, {3}, {4}, now(), NULL, false); "
      "CREATE TABLE {1} (part TEXT NOT NULL, load_unit INTEGER NOT NULL, loader_host TEXT NOT "
      "NULL, client_addr INET DEFAULT inet_client_addr(), loader_pid INTEGER NOT NULL, started "
      "TIMESTAMPTZ NOT NULL DEFAULT now(), finished TIMESTAMPTZ, table_rows JSONB, "
      "PRIMARY KEY (part, load_unit))",
      kLoadInfoTable, kLoadUnitsTable, sizing.customers, sizing.scale_factor,
      sizing.initial_trade_days));
}

std::string DropLoadRecordSql() {
  return fmt::format("DROP TABLE IF EXISTS {}, {}", kLoadUnitsTable, kLoadInfoTable);
}

Status CheckPrepared(db::Connection& conn, const workload::Sizing& sizing, std::string_view phase) {
  const std::string start_over = "start over with --phase prepare --drop";
  auto exists =
      conn.Query(fmt::format("SELECT to_regclass({}) IS NOT NULL, to_regclass({}) IS NOT NULL",
                             Literal(kLoadInfoTable), Literal(kLoadUnitsTable)));
  if (!exists.ok()) return exists.status();
  if (exists->values[0][0] != "t") {
    return Status::InvalidArgument(fmt::format(
        "the database holds no brokerbench load record ({}): run bb-loader --phase prepare "
        "first",
        kLoadInfoTable));
  }
  if (exists->values[0][1] != "t") {
    return Status::InvalidArgument(fmt::format(
        "the database has {} but no {}: it was loaded by an older bb-loader, in one piece; {}",
        kLoadInfoTable, kLoadUnitsTable, start_over));
  }
  auto info = conn.Query(fmt::format(
      "SELECT customers, scale_factor, initial_trade_days, complete FROM {}", kLoadInfoTable));
  if (!info.ok()) return info.status();
  if (info->values.size() != 1) {
    return Status::InvalidArgument(fmt::format("{} holds {} rows, not one; {}", kLoadInfoTable,
                                               info->values.size(), start_over));
  }
  const auto& row = info->values[0];
  const std::pair<const char*, int64_t> fields[] = {
      {"customers", sizing.customers},
      {"scale_factor", sizing.scale_factor},
      {"initial_trade_days", sizing.initial_trade_days}};
  for (size_t i = 0; i < 3; ++i) {
    const std::string recorded = Text(row[i]);
    if (recorded != std::to_string(fields[i].second)) {
      std::string option = fields[i].first;
      std::replace(option.begin(), option.end(), '_', '-');
      return Status::InvalidArgument(fmt::format(
          "the database was prepared for {} = {} ({}), but this {} phase was given --{} {}: "
          "every phase of a load needs the sizing of its prepare phase",
          fields[i].first, recorded, kLoadInfoTable, phase, option, fields[i].second));
    }
  }
  if (row[3] == "t") {
    return Status::InvalidArgument(fmt::format(
        "the load is complete already ({}.complete is true): nothing to do; to load again, {}",
        kLoadInfoTable, start_over));
  }
  std::string names;
  for (Table t : AllTables()) names += fmt::format("{}{}", names.empty() ? "" : ",", TableName(t));
  auto missing = conn.Query(fmt::format(
      "SELECT string_agg(n, ', ' ORDER BY n) FROM unnest('{{{}}}'::text[]) AS n WHERE NOT EXISTS "
      "(SELECT 1 FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind = "
      "'r' AND relname = n)",
      names));
  if (!missing.ok()) return missing.status();
  if (missing->values[0][0]) {
    return Status::InvalidArgument(
        fmt::format("the database lacks the tables {}; {}", *missing->values[0][0], start_over));
  }
  auto keys = conn.Query(fmt::format(
      "SELECT count(*) FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid WHERE "
      "c.contype = 'p' AND t.relnamespace = current_schema()::regnamespace AND t.relname = "
      "ANY('{{{}}}')",
      names));
  if (!keys.ok()) return keys.status();
  if (keys->values[0][0] != "0") {
    return Status::InvalidArgument(fmt::format(
        "{} primary keys exist already: a finish phase has begun, so no {} phase may run; {}",
        Text(keys->values[0][0]), phase, start_over));
  }
  return Status::Ok();
}

Status ClaimUnits(db::Connection& conn, const std::vector<WorkUnit>& units) {
  if (units.empty()) return Status::Ok();
  const std::string host = Literal(HostName());
  std::string values;
  for (const WorkUnit& u : units) {
    values += fmt::format("{}({}, {}, {}, {})", values.empty() ? "" : ", ",
                          Literal(PartName(u.part)), u.load_unit, host, getpid());
  }
  Status s = conn.Execute(
      fmt::format("INSERT INTO {} (part, load_unit, loader_host, loader_pid) VALUES {}",
                  kLoadUnitsTable, values));
  if (s.ok() || s.message().rfind("23505", 0) != 0) return s;  // 23505: unique_violation
  // Another loader holds some of them: say which and who.
  auto taken =
      conn.Query(fmt::format("SELECT {} FROM {} WHERE (part, load_unit) IN ({}) ORDER BY "
                             "load_unit, part",
                             kClaimColumns, kLoadUnitsTable, UnitKeys(units)));
  if (!taken.ok() || taken->values.empty()) {
    return s.WithContext("another loader claimed some of these load units at the same time");
  }
  // One line per claimant: the load units it holds (the fixed tables go with load unit 0).
  std::map<std::string, std::set<int64_t>> by_claimant;
  for (const auto& row : taken->values) {
    by_claimant[fmt::format("{}, at {} ({})", Claimant(row), Text(row[6]),
                            row[5] == "t" ? "finished" : "not finished")]
        .insert(std::max<int64_t>(0, std::stoll(Text(row[1]))));
  }
  std::string who;
  for (const auto& [claimant, lus] : by_claimant) {
    who += fmt::format("{}load units {} by {}", who.empty() ? "" : "; ",
                       DescribeLoadUnits({lus.begin(), lus.end()}), claimant);
  }
  return Status::InvalidArgument(fmt::format(
      "another loader claimed some of these load units already: {}. Each load unit goes to "
      "exactly one loader",
      who));
}

Status RecordUnitLoaded(db::Connection& conn, const WorkUnit& unit, const TableRows& rows) {
  std::string json;
  for (Table t : AllTables()) {
    const int64_t n = rows[static_cast<size_t>(t)];
    if (n > 0) json += fmt::format("{}\"{}\": {}", json.empty() ? "" : ", ", TableName(t), n);
  }
  return conn.Execute(fmt::format(
      "UPDATE {} SET finished = now(), table_rows = '{{{}}}'::jsonb WHERE part = {} AND load_unit "
      "= {}",
      kLoadUnitsTable, json, Literal(PartName(unit.part)), unit.load_unit));
}

Status CheckAllUnitsLoaded(db::Connection& conn, const workload::Sizing& sizing) {
  auto claims = conn.Query(
      fmt::format("SELECT {} FROM {} ORDER BY load_unit, part", kClaimColumns, kLoadUnitsTable));
  if (!claims.ok()) return claims.status();
  std::map<std::pair<std::string, int64_t>, const std::vector<std::optional<std::string>>*> by_unit;
  for (const auto& row : claims->values) {
    by_unit[{Text(row[0]), std::stoll(Text(row[1]))}] = &row;
  }
  std::set<int64_t> missing;
  std::vector<std::string> unfinished;
  for (const WorkUnit& unit : WorkUnits(sizing)) {
    auto it = by_unit.find({std::string(PartName(unit.part)), unit.load_unit});
    if (it == by_unit.end()) {
      // The fixed tables go with load unit 0's range.
      missing.insert(std::max(unit.load_unit, 0));
    } else if ((*it->second)[5] != "t") {
      const auto& row = *it->second;
      unfinished.push_back(fmt::format("{} started {} at {} but did not finish it", Claimant(row),
                                       UnitNameOf(row), Text(row[6])));
    }
  }
  if (missing.empty() && unfinished.empty()) return Status::Ok();
  std::string message = "not every load unit is loaded:";
  if (!missing.empty()) {
    message += fmt::format(
        " no loader has loaded load units {} (bb-loader --phase data --load-units FIRST-LAST "
        "loads a range){}",
        DescribeLoadUnits({missing.begin(), missing.end()}), unfinished.empty() ? "" : ";");
  }
  const size_t shown = std::min<size_t>(unfinished.size(), 3);
  for (size_t i = 0; i < shown; ++i)
    message += fmt::format(" {}{}", unfinished[i], i + 1 < shown ? ";" : "");
  if (unfinished.size() > shown) message += fmt::format("; and {} more", unfinished.size() - shown);
  if (!unfinished.empty()) {
    message +=
        ". An unfinished unit's loader failed or is still running; its rows may be partly in, so "
        "after a failure start over with --phase prepare --drop";
  }
  return Status::InvalidArgument(message);
}

Result<TableRows> RecordedRows(db::Connection& conn) {
  auto rows = conn.Query(fmt::format(
      "SELECT key, sum(value::bigint) FROM {}, jsonb_each_text(table_rows) GROUP BY key",
      kLoadUnitsTable));
  if (!rows.ok()) return rows.status();
  TableRows total{};
  for (const auto& row : rows->values) {
    const std::string name = Text(row[0]);
    bool known = false;
    for (Table t : AllTables()) {
      if (TableName(t) == name) {
        total[static_cast<size_t>(t)] = std::stoll(Text(row[1]));
        known = true;
      }
    }
    if (!known) {
      return Status::InvalidArgument(fmt::format(
          "{} records rows of '{}', which is not a brokerbench table", kLoadUnitsTable, name));
    }
  }
  return total;
}

Status MarkLoadComplete(db::Connection& conn) {
  return conn.Execute(
      fmt::format("UPDATE {} SET finished = now(), complete = true", kLoadInfoTable));
}

std::string DescribeLoadUnits(const std::vector<int64_t>& load_units) {
  std::string out;
  for (size_t i = 0; i < load_units.size();) {
    size_t j = i;
    while (j + 1 < load_units.size() && load_units[j + 1] == load_units[j] + 1) ++j;
    out += out.empty() ? "" : ", ";
    out +=
        j == i ? std::to_string(load_units[i]) : fmt::format("{}-{}", load_units[i], load_units[j]);
    i = j + 1;
  }
  return out;
}

Status RowCountingSink::Append(Table table, std::string_view rows) {
  Status s = next_.Append(table, rows);
  if (s.ok()) rows_[static_cast<size_t>(table)] += std::count(rows.begin(), rows.end(), '\n');
  return s;
}

}  // namespace bb::loader
