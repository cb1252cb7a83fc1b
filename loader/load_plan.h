// Splitting one load over several loader processes, on one host or several (bb-loader --phase,
// --load-units, --split-load-units; `brokerbench build-db --config`).
//
// A load has three phases: prepare (the tables and the load record, once), data (generate and
// COPY the rows of some load units; any number of processes at once, each with its own range)
// and finish (keys, indexes, foreign keys, the trade-id sequence, ANALYZE, the load marked
// complete; once, after every range is in). Generation is deterministic per work unit
// (loader/generator.h), so however the load units are split, the tables hold the same rows.
//
// The fixed tables belong to the range that holds load unit 0: a split over whole ranges
// loads them exactly once.
//
// Thread-safety: pure functions on values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/util/status.h"
#include "common/workload/sizing.h"
#include "loader/generator.h"

namespace bb::loader {

enum class LoadPhase { kAll, kPrepare, kData, kFinish };

// "all", "prepare", "data", "finish".
std::string_view LoadPhaseName(LoadPhase phase);

// One of the names above, or InvalidArgument naming the option and the value.
Result<LoadPhase> ParseLoadPhase(std::string_view option, std::string_view text);

// Load units `first` to `last`, both included, counted from 0 (load unit n holds customers
// n*1000+1 to (n+1)*1000).
struct LoadUnitRange {
  int64_t first = 0;
  int64_t last = 0;
  int64_t count() const { return last - first + 1; }
  friend bool operator==(const LoadUnitRange&, const LoadUnitRange&) = default;
};

// "FIRST-LAST" (e.g. "0-3") or one load unit "N"; FIRST <= LAST. Errors name the option and
// the value, e.g. "--load-units: '3-1' ends before it starts".
Result<LoadUnitRange> ParseLoadUnitRange(std::string_view option, std::string_view text);

// "FIRST-LAST".
std::string ToString(const LoadUnitRange& range);

// Ok when the range lies inside the sizing's load units; otherwise an error naming the option,
// the value and the load units there are.
Status CheckLoadUnitRange(std::string_view option, const LoadUnitRange& range,
                          const workload::Sizing& sizing);

// Every load unit of the sizing.
LoadUnitRange AllLoadUnits(const workload::Sizing& sizing);

// The work units a range loads, in WorkUnits() order: the fixed tables when the range holds
// load unit 0, then the customers, market and trades of each of its load units.
std::vector<WorkUnit> WorkUnitsOf(const workload::Sizing& sizing, const LoadUnitRange& range);

// The shares of `load_units` load units among loaders, in order. `requested` has one entry per
// loader: a range it asked for, or nullopt for "an even share". Either every loader asks for a
// range or none does:
//   - none: contiguous ranges in order, as even as whole load units allow (the first loaders
//     get one more when they do not divide evenly); every loader needs at least one unit;
//   - all: the ranges must not overlap and must together cover 0..load_units-1.
// Errors name the loaders by their place from 1 ("loader 2").
Result<std::vector<LoadUnitRange>> SplitLoadUnits(
    int64_t load_units, const std::vector<std::optional<LoadUnitRange>>& requested);

// The argument of --split-load-units: comma-separated entries, each "auto" or a range as
// ParseLoadUnitRange reads it (e.g. "auto,auto" or "0-2,3-3").
Result<std::vector<std::optional<LoadUnitRange>>> ParseShareList(std::string_view option,
                                                                 std::string_view text);

}  // namespace bb::loader
