// Shared by the Brokerage House's network tests (bh_server_test.cpp, bh_server_workers_test.cpp,
// bh_server_hostile_test.cpp): the sizing, and an in-process --no-db server on loopback.
#pragma once

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
#include "tests/support/in_process_server.h"

namespace bb::bh_server_test {

namespace pr = protocol;
using testing::BhClient;
using ::testing::HasSubstr;

inline constexpr int64_t kCustomers = 1000;
inline constexpr int32_t kScaleFactor = 500;
inline constexpr int32_t kDays = 10;

// A server on an ephemeral loopback port, run on its own thread.
class RunningServer {
 public:
  explicit RunningServer(
      bh::ServerOptions options = {},
      bh::RunnerFactory factory =
          [] { return Result<std::unique_ptr<bh::BlockingRunner>>(bh::MakeCannedRunner()); })
      : server_(Make(std::move(options), std::move(factory))) {}
  void StopAndJoin() { server_.StopAndJoin(); }
  uint16_t port() const { return server_.port(); }
  bh::Stats& stats() { return server_.server().stats(); }
  const Status& status() const { return server_.status(); }

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
  static std::unique_ptr<bh::Server> Make(bh::ServerOptions options, bh::RunnerFactory factory) {
    options.listen = {"127.0.0.1", 0};
    options.identity = {"test bh", kCustomers, kScaleFactor, kDays};
    options.summary_seconds = 0;
    if (options.workers == 4) options.workers = 2;
    return std::make_unique<bh::Server>(options, std::move(factory));
  }

  testing::InProcessServer<bh::Server> server_;
};

template <typename T>
bool Holds(const Result<pr::Message>& r) {
  return r.ok() && std::holds_alternative<T>(*r);
}

}  // namespace bb::bh_server_test
