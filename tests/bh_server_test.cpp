// The Brokerage House's network side in --no-db mode (canned replies) on loopback: the hello
// and its sizing check, every transaction type, many concurrent clients, bad input from one
// client (garbage, bad bodies, a disconnect inside a frame, 10,000 fuzzed frames) leaving the
// others untouched, overload, an unreachable market emulator, and a graceful stop that still
// answers what was queued. Hostile and careless clients (issue 16): half-closed connections
// get every reply, headers without their bodies cost no memory, a client that never reads is
// not read either, a refused hello closes, and running out of descriptors neither spins nor
// floods the log.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "brokerage_house/server.h"
#include "common/protocol/frame.h"
#include "tests/support/bh_client.h"
#include "tests/support/hostile_peer.h"

namespace bb {
namespace {

namespace pr = protocol;
using testing::BhClient;
using ::testing::HasSubstr;

constexpr int64_t kCustomers = 1000;
constexpr int32_t kScaleFactor = 500;
constexpr int32_t kDays = 10;

// A server on an ephemeral loopback port, run on its own thread.
class RunningServer {
 public:
  explicit RunningServer(
      bh::ServerOptions options = {}, bh::HandlerFactory factory = [] {
        return Result<std::unique_ptr<bh::Handler>>(bh::MakeCannedHandler());
      }) {
    options.listen = {"127.0.0.1", 0};
    options.identity = {"test bh", kCustomers, kScaleFactor, kDays};
    options.summary_seconds = 0;
    if (options.workers == 4) options.workers = 2;
    server_ = std::make_unique<bh::Server>(options, std::move(factory));
    thread_ = std::thread([this] { status_ = server_->Run(); });
    for (int i = 0; i < 500 && server_->port() == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  ~RunningServer() { StopAndJoin(); }
  void StopAndJoin() {
    if (!thread_.joinable()) return;
    server_->Stop();
    thread_.join();
  }
  uint16_t port() const { return server_->port(); }
  bh::Stats& stats() { return server_->stats(); }
  const Status& status() const { return status_; }

  std::unique_ptr<BhClient> Client(bool hello = true) {
    auto c = std::make_unique<BhClient>();
    Status s = c->Connect("127.0.0.1", port());
    EXPECT_TRUE(s.ok()) << s.message();
    if (hello) {
      s = c->Hello(kCustomers, kScaleFactor, kDays);
      EXPECT_TRUE(s.ok()) << s.message();
    }
    return c;
  }

 private:
  std::unique_ptr<bh::Server> server_;
  std::thread thread_;
  Status status_;
};

template <typename T>
bool Holds(const Result<pr::Message>& r) {
  return r.ok() && std::holds_alternative<T>(*r);
}

TEST(BrokerageHouse, RefusesAHelloWithAnotherSizingNamingBoth) {
  RunningServer server;
  BhClient c;
  ASSERT_TRUE(c.Connect("127.0.0.1", server.port()).ok());
  Status s = c.Hello(kCustomers, kScaleFactor, 300);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("initial trade days 300"));
  EXPECT_THAT(s.message(), HasSubstr("initial trade days 10"));
}

TEST(BrokerageHouse, WantsAHelloBeforeRequests) {
  RunningServer server;
  auto c = server.Client(/*hello=*/false);
  auto r = c->Call(pr::TradeStatusInput{});
  ASSERT_TRUE(Holds<pr::ErrorReply>(r));
  EXPECT_EQ(std::get<pr::ErrorReply>(*r).code, pr::ErrorCode::kUnexpectedMessage);
  EXPECT_THAT(std::get<pr::ErrorReply>(*r).text, HasSubstr("hello"));
}

TEST(BrokerageHouse, AnswersEveryTransactionTypeWithItsReply) {
  RunningServer server;
  auto c = server.Client();
  EXPECT_TRUE(Holds<pr::BrokerVolumeOutput>(c->Call(pr::BrokerVolumeInput{})));
  EXPECT_TRUE(Holds<pr::CustomerPositionOutput>(c->Call(pr::CustomerPositionInput{})));
  EXPECT_TRUE(Holds<pr::MarketFeedOutput>(c->Call(pr::MarketFeedInput{})));
  EXPECT_TRUE(Holds<pr::MarketWatchOutput>(c->Call(pr::MarketWatchInput{})));
  EXPECT_TRUE(Holds<pr::SecurityDetailOutput>(c->Call(pr::SecurityDetailInput{})));
  pr::TradeLookupInput lookup;
  EXPECT_TRUE(Holds<pr::TradeLookupOutput>(c->Call(lookup)));
  pr::TradeOrderInput order;
  order.trade_type_id = "TMB";
  order.trade_qty = 100;
  auto to = c->Call(order);
  ASSERT_TRUE(Holds<pr::TradeOrderOutput>(to));
  EXPECT_GT(std::get<pr::TradeOrderOutput>(*to).trade_id, 0);
  EXPECT_TRUE(Holds<pr::TradeResultOutput>(c->Call(pr::TradeResultInput{})));
  EXPECT_TRUE(Holds<pr::TradeStatusOutput>(c->Call(pr::TradeStatusInput{})));
  pr::TradeUpdateInput update;
  EXPECT_TRUE(Holds<pr::TradeUpdateOutput>(c->Call(update)));
  EXPECT_TRUE(Holds<pr::DataMaintenanceOutput>(c->Call(pr::DataMaintenanceInput{})));
  EXPECT_TRUE(Holds<pr::TradeCleanupOutput>(c->Call(pr::TradeCleanupInput{})));
  // A reply type sent to the server is refused, and the connection goes on.
  auto wrong = c->Call(pr::TradeStatusOutput{});
  ASSERT_TRUE(Holds<pr::ErrorReply>(wrong));
  EXPECT_THAT(std::get<pr::ErrorReply>(*wrong).text, HasSubstr("not a request"));
  EXPECT_TRUE(Holds<pr::TradeStatusOutput>(c->Call(pr::TradeStatusInput{})));
}

TEST(BrokerageHouse, ServesManyConcurrentClients) {
  RunningServer server;
  constexpr int kClients = 32, kRequests = 200;
  std::atomic<int> answered{0};
  {
    std::vector<std::jthread> clients;
    for (int i = 0; i < kClients; ++i) {
      clients.emplace_back([&] {
        auto c = server.Client();
        for (int n = 0; n < kRequests; ++n) {
          if (Holds<pr::TradeStatusOutput>(c->Call(pr::TradeStatusInput{}))) ++answered;
        }
      });
    }
  }
  EXPECT_EQ(answered.load(), kClients * kRequests);
}

TEST(BrokerageHouse, AnswersABadBodyAndKeepsTheConnection) {
  RunningServer server;
  auto c = server.Client();
  // A valid header whose Trade-Lookup body names frame 9.
  pr::TradeLookupInput lookup;
  std::vector<uint8_t> bytes;
  pr::Writer w(bytes);
  ASSERT_TRUE(pr::EncodeFrame(lookup, 77, w).ok());
  // frame_to_execute is the body's first field (i32): make it 9.
  bytes[pr::kFrameHeaderBytes] = 9;
  ASSERT_TRUE(c->SendRaw(bytes).ok());
  auto frame = c->ReadFrame();
  ASSERT_TRUE(frame.ok()) << frame.status().message();
  EXPECT_EQ(frame->header.request_id, 77u);
  ASSERT_TRUE(std::holds_alternative<pr::ErrorReply>(frame->message));
  EXPECT_THAT(std::get<pr::ErrorReply>(frame->message).text, HasSubstr("frame"));
  EXPECT_TRUE(Holds<pr::TradeStatusOutput>(c->Call(pr::TradeStatusInput{})));
}

TEST(BrokerageHouse, AnswersGarbageThenClosesAndServesTheOthers) {
  RunningServer server;
  auto good = server.Client();
  auto bad = server.Client();
  std::vector<uint8_t> garbage(64, 0xAB);
  ASSERT_TRUE(bad->SendRaw(garbage).ok());
  auto frame = bad->ReadFrame();
  ASSERT_TRUE(frame.ok()) << frame.status().message();
  ASSERT_TRUE(std::holds_alternative<pr::ErrorReply>(frame->message));
  EXPECT_THAT(std::get<pr::ErrorReply>(frame->message).text, HasSubstr("magic"));
  EXPECT_FALSE(bad->ReadFrame().ok());  // closed
  EXPECT_TRUE(Holds<pr::TradeStatusOutput>(good->Call(pr::TradeStatusInput{})));
  EXPECT_GE(server.stats().malformed_frames.load(), 1u);
}

TEST(BrokerageHouse, SurvivesADisconnectInsideAFrame) {
  RunningServer server;
  auto good = server.Client();
  {
    auto quitter = server.Client();
    std::vector<uint8_t> bytes;
    pr::Writer w(bytes);
    ASSERT_TRUE(pr::EncodeFrame(pr::TradeStatusInput{}, 5, w).ok());
    bytes.resize(bytes.size() - 3);  // the last bytes never come
    ASSERT_TRUE(quitter->SendRaw(bytes).ok());
    quitter->Close();
  }
  for (int i = 0; i < 10; ++i) {
    EXPECT_TRUE(Holds<pr::TradeStatusOutput>(good->Call(pr::TradeStatusInput{})));
  }
}

// Acceptance (issue 5): 10,000 malformed frames from a fuzzing client while 16 good clients
// run: no crash, every good request answered, every malformed one answered with an error or
// its connection closed.
TEST(BrokerageHouse, TenThousandMalformedFramesDisturbNoGoodClient) {
  RunningServer server;
  std::atomic<bool> fuzzing{true};
  std::atomic<int> good_answered{0}, good_sent{0};
  std::vector<std::jthread> good;
  for (int i = 0; i < 16; ++i) {
    good.emplace_back([&] {
      auto c = server.Client();
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (fuzzing && std::chrono::steady_clock::now() < deadline) {
        ++good_sent;
        if (Holds<pr::TradeStatusOutput>(c->Call(pr::TradeStatusInput{}))) ++good_answered;
      }
    });
  }
  std::mt19937_64 rng(20261121);
  std::vector<uint8_t> valid;
  pr::Writer w(valid);
  pr::TradeOrderInput order;
  order.trade_type_id = "TLB";
  order.symbol = "ABC";
  ASSERT_TRUE(pr::EncodeFrame(order, 1, w).ok());
  // Each malformed frame goes on a connection of its own, which then half-closes: whatever
  // the server makes of the bytes (a bad header, a bad body, a body it waits for), the
  // client sees an answer or the end of the connection, never a hang.
  int malformed = 0, answered = 0, closed_without_answer = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (; malformed < 10000 && std::chrono::steady_clock::now() < deadline; ++malformed) {
    auto fuzzer = server.Client();
    std::vector<uint8_t> bytes = valid;
    switch (rng() % 4) {
      case 0:  // corrupt the header
        bytes[rng() % pr::kFrameHeaderBytes] ^= static_cast<uint8_t>(1 + rng() % 255);
        break;
      case 1:  // an oversized length
        bytes[20] = 0xFF, bytes[21] = 0xFF, bytes[22] = 0xFF;
        break;
      case 2:  // a body byte turned into something invalid
        bytes[pr::kFrameHeaderBytes + rng() % (bytes.size() - pr::kFrameHeaderBytes)] = 0xFF;
        break;
      default:  // an unknown message type
        bytes[6] = 0xEE, bytes[7] = 0xEE;
        break;
    }
    ASSERT_TRUE(fuzzer->SendRaw(bytes).ok());
    fuzzer->ShutdownSend();
    auto reply = fuzzer->ReadFrame();
    if (!reply.ok()) {
      ++closed_without_answer;  // e.g. the header promised more body than came
    } else if (std::holds_alternative<pr::ErrorReply>(reply->message) ||
               std::holds_alternative<pr::TradeOrderOutput>(reply->message)) {
      ++answered;  // an error naming the problem, or a mutation that left a valid order
      // A shortened body length splits the bytes into more frames, each answered; then the
      // connection ends.
      bool ended = false;
      for (int more = 0; more < 10 && !ended; ++more) {
        auto next = fuzzer->ReadFrame();
        ended = !next.ok();
        if (next.ok()) {
          EXPECT_TRUE(std::holds_alternative<pr::ErrorReply>(next->message));
        }
      }
      EXPECT_TRUE(ended);
    } else {
      ADD_FAILURE() << "unexpected reply to a malformed frame";
    }
  }
  fuzzing = false;
  good.clear();
  EXPECT_EQ(malformed, 10000);
  EXPECT_EQ(answered + closed_without_answer, malformed);
  EXPECT_GT(answered, 5000);  // most malformations are recognised and answered
  EXPECT_GT(good_sent.load(), 16);
  EXPECT_EQ(good_answered.load(), good_sent.load());
}

// A handler that blocks until released, to fill the queue.
class GateHandler : public bh::Handler {
 public:
  explicit GateHandler(std::atomic<bool>& open) : open_(open) {}
  void Handle(const pr::Message&, bh::HandlerResult& out) override {
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
    return Result<std::unique_ptr<bh::Handler>>(std::make_unique<GateHandler>(open));
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
  // Stop while three requests are in the server: each is still answered.
  std::thread stopper([&] { server.StopAndJoin(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
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

// A handler as slow as a database transaction that counts how many of it run at once.
class SlowHandler : public bh::Handler {
 public:
  SlowHandler(std::atomic<int>& running, std::atomic<int>& most) : running_(running), most_(most) {}
  void Handle(const pr::Message&, bh::HandlerResult& out) override {
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

// The pool wakes one worker for a burst of quick jobs; slow ones must still get a worker each.
TEST(BrokerageHouse, SlowRequestsArrivingTogetherRunInParallel) {
  std::atomic<int> running{0}, most{0};
  bh::ServerOptions options;
  options.workers = 2;
  RunningServer server(options, [&] {
    return Result<std::unique_ptr<bh::Handler>>(std::make_unique<SlowHandler>(running, most));
  });
  auto c = server.Client();
  // One at a time first, so the pool has measured how long a job takes.
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

// A handler that says it took 3 round trips and 5 statements of database work per request.
class CountingHandler : public bh::Handler {
 public:
  void Handle(const pr::Message&, bh::HandlerResult& out) override {
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
    return Result<std::unique_ptr<bh::Handler>>(std::make_unique<CountingHandler>());
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
  bh::Server server(options,
                    [] { return Result<std::unique_ptr<bh::Handler>>(bh::MakeCannedHandler()); });
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
  bh::Server second(options,
                    [] { return Result<std::unique_ptr<bh::Handler>>(bh::MakeCannedHandler()); });
  Status s = second.Run();
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr(fmt::format("--listen 127.0.0.1:{}", first.port())));
}

// ---------------------------------------------------------------------------------------------
// Hostile and careless clients (issue 16).

// A handler as slow as a short transaction, so that replies are still owed when the input ends.
class DelayHandler : public bh::Handler {
 public:
  void Handle(const pr::Message&, bh::HandlerResult& out) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    out.to_market.clear();
    out.reply.emplace<pr::TradeStatusOutput>();
  }
};

std::vector<uint8_t> HelloFrame(int32_t initial_trade_days = kDays) {
  return testing::FrameOf(pr::Hello{pr::kProtocolVersion, "hostile client", kCustomers,
                                    kScaleFactor, initial_trade_days},
                          1);
}

TEST(BrokerageHouse, HalfClosedClientsGetEveryReplyOwedThenTheEnd) {
  RunningServer server(
      {}, [] { return Result<std::unique_ptr<bh::Handler>>(std::make_unique<DelayHandler>()); });
  std::vector<uint8_t> bytes = HelloFrame();
  const auto request = testing::FrameOf(pr::TradeStatusInput{}, 2);
  bytes.insert(bytes.end(), request.begin(), request.end());
  constexpr int kClients = 50;
  std::atomic<int> complete{0};
  {
    std::vector<std::jthread> clients;
    for (int i = 0; i < kClients; ++i) {
      clients.emplace_back([&] {
        BhClient c;
        if (!c.Connect("127.0.0.1", server.port()).ok() || !c.SendRaw(bytes).ok()) return;
        c.ShutdownSend();  // hello and Trade-Status sent: nothing more will come
        auto hello = c.ReadFrame();
        auto reply = c.ReadFrame();
        const bool answered = hello.ok() &&
                              std::holds_alternative<pr::HelloReply>(hello->message) &&
                              reply.ok() && reply->header.request_id == 2 &&
                              std::holds_alternative<pr::TradeStatusOutput>(reply->message);
        if (answered && !c.ReadFrame().ok()) ++complete;  // and then the end of the stream
      });
    }
  }
  EXPECT_EQ(complete.load(), kClients);
}

TEST(BrokerageHouse, HeadersWithoutTheirBodiesCostNoMemory) {
  RunningServer server;
  constexpr int kClients = 500;
  const int64_t before = testing::ResidentBytes();
  const auto header = testing::HeaderOnly(pr::MessageType::kTradeStatusInput, pr::kMaxBodyBytes);
  std::vector<int> fds;
  for (int i = 0; i < kClients; ++i) {
    const int fd = testing::ConnectLoopback(server.port());
    ASSERT_GE(fd, 0) << "connection " << i;
    fds.push_back(fd);
    ASSERT_TRUE(testing::SendAll(fd, header));  // 1 MiB declared, none of it sent
  }
  for (int i = 0; i < 500 && server.stats().clients.load() < kClients; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(server.stats().clients.load(), kClients);
  int64_t most = 0;
  for (int i = 0; i < 30; ++i) {  // the server reads the headers meanwhile
    most = std::max(most, testing::ResidentBytes());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_LT(most - before, 64 << 20) << "resident memory grew from " << before << " to " << most;
  EXPECT_EQ(server.stats().clients.load(), kClients);  // waiting for the bodies, not closed
  for (int fd : fds) ::close(fd);
}

// A client that sends small bad frames as fast as it can and never reads its error replies.
TEST(BrokerageHouse, AClientThatNeverReadsIsNotReadEither) {
  RunningServer server;
  const int fd = testing::ConnectLoopback(server.port());
  ASSERT_GE(fd, 0);
  std::vector<uint8_t> buffer;
  ASSERT_TRUE(testing::SendAll(fd, HelloFrame()));
  ASSERT_TRUE(testing::ReadFrame(fd, buffer).ok());
  // A Trade-Status with no body: a good header, a bad body, answered with an error each.
  const auto bad = testing::HeaderOnly(pr::MessageType::kTradeStatusInput, 0);
  constexpr int64_t kLimit = 150 << 20;
  const testing::Flood flood = testing::FloodWithoutReading(fd, bad, kLimit);
  ASSERT_LT(flood.resident_growth, 64 << 20) << flood.sent << " bytes sent";
  EXPECT_LT(flood.sent, kLimit) << "the server read on while its replies piled up";
  // Reading resumes once the replies drain: every bad frame is answered, then a good one.
  const testing::Drained drained =
      testing::DrainFlood(fd, bad, flood, testing::FrameOf(pr::TradeStatusInput{}, 99), 99);
  ASSERT_TRUE(drained.reply.ok()) << drained.reply.status().message() << " after " << drained.errors
                                  << " errors";
  EXPECT_TRUE(std::holds_alternative<pr::TradeStatusOutput>(drained.reply->message));
  EXPECT_EQ(drained.errors, drained.frames);
  ::close(fd);
}

TEST(BrokerageHouse, ARefusedHelloIsAnsweredThenTheConnectionClosed) {
  RunningServer server;
  testing::CountingLog log;
  std::vector<uint8_t> hellos;
  const auto refused = HelloFrame(300);
  for (int i = 0; i < 5000; ++i) hellos.insert(hellos.end(), refused.begin(), refused.end());
  const int fd = testing::ConnectLoopback(server.port());
  ASSERT_GE(fd, 0);
  (void)testing::SendAll(fd, hellos);  // the server may close before it has taken them all
  std::vector<uint8_t> buffer;
  auto reply = testing::ReadFrame(fd, buffer);
  ASSERT_TRUE(reply.ok()) << reply.status().message();
  ASSERT_TRUE(std::holds_alternative<pr::HelloReply>(reply->message));
  EXPECT_FALSE(std::get<pr::HelloReply>(reply->message).accepted);
  EXPECT_THAT(std::get<pr::HelloReply>(reply->message).reason, HasSubstr("initial trade days 300"));
  EXPECT_TRUE(testing::PeerClosed(fd));
  ::close(fd);
  EXPECT_LE(log.lines(), 3) << log.first_lines();
  EXPECT_THAT(log.first_lines(), HasSubstr("hello refused"));
}

// The descriptor limit of a forked server lowered to 64, 100 idle clients for 5 s: accept backs
// off (under 10 % of a core) and says so once, and once more when it accepts again.
TEST(BrokerageHouse, OutOfDescriptorsAcceptBacksOffAndLogsOncePerEpisode) {
  const std::string log_path =
      (std::filesystem::temp_directory_path() / fmt::format("bb-bh-emfile-{}.log", ::getpid()))
          .string();
  testing::ForkedServer child(
      [](const std::string& port_file) {
        bh::ServerOptions options;
        options.listen = {"127.0.0.1", 0};
        options.identity = {"test bh", kCustomers, kScaleFactor, kDays};
        options.summary_seconds = 0;
        options.workers = 1;
        options.port_file = port_file;
        bh::Server server(
            options, [] { return Result<std::unique_ptr<bh::Handler>>(bh::MakeCannedHandler()); });
        return server.Run().ok() ? 0 : 1;
      },
      64, log_path);
  ASSERT_NE(child.port(), 0);
  std::vector<int> fds;
  for (int i = 0; i < 100; ++i) {
    const int fd = testing::ConnectLoopback(child.port());  // the backlog takes the rest
    ASSERT_GE(fd, 0) << "connection " << i;
    fds.push_back(fd);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const double cpu_before = testing::CpuSeconds(child.pid());
  std::this_thread::sleep_for(std::chrono::seconds(5));
  const double cpu = testing::CpuSeconds(child.pid()) - cpu_before;
  EXPECT_LT(cpu, 0.5) << "seconds of CPU in 5 s";
  for (int fd : fds) ::close(fd);  // descriptors come back: the backlog is accepted, and ends
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  EXPECT_EQ(child.Stop(), 0);
  std::ifstream in(log_path);
  std::string line, text;
  int lines = 0, failed = 0, again = 0;
  while (std::getline(in, line)) {
    ++lines;
    if (line.find("accept failed: Too many open files") != std::string::npos) ++failed;
    if (line.find("accepting connections again") != std::string::npos) ++again;
    if (lines <= 20) text += line + "\n";
  }
  EXPECT_LT(lines, 100) << text;
  EXPECT_EQ(failed, 1) << text;
  EXPECT_EQ(again, 1) << text;
  std::filesystem::remove(log_path);
}

}  // namespace
}  // namespace bb
