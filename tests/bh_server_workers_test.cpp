// The Brokerage House's queue and workers in --no-db mode on loopback: overload, slow requests
// in parallel, the stats file, an unreachable market emulator, a Unix domain socket, a busy
// address, and a graceful stop that still answers what was queued.
#include "tests/bh_server_fixture.h"

namespace bb::bh_server_test {

// A runner that blocks until released, to fill the queue.
class GateRunner : public bh::BlockingRunner {
 public:
  explicit GateRunner(std::atomic<bool>& open) : open_(open) {}
  void Run(const pr::Message&, bh::Completion& out) override {
    while (!open_) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    out.to_market.clear();
    out.reply.emplace<pr::TradeStatusOutput>();
  }

 private:
  std::atomic<bool>& open_;
};

TEST(BrokerageHouse, SaysOverloadedWhenTheQueueIsFullAndAnswersTheRestOnStop) {
  std::atomic<bool> open{false};
  bh::ServerOptions options;
  options.workers = 1;
  options.queue_capacity = 2;
  RunningServer server(options, [&] {
    return Result<std::unique_ptr<bh::BlockingRunner>>(std::make_unique<GateRunner>(open));
  });
  auto c = server.Client();
  // 1 in the worker, 2 queued, then overloaded.
  std::vector<uint8_t> bytes;
  pr::Writer w(bytes);
  for (uint64_t id = 1; id <= 5; ++id)
    ASSERT_TRUE(pr::EncodeFrame(pr::TradeStatusInput{}, id, w).ok());
  ASSERT_TRUE(c->SendRaw(bytes).ok());
  int overloaded = 0;
  for (int i = 0; i < 2; ++i) {
    auto f = c->ReadFrame();
    ASSERT_TRUE(f.ok()) << f.status().message();
    ASSERT_TRUE(std::holds_alternative<pr::ErrorReply>(f->message));
    EXPECT_EQ(std::get<pr::ErrorReply>(f->message).code, pr::ErrorCode::kOverloaded);
    ++overloaded;
  }
  EXPECT_EQ(overloaded, 2);
  // Stop while three requests are in the server: each is still answered. The stop has begun
  // once the port refuses connections (the server closes its acceptor first).
  const uint16_t port = server.port();
  std::thread stopper([&] { server.StopAndJoin(); });
  EXPECT_TRUE(testing::WaitUntil([port] {
    const int fd = testing::ConnectLoopback(port);
    if (fd >= 0) ::close(fd);
    return fd < 0;
  }));
  open = true;
  int answered = 0;
  for (int i = 0; i < 3; ++i) {
    auto f = c->ReadFrame();
    if (f.ok() && std::holds_alternative<pr::TradeStatusOutput>(f->message)) ++answered;
  }
  stopper.join();
  EXPECT_EQ(answered, 3);
  EXPECT_TRUE(server.status().ok()) << server.status().message();
}

// A runner as slow as a database transaction that counts how many of it run at once.
class SlowRunner : public bh::BlockingRunner {
 public:
  SlowRunner(std::atomic<int>& running, std::atomic<int>& most) : running_(running), most_(most) {}
  void Run(const pr::Message&, bh::Completion& out) override {
    const int now = ++running_;
    int most = most_.load();
    while (now > most && !most_.compare_exchange_weak(most, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    --running_;
    out.to_market.clear();
    out.reply.emplace<pr::TradeStatusOutput>();
  }

 private:
  std::atomic<int>& running_;
  std::atomic<int>& most_;
};

// One worker is woken for a burst of quick jobs; slow ones must still get a worker each.
TEST(BrokerageHouse, SlowRequestsArrivingTogetherRunInParallel) {
  std::atomic<int> running{0}, most{0};
  bh::ServerOptions options;
  options.workers = 2;
  RunningServer server(options, [&] {
    return Result<std::unique_ptr<bh::BlockingRunner>>(std::make_unique<SlowRunner>(running, most));
  });
  auto c = server.Client();
  // One at a time first, so the queue has measured how long a job takes.
  for (int i = 0; i < 20; ++i)
    ASSERT_TRUE(Holds<pr::TradeStatusOutput>(c->Call(pr::TradeStatusInput{})));
  ASSERT_EQ(most.load(), 1);  // one client, one request at a time
  std::vector<uint8_t> bytes;
  pr::Writer w(bytes);
  for (uint64_t id = 1; id <= 2; ++id)
    ASSERT_TRUE(pr::EncodeFrame(pr::TradeStatusInput{}, id, w).ok());
  for (int round = 0; round < 5; ++round) {
    ASSERT_TRUE(c->SendRaw(bytes).ok());
    for (int i = 0; i < 2; ++i) {
      auto f = c->ReadFrame();
      ASSERT_TRUE(f.ok()) << f.status().message();
      EXPECT_TRUE(std::holds_alternative<pr::TradeStatusOutput>(f->message));
    }
  }
  EXPECT_EQ(most.load(), 2);
}

// A runner that says it took 3 round trips and 5 statements of database work per request.
class CountingRunner : public bh::BlockingRunner {
 public:
  void Run(const pr::Message&, bh::Completion& out) override {
    out.to_market.clear();
    out.reply.emplace<pr::TradeStatusOutput>();
    out.db_round_trips = 3;
    out.db_statements = 5;
  }
};

TEST(BrokerageHouse, WritesItsTotalsPerTypeToTheStatsFileWhenStopped) {
  const std::string path =
      (std::filesystem::temp_directory_path() / fmt::format("bb-bh-stats-{}.csv", ::getpid()))
          .string();
  bh::ServerOptions options;
  options.stats_file = path;
  RunningServer server(options, [] {
    return Result<std::unique_ptr<bh::BlockingRunner>>(std::make_unique<CountingRunner>());
  });
  auto c = server.Client();
  for (int i = 0; i < 7; ++i)
    ASSERT_TRUE(Holds<pr::TradeStatusOutput>(c->Call(pr::TradeStatusInput{})));
  c.reset();
  server.StopAndJoin();
  EXPECT_TRUE(server.status().ok()) << server.status().message();
  std::ifstream in(path);
  std::string head, row, rest;
  std::getline(in, head);
  std::getline(in, row);
  EXPECT_FALSE(std::getline(in, rest)) << "one type only, got also: " << rest;
  EXPECT_EQ(head,
            "type,requests,ok,rollback,warning,invalid,retry_exhausted,db_error,net_error,timeout,"
            "retries,server_us,db_round_trips,db_statements");
  EXPECT_THAT(row, ::testing::StartsWith("TS,7,7,0,0,0,0,0,0,0,0,"));
  EXPECT_THAT(row, ::testing::EndsWith(",21,35"));
  std::filesystem::remove(path);
  // An unwritable file fails the stop, naming the option and the file.
  bh::ServerOptions bad;
  bad.stats_file = "/nonexistent-dir/stats.csv";
  RunningServer failing(bad);
  failing.StopAndJoin();
  EXPECT_THAT(failing.status().message(),
              HasSubstr("--stats-file /nonexistent-dir/stats.csv: No such file"));
}

TEST(BrokerageHouse, AnUnreachableMarketDoesNotSlowCustomerTransactions) {
  bh::ServerOptions options;
  options.market = HostPort{"127.0.0.1", 1};  // nothing listens there
  RunningServer server(options);
  auto c = server.Client();
  pr::TradeOrderInput order;
  order.trade_type_id = "TMB";
  order.trade_qty = 100;
  order.symbol = "ABC";
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(Holds<pr::TradeOrderOutput>(c->Call(order)));
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LT(elapsed, std::chrono::seconds(5));
  for (int i = 0; i < 100 && server.stats().market_failed.load() < 200; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(server.stats().market_failed.load(), 200u);
  EXPECT_EQ(server.stats().market_sent.load(), 0u);
}

// On one host the programs talk over a Unix-domain socket (the controller's default there).
TEST(BrokerageHouse, ServesOverAUnixDomainSocket) {
  const std::string path =
      (std::filesystem::temp_directory_path() / fmt::format("bb-bh-{}.sock", ::getpid())).string();
  bh::ServerOptions options;
  options.listen = HostPort::Unix(path);
  options.identity = {"test bh", kCustomers, kScaleFactor, kDays};
  options.summary_seconds = 0;
  options.workers = 2;
  bh::Server server(
      options, [] { return Result<std::unique_ptr<bh::BlockingRunner>>(bh::MakeCannedRunner()); });
  Status status;
  std::thread thread([&] { status = server.Run(); });
  for (int i = 0; i < 500 && !server.listening(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(server.listening()) << status.message();
  EXPECT_EQ(server.port(), 0);
  {
    BhClient c;
    ASSERT_TRUE(c.Connect(HostPort::Unix(path)).ok());
    ASSERT_TRUE(c.Hello(kCustomers, kScaleFactor, kDays).ok());
    for (int i = 0; i < 100; ++i) {
      EXPECT_TRUE(Holds<pr::TradeStatusOutput>(c.Call(pr::TradeStatusInput{})));
    }
  }
  server.Stop();
  thread.join();
  EXPECT_TRUE(status.ok()) << status.message();
  std::filesystem::remove(path);
}

TEST(BrokerageHouse, ABusyAddressIsAClearError) {
  RunningServer first;
  bh::ServerOptions options;
  options.listen = {"127.0.0.1", first.port()};
  options.identity = {"second", kCustomers, kScaleFactor, kDays};
  bh::Server second(
      options, [] { return Result<std::unique_ptr<bh::BlockingRunner>>(bh::MakeCannedRunner()); });
  Status s = second.Run();
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr(fmt::format("--listen 127.0.0.1:{}", first.port())));
}

}  // namespace bb::bh_server_test
