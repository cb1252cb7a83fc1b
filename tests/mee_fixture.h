// Shared by the market emulator's tests (mee_test.cpp, mee_hostile_test.cpp, mee_metrics_test.cpp):
// an in-process --no-db Brokerage House and market emulator on loopback, orders sent as the
// Brokerage House sends them, and the mix log's rows counted.
#pragma once

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include "brokerage_house/server.h"
#include "common/util/end_of_run_record.h"
#include "common/util/mix_log.h"
#include "common/workload/market.h"
#include "market_emulator/emulator.h"
#include "tests/support/bh_client.h"
#include "tests/support/end_record_file.h"
#include "tests/support/hostile_peer.h"
#include "tests/support/in_process_server.h"
#include "tests/support/openmetrics_check.h"

namespace bb::mee_test {

namespace pr = protocol;
using ::testing::HasSubstr;

inline const workload::Sizing kSizing{
    .customers = 1000, .scale_factor = 500, .initial_trade_days = 10};

class RunningBh {
 public:
  explicit RunningBh(uint16_t port = 0) : server_(Make(port)) {}
  void Stop() { server_.StopAndJoin(); }
  uint16_t port() const { return server_.port(); }

 private:
  static std::unique_ptr<bh::Server> Make(uint16_t port) {
    bh::ServerOptions options;
    options.listen = {"127.0.0.1", port};
    options.workers = 2;
    options.summary_seconds = 0;
    options.identity = {"test bh", kSizing.customers, static_cast<int32_t>(kSizing.scale_factor),
                        static_cast<int32_t>(kSizing.initial_trade_days)};
    return std::make_unique<bh::Server>(options, [] {
      return Result<std::unique_ptr<bh::BlockingRunner>>(bh::MakeCannedRunner());
    });
  }

  testing::InProcessServer<bh::Server> server_;
};

// A market emulator on its own thread, writing into a fresh directory.
class RunningMee {
 public:
  RunningMee(uint16_t bh_port, size_t max_pending = 100000, int connections = 3,
             int summary_seconds = 0, bool metrics = false) {
    dir_ = std::filesystem::temp_directory_path() /
           fmt::format("mee-test-{}-{}", ::getpid(), counter_++);
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    mee::EmulatorOptions o;
    o.listen = {"127.0.0.1", 0};
    o.bh = {"127.0.0.1", bh_port};
    o.delivery_connections = connections;
    o.max_in_flight = 4;
    o.sizing = kSizing;
    o.seed = 42;
    o.max_pending = max_pending;
    o.out_dir = dir_.string();
    o.summary_seconds = summary_seconds;
    o.drain_seconds = 2;
    if (metrics) o.metrics_listen = HostPort("127.0.0.1", 0);
    o.on_trade_result = [this](int64_t id, const pr::ReplyStatus& s) {
      std::lock_guard lock(mutex_);
      delivered_[id].push_back(s.outcome);
    };
    mee_.emplace(std::make_unique<mee::MarketEmulator>(std::move(o)));
  }
  ~RunningMee() {
    Stop();
    std::filesystem::remove_all(dir_);
  }
  void Stop() {
    if (stopped_) return;
    stopped_ = true;
    mee_->StopAndJoin();
    EXPECT_TRUE(mee_->status().ok()) << mee_->status().message();
  }
  uint16_t port() const { return mee_->port(); }
  uint16_t metrics_port() const { return mee_->server().metrics_port(); }
  std::string MetricsText() const { return mee_->server().MetricsText(); }  // after Stop
  const mee::EmulatorStats& stats() const { return mee_->server().stats(); }
  std::map<int64_t, std::vector<pr::Outcome>> delivered() {
    std::lock_guard lock(mutex_);
    return delivered_;
  }
  bool Has(const char* name) const { return std::filesystem::exists(dir_ / name); }
  // The end-of-run record beside the mix log (it exists only once the emulator has stopped).
  testing::EndRecordFile EndRecord() const {
    return testing::ReadEndRecordFile(
        EndOfRunRecord::PathFor((dir_ / mee::MarketEmulator::kMixLogName).string()));
  }
  std::string ReadFile(const char* name) const {
    std::ifstream in(dir_ / name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // Waits until `done` or the deadline; true if done.
  template <typename F>
  static bool WaitFor(F done, std::chrono::seconds limit) {
    return testing::WaitUntil(done, limit);
  }

 private:
  static inline int counter_ = 0;
  std::filesystem::path dir_;
  std::optional<testing::InProcessServer<mee::MarketEmulator>> mee_;
  bool stopped_ = false;
  std::mutex mutex_;
  std::map<int64_t, std::vector<pr::Outcome>> delivered_;
};

// A Brokerage House's order connection to the market emulator.
inline std::unique_ptr<testing::BhClient> OrderClient(uint16_t port) {
  auto c = std::make_unique<testing::BhClient>();
  EXPECT_TRUE(c->Connect("127.0.0.1", port).ok());
  Status s = c->Hello(kSizing.customers, static_cast<int32_t>(kSizing.scale_factor),
                      static_cast<int32_t>(kSizing.initial_trade_days));
  EXPECT_TRUE(s.ok()) << s.message();
  return c;
}

inline pr::MarketTradeRequest MarketOrder(int64_t id) {
  static const workload::Market market(kSizing);
  pr::MarketTradeRequest r;
  r.trade_id = id;
  r.symbol = market.Symbol(id % market.securities());
  r.trade_qty = 100;
  r.trade_type_id = id % 2 ? "TMB" : "TMS";
  r.action = pr::MarketAction::kProcessOrder;
  return r;
}

// Sends n orders with ids first..first+n-1; returns how many were acked.
inline int SendOrders(testing::BhClient& c, int64_t first, int n) {
  int acked = 0;
  for (int64_t id = first; id < first + n; ++id) {
    auto reply = c.Call(MarketOrder(id));
    if (reply.ok() && std::holds_alternative<pr::MarketTradeAck>(*reply) &&
        std::get<pr::MarketTradeAck>(*reply).trade_id == id) {
      ++acked;
    }
  }
  return acked;
}

struct MixCounts {
  std::map<std::string, int> codes;
  int rows_with_wait = 0;
  int bad_lines = 0;
  std::set<int64_t> users;
};

// Parses a mix log exactly as postprocess/MIXLOG.md describes it.
inline MixCounts ParseMixLog(const std::string& text) {
  MixCounts m;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, MixLog::kHeader);
  std::getline(in, line);
  EXPECT_EQ(line, MixLog::kColumns);
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ls(line);
    std::string field;
    while (std::getline(ls, field, ',')) f.push_back(field);
    if (line.back() == ',') f.push_back("");
    if (f.size() != 10) {
      ++m.bad_lines;
      continue;
    }
    m.codes[f[1]]++;
    if (f[1] == "START" || f[1] == "STOP") continue;
    if (f[1] != "TR" && f[1] != "MF") ++m.bad_lines;
    if (std::stoll(f[0]) < 1'600'000'000'000'000 || std::stoll(f[4]) <= 0) ++m.bad_lines;
    if (f[3] != "ok") ++m.bad_lines;
    if (!f[8].empty()) ++m.bad_lines;  // inputs: the customer emulator's only
    // trade_id: every Trade-Result's (the trade it completes), no Market-Feed's.
    if ((f[1] == "TR") != (!f[9].empty() && std::stoll(f[9]) > 0)) ++m.bad_lines;
    if (!f[7].empty() && std::stoll(f[7]) >= 0) ++m.rows_with_wait;
    m.users.insert(std::stoll(f[6]));
  }
  return m;
}

}  // namespace bb::mee_test
