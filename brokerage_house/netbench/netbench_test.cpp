// bb-netbench's parts on loopback: the echo server answers the hello and echoes for the echo
// client, on one client thread or two; the BH client gets every Trade-Status reply from an
// in-process --no-db Brokerage House, and the server counted exactly what the client did; a
// refused hello and an unreachable target fail with a message that says so.
#include <memory>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "brokerage_house/netbench/echo_server.h"
#include "brokerage_house/netbench/load_client.h"
#include "brokerage_house/server.h"
#include "tests/support/in_process_server.h"

namespace bb::netbench {
namespace {

using ::testing::HasSubstr;

class EchoClient : public ::testing::TestWithParam<int> {};

TEST_P(EchoClient, GetsItsRequestsBackOnEveryThread) {
  testing::InProcessServer<EchoServer> echo(std::make_unique<EchoServer>(EchoServerOptions{}));
  ASSERT_NE(echo.port(), 0);
  LoadOptions o;
  o.target = {"127.0.0.1", echo.port()};
  o.mode = LoadMode::kEcho;
  o.connections = 4;
  o.threads = GetParam();
  o.seconds = 0.3;
  auto r = RunLoad(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_GT(r->requests, 0u);
  EXPECT_EQ(r->errors, 0u);
  EXPECT_EQ(r->reply_bytes, r->request_bytes);
  EXPECT_LE(r->p50_micros, r->p99_micros);
  EXPECT_THAT(FormatReport(o, *r), HasSubstr("mode=echo connections=4 "));
}

INSTANTIATE_TEST_SUITE_P(Threads, EchoClient, ::testing::Values(1, 2));

std::unique_ptr<bh::Server> NoDbServer() {
  bh::ServerOptions options;
  options.listen = {"127.0.0.1", 0};
  options.identity = {"test bh", 1000, 500, 10};
  options.summary_seconds = 0;
  options.workers = 2;
  return std::make_unique<bh::Server>(
      options, [] { return Result<std::unique_ptr<bh::BlockingRunner>>(bh::MakeCannedRunner()); });
}

TEST(Netbench, BhClientGetsEveryReplyAndTheServerCountsThem) {
  testing::InProcessServer<bh::Server> bh(NoDbServer());
  LoadOptions o;
  o.target = {"127.0.0.1", bh.port()};
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
  testing::InProcessServer<bh::Server> bh(NoDbServer());
  LoadOptions o;
  o.target = {"127.0.0.1", bh.port()};
  o.initial_trade_days = 300;
  o.seconds = 0.1;
  auto r = RunLoad(o);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("refused the hello"));
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
