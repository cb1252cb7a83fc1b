// The server-side frames (PL/pgSQL, brokerage_house/frames/sql/) against the client-side ones
// (C++ statement by statement): two copies of one loaded database, the same generated inputs
// run in lockstep, the client-side frames on one copy and the server-side frames on the other,
// both with the same clock, one transaction type per test (FramesCrossCheck.*/TO ...). Every
// output must be the same, compared as it comes so that the first difference names its input;
// after each type every table must hold the same rows and the trade-id sequence the same
// value. Two implementations checked against each other this way
// is how the reference kit found bugs in all twelve transactions.
//
// With BB_TEST_LOADED_DB set (tests/support/frames_database.h) both sides run on that one
// database, at its size: the read-only types in lockstep as above, and Trade-Update four times
// per input (client-side, client-side again, which toggles every change back, then server-side
// twice: the first server-side run starts from the rows the first client-side run found, and
// the second from the ones the second found), leaving the rows as they were. The types that
// write for good skip: comparing their rows needs two copies of the database.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "brokerage_house/frame_runner.h"
#include "brokerage_house/txn_driver.h"
#include "common/db/connection.h"
#include "common/protocol/codec.h"
#include "loader/loader.h"
#include "loader/schema.h"
#include "tests/support/frames_database.h"
#include "tests/support/test_cluster.h"

namespace bb {
namespace {

using workload::TransactionType;

// 10 initial trade days: most accounts have the 50 trades Trade-Status needs, so its normal
// path runs as well as its -911. (The database's size when the test loads its own.)
constexpr workload::Sizing kSizing{
    .customers = 1000, .scale_factor = 500, .initial_trade_days = 10};

std::unique_ptr<db::Connection> Connect(const std::string& conninfo) {
  auto conn = db::Connection::Open(conninfo);
  EXPECT_TRUE(conn.ok()) << conn.status().message();
  return conn.ok() ? std::move(conn).value() : nullptr;
}

std::string One(db::Connection& conn, const std::string& sql) {
  auto rows = conn.Query(sql);
  EXPECT_TRUE(rows.ok()) << rows.status().message() << " in " << sql;
  if (!rows.ok() || rows->values.empty() || !rows->values[0][0]) return "";
  return *rows->values[0][0];
}

// Every table's rows, order-independent: the row count and the sum of a 64-bit hash of each
// row's text.
std::string Fingerprint(db::Connection& conn, const std::string& table) {
  return One(conn, fmt::format("SELECT count(*) || ' ' || coalesce(sum(hashtextextended(x::text, "
                               "0)::numeric), 0) FROM {} AS x",
                               table));
}

// The types whose changes stay: all but the six that only read and Trade-Update, whose changes
// toggle back when it runs again with the same input.
bool ChangesStay(TransactionType type) {
  switch (type) {
    case TransactionType::kBrokerVolume:
    case TransactionType::kCustomerPosition:
    case TransactionType::kMarketWatch:
    case TransactionType::kSecurityDetail:
    case TransactionType::kTradeLookup:
    case TransactionType::kTradeStatus:
    case TransactionType::kTradeUpdate:
      return false;
    default:
      return true;
  }
}

class FramesCrossCheck : public ::testing::TestWithParam<TransactionType> {
 protected:
  static void SetUpTestSuite() {
    if (testing::UsingLoadedDatabase()) {
      auto opened = testing::OpenFramesDatabase("cross", kSizing);
      ASSERT_TRUE(opened.ok()) << opened.status().message();
      client_db_ = server_db_ = opened->conninfo;
      sizing_ = opened->sizing;
      OpenSessions();
      return;
    }
    auto client_db = testing::CreateDatabase("cross_client");
    ASSERT_TRUE(client_db.ok()) << client_db.status().message();
    client_db_ = *client_db;
    auto loaded = loader::Load(loader::LoadOptions{kSizing, client_db_, 2, false, {}}, nullptr);
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    // The second copy: a file copy of the first (no session may be connected to it).
    const std::string server_name = fmt::format("cross_server_{}", ::getpid());
    auto admin = Connect(testing::ClusterConninfo());
    ASSERT_NE(admin, nullptr);
    Status copied =
        admin->Execute(fmt::format("CREATE DATABASE \"{}\" TEMPLATE \"{}\"", server_name,
                                   client_db_.substr(client_db_.rfind('=') + 1)));
    ASSERT_TRUE(copied.ok()) << copied.message();
    server_db_ = fmt::format("{} dbname={}", testing::ClusterConninfo(), server_name);
    Status installed = bh::InstallFrameFunctions(server_db_);
    ASSERT_TRUE(installed.ok()) << installed.message();
    OpenSessions();
  }
  static void OpenSessions() {
    auto client =
        bh::FrameRunner::OpenSession(client_db_, bh::FrameMode::kClient);
    auto server =
        bh::FrameRunner::OpenSession(server_db_, bh::FrameMode::kServer);
    ASSERT_TRUE(client.ok()) << client.status().message();
    ASSERT_TRUE(server.ok()) << server.status().message();
    client_session_ = std::move(client).value();
    server_session_ = std::move(server).value();
  }
  static void TearDownTestSuite() {
    client_session_.reset();
    server_session_.reset();
  }

  static inline std::string client_db_, server_db_;
  static inline workload::Sizing sizing_ = kSizing;
  static inline std::unique_ptr<db::Session> client_session_, server_session_;
  // One clock for both sides, moved on before each transaction: the rows each side writes
  // carry the same times. 2026-12-31, after every loaded trade.
  static inline int64_t now_ = 1'798'700'000'000'000;
};

// Generated inputs of one type (with the Trade-Results that complete its market orders), run
// on both sides in lockstep: the same outputs, then the same rows in every table.
TEST_P(FramesCrossCheck, SameOutputsAndSameRows) {
  ASSERT_NE(server_session_, nullptr) << "the databases were not set up";
  const TransactionType type = GetParam();
  const bool one_database = testing::UsingLoadedDatabase();
  if (one_database && ChangesStay(type)) {
    GTEST_SKIP() << testing::kNeedsOwnDatabase << ": " << workload::TransactionName(type)
                 << "'s changes stay, and comparing them takes two copies of the database";
  }
  bh::FrameOptions client;
  client.mode = bh::FrameMode::kClient;
  client.clock = [] { return now_; };
  bh::FrameOptions server = client;
  server.mode = bh::FrameMode::kServer;

  struct Seen {
    protocol::Message input;
    protocol::Message output;
  };
  std::vector<Seen> client_seen, server_seen;
  auto recorder = [](std::vector<Seen>& seen) -> bh::ShowFn {
    return [&seen](const protocol::Message& in, const protocol::Message& out) {
      seen.push_back({in, out});
    };
  };
  const uint64_t seed = 100 + static_cast<uint64_t>(type);
  bh::TxnDriver on_client(*client_session_, sizing_, seed, client);
  bh::TxnDriver on_server(*server_session_, sizing_, seed, server);
  // Trade-Update on one database: each input again on both sides (see the top).
  bh::FrameRunner client_again(*client_session_, client);
  bh::FrameRunner server_again(*server_session_, server);
  std::vector<bh::TxnSample> samples;
  const int count = type == TransactionType::kTradeCleanup ? 1 : 60;
  std::size_t compared = 0;
  for (int n = 0; n < count; ++n) {
    now_ += 1'000'000;
    on_client.Run(type, samples, recorder(client_seen));
    if (one_database && type == TransactionType::kTradeUpdate) {
      const auto& input = std::get<protocol::TradeUpdateInput>(client_seen.back().input);
      const protocol::Message client_back = client_again.Run(input);
      server_seen.push_back({input, server_again.Run(input)});
      const protocol::Message server_back = server_again.Run(input);
      ASSERT_TRUE(client_back == server_back)
          << "transaction " << n
          << " run again differs.\ninput:         " << protocol::ToText(input)
          << "client output: " << protocol::ToText(client_back)
          << "server output: " << protocol::ToText(server_back);
    } else {
      on_server.Run(type, samples, recorder(server_seen));
    }
    ASSERT_EQ(client_seen.size(), server_seen.size()) << "after transaction " << n;
    for (; compared < client_seen.size(); ++compared) {
      const Seen& c = client_seen[compared];
      const Seen& s = server_seen[compared];
      ASSERT_TRUE(c.input == s.input && c.output == s.output)
          << "transaction " << compared << " differs.\nclient input:  " << protocol::ToText(c.input)
          << "server input:  " << protocol::ToText(s.input)
          << "client output: " << protocol::ToText(c.output)
          << "server output: " << protocol::ToText(s.output);
    }
  }
  // Most of them did what they were meant to (so the comparison saw real work): the rest are
  // Trade-Status -911 on accounts with fewer than 50 trades, Trade-Order's intended
  // roll-backs and the like.
  int ok = 0;
  for (const auto& sample : samples) {
    ok += sample.status.outcome == protocol::Outcome::kOk ||
          sample.status.outcome == protocol::Outcome::kWarning;
  }
  EXPECT_GE(ok, static_cast<int>(samples.size()) * 8 / 10)
      << ok << " of " << samples.size() << " ended ok";

  // One database: nothing to compare it with.
  if (one_database) return;
  auto a = Connect(client_db_);
  auto b = Connect(server_db_);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  // The paths that need earlier work (Trade-Order's pending limit orders) took it.
  auto any = [&](auto&& pred) {
    return std::any_of(client_seen.begin(), client_seen.end(),
                       [&](const Seen& seen) { return pred(seen.output); });
  };
  if (type == TransactionType::kBrokerVolume) {
    EXPECT_TRUE(any([](const protocol::Message& m) {
      return !std::get<protocol::BrokerVolumeOutput>(m).brokers.empty();
    })) << "every Broker-Volume found no pending request: nothing was compared";
  }
  if (type == TransactionType::kMarketFeed) {
    EXPECT_TRUE(any([](const protocol::Message& m) {
      const auto* feed = std::get_if<protocol::MarketFeedOutput>(&m);
      return feed != nullptr && feed->send_len > 0;
    })) << "no Market-Feed triggered a limit order: nothing was compared";
  }
  if (type == TransactionType::kTradeCleanup) {
    EXPECT_NE(One(*a, "SELECT count(*) FROM trade WHERE t_st_id = 'CNCL'"), "0")
        << "Trade-Cleanup cancelled nothing: nothing was compared";
  }
  for (const std::string& table : loader::TableNames()) {
    EXPECT_EQ(Fingerprint(*a, table), Fingerprint(*b, table)) << "table " << table;
  }
  EXPECT_EQ(One(*a, "SELECT last_value FROM seq_trade_id"),
            One(*b, "SELECT last_value FROM seq_trade_id"));
}

INSTANTIATE_TEST_SUITE_P(
    Types, FramesCrossCheck,
    // Trade-Order first: its limit orders fill TRADE_REQUEST, which Broker-Volume sums,
    // Market-Feed triggers and Trade-Cleanup cancels; a fresh load has none.
    ::testing::Values(TransactionType::kTradeOrder, TransactionType::kBrokerVolume,
                      TransactionType::kCustomerPosition, TransactionType::kMarketWatch,
                      TransactionType::kSecurityDetail, TransactionType::kTradeLookup,
                      TransactionType::kTradeStatus, TransactionType::kTradeResult,
                      TransactionType::kTradeUpdate, TransactionType::kMarketFeed,
                      TransactionType::kDataMaintenance, TransactionType::kTradeCleanup),
    [](const auto& info) { return std::string(workload::TransactionCode(info.param)); });

}  // namespace
}  // namespace bb
