// Table generation: every row of the 33 tables (clause 2.6; EGen's rules), split into units that
// can be generated independently, in any order, on any threads, with byte-identical results.
//
// A unit is either the fixed tables (once per database) or one part of one load unit (LU,
// 1 000 customers): its customers, its market (companies, securities, daily market...) or its
// initial trades. Every random draw of a unit comes from a stream seeded by the unit's keys
// (customer, account, company, security or LU), never from a shared generator, so a unit's
// rows depend only on the Sizing and the unit.
//
// Thread-safety: the functions are reentrant; Generate() for one unit runs on the calling
// thread and calls the sink only from that thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "common/util/status.h"
#include "common/workload/sizing.h"
#include "loader/tables.h"

namespace bb::loader {

enum class UnitPart { kFixed, kCustomers, kMarket, kTrades };

struct WorkUnit {
  UnitPart part;
  int load_unit;  // 0-based; -1 for kFixed
  friend bool operator==(const WorkUnit&, const WorkUnit&) = default;
};

// The units of generation for a sizing: one kFixed unit, then for each load unit its
// kCustomers, kMarket and kTrades parts. Units are independent: any subset, in any order, on any
// threads, gives the same rows per unit.
std::vector<WorkUnit> WorkUnits(const workload::Sizing& sizing);

// e.g. "fixed tables", "customers of load unit 3", "trades of load unit 3".
std::string WorkUnitName(const WorkUnit& unit);

// Generates every row of a unit into the sink (one thread per unit; the sink of a unit is
// only called from that thread). `rows_done` (may be null) is incremented as rows are produced,
// for progress display; it may be shared by several threads. Fails with InvalidArgument for a
// bad sizing or a unit outside it, or with the sink's first error, prefixed by the table
// ("writing trade: ..."); generation stops there. The caller adds WorkUnitName() as context.
Status Generate(const workload::Sizing& sizing, const WorkUnit& unit, TableSink& sink,
                std::atomic<int64_t>* rows_done = nullptr);

// The tables a unit writes rows to (the loader may truncate or count them per unit).
std::vector<Table> TablesOfPart(UnitPart part);

}  // namespace bb::loader
