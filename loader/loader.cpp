#include "loader/loader.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "common/db/connection.h"
#include "common/db/conninfo.h"
#include "common/workload/ids.h"
#include "loader/copy_sink.h"
#include "loader/generator.h"
#include "loader/load_record.h"
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

// `count` connections, one per worker of a parallel phase.
Result<std::vector<std::unique_ptr<db::Connection>>> ConnectAll(const std::string& conninfo,
                                                               int count) {
  std::vector<std::unique_ptr<db::Connection>> connections(count);
  for (auto& c : connections) {
    auto opened = Connect(conninfo);
    if (!opened.ok()) return opened.status();
    c = std::move(opened).value();
  }
  return connections;
}

// The role must be able to create the tables where they go: the first schema of its
// search_path that exists. Since PostgreSQL 15 only the database's owner (pg_database_owner)
// may create in schema public; up to 14 everybody may. Checked before anything is changed, so
// that a role without the right is told what to ask for instead of a raw "permission denied".
Status CheckMayCreateTables(db::Connection& conn) {
  auto rows = conn.Query(
      "SELECT quote_ident(current_user), current_database(), quote_ident(current_schema()), "
      "current_schema() IS NOT NULL AND has_schema_privilege(current_schema(), 'CREATE') AND "
      "has_schema_privilege(current_schema(), 'USAGE'), current_setting('search_path')");
  if (!rows.ok()) return rows.status().WithContext("checking the role's privileges");
  const auto& r = rows->values[0];
  const std::string role = r[0].value_or(""), database = r[1].value_or("");
  if (!r[2]) {
    return Status::InvalidArgument(fmt::format(
        "no schema of role {}'s search_path ({}) exists in database {}, so there is nowhere to "
        "create the tables: create one (CREATE SCHEMA ... AUTHORIZATION {}) or set a search_path "
        "that names one (options='-c search_path=...' in the connection string)",
        role, r[4].value_or(""), database, role));
  }
  if (r[3] != "t") {
    return Status::InvalidArgument(fmt::format(
        "role {0} may not create tables in schema {1} of database {2} (it lacks CREATE or USAGE "
        "on the schema; since PostgreSQL 15 schema public grants them only to the database's "
        "owner): load into a database the role owns, or have the schema's owner or a superuser "
        "run: GRANT USAGE, CREATE ON SCHEMA {1} TO {0}",
        role, *r[2], database));
  }
  return Status::Ok();
}

// Refuses a database that already holds brokerbench tables, unless told to drop them.
Status PrepareDatabase(db::Connection& conn, const LoadOptions& options) {
  if (Status s = CheckMayCreateTables(conn); !s.ok()) return s;
  std::string names = fmt::format("{},{}", kLoadInfoTable, kLoadUnitsTable);
  for (Table t : AllTables()) names += "," + std::string(TableName(t));
  // The tables there, and those of them the role may not drop (not their owner's member).
  auto existing = conn.Query(fmt::format(
      "SELECT count(*), string_agg(relname || ' (owner ' || pg_get_userbyid(relowner) || ')', "
      "', ' ORDER BY relname) FILTER (WHERE NOT pg_has_role(relowner, 'MEMBER')) FROM pg_class "
      "WHERE relnamespace = current_schema()::regnamespace AND relkind = 'r' AND relname = "
      "ANY('{{{}}}')",
      names));
  if (!existing.ok()) return existing.status();
  int tables = std::stoi(existing->values[0][0].value_or("0"));
  if (tables > 0 && !options.drop) {
    return Status::InvalidArgument(fmt::format(
        "the database already holds {} brokerbench tables (of 33 and the load record's 2); "
        "load into an empty database, or pass --drop to replace them",
        tables));
  }
  if (const auto& foreign = existing->values[0][1]; foreign) {
    return Status::InvalidArgument(fmt::format(
        "--drop: cannot drop {}: only a table's owner (or a superuser) may; drop them as their "
        "owner, or load into another database",
        *foreign));
  }
  if (tables > 0 || options.drop) {
    // One statement, so one transaction: a drop that is interrupted leaves the old load whole,
    // never a load record that says complete beside tables that are gone.
    std::string drop = DropLoadRecordSql() + "; DROP TABLE IF EXISTS ";
    for (Table t : AllTables()) drop += std::string(TableName(t)) + ", ";
    drop.resize(drop.size() - 2);
    Status s = conn.Execute(drop + " CASCADE; DROP SEQUENCE IF EXISTS seq_trade_id");
    if (!s.ok()) return s.WithContext("--drop");
  }
  Status s = CreateLoadRecord(conn, options.sizing);
  if (!s.ok()) return s;
  return ApplySchemaPhase(conn, SchemaPhase::kTables);
}

// Generation order: the longest units first, so the tail of the phase stays short.
std::vector<WorkUnit> OrderedUnits(std::vector<WorkUnit> units) {
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

// One statement of the key phases and the table it works on.
struct Step {
  std::string table;
  std::string sql;
};

// Bytes of each table of the schema, as loaded.
using TableSizes = std::map<std::string, int64_t>;

Result<TableSizes> SizesOfTables(db::Connection& conn) {
  auto rows = conn.Query(
      "SELECT relname, pg_relation_size(oid) FROM pg_class WHERE relkind = 'r' AND "
      "relnamespace = current_schema()::regnamespace");
  if (!rows.ok()) return rows.status();
  TableSizes sizes;
  for (const auto& row : rows->values) sizes[row[0].value_or("")] = std::stoll(row[1].value_or("0"));
  return sizes;
}

// Runs the steps on `jobs` connections, the largest table's first: the longest steps start
// first, so that the phase does not end with one long step running alone. With
// one_per_table, never two steps of one table at once (they would wait for each other's
// lock, a connection idle meanwhile); a connection takes the largest step whose table is free.
Status RunSteps(const std::string& conninfo, std::vector<Step> steps, const TableSizes& sizes,
                int jobs, bool one_per_table, const std::string& phase,
                const ProgressCallback& progress) {
  auto size_of = [&](const Step& step) {
    auto it = sizes.find(step.table);
    return it == sizes.end() ? 0 : it->second;
  };
  std::stable_sort(steps.begin(), steps.end(),
                   [&](const Step& a, const Step& b) { return size_of(a) > size_of(b); });
  const int workers = std::min<int>(jobs, static_cast<int>(steps.size()));
  auto connections = ConnectAll(conninfo, workers);
  if (!connections.ok()) return connections.status();
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<bool> taken(steps.size(), false);
  std::set<std::string> busy;
  int done = 0;
  Status first = Status::Ok();
  {
    std::vector<std::jthread> threads;
    for (int w = 0; w < workers; ++w) {
      threads.emplace_back([&, w] {
        std::unique_lock lock(mutex);
        for (;;) {
          std::size_t pick = steps.size();
          changed.wait(lock, [&] {
            if (!first.ok()) return true;
            bool all_taken = true;
            for (std::size_t i = 0; i < steps.size(); ++i) {
              if (taken[i]) continue;
              all_taken = false;
              if (!one_per_table || !busy.contains(steps[i].table)) {
                pick = i;
                return true;
              }
            }
            return all_taken;
          });
          if (!first.ok() || pick == steps.size()) return;
          taken[pick] = true;
          busy.insert(steps[pick].table);
          lock.unlock();
          Status s = (*connections)[w]->Execute(steps[pick].sql);
          lock.lock();
          busy.erase(steps[pick].table);
          ++done;
          if (!s.ok() && first.ok()) {
            first = s.WithContext(fmt::format("{} ({})", phase, steps[pick].sql));
          }
          if (progress) progress(LoadProgress{phase, 0, 0, done, static_cast<int>(steps.size())});
          changed.notify_all();
        }
      });
    }
  }
  return first;
}

// Primary keys in two steps: the unique index under the key's name (CREATE INDEX, which lets
// other index builds of the table run beside it, where ADD PRIMARY KEY locks the table), then
// the constraint over it (ADD ... USING INDEX: instant, the key columns being NOT NULL
// already). So every index build of every table is one pool of independent steps.
struct KeySteps {
  std::vector<Step> builds;  // the keys' unique indexes and the secondary indexes
  std::vector<Step> attach;  // the primary key constraints
};

KeySteps SplitKeys(const std::vector<std::string>& primary_keys,
                   const std::vector<std::string>& indexes) {
  static const std::regex kPrimaryKey(R"(^ALTER TABLE (\w+) ADD PRIMARY KEY (\(.*\))$)");
  static const std::regex kIndex(R"(^CREATE (?:UNIQUE )?INDEX \w+ ON (\w+))");
  KeySteps steps;
  for (const auto& statement : primary_keys) {
    std::smatch m;
    if (!std::regex_search(statement, m, kPrimaryKey)) {
      steps.attach.push_back({"", statement});  // not a plain primary key: run it as it is
      continue;
    }
    const std::string table = m[1];
    steps.builds.push_back(
        {table, fmt::format("CREATE UNIQUE INDEX {0}_pkey ON {0} {1}", table, m[2].str())});
    steps.attach.push_back(
        {table, fmt::format("ALTER TABLE {0} ADD CONSTRAINT {0}_pkey PRIMARY KEY USING INDEX "
                            "{0}_pkey",
                            table)});
  }
  for (const auto& statement : indexes) {
    std::smatch m;
    steps.builds.push_back(
        {std::regex_search(statement, m, kIndex) ? m[1].str() : std::string(), statement});
  }
  return steps;
}

// Foreign keys in two steps: added NOT VALID (instant), then validated. ADD CONSTRAINT takes
// SHARE ROW EXCLUSIVE on both tables, which serialises the many keys that reference the same
// table (trade, security, status_type): they run one after the other. VALIDATE takes only
// SHARE UPDATE EXCLUSIVE on its own table and ROW SHARE on the referenced one, so validations
// of different tables run in parallel (RunSteps, one per table).
struct ForeignKeySteps {
  std::vector<Step> add;
  std::vector<Step> validate;
};

ForeignKeySteps SplitForeignKeys(const std::vector<std::string>& statements) {
  static const std::regex kAddFk(R"(^ALTER TABLE (\w+) ADD CONSTRAINT (\w+) FOREIGN KEY)");
  ForeignKeySteps steps;
  for (const auto& statement : statements) {
    std::smatch m;
    if (!std::regex_search(statement, m, kAddFk)) {
      steps.add.push_back({"", statement});  // not a foreign key: run it as it is
      continue;
    }
    steps.add.push_back({m[1], statement + " NOT VALID"});
    steps.validate.push_back(
        {m[1], fmt::format("ALTER TABLE {} VALIDATE CONSTRAINT {}", m[1].str(), m[2].str())});
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
  // HOLDING (0.051 per trade, EGen's ratio at ITD 300).
  return lus * per_lu_scaling + trades * 100 * (1 + 1 + 2.4 + 0.92 + 1.34 + 0.051) / 100 + 15000;
}

namespace {

// Data: generates `selected` and streams it into COPY (or files). In a database, the units are
// claimed in the load record first and each is recorded with its rows once its COPY is done.
Status LoadData(const LoadOptions& options, db::Connection* admin,
                const std::vector<WorkUnit>& selected, const ProgressCallback& progress,
                std::vector<PhaseReport>& reports) {
  const bool flat = !options.flat_dir.empty();
  if (!flat) {
    Status s = ClaimUnits(*admin, selected);
    if (!s.ok()) return s.WithContext("claiming the load units");
  }
  std::mutex record_mutex;  // the admin connection, shared by the workers
  auto start = Clock::now();
  const std::vector<WorkUnit> units = OrderedUnits(selected);
  const std::vector<WorkUnit> file_order = WorkUnits(options.sizing);
  std::atomic<int64_t> rows{0};
  std::atomic<int64_t> bytes{0};
  std::atomic<int> units_done{0};
  std::atomic<bool> generating{true};
  const LoadUnitRange range = options.load_units.value_or(AllLoadUnits(options.sizing));
  const int64_t expected =
      ExpectedRows(options.sizing) * range.count() / options.sizing.LoadUnits();
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
      RowCountingSink counted(sink);
      st = Generate(options.sizing, unit, counted, &rows);
      Status finished = sink.Finish();
      if (st.ok()) st = finished;
      bytes += sink.bytes();
      if (st.ok()) {
        std::lock_guard lock(record_mutex);
        st = RecordUnitLoaded(*admin, unit, counted.rows());
      }
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
  return Status::Ok();
}

// A finish phase after data phases in other processes: every unit is in, and every table
// holds exactly the rows the data phases recorded (a unit loaded twice, or rows added by hand,
// would show here before a key fails on them). The counts run in parallel.
Status CheckLoadedRows(db::Connection& admin, const LoadOptions& options,
                       const ProgressCallback& progress, std::vector<PhaseReport>& reports) {
  auto start = Clock::now();
  Status s = CheckAllUnitsLoaded(admin, options.sizing);
  if (!s.ok()) return s;
  auto recorded = RecordedRows(admin);
  if (!recorded.ok()) return recorded.status();
  const auto tables = AllTables();
  const int count = static_cast<int>(tables.size());
  auto connections = ConnectAll(options.conninfo, std::min(options.jobs, count));
  if (!connections.ok()) return connections.status();
  std::atomic<int> done{0};
  TableRows counted{};
  s = RunParallel(count, options.jobs, [&](int i, int worker) {
    const std::string name(TableName(tables[i]));
    auto rows = (*connections)[worker]->Query(fmt::format("SELECT count(*) FROM {}", name));
    if (!rows.ok()) return rows.status().WithContext("counting the rows of " + name);
    counted[i] = std::stoll(rows->values[0][0].value_or("0"));
    if (progress) progress(LoadProgress{"row counts", 0, 0, ++done, count});
    return Status::Ok();
  });
  if (!s.ok()) return s;
  for (int i = 0; i < count; ++i) {
    const int64_t want = (*recorded)[static_cast<size_t>(tables[i])];
    if (counted[i] != want) {
      return Status::InvalidArgument(fmt::format(
          "table {} holds {} rows, but the data phases recorded {}: rows were loaded twice or "
          "changed by hand; start over with --phase prepare --drop",
          TableName(tables[i]), counted[i], want));
    }
  }
  reports.push_back(PhaseReport{"row counts", SecondsSince(start), 0, 0, count});
  return Status::Ok();
}

// Keys and indexes, then statistics, then foreign keys.
Status BuildKeysIndexesAndForeignKeys(db::Connection& admin, const LoadOptions& options,
                                      const ProgressCallback& progress,
                                      std::vector<PhaseReport>& reports) {
  // Keys and indexes, then statistics, then foreign keys, each phase a pool of steps on
  // `jobs` connections. Foreign keys need the primary keys they reference, and their
  // validation needs the statistics: validated before ANALYZE, a foreign key of
  // HOLDING_HISTORY to TRADE was checked by a nested loop of 1.5 M index probes (17.8 s at 20
  // trade days; planned from statistics: one hash anti-join).
  auto sizes = SizesOfTables(admin);
  if (!sizes.ok()) return sizes.status().WithContext("measuring the tables");
  auto run_phase = [&](const std::string& name, std::vector<Step> first, int first_jobs,
                       std::vector<Step> then, bool then_one_per_table) -> Status {
    auto start = Clock::now();
    const int steps = static_cast<int>(first.size() + then.size());
    Status s = RunSteps(options.conninfo, std::move(first), *sizes, first_jobs, false, name,
                        progress);
    if (s.ok() && !then.empty()) {
      s = RunSteps(options.conninfo, std::move(then), *sizes, options.jobs, then_one_per_table,
                   name, progress);
    }
    if (s.ok()) reports.push_back(PhaseReport{name, SecondsSince(start), 0, 0, steps});
    return s;
  };
  KeySteps keys = SplitKeys(SchemaStatements(SchemaPhase::kPrimaryKeys),
                            SchemaStatements(SchemaPhase::kIndexes));
  // The tables that trades do not grow are vacuumed first: their pages become all-visible, so
  // a frame that needs only a key's columns reads the index alone (Market-Watch's
  // DAILY_MARKET, SECURITY and WATCH_ITEM, loader/sql/2-primary-keys.sql), from the first run
  // on. Autovacuum would never do it for the small ones (below its insert threshold) and would
  // do it for the large ones in the middle of a run. The tables trades grow are left to it: a
  // run's inserts soon leave their newest pages not all-visible anyway, and they are most of
  // the rows (BENCHMARKS.md, "Market-Watch reads indexes only"). The vacuums run before any
  // ANALYZE: an ANALYZE holds a snapshot, whose horizon would keep a vacuum beside it from
  // marking pages all-visible whenever another database of the cluster has an old transaction.
  std::vector<Step> vacuum, analyze;
  for (Table t : AllTables()) {
    const std::string name(TableName(t));
    if (!GrowsWithTrades(t)) vacuum.push_back({name, "VACUUM " + name});
    analyze.push_back({name, "ANALYZE " + name});
  }
  ForeignKeySteps foreign = SplitForeignKeys(SchemaStatements(SchemaPhase::kForeignKeys));
  if (Status s = run_phase("keys and indexes", std::move(keys.builds), options.jobs,
                           std::move(keys.attach), false);
      !s.ok()) {
    return s;
  }
  if (Status s = run_phase("analyze", std::move(vacuum), options.jobs, std::move(analyze), false);
      !s.ok()) {
    return s;
  }
  if (Status s = run_phase("foreign keys", std::move(foreign.add), 1, std::move(foreign.validate),
                           true);
      !s.ok()) {
    return s;
  }
  return Status::Ok();
}

// The end of a load: the trade-id sequence, and the load marked complete.
Status FinishLoad(db::Connection& admin, const LoadOptions& options) {
  // Run-time trade ids start after every id the initial trades could use.
  Status s = admin.Execute(fmt::format("SELECT setval('seq_trade_id', {}, false)",
                                       workload::TradeCleanupStartId(options.sizing)));
  if (!s.ok()) return s.WithContext("trade-id sequence");
  return MarkLoadComplete(admin);
}

}  // namespace

Result<std::vector<PhaseReport>> Load(const LoadOptions& options,
                                      const ProgressCallback& progress) {
  Status valid = options.sizing.Validate();
  if (!valid.ok()) return valid;
  const LoadPhase phase = options.phase;
  const bool flat = !options.flat_dir.empty();
  if (flat && phase != LoadPhase::kAll) {
    return Status::InvalidArgument(
        fmt::format("--phase: '{}' is for a database; --flat-dir writes every file in one piece",
                    LoadPhaseName(phase)));
  }
  if (options.load_units && phase != LoadPhase::kData) {
    return Status::InvalidArgument(fmt::format(
        "--load-units: '{}' goes with --phase data only (the other phases work on every load "
        "unit)",
        ToString(*options.load_units)));
  }
  const LoadUnitRange range = options.load_units.value_or(AllLoadUnits(options.sizing));
  if (Status s = CheckLoadUnitRange("--load-units", range, options.sizing); !s.ok()) return s;
  std::vector<PhaseReport> reports;
  std::unique_ptr<db::Connection> admin;
  if (!flat) {
    auto conn = Connect(options.conninfo);
    if (!conn.ok()) return conn.status();
    admin = std::move(conn).value();
    if (phase == LoadPhase::kAll || phase == LoadPhase::kPrepare) {
      auto start = Clock::now();
      Status s = PrepareDatabase(*admin, options);
      if (!s.ok()) {
        return s.WithContext(
            fmt::format("preparing the database ({})", db::RedactConninfo(options.conninfo)));
      }
      if (phase == LoadPhase::kPrepare) {
        reports.push_back(PhaseReport{"prepare", SecondsSince(start), 0, 0, 0});
      }
    } else {
      Status s = CheckPrepared(*admin, options.sizing, LoadPhaseName(phase));
      if (!s.ok()) return s;
    }
  } else {
    std::error_code ec;
    std::filesystem::create_directories(options.flat_dir, ec);
    if (ec) {
      return Status::IoError(fmt::format("--flat-dir: cannot create '{}': {}",
                                         options.flat_dir.string(), ec.message()));
    }
  }
  if (phase == LoadPhase::kPrepare) return reports;

  if (phase == LoadPhase::kAll || phase == LoadPhase::kData) {
    Status s =
        LoadData(options, admin.get(), WorkUnitsOf(options.sizing, range), progress, reports);
    if (!s.ok()) return s;
  }
  if (flat || phase == LoadPhase::kData) return reports;

  if (phase == LoadPhase::kFinish) {
    Status s = CheckLoadedRows(*admin, options, progress, reports);
    if (!s.ok()) return s.WithContext("checking the data phases");
  }
  Status s = BuildKeysIndexesAndForeignKeys(*admin, options, progress, reports);
  if (!s.ok()) return s;
  s = FinishLoad(*admin, options);
  if (!s.ok()) return s;
  return reports;
}

}  // namespace bb::loader
