// bb-loader: generates the TPC-E-style database and loads it into PostgreSQL, or writes it to
// flat files, or audits a loaded database. Options and wiring only; see loader.h and check.h.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <unistd.h>

#include "common/db/connection.h"
#include "common/util/cli.h"
#include "loader/check.h"
#include "loader/loader.h"

namespace {

using bb::Result;
using bb::Status;

constexpr const char* kUsage = R"(Usage: bb-loader [options]

Generates the brokerbench database (all 33 TPC-E tables, deterministically) and loads it:
rows stream into COPY from several jobs, then primary keys and indexes are built in
parallel, the tables analyzed, the foreign keys added and validated, and the trade-id
sequence set.

Sizing (the database must be loaded and driven with the same values):
  --customers N            customers, a multiple of 1000 (default 1000; a compliant
                           database has at least 5000)
  --initial-trade-days N   business days of initial trades (default 10; compliant: 300)
  --scale-factor N         customers per tpsE (default 500, the spec's value)

Where:
  --db CONNINFO            libpq connection string, e.g. "host=/tmp port=5432 dbname=bb";
                           unset parameters come from PGHOST, PGPORT, PGDATABASE, ...
  --flat-dir DIR           write DIR/<table>.tsv (COPY text format) instead of loading
  --drop                   replace brokerbench tables that already exist in the database

What:
  --check                  audit a loaded database instead of loading: row counts, the
                           consistency conditions of TPC-E clause 7.3.2 and the invariants
                           that hold after a load; PASS/FAIL per check, exit 1 on any FAIL
  --jobs N                 parallel jobs (default: the number of cores)
  --report FILE            also write the phase timings as JSON (used by brokerbench bench)
  -h, --help               this text

Exit status: 0 done, 1 failed (the message names the phase), 2 bad usage.
)";

struct Options {
  bb::workload::Sizing sizing{.customers = 1000, .scale_factor = 500, .initial_trade_days = 10};
  std::string conninfo;
  std::string flat_dir;
  std::string report;
  bool drop = false;
  bool check = false;
  int jobs = 0;
};

Result<Options> ParseOptions(int argc, char** argv) {
  Options o;
  o.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (bb::Args args(argc, argv); args.Next();) {
    const std::string& arg = args.option();
    if (arg == "--customers" || arg == "--initial-trade-days" || arg == "--scale-factor" ||
        arg == "--jobs") {
      // Range errors for sizing come from Sizing::Validate, which knows the rules.
      auto n = args.Number(arg == "--jobs" ? 1 : INT64_MIN, arg == "--jobs" ? 256 : INT64_MAX);
      if (!n.ok()) return n.status();
      if (arg == "--customers") o.sizing.customers = *n;
      if (arg == "--initial-trade-days") o.sizing.initial_trade_days = *n;
      if (arg == "--scale-factor") o.sizing.scale_factor = *n;
      if (arg == "--jobs") o.jobs = static_cast<int>(*n);
    } else if (arg == "--db" || arg == "--flat-dir" || arg == "--report") {
      auto v = args.Value();
      if (!v.ok()) return v.status();
      if (v->empty()) return Status::InvalidArgument(arg + ": needs a non-empty value");
      (arg == "--db" ? o.conninfo : arg == "--flat-dir" ? o.flat_dir : o.report) = *v;
    } else if (arg == "--drop") {
      o.drop = true;
    } else if (arg == "--check") {
      o.check = true;
    } else {
      return Status::InvalidArgument(fmt::format("unknown option '{}' (see --help)", arg));
    }
  }
  if (o.check && !o.flat_dir.empty()) {
    return Status::InvalidArgument("--check audits a database; it does not go with --flat-dir");
  }
  if (!o.flat_dir.empty() && o.drop) {
    return Status::InvalidArgument(
        "--drop replaces database tables; it does not go with --flat-dir");
  }
  Status s = o.sizing.Validate();
  if (!s.ok()) return s;
  return o;
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
  auto sizing = bb::loader::ReadLoadedSizing(**conn);
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

int main(int argc, char** argv) {
  const Options o = bb::ParseCommandLine(argc, argv, "bb-loader", kUsage, ParseOptions);
  if (o.check) return Check(o);

  bb::loader::LoadOptions lo{o.sizing, o.conninfo, o.jobs, o.drop, o.flat_dir};
  fmt::print("Generating {} customers, scale factor {}, {} initial trade days, {} jobs{}\n",
             o.sizing.customers, o.sizing.scale_factor, o.sizing.initial_trade_days, o.jobs,
             o.flat_dir.empty() ? "" : fmt::format(", into files in {}", o.flat_dir));
  Result<std::vector<bb::loader::PhaseReport>> phases = [&] {
    ProgressPrinter printer;
    return bb::loader::Load(lo, [&](const bb::loader::LoadProgress& p) { printer.Show(p); });
  }();
  if (!phases.ok()) {
    fmt::print(stderr, "bb-loader: {}\n", phases.status().message());
    if (o.flat_dir.empty()) {
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
  if (o.sizing.customers < 5000 || o.sizing.initial_trade_days < 300) {
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
