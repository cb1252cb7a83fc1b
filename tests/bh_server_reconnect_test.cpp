// The Dispatcher's reconnect rule on worker lanes, with a runner whose database the test takes
// away and gives back (no PostgreSQL): a lost session fails its request (db_error, counted),
// requests fail at once while no session is connected, queued ones too, one lane probes the
// database every 100 ms off the I/O thread for all of them (not one probe per lane, not one per
// request), the others follow once it connects, and service resumes. tests/bh_db_test.cpp
// restarts a real database under both kinds of lane.
#include "common/protocol/reply.h"
#include "tests/bh_server_fixture.h"

namespace bb::bh_server_test {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The test's database, shared by every lane's runner.
struct Database {
  std::atomic<bool> down{true};  // requests lose their session, reconnecting fails
  std::atomic<bool> open{true};  // requests wait for it
  std::atomic<int> attempts{0};  // reconnections tried
  std::atomic<int> reconnected{0};
};

// While the database is down, a request ends in db_error and loses the session, and
// reconnecting fails. A request waits for `open` first.
class FlakyRunner : public bh::BlockingRunner {
 public:
  explicit FlakyRunner(Database& db) : db_(db) {}
  void Run(const pr::Message&, bh::Completion& out) override {
    while (!db_.open) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    out.to_market.clear();
    auto& reply = out.reply.emplace<pr::TradeStatusOutput>();
    if (db_.down) {
      connected_ = false;
      reply.status.outcome = pr::Outcome::kDbError;
      reply.status.detail = "connection lost: taken away by the test";
    }
  }
  bool connected() const override { return connected_; }
  Status Reconnect() override {
    ++db_.attempts;
    if (db_.down) return Status::Unavailable("the test's database is down");
    connected_ = true;
    ++db_.reconnected;
    return Status::Ok();
  }

 private:
  Database& db_;
  bool connected_ = true;
};

bh::ServerOptions Workers(int n) {
  bh::ServerOptions options;
  options.workers = n;
  return options;
}

bh::RunnerFactory FlakyRunners(Database& db) {
  return [&db] {
    return Result<std::unique_ptr<bh::BlockingRunner>>(std::make_unique<FlakyRunner>(db));
  };
}

const pr::ReplyStatus* StatusIn(const Result<pr::Message>& reply) {
  return reply.ok() ? pr::StatusOf(*reply) : nullptr;
}

TEST(BrokerageHouse, ALostSessionFailsAtOnceUntilItIsReconnectedByAProbeEvery100Ms) {
  Database db;
  RunningServer server(Workers(1), FlakyRunners(db));
  auto c = server.Client();
  // The request that finds the session lost gets the runner's own db_error.
  const auto lost_at = Clock::now();
  auto first = c->Call(pr::TradeStatusInput{});
  ASSERT_NE(StatusIn(first), nullptr);
  EXPECT_EQ(StatusIn(first)->outcome, pr::Outcome::kDbError);
  EXPECT_EQ(StatusIn(first)->detail, "connection lost: taken away by the test");
  // No session is connected now: each request fails at once, without waiting for a reconnection.
  const auto start = Clock::now();
  for (int i = 0; i < 20; ++i) {
    auto reply = c->Call(pr::TradeStatusInput{});
    ASSERT_NE(StatusIn(reply), nullptr);
    EXPECT_EQ(StatusIn(reply)->outcome, pr::Outcome::kDbError);
    EXPECT_THAT(StatusIn(reply)->detail, HasSubstr("not connected to the database (reconnecting)"));
  }
  EXPECT_LT(Clock::now() - start, std::chrono::milliseconds(500));
  auto& counted = server.stats().of(pr::MessageType::kTradeStatusInput);
  EXPECT_EQ(counted.outcomes[static_cast<int>(pr::Outcome::kDbError)].load(), 21u);
  // Reconnection is tried every 100 ms, not once a request, and not once a second (which took
  // 5 s for 5 attempts).
  ASSERT_TRUE(testing::WaitUntil([&] { return db.attempts.load() >= 5; }));
  const double seconds = SecondsSince(lost_at);
  EXPECT_LE(db.attempts.load(), static_cast<int>(seconds / 0.1) + 1) << "in " << seconds << " s";
  EXPECT_GE(seconds, 0.45);
  EXPECT_LT(seconds, 3.0);
  // The database is back: soon the lane serves again.
  db.down = false;
  ASSERT_TRUE(testing::WaitUntil([&] {
    auto reply = c->Call(pr::TradeStatusInput{});
    return StatusIn(reply) != nullptr && StatusIn(reply)->outcome == pr::Outcome::kOk;
  }));
  EXPECT_EQ(counted.outcomes[static_cast<int>(pr::Outcome::kOk)].load(), 1u);
  server.StopAndJoin();
  EXPECT_TRUE(server.status().ok()) << server.status().message();
}

TEST(BrokerageHouse, TheQueuedRequestsFailWhenTheLastSessionIsLostAndStopDoesNotWaitForIt) {
  Database db;
  db.open = false;
  RunningServer server(Workers(1), FlakyRunners(db));
  auto c = server.Client();
  // One request in the worker, two queued behind it; then its session is lost.
  std::vector<uint8_t> bytes;
  pr::Writer w(bytes);
  for (uint64_t id = 1; id <= 3; ++id)
    ASSERT_TRUE(pr::EncodeFrame(pr::TradeStatusInput{}, id, w).ok());
  ASSERT_TRUE(c->SendRaw(bytes).ok());
  ASSERT_TRUE(testing::WaitUntil([&] { return server.stats().queue_depth.load() == 2; }));
  db.open = true;
  for (uint64_t id = 1; id <= 3; ++id) {
    auto f = c->ReadFrame();
    ASSERT_TRUE(f.ok()) << f.status().message();
    EXPECT_EQ(f->header.request_id, id);
    const pr::ReplyStatus* s = pr::StatusOf(f->message);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->outcome, pr::Outcome::kDbError);
    EXPECT_THAT(s->detail, HasSubstr(id == 1 ? "taken away by the test"
                                             : "not connected to the database (reconnecting)"));
  }
  EXPECT_EQ(server.stats().queue_depth.load(), 0);
  // The lane is still reconnecting: the stop ends it rather than waiting for the database.
  const auto start = Clock::now();
  server.StopAndJoin();
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(3));
  EXPECT_TRUE(server.status().ok()) << server.status().message();
}

TEST(BrokerageHouse, OneLaneProbesForEveryLostLaneAndTheOthersFollowWhenItConnects) {
  Database db;
  RunningServer server(Workers(3), FlakyRunners(db));
  auto c = server.Client();
  // Each request takes a connected lane and loses its session, until none is left.
  int lost = 0;
  for (int i = 0; i < 20 && lost < 3; ++i) {
    auto reply = c->Call(pr::TradeStatusInput{});
    ASSERT_NE(StatusIn(reply), nullptr);
    ASSERT_EQ(StatusIn(reply)->outcome, pr::Outcome::kDbError);
    if (StatusIn(reply)->detail == "connection lost: taken away by the test") ++lost;
  }
  ASSERT_EQ(lost, 3);
  const auto all_lost = Clock::now();
  const int before = db.attempts.load();
  auto reply = c->Call(pr::TradeStatusInput{});
  ASSERT_NE(StatusIn(reply), nullptr);
  EXPECT_THAT(StatusIn(reply)->detail, HasSubstr("not connected to the database (reconnecting)"));
  // One probe for the three lanes: about 10 attempts a second, not 30.
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  const int attempts = db.attempts.load() - before;
  const double seconds = SecondsSince(all_lost);
  EXPECT_LE(attempts, static_cast<int>(seconds / 0.1) + 2) << "in " << seconds << " s";
  EXPECT_GE(attempts, 3) << "in " << seconds << " s";
  EXPECT_EQ(db.reconnected.load(), 0);
  // The database is back: the probe connects, the two others follow at once, each on its first
  // try, and every lane serves again.
  const int at_up = db.attempts.load();
  db.down = false;
  ASSERT_TRUE(testing::WaitUntil([&] { return db.reconnected.load() == 3; }));
  EXPECT_LE(db.attempts.load() - at_up,
            4);  // 3, or 4 when a probe failed as the database came back
  for (int i = 0; i < 6; ++i) {
    auto ok = c->Call(pr::TradeStatusInput{});
    ASSERT_NE(StatusIn(ok), nullptr);
    EXPECT_EQ(StatusIn(ok)->outcome, pr::Outcome::kOk);
  }
  server.StopAndJoin();
  EXPECT_TRUE(server.status().ok()) << server.status().message();
}

}  // namespace bb::bh_server_test
