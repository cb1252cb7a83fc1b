// bb-netbench's parts on loopback: the echo server echoes for the echo client; the BH client
// gets every Trade-Status reply from an in-process --no-db Brokerage House, and the server
// counted exactly what the client did; a refused hello and an unreachable target fail with a
// message that says so.
#include <chrono>
#include <memory>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "brokerage_house/netbench/echo_server.h"
#include "brokerage_house/netbench/load_client.h"
#include "brokerage_house/server.h"

namespace bb::netbench {
namespace {

using ::testing::HasSubstr;

template <typename S>
uint16_t WaitForPort(const S& server) {
  for (int i = 0; i < 500 && server.port() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return server.port();
}

TEST(Netbench, EchoClientGetsItsBytesBack) {
  EchoServer server({});
  std::jthread thread([&] { EXPECT_TRUE(server.Run().ok()); });
  LoadOptions o;
  o.target = {"127.0.0.1", WaitForPort(server)};
  o.mode = LoadMode::kEcho;
  o.connections = 4;
  o.seconds = 0.3;
  auto r = RunLoad(o);
  server.Stop();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_GT(r->requests, 0u);
  EXPECT_EQ(r->errors, 0u);
  EXPECT_EQ(r->reply_bytes, r->request_bytes);
  EXPECT_LE(r->p50_micros, r->p99_micros);
  EXPECT_THAT(FormatReport(o, *r), HasSubstr("mode=echo connections=4 "));
}

class NoDbServer {
 public:
  NoDbServer() {
    bh::ServerOptions options;
    options.listen = {"127.0.0.1", 0};
    options.identity = {"test bh", 1000, 500, 10};
    options.summary_seconds = 0;
    options.workers = 2;
    server_ = std::make_unique<bh::Server>(
        options, [] { return Result<std::unique_ptr<bh::Handler>>(bh::MakeCannedHandler()); });
    thread_ = std::jthread([this] { EXPECT_TRUE(server_->Run().ok()); });
    WaitForPort(*server_);
  }
  ~NoDbServer() { server_->Stop(); }
  bh::Server& server() { return *server_; }

 private:
  std::unique_ptr<bh::Server> server_;
  std::jthread thread_;
};

TEST(Netbench, BhClientGetsEveryReplyAndTheServerCountsThem) {
  NoDbServer bh;
  LoadOptions o;
  o.target = {"127.0.0.1", bh.server().port()};
  o.connections = 8;
  o.seconds = 0.3;
  auto r = RunLoad(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_GT(r->requests, 0u);
  EXPECT_EQ(r->errors, 0u);
  EXPECT_GT(r->reply_bytes, size_t{24});
  EXPECT_EQ(bh.server().stats().of(protocol::MessageType::kTradeStatusInput).requests.load(),
            r->completed);
}

TEST(Netbench, BhClientFailsOnARefusedHello) {
  NoDbServer bh;
  LoadOptions o;
  o.target = {"127.0.0.1", bh.server().port()};
  o.initial_trade_days = 300;
  o.seconds = 0.1;
  auto r = RunLoad(o);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("hello refused"));
  EXPECT_THAT(r.status().message(), HasSubstr("initial trade days 300"));
}

TEST(Netbench, ClientFailsOnAnUnreachableTarget) {
  LoadOptions o;
  o.target = {"127.0.0.1", 1};  // nothing listens on port 1 of loopback here
  o.seconds = 0.1;
  auto r = RunLoad(o);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("connect 127.0.0.1:1"));
}

}  // namespace
}  // namespace bb::netbench
