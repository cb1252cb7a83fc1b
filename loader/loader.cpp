#include "loader/loader.h"

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <regex>
#include <thread>

#include <fmt/format.h>

#include "common/db/connection.h"
#include "common/workload/ids.h"
#include "loader/copy_sink.h"
#include "loader/generator.h"
#include "loader/schema.h"
#include "loader/tables.h"

namespace bb::loader {

namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Runs task(item, worker) for every item in [0, count) on `jobs` worker threads (worker in
// [0, jobs)); stops handing out work after the first failure and returns it.
Status RunParallel(int count, int jobs, const std::function<Status(int, int)>& task) {
  std::atomic<int> next{0};
  std::atomic<bool> failed{false};
  std::mutex mutex;
  Status first = Status::Ok();
  {
    std::vector<std::jthread> workers;
    for (int j = 0; j < std::min(jobs, count); ++j) {
      workers.emplace_back([&, j] {
        for (int i = next++; i < count && !failed; i = next++) {
          Status s = task(i, j);
          if (!s.ok()) {
            std::lock_guard lock(mutex);
            if (first.ok()) first = s;
            failed = true;
          }
        }
      });
    }
  }
  return first;
}

Result<std::unique_ptr<db::Connection>> Connect(const std::string& conninfo) {
  return db::Connection::Open(conninfo);
}

// Refuses a database that already holds brokerbench tables, unless told to drop them.
Status PrepareDatabase(db::Connection& conn, const LoadOptions& options) {
  std::string names = "brokerbench_load_info";
  for (Table t : AllTables()) names += "," + std::string(TableName(t));
  auto existing = conn.Query(fmt::format(
      "SELECT count(*) FROM pg_class WHERE relnamespace = current_schema()::regnamespace "
      "AND relkind = 'r' AND relname = ANY('{{{}}}')",
      names));
  if (!existing.ok()) return existing.status();
  int tables = std::stoi(existing->values[0][0].value_or("0"));
  if (tables > 0 && !options.drop) {
    return Status::InvalidArgument(fmt::format(
        "the database already holds {} brokerbench tables (of 33 and the load record); load "
        "into an empty database, or pass --drop to replace them",
        tables));
  }
  if (tables > 0 || options.drop) {
    for (Table t : AllTables()) {
      Status s = conn.Execute(fmt::format("DROP TABLE IF EXISTS {} CASCADE", TableName(t)));
      if (!s.ok()) return s;
    }
    Status s = conn.Execute(
        "DROP SEQUENCE IF EXISTS seq_trade_id; DROP TABLE IF EXISTS brokerbench_load_info");
    if (!s.ok()) return s;
  }
  Status s = conn.Execute(fmt::format(
      "CREATE TABLE brokerbench_load_info (customers BIGINT NOT NULL, scale_factor INTEGER "
      "NOT NULL, initial_trade_days INTEGER NOT NULL, started TIMESTAMPTZ NOT NULL, finished "
      "TIMESTAMPTZ, complete BOOLEAN NOT NULL); "
      "INSERT INTO brokerbench_load_info VALUES ({}, {}, {}, now(), NULL, false)",
      options.sizing.customers, options.sizing.scale_factor, options.sizing.initial_trade_days));
  if (!s.ok()) return s;
  return ApplySchemaPhase(conn, SchemaPhase::kTables);
}

// Generation order: the longest units first, so the tail of the phase stays short.
std::vector<WorkUnit> OrderedUnits(const workload::Sizing& sizing) {
  std::vector<WorkUnit> units = WorkUnits(sizing);
  std::stable_sort(units.begin(), units.end(), [](const WorkUnit& a, const WorkUnit& b) {
    auto rank = [](UnitPart p) {
      switch (p) {
        case UnitPart::kTrades:
          return 0;
        case UnitPart::kMarket:
          return 1;
        case UnitPart::kCustomers:
          return 2;
        case UnitPart::kFixed:
          return 3;
      }
      return 4;
    };
    return rank(a.part) < rank(b.part);
  });
  return units;
}

// Runs statements on `jobs` connections in parallel, reporting each one done.
Status RunStatements(const std::string& conninfo, const std::vector<std::string>& statements,
                     int jobs, const std::string& phase, const ProgressCallback& progress) {
  std::atomic<int> done{0};
  std::vector<std::unique_ptr<db::Connection>> connections(std::min<int>(jobs, statements.size()));
  for (auto& c : connections) {
    auto opened = Connect(conninfo);
    if (!opened.ok()) return opened.status();
    c = std::move(opened).value();
  }
  return RunParallel(static_cast<int>(statements.size()), jobs, [&](int i, int worker) {
    Status s = connections[worker]->Execute(statements[i]);
    if (!s.ok()) return s.WithContext(fmt::format("{} ({})", phase, statements[i]));
    LoadProgress p{phase, 0, 0, ++done, static_cast<int>(statements.size())};
    if (progress) progress(p);
    return Status::Ok();
  });
}

// Foreign keys in two steps: added NOT VALID (instant), then validated. ADD CONSTRAINT takes
// SHARE ROW EXCLUSIVE on both tables, which serialises the many keys that reference the same
// table (trade, security, status_type); VALIDATE takes only SHARE UPDATE EXCLUSIVE on its own
// table and ROW SHARE on the referenced one, so validations of different tables run in
// parallel. The validations are ordered round-robin over tables for the same reason.
struct ForeignKeySteps {
  std::vector<std::string> add;
  std::vector<std::string> validate;
};

ForeignKeySteps SplitForeignKeys(const std::vector<std::string>& statements) {
  static const std::regex kAddFk(R"(^ALTER TABLE (\w+) ADD CONSTRAINT (\w+) FOREIGN KEY)");
  ForeignKeySteps steps;
  std::map<std::string, std::vector<std::string>> by_table;
  for (const auto& statement : statements) {
    std::smatch m;
    if (!std::regex_search(statement, m, kAddFk)) {
      steps.add.push_back(statement);  // not a foreign key: run it as it is
      continue;
    }
    steps.add.push_back(statement + " NOT VALID");
    by_table[m[1]].push_back(
        fmt::format("ALTER TABLE {} VALIDATE CONSTRAINT {}", m[1].str(), m[2].str()));
  }
  for (std::size_t round = 0; !by_table.empty(); ++round) {
    for (auto it = by_table.begin(); it != by_table.end();) {
      if (round < it->second.size()) {
        steps.validate.push_back(it->second[round]);
        ++it;
      } else {
        it = by_table.erase(it);
      }
    }
  }
  return steps;
}

}  // namespace

int64_t ExpectedRows(const workload::Sizing& sizing) {
  const int64_t lus = sizing.customers / 1000;
  const int64_t trades = sizing.TradesPerLoadUnit() * lus;
  const int64_t per_lu_scaling = 1000 + 5000 + 7100 + 2000 + 1000 + 1000 + 100000  // customers
                                 + 500 + 500 + 1500 + 10000 + 1000 + 1000 + 685 + 685 + 685 * 1305 +
                                 10 + 49780;
  // TRADE, SETTLEMENT, TRADE_HISTORY (2.4), CASH_TRANSACTION (0.92), HOLDING_HISTORY (1.34),
  // HOLDING (0.051): reference §2.2.
  return lus * per_lu_scaling + trades * 100 * (1 + 1 + 2.4 + 0.92 + 1.34 + 0.051) / 100 + 15000;
}

Result<std::vector<PhaseReport>> Load(const LoadOptions& options,
                                      const ProgressCallback& progress) {
  Status valid = options.sizing.Validate();
  if (!valid.ok()) return valid;
  std::vector<PhaseReport> reports;
  const bool flat = !options.flat_dir.empty();
  std::unique_ptr<db::Connection> admin;
  if (!flat) {
    auto conn = Connect(options.conninfo);
    if (!conn.ok()) return conn.status();
    admin = std::move(conn).value();
    Status s = PrepareDatabase(*admin, options);
    if (!s.ok()) return s.WithContext("preparing the database");
  } else {
    std::error_code ec;
    std::filesystem::create_directories(options.flat_dir, ec);
    if (ec) {
      return Status::IoError(fmt::format("--flat-dir: cannot create '{}': {}",
                                         options.flat_dir.string(), ec.message()));
    }
  }

  // Data: generate every unit and stream it into COPY (or files).
  {
    auto start = Clock::now();
    const std::vector<WorkUnit> units = OrderedUnits(options.sizing);
    const std::vector<WorkUnit> file_order = WorkUnits(options.sizing);
    std::atomic<int64_t> rows{0};
    std::atomic<int64_t> bytes{0};
    std::atomic<int> units_done{0};
    std::atomic<bool> generating{true};
    const int64_t expected = ExpectedRows(options.sizing);
    std::jthread reporter([&] {
      while (generating) {
        if (progress) {
          progress(LoadProgress{flat ? "generate+write files" : "generate+COPY", rows.load(),
                                expected, units_done.load(), static_cast<int>(units.size())});
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
      }
    });
    Status s = RunParallel(static_cast<int>(units.size()), options.jobs, [&](int i, int) {
      const WorkUnit& unit = units[i];
      Status st;
      if (flat) {
        // Part files are named by the unit's place in WorkUnits order, so joining them gives
        // the same files however the work was scheduled.
        int index = static_cast<int>(std::find_if(file_order.begin(), file_order.end(),
                                                  [&](const WorkUnit& u) {
                                                    return u.part == unit.part &&
                                                           u.load_unit == unit.load_unit;
                                                  }) -
                                     file_order.begin());
        FlatFileSink sink(options.flat_dir, index);
        st = Generate(options.sizing, unit, sink, &rows);
        if (st.ok()) st = sink.Finish();
      } else {
        DatabaseSink sink(options.conninfo);
        st = Generate(options.sizing, unit, sink, &rows);
        Status finished = sink.Finish();
        if (st.ok()) st = finished;
        bytes += sink.bytes();
      }
      ++units_done;
      return st.WithContext(WorkUnitName(unit));
    });
    generating = false;
    reporter.join();
    if (!s.ok()) return s;
    if (flat) {
      s = JoinFlatFiles(options.flat_dir);
      if (!s.ok()) return s;
      for (Table t : AllTables()) {
        std::error_code ec;
        auto size =
            std::filesystem::file_size(options.flat_dir / (std::string(TableName(t)) + ".tsv"), ec);
        if (!ec) bytes += static_cast<int64_t>(size);
      }
    }
    reports.push_back(PhaseReport{flat ? "generate+write files" : "generate+COPY",
                                  SecondsSince(start), rows.load(), bytes.load(),
                                  static_cast<int>(units.size())});
  }
  if (flat) return reports;

  // Keys and indexes, then statistics, then foreign keys: each phase's statements are
  // independent and run in parallel; foreign keys need the primary keys they reference, and
  // their validation needs the statistics. Validated before ANALYZE, a foreign key of
  // HOLDING_HISTORY to TRADE was checked by a nested loop of 1.5 M index probes (17.8 s at 20
  // trade days; planned from statistics: one hash anti-join).
  auto run_phase = [&](SchemaPhase phase) -> Status {
    auto start = Clock::now();
    auto statements = SchemaStatements(phase);
    const std::string name(SchemaPhaseName(phase));
    Status s;
    if (phase == SchemaPhase::kForeignKeys) {
      ForeignKeySteps steps = SplitForeignKeys(statements);
      s = RunStatements(options.conninfo, steps.add, 1, name, progress);
      if (s.ok()) s = RunStatements(options.conninfo, steps.validate, options.jobs, name, progress);
    } else {
      s = RunStatements(options.conninfo, statements, options.jobs, name, progress);
    }
    if (!s.ok()) return s;
    reports.push_back(
        PhaseReport{name, SecondsSince(start), 0, 0, static_cast<int>(statements.size())});
    return Status::Ok();
  };
  for (SchemaPhase phase : {SchemaPhase::kPrimaryKeys, SchemaPhase::kIndexes}) {
    if (Status s = run_phase(phase); !s.ok()) return s;
  }
  {
    auto start = Clock::now();
    std::vector<std::string> statements;
    for (Table t : AllTables()) statements.push_back(fmt::format("ANALYZE {}", TableName(t)));
    Status s = RunStatements(options.conninfo, statements, options.jobs, "analyze", progress);
    if (!s.ok()) return s;
    reports.push_back(
        PhaseReport{"analyze", SecondsSince(start), 0, 0, static_cast<int>(statements.size())});
  }
  if (Status s = run_phase(SchemaPhase::kForeignKeys); !s.ok()) return s;

  // Run-time trade ids start after every id the initial trades could use (reference §3.3).
  if (Status s = admin->Execute(fmt::format("SELECT setval('seq_trade_id', {}, false)",
                                            workload::TradeCleanupStartId(options.sizing)));
      !s.ok()) {
    return s.WithContext("trade-id sequence");
  }
  Status s = admin->Execute("UPDATE brokerbench_load_info SET finished = now(), complete = true");
  if (!s.ok()) return s;
  return reports;
}

}  // namespace bb::loader
