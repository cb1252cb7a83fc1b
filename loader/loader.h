// The loader: creates the schema, generates every table (loader/generator.h) and streams it
// into COPY from several jobs in parallel, then builds primary keys and secondary indexes in
// parallel, vacuums the tables trades do not grow and analyzes all, adds and validates the
// foreign keys, and sets the trade-id sequence. Or, with a flat directory, writes the same rows
// to one file per table instead.
//
// A load may also be split into its phases (loader/load_plan.h): prepare once, then data
// phases for ranges of load units, in any number of processes on any hosts at once, then
// finish once; the result is the same database as a load in one piece.
//
// Every object goes into the connection's current schema (normally public). The database
// records the load (loader/load_record.h: sizing, start, end, complete, and who loaded which
// unit), so a half-finished load is never mistaken for a whole one.
//
// Thread-safety: Load runs its own worker threads; call it from one thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/util/status.h"
#include "common/workload/sizing.h"
#include "loader/load_plan.h"

namespace bb::loader {

struct LoadOptions {
  workload::Sizing sizing;
  std::string conninfo;               // libpq style; empty: PG* environment variables
  int jobs = 2;                       // parallel generators and index builders
  bool drop = false;                  // replace brokerbench tables that already exist
  std::filesystem::path flat_dir;     // non-empty: write <table>.tsv files, touch no database
  LoadPhase phase = LoadPhase::kAll;  // a whole load, or one phase of a split one
  // The data phase's load units (the fixed tables go with load unit 0); nullopt: all of them.
  std::optional<LoadUnitRange> load_units = std::nullopt;
};

struct PhaseReport {
  std::string name;
  double seconds = 0;
  int64_t rows = 0;   // rows generated (data phase)
  int64_t bytes = 0;  // bytes of COPY text (data phase)
  int steps = 0;      // statements run (key, index, analyze phases)
};

// What the loader is doing, for a progress display. Called from the loader's threads.
struct LoadProgress {
  std::string phase;
  int64_t rows = 0;           // rows generated so far (data phase)
  int64_t expected_rows = 0;  // about how many there will be
  int steps_done = 0;         // statements or units done in this phase
  int steps_total = 0;
};
using ProgressCallback = std::function<void(const LoadProgress&)>;

// Rows the loader will generate for a sizing, about (clause 2.6), for ETAs.
int64_t ExpectedRows(const workload::Sizing& sizing);

// Loads (or writes flat files), the whole load or options.phase of it. On success returns one
// report per step. On failure the database keeps what was done so far and
// brokerbench_load_info says the load is incomplete; the Status names the phase and what
// failed. A data or finish phase first checks that the database was prepared with the same
// sizing and that no finish phase has begun; a finish phase also checks that every work unit
// was loaded and that each table holds the rows the data phases recorded.
Result<std::vector<PhaseReport>> Load(const LoadOptions& options, const ProgressCallback& progress);

}  // namespace bb::loader
