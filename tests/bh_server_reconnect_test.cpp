// The Dispatcher's reconnect rule on worker lanes, with a runner whose database the test takes
// away and gives back (no PostgreSQL): a lost session fails its request (db_error, counted),
// requests fail at once while no session is connected, queued ones too, reconnection is tried
// once a second off the I/O thread, and service resumes. tests/bh_db_test.cpp restarts a real
// database under both kinds of lane.
#include "common/protocol/reply.h"
#include "tests/bh_server_fixture.h"

namespace bb::bh_server_test {

using Clock = std::chrono::steady_clock;

// While `down`, a request ends in db_error and loses the session, and reconnecting fails. A
// request waits for `open` first.
class FlakyRunner : public bh::BlockingRunner {
 public:
  FlakyRunner(std::atomic<bool>& down, std::atomic<bool>& open, std::atomic<int>& attempts)
      : down_(down), open_(open), attempts_(attempts) {}
  void Run(const pr::Message&, bh::Completion& out) override {
    while (!open_) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    out.to_market.clear();
    auto& reply = out.reply.emplace<pr::TradeStatusOutput>();
    if (down_) {
      connected_ = false;
      reply.status.outcome = pr::Outcome::kDbError;
      reply.status.detail = "connection lost: taken away by the test";
    }
  }
  bool connected() const override { return connected_; }
  Status Reconnect() override {
    ++attempts_;
    if (down_) return Status::Unavailable("the test's database is down");
    connected_ = true;
    return Status::Ok();
  }

 private:
  std::atomic<bool>& down_;
  std::atomic<bool>& open_;
  std::atomic<int>& attempts_;
  bool connected_ = true;
};

const pr::ReplyStatus* StatusIn(const Result<pr::Message>& reply) {
  return reply.ok() ? pr::StatusOf(*reply) : nullptr;
}

TEST(BrokerageHouse, ALostSessionFailsAtOnceUntilItIsReconnectedOnceASecond) {
  std::atomic<bool> down{true}, open{true};
  std::atomic<int> attempts{0};
  bh::ServerOptions options;
  options.workers = 1;
  RunningServer server(options, [&] {
    return Result<std::unique_ptr<bh::BlockingRunner>>(
        std::make_unique<FlakyRunner>(down, open, attempts));
  });
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
  // Reconnection is tried once a second, not once a request.
  ASSERT_TRUE(testing::WaitUntil([&] { return attempts.load() >= 2; }));
  const double seconds = std::chrono::duration<double>(Clock::now() - lost_at).count();
  EXPECT_LE(attempts.load(), static_cast<int>(seconds) + 1) << "in " << seconds << " s";
  EXPECT_GE(seconds, 1.9);
  // The database is back: within a couple of seconds the lane serves again.
  down = false;
  ASSERT_TRUE(testing::WaitUntil([&] {
    auto reply = c->Call(pr::TradeStatusInput{});
    return StatusIn(reply) != nullptr && StatusIn(reply)->outcome == pr::Outcome::kOk;
  }));
  EXPECT_EQ(counted.outcomes[static_cast<int>(pr::Outcome::kOk)].load(), 1u);
  server.StopAndJoin();
  EXPECT_TRUE(server.status().ok()) << server.status().message();
}

TEST(BrokerageHouse, TheQueuedRequestsFailWhenTheLastSessionIsLostAndStopDoesNotWaitForIt) {
  std::atomic<bool> down{true}, open{false};
  std::atomic<int> attempts{0};
  bh::ServerOptions options;
  options.workers = 1;
  RunningServer server(options, [&] {
    return Result<std::unique_ptr<bh::BlockingRunner>>(
        std::make_unique<FlakyRunner>(down, open, attempts));
  });
  auto c = server.Client();
  // One request in the worker, two queued behind it; then its session is lost.
  std::vector<uint8_t> bytes;
  pr::Writer w(bytes);
  for (uint64_t id = 1; id <= 3; ++id)
    ASSERT_TRUE(pr::EncodeFrame(pr::TradeStatusInput{}, id, w).ok());
  ASSERT_TRUE(c->SendRaw(bytes).ok());
  ASSERT_TRUE(testing::WaitUntil([&] { return server.stats().queue_depth.load() == 2; }));
  open = true;
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

}  // namespace bb::bh_server_test
