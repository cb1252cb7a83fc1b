// The load record in the database, which lets several loader processes share one load
// (loader/load_plan.h) and lets nobody mistake a partial load for a whole one:
//
//   brokerbench_load_info    one row: the sizing, when the load started and finished, and
//                            whether it is complete (the finish phase's last step);
//   brokerbench_load_units   one row per work unit a data phase claimed: which loader (host
//                            name, client address as the server saw it, pid), when it started
//                            and finished the unit, and the rows it wrote per table.
//
// A data phase claims its units in one INSERT before it writes a row, so two loaders given
// overlapping ranges cannot both load a unit: the second is refused, naming the first. A unit
// claimed but never finished (its loader failed) may be partly in the tables; it cannot be
// loaded again without starting over (--drop).
//
// Thread-safety: the functions use the connection given, from the calling thread.
// RowCountingSink: one per unit, used by one thread, as every sink.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/db/connection.h"
#include "common/util/status.h"
#include "common/workload/sizing.h"
#include "loader/generator.h"
#include "loader/tables.h"

namespace bb::loader {

inline constexpr std::string_view kLoadInfoTable = "brokerbench_load_info";
inline constexpr std::string_view kLoadUnitsTable = "brokerbench_load_units";

// Rows per table, indexed by Table.
using TableRows = std::array<int64_t, kTableCount>;

// Creates both tables of the record (which must not exist) and the load_info row of a load
// that has started and is not complete.
Status CreateLoadRecord(db::Connection& conn, const workload::Sizing& sizing);

// The statement that drops both tables, if they exist.
std::string DropLoadRecordSql();

// Checks that the database was prepared for this load and that `phase` ("data", "finish") may
// work on it: the record exists with the same sizing (an error names the field and both
// values), the load is not complete, all 33 tables exist, and no primary key has been built
// yet (the finish phase has not begun).
Status CheckPrepared(db::Connection& conn, const workload::Sizing& sizing, std::string_view phase);

// Claims `units` for this process (host name and pid; the server adds the client address), all
// or none. When another loader claimed any of them, fails naming the units and that loader.
Status ClaimUnits(db::Connection& conn, const std::vector<WorkUnit>& units);

// Records a claimed unit as loaded, with the rows it wrote per table.
Status RecordUnitLoaded(db::Connection& conn, const WorkUnit& unit, const TableRows& rows);

// Checks that every work unit of the sizing was claimed and finished. The error lists what is
// missing as --load-units ranges to load, and names the loader of each unfinished unit.
Status CheckAllUnitsLoaded(db::Connection& conn, const workload::Sizing& sizing);

// The rows per table that all data phases recorded together.
Result<TableRows> RecordedRows(db::Connection& conn);

// Marks the load finished and complete.
Status MarkLoadComplete(db::Connection& conn);

// "1-3, 5, 7-8": sorted load unit numbers (no duplicates) as ranges.
std::string DescribeLoadUnits(const std::vector<int64_t>& load_units);

// Forwards rows to another sink and counts them per table (one row per '\n': COPY text
// escapes the newlines inside values).
class RowCountingSink : public TableSink {
 public:
  explicit RowCountingSink(TableSink& next) : next_(next) {}
  Status Append(Table table, std::string_view rows) override;
  const TableRows& rows() const { return rows_; }

 private:
  TableSink& next_;
  TableRows rows_{};
};

}  // namespace bb::loader
