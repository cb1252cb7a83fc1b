// The plan guard: every statement the frames run, planned by PostgreSQL on a loaded database,
// reads the tables that grow with the database (every table but the nine fixed ones,
// loader::IsFixedSize) through an index condition: never by a sequential scan, nor by an index
// scan with no condition (both read the whole table, and a hash join over a whole table starts
// with one of them). Such a plan costs nothing at 1000 customers and more with every customer
// and trade day; under SERIALIZABLE a sequential scan also locks the whole table against every
// concurrent writer (Trade-Result's retry storm on the one-page BROKER table).
//
// How: each transaction type runs with generated inputs (bh::TxnDriver), in each frames mode, on
// a session with auto_explain loaded, which sends the plan of every statement, nested ones in
// the server-side functions included, back as a notice. Each type runs often enough that the
// plan cache has moved from custom to generic plans (after 5 executions), so both are checked.
//
// With BB_TEST_LOADED_DB set (tests/support/frames_database.h) it runs on that database at its
// own size, the plans of 300 trade days among them, and leaves behind what a short run would: a
// few hundred trades, Data-Maintenance's changes, and no pending trade request (Trade-Cleanup
// runs last).
#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "brokerage_house/frame_runner.h"
#include "brokerage_house/txn_driver.h"
#include "loader/tables.h"
#include "tests/support/frames_database.h"

namespace bb {
namespace {

using workload::TransactionType;

// The database's size when the test loads its own.
constexpr workload::Sizing kSizing{
    .customers = 1000, .scale_factor = 500, .initial_trade_days = 10};

// Runs of each type per mode: past the plan cache's five custom plans, and Data-Maintenance
// once round its table rotation.
constexpr int kRunsPerType = 14;

// The reads of a whole growing table that are the transaction's point, with the reason. The
// fixed tables (loader::IsFixedSize) are the other exception.
struct WholeTableRead {
  TransactionType type;
  std::string_view table;
  std::string_view why;
};
constexpr WholeTableRead kWholeTableReads[] = {
    {TransactionType::kTradeCleanup, "trade_request",
     "Trade-Cleanup cancels every pending request (clause 3.3.12), once before a run"},
    {TransactionType::kBrokerVolume, "trade_request",
     "Broker-Volume sums the pending requests of 20 to 40 brokers (of 10 per 1000 customers): "
     "most of the table, whose size follows the throughput (about 60 x tpsE rows, clause "
     "2.6.2.1), not the database"},
    {TransactionType::kBrokerVolume, "broker",
     "Broker-Volume names 20 to 40 brokers (clause 3.3.1); at 1000 customers there are 10, so "
     "the list holds every broker and reading BROKER whole is the right plan; at sizes with "
     "more brokers than names, i_b_name finds them"},
};

bool Allowed(TransactionType type, std::string_view table) {
  for (int t = 0; t < loader::kTableCount; ++t) {
    const auto fixed = static_cast<loader::Table>(t);
    if (loader::TableName(fixed) == table && loader::IsFixedSize(fixed)) return true;
  }
  return std::any_of(std::begin(kWholeTableReads), std::end(kWholeTableReads),
                     [&](const WholeTableRead& r) { return r.type == type && r.table == table; });
}

// A scan that reads a whole table, found in one auto_explain plan (text format): the table and
// the plan line that shows it.
struct WholeScan {
  std::string table;
  std::string node;
};

// The table a scan node names: "Seq Scan on trade t  (cost=...)" -> trade.
std::string ScannedTable(std::string_view line) {
  const auto on = line.find(" on ");
  if (on == std::string_view::npos) return "";
  std::string_view rest = line.substr(on + 4);
  return std::string(rest.substr(0, rest.find_first_of(" (")));
}

// Every sequential scan, and every index scan without an Index Cond, of a plan. In the text
// format a node's properties follow its header line and come before its children ("->").
std::vector<WholeScan> WholeScans(std::string_view plan) {
  std::vector<std::string> lines;
  std::istringstream in{std::string(plan)};
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::vector<WholeScan> found;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.find("Seq Scan on ") != std::string::npos) {
      found.push_back({ScannedTable(line), line});
      continue;
    }
    const bool index_scan = line.find("Index Scan") != std::string::npos ||
                            line.find("Index Only Scan") != std::string::npos;
    if (!index_scan || line.find(" using ") == std::string::npos) continue;
    bool has_condition = false;
    for (std::size_t j = i + 1; j < lines.size() && lines[j].find("->") == std::string::npos; ++j) {
      if (lines[j].find("Index Cond:") != std::string::npos) has_condition = true;
    }
    if (!has_condition) found.push_back({ScannedTable(line), line});
  }
  return found;
}

// The statement an auto_explain message is about: the first line of its "Query Text:" that
// is not blank, shortened.
std::string QueryOf(std::string_view plan) {
  auto at = plan.find("Query Text: ");
  if (at == std::string_view::npos) return "(no query text)";
  std::string_view rest = plan.substr(at + 12);
  rest.remove_prefix(std::min(rest.find_first_not_of(" \t\n"), rest.size()));
  std::string query(rest.substr(0, rest.find('\n')));
  return query.size() > 160 ? query.substr(0, 160) + "..." : query;
}

class PlanGuard : public ::testing::TestWithParam<bh::FrameMode> {
 protected:
  static void SetUpTestSuite() {
    auto opened = testing::OpenFramesDatabase("plan_guard", kSizing);
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    conninfo_ = opened->conninfo;
    sizing_ = opened->sizing;
  }
  static inline std::string conninfo_;
  static inline workload::Sizing sizing_;
};

TEST_P(PlanGuard, NoFrameReadsAWholeGrowingTable) {
  ASSERT_FALSE(conninfo_.empty()) << "the database was not set up";
  const bh::FrameMode mode = GetParam();
  auto session = bh::FrameRunner::OpenSession(
      conninfo_ +
          " options='-c session_preload_libraries=auto_explain"
          " -c auto_explain.log_min_duration=0 -c auto_explain.log_nested_statements=on"
          " -c auto_explain.log_level=notice'",
      mode);
  ASSERT_TRUE(session.ok()) << session.status().message();
  std::vector<std::string> plans;
  (*session)->SetNoticeSink([&plans](std::string_view message) {
    if (message.find("plan:") != std::string_view::npos) plans.emplace_back(message);
  });

  bh::FrameOptions options;
  options.mode = mode;
  std::size_t plans_seen = 0;
  // Each whole-table read once per type and table, with the statements that did it.
  std::map<std::pair<std::string, std::string>, std::set<std::string>> offences;
  // In code order, so Trade-Cleanup comes last and finds the requests the others left.
  for (int t = 0; t < workload::kTransactionTypeCount; ++t) {
    const auto type = static_cast<TransactionType>(t);
    bh::TxnDriver driver(**session, sizing_, 200 + static_cast<uint64_t>(type), options);
    std::vector<bh::TxnSample> samples;
    plans.clear();
    const int runs = type == TransactionType::kTradeCleanup ? 1 : kRunsPerType;
    for (int n = 0; n < runs; ++n) driver.Run(type, samples);
    EXPECT_FALSE(plans.empty()) << workload::TransactionName(type) << ": auto_explain sent no plan";
    plans_seen += plans.size();
    for (const std::string& plan : plans) {
      for (const WholeScan& scan : WholeScans(plan)) {
        if (Allowed(type, scan.table)) continue;
        offences[{std::string(workload::TransactionName(type)), scan.table}].insert(
            fmt::format("{}\n      in: {}", scan.node, QueryOf(plan)));
      }
    }
  }
  std::string report;
  for (const auto& [where, nodes] : offences) {
    report += fmt::format("  {} reads all of {}:\n", where.first, where.second);
    for (const std::string& node : nodes) report += fmt::format("    {}\n", node);
  }
  EXPECT_TRUE(offences.empty()) << offences.size()
                                << " whole-table reads of growing tables (fixed tables and "
                                   "kWholeTableReads excepted):\n"
                                << report;
  // Not vacuous: every type planned statements that touch tables (the server-side calls each
  // add a Function Scan plan of their own).
  EXPECT_GT(plans_seen, 100u);
}

// Both frame modes: the server-side functions carry their planner settings in their
// definitions, and the client-side frames' sessions set the same (FrameRunner::OpenSession).
INSTANTIATE_TEST_SUITE_P(Modes, PlanGuard,
                         ::testing::Values(bh::FrameMode::kServer, bh::FrameMode::kClient),
                         [](const ::testing::TestParamInfo<bh::FrameMode>& info) {
                           return std::string(bh::FrameModeName(info.param));
                         });

}  // namespace
}  // namespace bb
