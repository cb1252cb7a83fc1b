// bb-loader against a real server: a load of 1000 customers passes every audit check, its
// distributions fall inside the expected figures, a loaded database is refused without
// --drop, bad options are refused with a message naming them, and flat files do not depend on
// how the work was split across jobs.
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/db/connection.h"
#include "common/db/loaded_sizing.h"
#include "loader/check.h"
#include "loader/loader.h"
#include "loader/tables.h"
#include "tests/support/test_cluster.h"

namespace bb {
namespace {

using ::testing::HasSubstr;

// Small enough for CI, large enough that every table and distribution is exercised.
constexpr workload::Sizing kSizing{.customers = 1000, .scale_factor = 500, .initial_trade_days = 2};

class LoadedDatabase : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto conninfo = testing::CreateDatabase("loaded");
    ASSERT_TRUE(conninfo.ok()) << conninfo.status().message();
    conninfo_ = *conninfo;
    loader::LoadOptions options{kSizing, conninfo_, 2, false, {}};
    auto phases = loader::Load(options, nullptr);
    ASSERT_TRUE(phases.ok()) << phases.status().message();
    std::vector<std::string> names;
    for (const auto& phase : *phases) names.push_back(phase.name);
    EXPECT_EQ(names, (std::vector<std::string>{"generate+COPY", "keys and indexes", "analyze",
                                               "foreign keys"}));
  }

  void SetUp() override {
    auto conn = db::Connection::Open(conninfo_);
    ASSERT_TRUE(conn.ok()) << conn.status().message();
    conn_ = std::move(conn).value();
  }

  double Number(const std::string& sql) {
    auto rows = conn_->Query(sql);
    EXPECT_TRUE(rows.ok()) << rows.status().message() << " in " << sql;
    if (!rows.ok() || rows->values.empty()) return -1;
    return std::stod(rows->values[0][0].value_or("-1"));
  }

  static inline std::string conninfo_;
  std::unique_ptr<db::Connection> conn_;
};

TEST_F(LoadedDatabase, PassesEveryAuditCheck) {
  auto sizing = db::ReadLoadedSizing(*conn_);
  ASSERT_TRUE(sizing.ok()) << sizing.status().message();
  EXPECT_EQ(sizing->customers, kSizing.customers);
  EXPECT_EQ(sizing->initial_trade_days, kSizing.initial_trade_days);
  auto results = loader::RunChecks(*conn_, *sizing);
  ASSERT_TRUE(results.ok()) << results.status().message();
  EXPECT_GT(results->size(), 50u);
  for (const auto& r : *results) EXPECT_TRUE(r.passed) << r.name << ": " << r.detail;
}

// The loader vacuums every table that trades do not grow, so that reads of a key's columns
// (Market-Watch's DAILY_MARKET, SECURITY, WATCH_ITEM) are index-only from the first run on,
// and leaves the eight that trades grow to autovacuum. (How many pages a vacuum can mark
// all-visible depends on the oldest transaction of the whole cluster, which other tests
// share: counted here is what the loader did, not pages.)
TEST_F(LoadedDatabase, VacuumsTheTablesTradesDoNotGrow) {
  for (loader::Table t : loader::AllTables()) {
    const std::string name(loader::TableName(t));
    EXPECT_EQ(Number("SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = '" + name + "'"),
              loader::GrowsWithTrades(t) ? 0 : 1)
        << name;
  }
}

TEST_F(LoadedDatabase, AuditCatchesABrokenConsistencyCondition) {
  ASSERT_TRUE(conn_->Execute("BEGIN").ok());
  ASSERT_TRUE(conn_
                  ->Execute("UPDATE broker SET b_num_trades = b_num_trades + 1 WHERE b_id = "
                            "(SELECT min(b_id) FROM broker)")
                  .ok());
  auto results = loader::RunChecks(*conn_, kSizing);
  ASSERT_TRUE(conn_->Execute("ROLLBACK").ok());
  ASSERT_TRUE(results.ok()) << results.status().message();
  int failed = 0;
  for (const auto& r : *results) {
    if (!r.passed) {
      ++failed;
      EXPECT_THAT(r.name, HasSubstr("condition 1"));
      EXPECT_EQ(r.detail, "1 rows break it");
    }
  }
  EXPECT_EQ(failed, 1);
}

// The initial trades' mix (loader/trade_tables.cpp, step 4): TMB 30, TMS 30, TLB 20, TLS 10,
// TSL 10 %; 60 % market orders.
TEST_F(LoadedDatabase, TradeTypesFollowTheLoadMix) {
  const double trades = Number("SELECT count(*) FROM trade");
  ASSERT_GT(trades, 100000);
  const std::map<std::string, double> expected = {
      {"TMB", 0.30}, {"TMS", 0.30}, {"TLB", 0.20}, {"TLS", 0.10}, {"TSL", 0.10}};
  for (const auto& [type, share] : expected) {
    double n = Number(fmt::format("SELECT count(*) FROM trade WHERE t_tt_id = '{}'", type));
    EXPECT_NEAR(n / trades, share, 0.01) << type;  // ±1 point over >100k trades
  }
  double market =
      Number("SELECT count(*) FROM trade JOIN trade_type ON tt_id = t_tt_id WHERE tt_is_mrkt");
  EXPECT_NEAR(market / trades, 0.60, 0.01);
  EXPECT_NEAR(Number("SELECT avg(t_lifo::int) FROM trade"), 0.35, 0.01);
  // Margin: 16 % of buys (loader/trade_tables.cpp, step 4).
  EXPECT_NEAR(Number("SELECT avg((NOT t_is_cash)::int) FROM trade WHERE t_tt_id IN ('TMB', "
                     "'TLB')"),
              0.16, 0.01);
}

// Clause 2.6: ~2.4 history rows and ~0.92 cash transactions per trade.
TEST_F(LoadedDatabase, HistoryAndCashRowsPerTrade) {
  const double trades = Number("SELECT count(*) FROM trade");
  EXPECT_NEAR(Number("SELECT count(*) FROM trade_history") / trades, 2.4, 0.01);
  EXPECT_NEAR(Number("SELECT count(*) FROM cash_transaction") / trades, 0.92, 0.01);
}

// 60 % of accounts have no extra permission, 38 % one, 2 % two.
TEST_F(LoadedDatabase, AccountPermissionsFollowTheReference) {
  const double accounts = Number("SELECT count(*) FROM customer_account");
  ASSERT_EQ(accounts, 5000);
  std::map<int, double> rows_per_account;
  auto rows = conn_->Query(
      "SELECT n, count(*) FROM (SELECT count(*) AS n FROM account_permission GROUP BY ap_ca_id) "
      "x GROUP BY n");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  for (const auto& r : rows->values) rows_per_account[std::stoi(*r[0])] = std::stod(*r[1]);
  EXPECT_NEAR(rows_per_account[1] / accounts, 0.60, 0.025);
  EXPECT_NEAR(rows_per_account[2] / accounts, 0.38, 0.025);
  EXPECT_NEAR(rows_per_account[3] / accounts, 0.02, 0.01);
  EXPECT_EQ(rows_per_account.size(), 3u);
}

// One watch list per customer, 50..150 items, ~100 on average.
TEST_F(LoadedDatabase, WatchListsHoldFiftyToOneHundredFiftyItems) {
  EXPECT_EQ(Number("SELECT count(*) FROM watch_list"), 1000);
  EXPECT_GE(Number("SELECT min(n) FROM (SELECT count(*) n FROM watch_item GROUP BY wi_wl_id) x"),
            50);
  EXPECT_LE(Number("SELECT max(n) FROM (SELECT count(*) n FROM watch_item GROUP BY wi_wl_id) x"),
            150);
  EXPECT_NEAR(Number("SELECT count(*) FROM watch_item") / 1000, 100, 3);
}

// Holdings: every account with trades holds something, and no summary exceeds the basket.
TEST_F(LoadedDatabase, HoldingsStayInsideTheAccountsBaskets) {
  EXPECT_LE(Number("SELECT max(n) FROM (SELECT count(*) n FROM holding_summary GROUP BY "
                   "hs_ca_id) x"),
            18);
  EXPECT_GT(Number("SELECT count(DISTINCT hs_ca_id) FROM holding_summary"), 4500);
}

TEST_F(LoadedDatabase, RefusesToLoadOverALoadedDatabaseWithoutDrop) {
  loader::LoadOptions options{kSizing, conninfo_, 2, false, {}};
  auto again = loader::Load(options, nullptr);
  ASSERT_FALSE(again.ok());
  EXPECT_THAT(again.status().message(), HasSubstr("already holds 35 brokerbench tables"));
  EXPECT_THAT(again.status().message(), HasSubstr("--drop"));
  // Nothing was touched: the audit still passes on the sizing recorded.
  EXPECT_EQ(Number("SELECT count(*) FROM customer"), 1000);
  EXPECT_EQ(Number("SELECT count(*) FROM brokerbench_load_info WHERE complete"), 1);
}

// A load that fails midway (here: COPY cancelled by a statement timeout) says so, and leaves
// the database marked incomplete, so neither --check nor a later run mistakes it for a load.
TEST(FailedLoad, LeavesTheDatabaseMarkedIncomplete) {
  auto conninfo = testing::CreateDatabase("failed");
  ASSERT_TRUE(conninfo.ok()) << conninfo.status().message();
  loader::LoadOptions options{
      kSizing, *conninfo + " options='-c statement_timeout=200'", 2, false, {}};
  auto phases = loader::Load(options, nullptr);
  ASSERT_FALSE(phases.ok());
  EXPECT_THAT(phases.status().message(), HasSubstr("57014"));  // query_canceled
  EXPECT_THAT(phases.status().message(), HasSubstr("of load unit"));
  auto conn = db::Connection::Open(*conninfo);
  ASSERT_TRUE(conn.ok()) << conn.status().message();
  auto sizing = db::ReadLoadedSizing(**conn);
  ASSERT_FALSE(sizing.ok());
  EXPECT_THAT(sizing.status().message(), HasSubstr("incomplete load"));
}

std::string RunLoader(const std::string& args) {
  auto out = testing::RunCommand(fmt::format("{} {} 2>&1; echo \"exit=$?\"", BB_LOADER, args));
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? *out : "";
}

TEST(LoaderOptions, BadValuesNameTheOption) {
  EXPECT_THAT(RunLoader("--customers 1500 --flat-dir /nonexistent"),
              HasSubstr("--customers: '1500' is not a multiple of 1000"));
  EXPECT_THAT(RunLoader("--customers 1500 --flat-dir /nonexistent"), HasSubstr("exit=2"));
  EXPECT_THAT(RunLoader("--customers 0"), HasSubstr("--customers"));
  EXPECT_THAT(RunLoader("--initial-trade-days 0"), HasSubstr("--initial-trade-days: '0'"));
  EXPECT_THAT(RunLoader("--initial-trade-days -3"), HasSubstr("--initial-trade-days: '-3'"));
  EXPECT_THAT(RunLoader("--jobs many"), HasSubstr("--jobs: 'many' is not a whole number"));
  EXPECT_THAT(RunLoader("--frobnicate"), HasSubstr("unknown option '--frobnicate'"));
  EXPECT_THAT(RunLoader("--customers"), HasSubstr("--customers: needs a value"));
  EXPECT_THAT(RunLoader("--check --flat-dir /tmp/x"), HasSubstr("exit=2"));
}

TEST(LoaderOptions, UnreachableDatabaseIsARuntimeFailure) {
  std::string out = RunLoader("--db 'host=/nonexistent-bb port=1 dbname=x' --customers 1000");
  EXPECT_THAT(out, HasSubstr("cannot connect to the database"));
  EXPECT_THAT(out, HasSubstr("exit=1"));
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Generation is repeatable per unit, so splitting the work changes nothing.
TEST(FlatFiles, AreByteIdenticalWhateverTheNumberOfJobs) {
  auto base = std::filesystem::temp_directory_path() / fmt::format("bbflat.{}", getpid());
  workload::Sizing sizing{.customers = 2000, .scale_factor = 500, .initial_trade_days = 1};
  for (int jobs : {1, 3}) {
    loader::LoadOptions options{sizing, "", jobs, false, base / std::to_string(jobs)};
    auto phases = loader::Load(options, nullptr);
    ASSERT_TRUE(phases.ok()) << phases.status().message();
  }
  for (auto table : loader::AllTables()) {
    std::string name = std::string(loader::TableName(table)) + ".tsv";
    std::string one = ReadFile(base / "1" / name);
    std::string three = ReadFile(base / "3" / name);
    EXPECT_EQ(one.size(), three.size()) << name;
    EXPECT_TRUE(one == three) << name << " differs between 1 and 3 jobs";
    if (table != loader::Table::kTradeRequest) {
      EXPECT_FALSE(one.empty()) << name;
    }
  }
  std::filesystem::remove_all(base);
}

}  // namespace
}  // namespace bb
