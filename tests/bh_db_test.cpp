// The Brokerage House on a loaded database, driven over TCP, with server-side frames (the I/O
// thread's own sessions, CallLanes) and with client-side frames (worker lanes): many
// clients send generated requests in the mix's proportions and every one is answered as
// intended; a database restart in the middle makes requests fail as db_error (counted, the
// server keeps running), the sessions reconnect, and service resumes.
#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "brokerage_house/blocking_runner.h"
#include "brokerage_house/call_lanes.h"
#include "brokerage_house/frame_runner.h"
#include "brokerage_house/server.h"
#include "common/protocol/reply.h"
#include "common/workload/inputs.h"
#include "common/workload/mix.h"
#include "tests/support/bh_client.h"
#include "tests/support/frames_database.h"
#include "tests/support/in_process_server.h"
#include "tests/support/test_cluster.h"

namespace bb {
namespace {

namespace pr = protocol;
using workload::TransactionType;

const workload::Sizing kSizing{.customers = 1000, .scale_factor = 500, .initial_trade_days = 10};

// The next generated request of a user, in the deck's order.
pr::Message NextRequest(workload::MixDeck& deck, workload::InputGenerator& inputs) {
  switch (deck.Next()) {
    case TransactionType::kBrokerVolume:
      return inputs.BrokerVolume();
    case TransactionType::kCustomerPosition:
      return inputs.CustomerPosition();
    case TransactionType::kMarketWatch:
      return inputs.MarketWatch();
    case TransactionType::kSecurityDetail:
      return inputs.SecurityDetail();
    case TransactionType::kTradeLookup:
      return inputs.TradeLookup();
    case TransactionType::kTradeOrder:
      return inputs.TradeOrder();
    case TransactionType::kTradeUpdate:
      return inputs.TradeUpdate();
    default:
      return inputs.TradeStatus();
  }
}

class BrokerageHouseOnADatabase : public ::testing::TestWithParam<bh::FrameMode> {
 protected:
  static void SetUpTestSuite() {
    auto conninfo = testing::CreateFramesDatabase("bh", kSizing);
    ASSERT_TRUE(conninfo.ok()) << conninfo.status().message();
    conninfo_ = *conninfo;
  }

  void SetUp() override {
    bh::ServerOptions options;
    options.listen = {"127.0.0.1", 0};
    options.workers = 4;
    options.summary_seconds = 0;
    options.identity = {"test bh", kSizing.customers, static_cast<int32_t>(kSizing.scale_factor),
                        static_cast<int32_t>(kSizing.initial_trade_days)};
    // Server-side frames run on the I/O thread's own sessions; client-side ones on workers.
    std::unique_ptr<bh::Server> server;
    if (GetParam() == bh::FrameMode::kServer) {
      server = std::make_unique<bh::Server>(options, bh::MakeCallLanes(conninfo_, {}));
    } else {
      bh::FrameOptions frames;
      frames.mode = bh::FrameMode::kClient;
      server = std::make_unique<bh::Server>(
          options, [frames] { return bh::MakeClientFramesRunner(conninfo_, frames); });
    }
    server_.emplace(std::move(server));
    ASSERT_NE(server_->port(), 0);
  }

  void TearDown() override {
    server_->StopAndJoin();
    EXPECT_TRUE(server_->status().ok()) << server_->status().message();
  }

  std::unique_ptr<testing::BhClient> Client() {
    auto c = std::make_unique<testing::BhClient>();
    EXPECT_TRUE(c->Connect("127.0.0.1", server_->port()).ok());
    EXPECT_TRUE(c->Hello(kSizing.customers, 500, 10).ok());
    return c;
  }

  static inline std::string conninfo_;
  std::optional<testing::InProcessServer<bh::Server>> server_;
};

TEST_P(BrokerageHouseOnADatabase, ManyClientsRunTheMixAndEveryRequestIsAnsweredAsIntended) {
  constexpr int kClients = 16, kRequests = 60;
  std::atomic<int> answered{0}, intended{0}, short_trade_status{0};
  std::mutex mutex;
  std::vector<std::string> surprises;
  {
    std::vector<std::jthread> clients;
    for (int i = 0; i < kClients; ++i) {
      clients.emplace_back([&, i] {
        auto c = Client();
        workload::MixDeck deck(workload::StreamSeed(7, 2 * i));
        workload::InputGenerator inputs(kSizing, workload::StreamSeed(7, 2 * i + 1));
        for (int n = 0; n < kRequests; ++n) {
          pr::Message request = NextRequest(deck, inputs);
          auto reply = c->Call(request);
          if (!reply.ok()) continue;
          ++answered;
          const pr::ReplyStatus* s = pr::StatusOf(*reply);
          if (s == nullptr) continue;
          bool ok = s->outcome == pr::Outcome::kOk ||
                    (s->outcome == pr::Outcome::kRollback &&
                     std::holds_alternative<pr::TradeOrderOutput>(*reply));
          // Trade-Status wants 50 trades; a 10-day database has a few accounts with fewer.
          if (std::holds_alternative<pr::TradeStatusOutput>(*reply) && s->spec_status == -911) {
            ++short_trade_status;
            ok = true;
          }
          if (ok) {
            ++intended;
          } else {
            std::lock_guard lock(mutex);
            surprises.push_back(fmt::format("{}: {} {} {}", pr::MessageTypeName(pr::TypeOf(*reply)),
                                            pr::OutcomeName(s->outcome), s->spec_status,
                                            s->detail));
          }
          EXPECT_GT(s->server_micros, 0);
        }
      });
    }
  }
  EXPECT_EQ(answered.load(), kClients * kRequests);
  EXPECT_EQ(intended.load(), kClients * kRequests);
  for (const auto& s : surprises) ADD_FAILURE() << s;
  EXPECT_LE(short_trade_status.load(), 30);
  EXPECT_EQ(server_->server().stats().malformed_frames.load(), 0u);
}

// docs/STYLE.md, "Errors": a broken connection makes the worker reconnect.
TEST_P(BrokerageHouseOnADatabase, SurvivesADatabaseRestartAndResumes) {
  // The test cluster's directory is the parent of its socket directory (host=DIR/run).
  std::string conninfo = testing::ClusterConninfo();
  auto host = conninfo.find("host=");
  ASSERT_NE(host, std::string::npos);
  std::string run_dir = conninfo.substr(host + 5, conninfo.find(' ', host) - host - 5);
  ASSERT_TRUE(run_dir.ends_with("/run")) << run_dir;
  const std::string cluster = run_dir.substr(0, run_dir.size() - 4);
  const std::string pgcluster = std::string(BB_SOURCE_DIR) + "/controller/pgcluster";

  auto c = Client();
  workload::InputGenerator inputs(kSizing, 11);
  auto before = c->Call(inputs.TradeStatus());
  ASSERT_TRUE(before.ok());
  ASSERT_NE(pr::StatusOf(*before), nullptr);

  ASSERT_TRUE(testing::RunCommand(fmt::format("{} stop {} 2>&1", pgcluster, cluster)).ok());
  int db_errors = 0;
  for (int i = 0; i < 8; ++i) {
    auto reply = c->Call(inputs.TradeStatus());
    ASSERT_TRUE(reply.ok()) << "the server must answer while the database is down";
    const pr::ReplyStatus* s = pr::StatusOf(*reply);
    ASSERT_NE(s, nullptr);
    if (s->outcome == pr::Outcome::kDbError) ++db_errors;
  }
  EXPECT_EQ(db_errors, 8);
  ASSERT_TRUE(testing::RunCommand(fmt::format("{} start {} 2>&1", pgcluster, cluster)).ok());

  // Workers reconnect (one probe every 100 ms, then the others): soon every request is ok again.
  int consecutive_ok = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (consecutive_ok < 20 && std::chrono::steady_clock::now() < deadline) {
    auto reply = c->Call(inputs.TradeStatus());
    ASSERT_TRUE(reply.ok());
    const pr::ReplyStatus* s = pr::StatusOf(*reply);
    bool fine = s != nullptr && (s->outcome == pr::Outcome::kOk || s->spec_status == -911);
    consecutive_ok = fine ? consecutive_ok + 1 : 0;
    if (!fine) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(consecutive_ok, 20) << "service did not resume after the restart";
  auto& counted = server_->server().stats().of(pr::MessageType::kTradeStatusInput);
  EXPECT_GE(counted.outcomes[static_cast<int>(pr::Outcome::kDbError)].load(), 8u);
}

INSTANTIATE_TEST_SUITE_P(Frames, BrokerageHouseOnADatabase,
                         ::testing::Values(bh::FrameMode::kServer, bh::FrameMode::kClient),
                         [](const auto& info) {
                           return std::string(bh::FrameModeName(info.param));
                         });

}  // namespace
}  // namespace bb
