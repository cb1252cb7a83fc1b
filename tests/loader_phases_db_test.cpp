// A load split into its phases (loader/load_plan.h) against a real server: each phase refuses a
// database that is not in the state it needs, with a message naming what is wrong, and changes
// nothing then; two loaders cannot load one unit; the finish phase finds a missing load unit
// and a table whose rows differ from what the data phases recorded. (That a split load gives
// the same bytes as a whole one is tests/controller/multihost_load_test.sh's check, across
// hosts.) Also bb-loader's phase options: bad values and combinations exit 2 naming them.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/db/connection.h"
#include "common/db/loaded_sizing.h"
#include "loader/check.h"
#include "loader/loader.h"
#include "tests/support/test_cluster.h"

namespace bb {
namespace {

using loader::LoadPhase;
using loader::LoadUnitRange;
using ::testing::HasSubstr;

// Two load units, one trade day: the smallest split there is.
constexpr workload::Sizing kSizing{.customers = 2000, .scale_factor = 500, .initial_trade_days = 1};

loader::LoadOptions Phase(const std::string& conninfo, LoadPhase phase,
                          std::optional<LoadUnitRange> units = std::nullopt,
                          workload::Sizing sizing = kSizing) {
  return loader::LoadOptions{sizing, conninfo, 2, false, {}, phase, units};
}

std::string ErrorOf(const Result<std::vector<loader::PhaseReport>>& r) {
  return r.ok() ? "(ok)" : r.status().message();
}

int64_t Number(db::Connection& conn, const std::string& sql) {
  auto rows = conn.Query(sql);
  EXPECT_TRUE(rows.ok()) << rows.status().message() << " in " << sql;
  if (!rows.ok() || rows->values.empty()) return -1;
  return std::stoll(rows->values[0][0].value_or("-1"));
}

TEST(LoadPhases, EachPhaseRefusesADatabaseNotReadyForItAndASplitLoadCompletes) {
  auto conninfo = testing::CreateDatabase("phases");
  ASSERT_TRUE(conninfo.ok()) << conninfo.status().message();
  auto opened = db::Connection::Open(*conninfo);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  db::Connection& conn = **opened;

  // Nothing prepared: data and finish are refused.
  EXPECT_THAT(
      ErrorOf(loader::Load(Phase(*conninfo, LoadPhase::kData, LoadUnitRange{0, 0}), nullptr)),
      HasSubstr("no brokerbench load record (brokerbench_load_info): run bb-loader "
                "--phase prepare first"));
  EXPECT_THAT(ErrorOf(loader::Load(Phase(*conninfo, LoadPhase::kFinish), nullptr)),
              HasSubstr("--phase prepare first"));

  auto prepared = loader::Load(Phase(*conninfo, LoadPhase::kPrepare), nullptr);
  ASSERT_TRUE(prepared.ok()) << prepared.status().message();
  EXPECT_EQ(Number(conn, "SELECT count(*) FROM brokerbench_load_units"), 0);

  // Another sizing than the prepare phase's: refused, naming the field and both values.
  workload::Sizing other = kSizing;
  other.initial_trade_days = 2;
  EXPECT_THAT(
      ErrorOf(
          loader::Load(Phase(*conninfo, LoadPhase::kData, LoadUnitRange{1, 1}, other), nullptr)),
      HasSubstr("prepared for initial_trade_days = 1 (brokerbench_load_info), but this data "
                "phase was given --initial-trade-days 2"));
  other = kSizing;
  other.customers = 3000;
  EXPECT_THAT(ErrorOf(loader::Load(Phase(*conninfo, LoadPhase::kData, LoadUnitRange{1, 1}, other),
                                   nullptr)),
              HasSubstr("prepared for customers = 2000"));
  EXPECT_EQ(Number(conn, "SELECT count(*) FROM brokerbench_load_units"), 0);

  // Load unit 1 only; the finish phase finds load unit 0 (and the fixed tables) missing.
  auto one = loader::Load(Phase(*conninfo, LoadPhase::kData, LoadUnitRange{1, 1}), nullptr);
  ASSERT_TRUE(one.ok()) << one.status().message();
  EXPECT_EQ(Number(conn, "SELECT count(*) FROM customer"), 1000);
  EXPECT_EQ(Number(conn, "SELECT count(*) FROM status_type"), 0);  // fixed: with load unit 0
  EXPECT_THAT(ErrorOf(loader::Load(Phase(*conninfo, LoadPhase::kFinish), nullptr)),
              HasSubstr("no loader has loaded load units 0 "));
  EXPECT_EQ(Number(conn,
                   "SELECT count(*) FROM pg_constraint WHERE contype = 'p' AND conrelid = "
                   "'customer'::regclass"),
            0);

  // A second loader for load unit 1 is refused before it writes a row, naming the first.
  EXPECT_THAT(
      ErrorOf(loader::Load(Phase(*conninfo, LoadPhase::kData, LoadUnitRange{0, 1}), nullptr)),
      HasSubstr("another loader claimed some of these load units already: load units 1 "
                "by the loader on host"));
  EXPECT_EQ(Number(conn, "SELECT count(*) FROM customer"), 1000);

  auto zero = loader::Load(Phase(*conninfo, LoadPhase::kData, LoadUnitRange{0, 0}), nullptr);
  ASSERT_TRUE(zero.ok()) << zero.status().message();
  EXPECT_EQ(Number(conn, "SELECT count(*) FROM customer"), 2000);
  EXPECT_EQ(Number(conn, "SELECT count(*) FROM status_type"), 5);

  // A row the data phases did not write: the finish phase names the table and both counts.
  ASSERT_TRUE(conn.Execute("INSERT INTO sector SELECT 'XX', 'Extra' ").ok());
  EXPECT_THAT(ErrorOf(loader::Load(Phase(*conninfo, LoadPhase::kFinish), nullptr)),
              HasSubstr("table sector holds 13 rows, but the data phases recorded 12"));
  ASSERT_TRUE(conn.Execute("DELETE FROM sector WHERE sc_id = 'XX'").ok());

  auto finished = loader::Load(Phase(*conninfo, LoadPhase::kFinish), nullptr);
  ASSERT_TRUE(finished.ok()) << finished.status().message();
  ASSERT_FALSE(finished->empty());
  EXPECT_EQ(finished->front().name, "row counts");
  auto sizing = db::ReadLoadedSizing(conn);
  ASSERT_TRUE(sizing.ok()) << sizing.status().message();
  EXPECT_EQ(*sizing, kSizing);
  auto checks = loader::RunChecks(conn, kSizing);
  ASSERT_TRUE(checks.ok()) << checks.status().message();
  for (const auto& c : *checks) EXPECT_TRUE(c.passed) << c.name << ": " << c.detail;

  // A complete load takes no more data, and no second finish.
  EXPECT_THAT(
      ErrorOf(loader::Load(Phase(*conninfo, LoadPhase::kData, LoadUnitRange{1, 1}), nullptr)),
      HasSubstr("the load is complete already"));
  EXPECT_THAT(ErrorOf(loader::Load(Phase(*conninfo, LoadPhase::kFinish), nullptr)),
              HasSubstr("the load is complete already"));
}

// A loader that dies half-way leaves its units claimed and unfinished: the finish phase names
// them and the loader, and says to start over.
TEST(LoadPhases, FinishNamesAUnitWhoseLoaderDidNotFinish) {
  auto conninfo = testing::CreateDatabase("unfinished");
  ASSERT_TRUE(conninfo.ok()) << conninfo.status().message();
  auto opened = db::Connection::Open(*conninfo);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  db::Connection& conn = **opened;
  ASSERT_TRUE(loader::Load(Phase(*conninfo, LoadPhase::kPrepare), nullptr).ok());
  // COPY cancelled by a statement timeout: the units of load unit 1 stay unfinished.
  auto failed = loader::Load(Phase(*conninfo + " options='-c statement_timeout=200'",
                                   LoadPhase::kData, LoadUnitRange{1, 1}),
                             nullptr);
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(failed.status().message(), HasSubstr("57014"));
  EXPECT_GT(Number(conn, "SELECT count(*) FROM brokerbench_load_units WHERE finished IS NULL"), 0);
  ASSERT_TRUE(loader::Load(Phase(*conninfo, LoadPhase::kData, LoadUnitRange{0, 0}), nullptr).ok());
  const std::string message = ErrorOf(loader::Load(Phase(*conninfo, LoadPhase::kFinish), nullptr));
  EXPECT_THAT(message, HasSubstr("of load unit 1 at"));
  EXPECT_THAT(message, HasSubstr("but did not finish it"));
  EXPECT_THAT(message, HasSubstr("start over with --phase prepare --drop"));
  EXPECT_THAT(message, ::testing::Not(HasSubstr("no loader has loaded")));
}

std::string RunLoader(const std::string& args) {
  auto out = testing::RunCommand(fmt::format("{} {} 2>&1; echo \"exit=$?\"", BB_LOADER, args));
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? *out : "";
}

TEST(LoadPhaseOptions, BadValuesAndCombinationsNameTheOptionAndExit2) {
  EXPECT_EQ(RunLoader("--customers 2000 --phase data --load-units 1-2"),
            "bb-loader: --load-units: '1-2' is outside the load units of 2000 customers, which "
            "are 0-1\nexit=2\n");
  EXPECT_EQ(RunLoader("--load-units 0"),
            "bb-loader: --load-units: '0-0' goes with --phase data only (the other phases work "
            "on every load unit)\nexit=2\n");
  EXPECT_EQ(RunLoader("--phase data --load-units 2-1"),
            "bb-loader: --load-units: '2-1' ends before it starts\nexit=2\n");
  EXPECT_EQ(RunLoader("--phase dat"),
            "bb-loader: --phase: 'dat' is not one of prepare, data, finish, all\nexit=2\n");
  EXPECT_THAT(RunLoader("--phase finish --drop"),
              HasSubstr("--drop: the finish phase never replaces tables"));
  EXPECT_THAT(RunLoader("--phase prepare --flat-dir /nonexistent/x"),
              HasSubstr("--phase: 'prepare' is for a database; --flat-dir"));
  EXPECT_THAT(RunLoader("--phase data --check"), HasSubstr("exit=2"));
  EXPECT_EQ(RunLoader("--customers 5000 --split-load-units auto,auto"), "0-2\n3-4\nexit=0\n");
  EXPECT_EQ(RunLoader("--customers 5000 --split-load-units 3-4,0-2"), "3-4\n0-2\nexit=0\n");
  EXPECT_EQ(RunLoader("--customers 5000 --split-load-units 0-2,2-4"),
            "bb-loader: --split-load-units: loader 2's load units 2-4 overlap loader 1's "
            "0-2\nexit=2\n");
  EXPECT_THAT(RunLoader("--customers 1000 --split-load-units auto,auto"),
              HasSubstr("2 loaders for 1 load units (1000 customers)"));
  EXPECT_THAT(RunLoader("--split-load-units auto --phase data"), HasSubstr("exit=2"));
}

}  // namespace
}  // namespace bb
