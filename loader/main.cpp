// bb-loader: generates the TPC-E-style database and loads it into PostgreSQL, or writes it to
// flat files, or audits a loaded database. Options and wiring only; see loader.h and check.h.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>

#include "common/db/connection.h"
#include "common/db/loaded_sizing.h"
#include "common/util/cli_app.h"
#include "common/workload/sizing_options.h"
#include "loader/check.h"
#include "loader/load_plan.h"
#include "loader/loader.h"

namespace {

using bb::Result;
using bb::Status;

constexpr const char* kAbout =
    R"(Generates the brokerbench database (all 33 TPC-E tables, deterministically) and loads it:
rows stream into COPY from several jobs, then primary keys and indexes are built in
parallel, the tables that trades do not grow vacuumed and every table analyzed, the foreign
keys added and validated, and the trade-id sequence set.
)";

constexpr const char* kFooter =
    R"(Exit status: 0 done, 1 failed (the message names the phase), 2 bad usage.)";

struct Options {
  bb::workload::Sizing sizing{.customers = 1000, .scale_factor = 500, .initial_trade_days = 10};
  std::string conninfo;
  std::string flat_dir;
  std::string report;
  bool drop = false;
  bool check = false;
  int jobs = 0;
  bb::loader::LoadPhase phase = bb::loader::LoadPhase::kAll;
  bool phase_given = false;
  std::optional<bb::loader::LoadUnitRange> load_units;
  std::optional<std::vector<std::optional<bb::loader::LoadUnitRange>>> split;
};

// The rules between options.
Status CheckOptions(const Options& o) {
  if (o.check && !o.flat_dir.empty()) {
    return Status::InvalidArgument("--check audits a database; it does not go with --flat-dir");
  }
  if (!o.flat_dir.empty() && o.drop) {
    return Status::InvalidArgument(
        "--drop replaces database tables; it does not go with --flat-dir");
  }
  Status s = o.sizing.Validate();
  if (!s.ok()) return s;
  using bb::loader::LoadPhase;
  const std::string phase(bb::loader::LoadPhaseName(o.phase));
  if (o.split && (o.check || o.phase_given || o.load_units || !o.flat_dir.empty() || o.drop)) {
    return Status::InvalidArgument(
        "--split-load-units only prints a split; it does not go with --check, --phase, "
        "--load-units, --flat-dir or --drop");
  }
  if (o.phase_given && o.check) {
    return Status::InvalidArgument("--phase: --check audits a whole load; it takes no phase");
  }
  if (o.phase != LoadPhase::kAll && !o.flat_dir.empty()) {
    return Status::InvalidArgument(fmt::format(
        "--phase: '{}' is for a database; --flat-dir writes every file in one piece", phase));
  }
  if (o.load_units && o.phase != LoadPhase::kData) {
    return Status::InvalidArgument(
        fmt::format("--load-units: '{}' goes with --phase data only (the other phases work on "
                    "every load unit)",
                    bb::loader::ToString(*o.load_units)));
  }
  if (o.load_units) {
    s = bb::loader::CheckLoadUnitRange("--load-units", *o.load_units, o.sizing);
    if (!s.ok()) return s;
  }
  if (o.drop && (o.phase == LoadPhase::kData || o.phase == LoadPhase::kFinish)) {
    return Status::InvalidArgument(fmt::format(
        "--drop: the {} phase never replaces tables; --phase prepare (or a whole load) does",
        phase));
  }
  return Status::Ok();
}

void DefineOptions(CLI::App& app, Options& o) {
  namespace cli = bb::cli;
  namespace ld = bb::loader;
  o.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  cli::Configure(app);
  app.footer(kFooter);
  // The rules across the three (a multiple of 1000, initial trades left) are Sizing::Validate's.
  const std::string sizing = "Sizing (the database must be loaded and driven with the same values)";
  const auto options = bb::workload::AddSizingOptions(
      app, o.sizing.customers, o.sizing.scale_factor, o.sizing.initial_trade_days,
      "a compliant database has at least 5000 customers and 300\n"
      "initial trade days");
  options.customers->group(sizing);
  options.scale_factor->group(sizing);
  options.initial_trade_days->group(sizing);

  app.add_option("--db", o.conninfo,
                 "libpq connection string, e.g. \"host=/tmp port=5432 dbname=bb\";\n"
                 "unset parameters come from PGHOST, PGPORT, PGDATABASE, ...")
      ->type_name("CONNINFO")
      ->check(cli::NonEmpty())
      ->group("Where");
  app.add_option("--flat-dir", o.flat_dir,
                 "write DIR/<table>.tsv (COPY text format) instead of loading")
      ->type_name("DIR")
      ->check(cli::NonEmpty())
      ->group("Where");
  app.add_flag("--drop", o.drop, "replace brokerbench tables that already exist in the database")
      ->group("Where");

  app.add_flag("--check", o.check,
               "audit a loaded database instead of loading: row counts, the\n"
               "consistency conditions of TPC-E clause 7.3.2 and the invariants\n"
               "that hold after a load; PASS/FAIL per check, exit 1 on any FAIL")
      ->group("What");
  auto* phase = cli::AddParsed(
                    app, "--phase", o.phase,
                    [](std::string_view text) { return ld::ParseLoadPhase("--phase", text); },
                    "one phase of a load split over several processes or hosts\n"
                    "(brokerbench build-db --config runs them); the result is the\n"
                    "same database as a load in one piece (default: all):\n"
                    "  prepare  create the tables and the load record (with --drop,\n"
                    "           replace a loaded database first)\n"
                    "  data     generate and COPY the rows of --load-units into\n"
                    "           prepared tables; any number at once, each its own\n"
                    "           range; refused unless prepared with the same sizing\n"
                    "  finish   check that every load unit is in and each table holds\n"
                    "           the rows the data phases recorded, then keys,\n"
                    "           indexes, VACUUM and ANALYZE, foreign keys, the\n"
                    "           trade-id sequence, and mark the load complete")
                    ->type_name("PHASE")
                    ->group("What");
  cli::AddParsed(
      app, "--load-units", o.load_units,
      [](std::string_view text) { return ld::ParseLoadUnitRange("--load-units", text); },
      "with --phase data: these load units only (1000 customers each,\n"
      "counted from 0: 5000 customers are load units 0-4; \"N\" is N-N;\n"
      "default all). The range holding load unit 0 also loads the\n"
      "fixed tables. A unit another loader claimed is refused.")
      ->type_name("FIRST-LAST")
      ->group("What");
  cli::AddParsed(
      app, "--split-load-units", o.split,
      [](std::string_view text) { return ld::ParseShareList("--split-load-units", text); },
      "print the load units of each of several loaders, one FIRST-LAST\n"
      "line each, and exit. LIST: one comma-separated entry per loader,\n"
      "\"auto\" (an even share, in order) or FIRST-LAST; all of one kind.\n"
      "Ranges must cover every load unit once.")
      ->type_name("LIST")
      ->group("What");
  app.add_option("--jobs", o.jobs, "parallel jobs (default: the number of cores)")
      ->check(cli::Range(1, 256))
      ->group("What");
  app.add_option("--report", o.report,
                 "also write the phase timings as JSON (used by brokerbench bench)")
      ->type_name("FILE")
      ->check(cli::NonEmpty())
      ->group("What");
  cli::CheckAfterParse(app, [&o, phase] {
    o.phase_given = phase->count() > 0;
    return CheckOptions(o);
  });
}

// Prints progress: on a terminal one line redrawn in place; otherwise a line every 10 s.
class ProgressPrinter {
 public:
  ProgressPrinter() : terminal_(isatty(STDERR_FILENO) == 1) {}
  ~ProgressPrinter() {
    if (drawn_) std::fputc('\n', stderr);
  }

  void Show(const bb::loader::LoadProgress& p) {
    std::lock_guard lock(mutex_);
    auto now = std::chrono::steady_clock::now();
    bool new_phase = p.phase != phase_;
    auto interval = terminal_ ? std::chrono::milliseconds(250) : std::chrono::seconds(10);
    if (!new_phase && now - last_ < interval) return;
    if (new_phase) {
      if (drawn_) std::fputc('\n', stderr);
      phase_ = p.phase;
      phase_start_ = now;
    }
    last_ = now;
    double seconds = std::chrono::duration<double>(now - phase_start_).count();
    std::string line;
    if (p.expected_rows > 0) {
      double rate = seconds > 0 ? static_cast<double>(p.rows) / seconds : 0;
      double left = static_cast<double>(std::max<int64_t>(0, p.expected_rows - p.rows));
      line = fmt::format("{}: {} rows ({:.0f}%), {:.0f} rows/s, {}/{} units, about {:.0f} s left",
                         p.phase, p.rows,
                         100.0 * static_cast<double>(p.rows) / static_cast<double>(p.expected_rows),
                         rate, p.steps_done, p.steps_total, rate > 0 ? left / rate : 0.0);
    } else {
      line = fmt::format("{}: {}/{} statements, {:.1f} s", p.phase, p.steps_done, p.steps_total,
                         seconds);
    }
    if (terminal_) {
      fmt::print(stderr, "\r{:<100}", line);
      drawn_ = true;
    } else {
      fmt::print(stderr, "{}\n", line);
    }
    std::fflush(stderr);
  }

 private:
  bool terminal_;
  bool drawn_ = false;
  std::mutex mutex_;
  std::string phase_;
  std::chrono::steady_clock::time_point last_{};
  std::chrono::steady_clock::time_point phase_start_{};
};

int Check(const Options& o) {
  auto conn = bb::db::Connection::Open(o.conninfo);
  if (!conn.ok()) {
    return bb::Fail("bb-loader", conn.status(), 1);
  }
  auto sizing = bb::db::ReadLoadedSizing(**conn);
  if (!sizing.ok()) {
    fmt::print(stderr, "bb-loader --check: {}\n", sizing.status().message());
    return 1;
  }
  fmt::print("Auditing a database of {} customers, scale factor {}, {} initial trade days\n",
             sizing->customers, sizing->scale_factor, sizing->initial_trade_days);
  auto results = bb::loader::RunChecks(**conn, *sizing);
  if (!results.ok()) {
    fmt::print(stderr, "bb-loader --check: {}\n", results.status().message());
    return 1;
  }
  int failed = 0, skipped = 0;
  for (const auto& r : *results) {
    fmt::print("{}  {}  [{}]\n", r.skipped ? "SKIP" : r.passed ? "PASS" : "FAIL", r.name, r.detail);
    if (!r.passed) ++failed;
    if (r.skipped) ++skipped;
  }
  fmt::print("{} passed, {} failed, {} skipped\n", results->size() - failed - skipped, failed,
             skipped);
  return failed == 0 ? 0 : 1;
}

Status WriteReport(const std::string& path, const bb::loader::LoadOptions& lo,
                   const std::vector<bb::loader::PhaseReport>& phases) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    return Status::IoError(
        fmt::format("--report: cannot write '{}': {}", path, std::strerror(errno)));
  }
  fmt::print(f,
             "{{\"customers\": {}, \"scale_factor\": {}, \"initial_trade_days\": {}, "
             "\"jobs\": {}, \"phases\": [",
             lo.sizing.customers, lo.sizing.scale_factor, lo.sizing.initial_trade_days, lo.jobs);
  for (std::size_t i = 0; i < phases.size(); ++i) {
    const auto& p = phases[i];
    fmt::print(f,
               "{}{{\"name\": \"{}\", \"seconds\": {:.3f}, \"rows\": {}, \"bytes\": {}, "
               "\"steps\": {}}}",
               i == 0 ? "" : ", ", p.name, p.seconds, p.rows, p.bytes, p.steps);
  }
  fmt::print(f, "]}}\n");
  return std::fclose(f) == 0 ? Status::Ok() : Status::IoError("--report: write failed");
}

}  // namespace

// --split-load-units: one line per loader, or a usage error naming the loader.
int PrintSplit(const Options& o) {
  auto shares = bb::loader::SplitLoadUnits(o.sizing.LoadUnits(), *o.split);
  if (!shares.ok()) {
    return bb::Fail("bb-loader", shares.status().WithContext("--split-load-units"), 2);
  }
  for (const auto& share : *shares) fmt::print("{}\n", bb::loader::ToString(share));
  return 0;
}

// What this process is about to do, first in its log.
void PrintPlan(const Options& o) {
  using bb::loader::LoadPhase;
  const std::string sizing =
      fmt::format("{} customers, scale factor {}, {} initial trade days", o.sizing.customers,
                  o.sizing.scale_factor, o.sizing.initial_trade_days);
  switch (o.phase) {
    case LoadPhase::kAll:
      fmt::print("Generating {}, {} jobs{}\n", sizing, o.jobs,
                 o.flat_dir.empty() ? "" : fmt::format(", into files in {}", o.flat_dir));
      break;
    case LoadPhase::kPrepare:
      fmt::print("Preparing the database for a load of {} (phase prepare)\n", sizing);
      break;
    case LoadPhase::kData: {
      const auto all = bb::loader::AllLoadUnits(o.sizing);
      const auto range = o.load_units.value_or(all);
      char host[256] = {};
      if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
      fmt::print(
          "Loading load units {} of {} ({}customers {} to {}) of {}, {} jobs, on host {} "
          "(phase data)\n",
          bb::loader::ToString(range), bb::loader::ToString(all),
          range.first == 0 ? "the fixed tables and " : "", range.first * 1000 + 1,
          (range.last + 1) * 1000, sizing, o.jobs, host);
      break;
    }
    case LoadPhase::kFinish:
      fmt::print(
          "Finishing the load of {}: row counts, keys, indexes, analyze, foreign keys, "
          "{} jobs (phase finish)\n",
          sizing, o.jobs);
      break;
  }
}

int main(int argc, char** argv) {
  Options o;
  CLI::App app(kAbout, "bb-loader");
  DefineOptions(app, o);
  bb::cli::ParseOrExit(app, argc, argv);
  // Its sessions carry its name in pg_stat_activity (unless PGAPPNAME gives another), as the
  // Brokerage House's do: a user, or the TLS test, tells them from other clients'. Set before
  // any thread starts.
  ::setenv("PGAPPNAME", "bb-loader", /*overwrite=*/0);
  if (o.check) return Check(o);
  if (o.split) return PrintSplit(o);

  bb::loader::LoadOptions lo{o.sizing,   o.conninfo, o.jobs,      o.drop,
                             o.flat_dir, o.phase,    o.load_units};
  PrintPlan(o);
  std::fflush(stdout);  // before the progress lines on stderr, when both go to one log
  // A database that cannot be reached fails here, before the note below could claim that
  // anything was loaded.
  if (o.flat_dir.empty()) {
    if (auto conn = bb::db::Connection::Open(o.conninfo); !conn.ok()) {
      return bb::Fail("bb-loader", conn.status(), 1);
    }
  }
  Result<std::vector<bb::loader::PhaseReport>> phases = [&] {
    ProgressPrinter printer;
    return bb::loader::Load(lo, [&](const bb::loader::LoadProgress& p) { printer.Show(p); });
  }();
  if (!phases.ok()) {
    fmt::print(stderr, "bb-loader: {}\n", phases.status().message());
    // A refusal (the database is not in the state this phase needs) changed nothing.
    const bool refused = phases.status().code() == bb::StatusCode::kInvalidArgument;
    if (o.flat_dir.empty() && !refused) {
      fmt::print(stderr,
                 "bb-loader: the database keeps what was loaded so far and is marked incomplete "
                 "(brokerbench_load_info); load again with --drop\n");
    }
    return 1;
  }
  fmt::print("\n{:<22} {:>9} {:>12} {:>12} {:>9}\n", "phase", "seconds", "rows", "rows/s", "MB/s");
  double total = 0;
  for (const auto& p : *phases) {
    total += p.seconds;
    if (p.rows > 0) {
      fmt::print("{:<22} {:>9.2f} {:>12} {:>12.0f} {:>9.1f}\n", p.name, p.seconds, p.rows,
                 static_cast<double>(p.rows) / p.seconds,
                 static_cast<double>(p.bytes) / 1e6 / p.seconds);
    } else {
      fmt::print("{:<22} {:>9.2f} {:>12} {:>12} {:>9}\n", p.name, p.seconds,
                 fmt::format("{} stmts", p.steps), "", "");
    }
  }
  fmt::print("{:<22} {:>9.2f}\n", "total", total);
  const bool whole =
      o.phase == bb::loader::LoadPhase::kAll || o.phase == bb::loader::LoadPhase::kFinish;
  if (whole && (o.sizing.customers < 5000 || o.sizing.initial_trade_days < 300)) {
    fmt::print(
        "note: not a compliant TPC-E size (needs >= 5000 customers and 300 initial trade "
        "days); fine for trying the kit\n");
  }
  if (!o.report.empty()) {
    Status s = WriteReport(o.report, lo, *phases);
    if (!s.ok()) {
      fmt::print(stderr, "bb-loader: {}\n", s.message());
      return 1;
    }
  }
  return 0;
}
