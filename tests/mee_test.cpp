// The market emulator against an in-process Brokerage House with canned replies (--no-db), on
// loopback: every market order yields exactly one Trade-Result delivery, a Market-Feed comes
// once per ten Trade-Results, the mix log has the documented format with wait_us filled, a
// sizing mismatch is refused naming both sides, the pending cap refuses and logs, what is left at
// the stop is pending or failed (never both, never neither), a Brokerage House stopped and
// restarted mid-run loses no order silently, and the summary line has the Trade-Results per
// second and their 90th percentile. Hostile and careless order connections (issue 16):
// a half-closed one gets every ack, headers without their bodies cost no memory, one that never
// reads is not read either, a refused hello closes, and running out of descriptors neither
// spins nor floods the log.
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
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
#include "common/util/mix_log.h"
#include "common/workload/market.h"
#include "market_emulator/emulator.h"
#include "tests/support/bh_client.h"
#include "tests/support/hostile_peer.h"
#include "tests/support/openmetrics_check.h"

namespace bb {
namespace {

namespace pr = protocol;
using ::testing::HasSubstr;

const workload::Sizing kSizing{.customers = 1000, .scale_factor = 500, .initial_trade_days = 10};

class RunningBh {
 public:
  explicit RunningBh(uint16_t port = 0) {
    bh::ServerOptions options;
    options.listen = {"127.0.0.1", port};
    options.workers = 2;
    options.summary_seconds = 0;
    options.identity = {"test bh", kSizing.customers, static_cast<int32_t>(kSizing.scale_factor),
                        static_cast<int32_t>(kSizing.initial_trade_days)};
    server_ = std::make_unique<bh::Server>(
        options, [] { return Result<std::unique_ptr<bh::Handler>>(bh::MakeCannedHandler()); });
    thread_ = std::thread([this] { status_ = server_->Run(); });
    for (int i = 0; i < 500 && server_->port() == 0 && !done_; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  ~RunningBh() { Stop(); }
  void Stop() {
    if (!thread_.joinable()) return;
    server_->Stop();
    thread_.join();
  }
  uint16_t port() const { return server_->port(); }

 private:
  std::unique_ptr<bh::Server> server_;
  std::thread thread_;
  Status status_;
  bool done_ = false;
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
    mee_ = std::make_unique<mee::MarketEmulator>(std::move(o));
    thread_ = std::thread([this] { status_ = mee_->Run(); });
    for (int i = 0; i < 500 && mee_->port() == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  ~RunningMee() {
    Stop();
    std::filesystem::remove_all(dir_);
  }
  void Stop() {
    if (!thread_.joinable()) return;
    mee_->Stop();
    thread_.join();
    EXPECT_TRUE(status_.ok()) << status_.message();
  }
  uint16_t port() const { return mee_->port(); }
  uint16_t metrics_port() const { return mee_->metrics_port(); }
  std::string MetricsText() const { return mee_->MetricsText(); }  // after Stop
  const mee::EmulatorStats& stats() const { return mee_->stats(); }
  std::map<int64_t, std::vector<pr::Outcome>> delivered() {
    std::lock_guard lock(mutex_);
    return delivered_;
  }
  bool Has(const char* name) const { return std::filesystem::exists(dir_ / name); }
  std::string ReadFile(const char* name) const {
    std::ifstream in(dir_ / name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // Waits until `done` or the deadline; true if done.
  template <typename F>
  static bool WaitFor(F done, std::chrono::seconds limit) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
  }

 private:
  static inline int counter_ = 0;
  std::filesystem::path dir_;
  std::unique_ptr<mee::MarketEmulator> mee_;
  std::thread thread_;
  Status status_;
  std::mutex mutex_;
  std::map<int64_t, std::vector<pr::Outcome>> delivered_;
};

// A Brokerage House's order connection to the market emulator.
std::unique_ptr<testing::BhClient> OrderClient(uint16_t port) {
  auto c = std::make_unique<testing::BhClient>();
  EXPECT_TRUE(c->Connect("127.0.0.1", port).ok());
  Status s = c->Hello(kSizing.customers, static_cast<int32_t>(kSizing.scale_factor),
                      static_cast<int32_t>(kSizing.initial_trade_days));
  EXPECT_TRUE(s.ok()) << s.message();
  return c;
}

pr::MarketTradeRequest MarketOrder(int64_t id) {
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
int SendOrders(testing::BhClient& c, int64_t first, int n) {
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
MixCounts ParseMixLog(const std::string& text) {
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
    if (f.size() != 9) {
      ++m.bad_lines;
      continue;
    }
    m.codes[f[1]]++;
    if (f[1] == "START" || f[1] == "STOP") continue;
    if (f[1] != "TR" && f[1] != "MF") ++m.bad_lines;
    if (std::stoll(f[0]) < 1'600'000'000'000'000 || std::stoll(f[4]) <= 0) ++m.bad_lines;
    if (f[3] != "ok") ++m.bad_lines;
    if (!f[8].empty()) ++m.bad_lines;  // inputs: the customer emulator's only
    if (!f[7].empty() && std::stoll(f[7]) >= 0) ++m.rows_with_wait;
    m.users.insert(std::stoll(f[6]));
  }
  return m;
}

TEST(MarketEmulator, EveryMarketOrderGetsExactlyOneTradeResultAndAFeedPerTen) {
  RunningBh bh;
  ASSERT_NE(bh.port(), 0);
  RunningMee mee(bh.port());
  ASSERT_NE(mee.port(), 0);
  constexpr int kOrders = 400;
  auto c = OrderClient(mee.port());
  ASSERT_EQ(SendOrders(*c, 1, kOrders), kOrders);
  ASSERT_TRUE(RunningMee::WaitFor(
      [&] {
        return mee.stats().trade_results_delivered.load() >= kOrders &&
               mee.stats().market_feeds_delivered.load() >= kOrders / 10;
      },
      std::chrono::seconds(20)))
      << mee.stats().trade_results_delivered.load() << " Trade-Results delivered";
  mee.Stop();
  auto delivered = mee.delivered();
  ASSERT_EQ(delivered.size(), static_cast<size_t>(kOrders));
  for (const auto& [id, outcomes] : delivered) {
    EXPECT_GE(id, 1);
    EXPECT_LE(id, kOrders);
    EXPECT_EQ(outcomes, std::vector<pr::Outcome>{pr::Outcome::kOk}) << "trade " << id;
  }
  EXPECT_EQ(mee.stats().market_feeds_delivered.load(), kOrders / 10);
  EXPECT_EQ(mee.stats().unfinished_at_stop.load(), 0);
  MixCounts m = ParseMixLog(mee.ReadFile(mee::MarketEmulator::kMixLogName));
  EXPECT_EQ(m.bad_lines, 0);
  EXPECT_EQ(m.codes["TR"], kOrders);
  EXPECT_EQ(m.codes["MF"], kOrders / 10);
  EXPECT_EQ(m.codes["START"], 1);
  EXPECT_EQ(m.codes["STOP"], 1);
  EXPECT_EQ(m.rows_with_wait, kOrders + kOrders / 10);
  EXPECT_EQ(m.users, (std::set<int64_t>{0, 1, 2}));  // every delivery connection was used
  EXPECT_EQ(mee.ReadFile(mee::MarketEmulator::kFailedName), "trade_id,code,reason\n");
  EXPECT_EQ(mee.ReadFile(mee::MarketEmulator::kPendingName), "trade_id,code,state\n");
}

TEST(MarketEmulator, RefusesAHelloWithAnotherSizingNamingBoth) {
  RunningMee mee(1);
  testing::BhClient c;
  ASSERT_TRUE(c.Connect("127.0.0.1", mee.port()).ok());
  Status s = c.Hello(2000, 500, 10);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("customers 2000"));
  EXPECT_THAT(s.message(), HasSubstr("customers 1000"));
}

// trade id -> the third field of each line of a failed-trades.csv or pending-trades.csv.
std::map<int64_t, std::string> ByTrade(const std::string& text, const std::string& header) {
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, header);
  std::map<int64_t, std::string> out;
  while (std::getline(in, line)) {
    const auto second = line.find(',', line.find(',') + 1);
    EXPECT_TRUE(out.emplace(std::stoll(line), line.substr(second + 1)).second) << line;
  }
  return out;
}

TEST(MarketEmulator, AtTheStopOrdersStillInTheMarketArePendingAndUnsentResultsFailed) {
  // Port 1: no Brokerage House, nothing is delivered. Orders 1-25 complete within 5 s and wait
  // to be sent, with the two Market-Feeds their 50 ticker entries make; 26-48 are sent just
  // before the stop (within their delay); 49-60 meet the cap of 50.
  RunningMee mee(1, /*max_pending=*/50);
  auto c = OrderClient(mee.port());
  int acked = 0, overloaded = 0;
  auto send = [&](int64_t first, int64_t last) {
    for (int64_t id = first; id <= last; ++id) {
      auto reply = c->Call(MarketOrder(id));
      ASSERT_TRUE(reply.ok());
      if (std::holds_alternative<pr::MarketTradeAck>(*reply)) ++acked;
      if (const auto* e = std::get_if<pr::ErrorReply>(&*reply)) {
        EXPECT_EQ(e->code, pr::ErrorCode::kOverloaded);
        EXPECT_THAT(e->text, HasSubstr("50 orders pending"));
        ++overloaded;
      }
    }
  };
  send(1, 25);
  std::this_thread::sleep_for(std::chrono::milliseconds(5300));
  send(26, 60);
  EXPECT_EQ(acked, 48);
  EXPECT_EQ(overloaded, 12);
  // Written only at the end: a market emulator killed before it has none.
  EXPECT_FALSE(mee.Has(mee::MarketEmulator::kPendingName));
  mee.Stop();
  auto failed = ByTrade(mee.ReadFile(mee::MarketEmulator::kFailedName), "trade_id,code,reason");
  auto pending = ByTrade(mee.ReadFile(mee::MarketEmulator::kPendingName), "trade_id,code,state");
  for (int64_t id = 1; id <= 60; ++id) {
    EXPECT_NE(failed.count(id), pending.count(id)) << "trade " << id << ": in one file, once";
  }
  for (int64_t id = 1; id <= 25; ++id) {
    EXPECT_EQ(failed[id], "Trade-Result due but not sent") << "trade " << id;
  }
  for (int64_t id = 49; id <= 60; ++id) {
    EXPECT_THAT(failed[id], HasSubstr("50 orders pending")) << "trade " << id;
  }
  // Of 26-48, only one whose delay was a few milliseconds can have become due before the stop.
  EXPECT_GE(pending.size(), 15u);
  for (const auto& [id, state] : pending) {
    EXPECT_EQ(state, "in its completion delay") << "trade " << id;
    EXPECT_GE(id, 26);
    EXPECT_LE(id, 48);
  }
  EXPECT_EQ(mee.stats().unfinished_at_stop.load(), 48);
  EXPECT_EQ(mee.stats().pending_at_stop.load(), static_cast<int64_t>(pending.size()));
}

TEST(MarketEmulator, ABrokerageHouseRestartLosesNoOrderSilently) {
  auto bh = std::make_unique<RunningBh>();
  const uint16_t bh_port = bh->port();
  ASSERT_NE(bh_port, 0);
  RunningMee mee(bh_port);
  constexpr int kOrders = 300;
  auto c = OrderClient(mee.port());
  ASSERT_EQ(SendOrders(*c, 1, kOrders / 2), kOrders / 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  bh->Stop();  // some Trade-Results delivered, most still waiting for their delay
  ASSERT_EQ(SendOrders(*c, kOrders / 2 + 1, kOrders / 2), kOrders / 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const int64_t before_restart = mee.stats().trade_results_delivered.load();
  EXPECT_GT(mee.stats().due.load(), 0) << "nothing waited for the Brokerage House";
  bh = std::make_unique<RunningBh>(bh_port);
  ASSERT_EQ(bh->port(), bh_port);
  ASSERT_TRUE(RunningMee::WaitFor(
      [&] {
        return mee.stats().trade_results_delivered.load() + mee.stats().lost_in_flight.load() >=
               kOrders;
      },
      std::chrono::seconds(20)));
  mee.Stop();
  EXPECT_GT(mee.stats().trade_results_delivered.load(), before_restart);
  // Each order is either delivered once or in the failed file, never both, never neither.
  std::set<int64_t> failed;  // Trade-Results
  int64_t failed_lines = 0;  // Trade-Results and Market-Feeds
  std::istringstream in(mee.ReadFile(mee::MarketEmulator::kFailedName));
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    ++failed_lines;
    if (line.find(",TR,") != std::string::npos) failed.insert(std::stoll(line));
  }
  auto delivered = mee.delivered();
  for (int64_t id = 1; id <= kOrders; ++id) {
    const bool ok = delivered.count(id) == 1 && delivered[id].size() == 1 &&
                    delivered[id][0] == pr::Outcome::kOk;
    EXPECT_NE(ok, failed.count(id) == 1) << "trade " << id;
  }
  // Every delivery lost in flight is in the failed file: lost_in_flight counts Market-Feeds too
  // (one can be in flight when the Brokerage House stops).
  EXPECT_EQ(failed_lines, mee.stats().lost_in_flight.load());
  EXPECT_EQ(mee.ReadFile(mee::MarketEmulator::kPendingName), "trade_id,code,state\n");
}

// The summary line's "TR/s X, TR p90 Y ms" (controller/run's progress line shows them): over
// one interval that holds every Trade-Result, X is their rate and Y their 90th percentile as
// the mix log's rows give it (nearest rank; the histogram is within 1/32 above, printed to
// 0.1 ms); the next interval, with none, says "TR/s 0.0, TR p90 -".
TEST(MarketEmulator, TheSummaryLineHasTheIntervalsTradeResultRateAndNinetiethPercentile) {
  auto captured = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(1000);
  auto previous = spdlog::default_logger();
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("mee-test", captured));
  RunningBh bh;
  ASSERT_NE(bh.port(), 0);
  constexpr int kOrders = 200;
  constexpr int kSeconds = 7;  // every order completes within 5 s of being sent
  RunningMee mee(bh.port(), 100000, 3, kSeconds);
  auto c = OrderClient(mee.port());
  ASSERT_EQ(SendOrders(*c, 1, kOrders), kOrders);
  const std::regex figures(R"(TR/s ([0-9.]+), TR p90 ([0-9.]+ ms|-),)");
  std::vector<std::smatch> lines;
  std::vector<std::string> logged;
  RunningMee::WaitFor(
      [&] {
        lines.clear();
        logged = captured->last_formatted();
        for (const auto& line : logged) {
          std::smatch m;
          if (std::regex_search(line, m, figures)) lines.push_back(m);
        }
        return lines.size() >= 2;
      },
      std::chrono::seconds(3 * kSeconds));
  mee.Stop();
  spdlog::set_default_logger(previous);
  std::string text;
  for (const auto& line : logged) text += line;
  ASSERT_GE(lines.size(), 2u) << text;
  EXPECT_EQ(mee.stats().trade_results_delivered.load(), kOrders);

  std::vector<int64_t> rt;
  std::istringstream in(mee.ReadFile(mee::MarketEmulator::kMixLogName));
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> f;
    std::stringstream ls(line);
    for (std::string field; std::getline(ls, field, ',');) f.push_back(field);
    if (f.size() >= 5 && f[1] == "TR") rt.push_back(std::stoll(f[4]));
  }
  ASSERT_EQ(rt.size(), static_cast<size_t>(kOrders));
  std::sort(rt.begin(), rt.end());
  const double p90_ms = static_cast<double>(rt[(kOrders * 9 + 9) / 10 - 1]) / 1000;
  EXPECT_NEAR(std::stod(lines[0][1]), static_cast<double>(kOrders) / kSeconds, 2.0) << text;
  ASSERT_NE(lines[0][2], "-") << text;
  const double printed = std::stod(lines[0][2]);
  EXPECT_GE(printed, p90_ms - 0.051) << text;
  EXPECT_LE(printed, p90_ms * (1 + 1.0 / 32) + 0.051) << text;
  EXPECT_EQ(lines[1][1], "0.0") << text;
  EXPECT_EQ(lines[1][2], "-") << text;
}

// ---------------------------------------------------------------------------------------------
// Hostile and careless order connections (issue 16). Port 1: no Brokerage House to deliver to.

std::vector<uint8_t> HelloFrame(int64_t customers = kSizing.customers) {
  return testing::FrameOf(pr::Hello{pr::kProtocolVersion, "hostile bh", customers,
                                    static_cast<int32_t>(kSizing.scale_factor),
                                    static_cast<int32_t>(kSizing.initial_trade_days)},
                          1);
}

// Orders sent, the connection half-closed, and the acks read only after a pause: when the end
// of the input comes, megabytes of acks are still unsent, and must all arrive, then the end.
TEST(MarketEmulator, AHalfClosedOrderConnectionGetsEveryAckThenTheEnd) {
  constexpr int kOrders = 200000;
  RunningMee mee(1, 1'000'000, 1);
  const int fd = testing::ConnectLoopback(mee.port());
  ASSERT_GE(fd, 0);
  std::vector<uint8_t> bytes = HelloFrame();
  for (int i = 1; i <= kOrders; ++i) {
    const auto order = testing::FrameOf(MarketOrder(i), static_cast<uint64_t>(i) + 1);
    bytes.insert(bytes.end(), order.begin(), order.end());
  }
  std::vector<uint8_t> received;
  bool ended = false;
  std::jthread reader([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    uint8_t chunk[65536];
    for (;;) {
      const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
      if (n < 0 && errno == EINTR) continue;
      ended = n == 0;
      if (n <= 0) return;
      received.insert(received.end(), chunk, chunk + n);
    }
  });
  ASSERT_TRUE(testing::SendAll(fd, bytes));
  ASSERT_EQ(::shutdown(fd, SHUT_WR), 0);
  reader.join();
  ::close(fd);
  int hellos = 0, acks = 0, others = 0;
  for (size_t at = 0; at + pr::kFrameHeaderBytes <= received.size();) {
    auto parsed = pr::ParseFrameHeader(std::span(received).subspan(at));
    ASSERT_EQ(parsed.state, pr::FrameHeaderParser::State::kGood) << parsed.status.message();
    const size_t size = pr::kFrameHeaderBytes + parsed.header.body_length;
    ASSERT_LE(at + size, received.size());
    if (parsed.header.type == pr::MessageType::kHelloReply) {
      ++hellos;
    } else if (parsed.header.type == pr::MessageType::kMarketTradeAck) {
      ++acks;
    } else {
      ++others;
    }
    at += size;
  }
  EXPECT_EQ(hellos, 1);
  EXPECT_EQ(acks, kOrders);
  EXPECT_EQ(others, 0);
  EXPECT_TRUE(ended) << "the emulator did not close the connection";
}

TEST(MarketEmulator, HeadersWithoutTheirBodiesCostNoMemory) {
  RunningMee mee(1, 100000, 1);
  const int64_t before = testing::ResidentBytes();
  const auto header = testing::HeaderOnly(pr::MessageType::kMarketTradeRequest, pr::kMaxBodyBytes);
  std::vector<int> fds;
  for (int i = 0; i < 500; ++i) {
    const int fd = testing::ConnectLoopback(mee.port());
    ASSERT_GE(fd, 0) << "connection " << i;
    fds.push_back(fd);
    ASSERT_TRUE(testing::SendAll(fd, header));
  }
  int64_t most = 0;
  for (int i = 0; i < 30; ++i) {  // the emulator reads the headers meanwhile
    most = std::max(most, testing::ResidentBytes());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_LT(most - before, 64 << 20) << "resident memory grew from " << before << " to " << most;
  // Still served: a Brokerage House that says hello gets its orders acked.
  auto c = OrderClient(mee.port());
  EXPECT_EQ(SendOrders(*c, 1, 3), 3);
  for (int fd : fds) ::close(fd);
}

TEST(MarketEmulator, AnOrderConnectionThatNeverReadsIsNotReadEither) {
  RunningMee mee(1, 100000, 1);
  testing::CountingLog log;
  const int fd = testing::ConnectLoopback(mee.port());
  ASSERT_GE(fd, 0);
  std::vector<uint8_t> buffer;
  ASSERT_TRUE(testing::SendAll(fd, HelloFrame()));
  ASSERT_TRUE(testing::ReadFrame(fd, buffer).ok());
  // A MarketTradeRequest with no body: answered with an error each.
  const auto bad = testing::HeaderOnly(pr::MessageType::kMarketTradeRequest, 0);
  constexpr int64_t kLimit = 150 << 20;
  const testing::Flood flood = testing::FloodWithoutReading(fd, bad, kLimit);
  ASSERT_LT(flood.resident_growth, 64 << 20) << flood.sent << " bytes sent";
  EXPECT_LT(flood.sent, kLimit) << "the emulator read on while its replies piled up";
  // Reading resumes once the replies drain: every bad frame is answered, then a good one.
  const testing::Drained drained =
      testing::DrainFlood(fd, bad, flood, testing::FrameOf(MarketOrder(7), 99), 99);
  ASSERT_TRUE(drained.reply.ok()) << drained.reply.status().message() << " after " << drained.errors
                                  << " errors";
  EXPECT_TRUE(std::holds_alternative<pr::MarketTradeAck>(drained.reply->message));
  EXPECT_EQ(drained.errors, drained.frames);
  EXPECT_LE(log.lines(), 3) << log.first_lines();  // one warning for the connection
  ::close(fd);
}

TEST(MarketEmulator, ARefusedHelloIsAnsweredThenTheConnectionClosed) {
  RunningMee mee(1, 100000, 1);
  testing::CountingLog log;
  std::vector<uint8_t> hellos;
  const auto refused = HelloFrame(2000);
  for (int i = 0; i < 5000; ++i) hellos.insert(hellos.end(), refused.begin(), refused.end());
  const int fd = testing::ConnectLoopback(mee.port());
  ASSERT_GE(fd, 0);
  (void)testing::SendAll(fd, hellos);  // the emulator may close before it has taken them all
  std::vector<uint8_t> buffer;
  auto reply = testing::ReadFrame(fd, buffer);
  ASSERT_TRUE(reply.ok()) << reply.status().message();
  ASSERT_TRUE(std::holds_alternative<pr::HelloReply>(reply->message));
  EXPECT_FALSE(std::get<pr::HelloReply>(reply->message).accepted);
  EXPECT_THAT(std::get<pr::HelloReply>(reply->message).reason, HasSubstr("customers 2000"));
  EXPECT_TRUE(testing::PeerClosed(fd));
  ::close(fd);
  EXPECT_LE(log.lines(), 3) << log.first_lines();
  EXPECT_THAT(log.first_lines(), HasSubstr("hello refused"));
}

TEST(MarketEmulator, OutOfDescriptorsAcceptBacksOffAndLogsOncePerEpisode) {
  const auto dir =
      std::filesystem::temp_directory_path() / fmt::format("mee-emfile-{}", ::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string log_path = (dir / "mee.log").string();
  testing::ForkedServer child(
      [&dir](const std::string& port_file) {
        mee::EmulatorOptions o;
        o.listen = {"127.0.0.1", 0};
        o.bh = {"127.0.0.1", 1};
        o.delivery_connections = 1;
        o.sizing = kSizing;
        o.out_dir = dir.string();
        o.port_file = port_file;
        o.summary_seconds = 0;
        o.drain_seconds = 1;
        mee::MarketEmulator emulator(std::move(o));
        return emulator.Run().ok() ? 0 : 1;
      },
      64, log_path);
  ASSERT_NE(child.port(), 0);
  std::vector<int> fds;
  for (int i = 0; i < 100; ++i) {
    const int fd = testing::ConnectLoopback(child.port());
    ASSERT_GE(fd, 0) << "connection " << i;
    fds.push_back(fd);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const double cpu_before = testing::CpuSeconds(child.pid());
  std::this_thread::sleep_for(std::chrono::seconds(5));
  const double cpu = testing::CpuSeconds(child.pid()) - cpu_before;
  EXPECT_LT(cpu, 0.5) << "seconds of CPU in 5 s";
  for (int fd : fds) ::close(fd);
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
  std::filesystem::remove_all(dir);
}

// The metrics endpoint (README, "Live metrics"), scraped while orders are delivered: valid
// OpenMetrics each time, counters that never go down; once every order is delivered, the
// Trade-Results sent and completed and the deliveries' rows; at the end the exposition has
// exactly the mix log's rows per type and outcome, and the endpoint closes with the emulator.
TEST(MarketEmulator, MetricsEndpointFollowsTheDeliveriesAndEndsWithTheMixLogsCounts) {
  RunningBh bh;
  ASSERT_NE(bh.port(), 0);
  RunningMee mee(bh.port(), 100000, 3, 0, /*metrics=*/true);
  ASSERT_NE(mee.metrics_port(), 0);
  std::map<std::string, double> last;
  std::set<std::string> phases;
  int scrapes = 0;
  auto scrape = [&] {
    auto r = metricstest::Get(mee.metrics_port());
    EXPECT_EQ(r.status, 200) << r.raw;
    auto m = metricstest::ParseOpenMetrics(r.body);
    ++scrapes;
    for (const auto& e : m.errors) ADD_FAILURE() << "scrape " << scrapes << ": " << e;
    for (const auto& f : m.families) {
      for (const auto& sample : f.samples) {
        if (f.type == "stateset" && sample.value == 1) phases.insert(sample.labels.at(f.name));
        if (f.type != "counter" && f.type != "histogram") continue;
        const std::string key = sample.name + metricstest::detail::Key(sample.labels, "");
        EXPECT_GE(sample.value, last[key]) << key << " went down at scrape " << scrapes;
        last[key] = sample.value;
      }
    }
    return m;
  };
  scrape();
  constexpr int kOrders = 300;
  auto c = OrderClient(mee.port());
  ASSERT_EQ(SendOrders(*c, 1, kOrders), kOrders);
  ASSERT_TRUE(RunningMee::WaitFor(
      [&] {
        scrape();
        return mee.stats().trade_results_delivered.load() >= kOrders &&
               mee.stats().market_feeds_delivered.load() >= kOrders / 10;
      },
      std::chrono::seconds(20)));
  auto m = scrape();
  EXPECT_TRUE(phases.contains("delivering")) << ::testing::PrintToString(phases);
  EXPECT_EQ(m.Value("brokerbench_mee_trade_results_sent_total"), kOrders);
  EXPECT_EQ(m.Value("brokerbench_mee_trade_results_completed_total"), kOrders);
  EXPECT_EQ(m.Value("brokerbench_mee_orders_received_total"), kOrders);
  EXPECT_EQ(m.Value("brokerbench_transactions_total", {{"type", "TR"}}), kOrders);
  EXPECT_EQ(m.Value("brokerbench_response_seconds_count", {{"type", "TR"}}), kOrders);
  EXPECT_EQ(m.Value("brokerbench_mee_due_orders"), 0);
  EXPECT_EQ(m.Value("brokerbench_mee_pending_orders"), 0);
  EXPECT_EQ(m.Value("brokerbench_mee_delivery_connections_up"), 3);
  const uint16_t port = mee.metrics_port();
  mee.Stop();
  EXPECT_EQ(metricstest::Get(port).status, 0) << "the endpoint outlived the emulator";

  // The final exposition against the mix log, row by row.
  std::map<std::string, int64_t> by_type, by_outcome;
  std::istringstream log(mee.ReadFile(mee::MarketEmulator::kMixLogName));
  std::string line;
  for (int n = 0; std::getline(log, line); ++n) {
    if (n < 2) continue;  // header, columns
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string field; std::getline(fields, field, ',');) f.push_back(field);
    if (f.size() < 4 || f[1] == "START" || f[1] == "STOP") continue;
    ++by_type[f[1]];
    ++by_outcome[f[3]];
  }
  ASSERT_EQ(by_type["TR"], kOrders);
  const auto final_metrics = metricstest::ParseOpenMetrics(mee.MetricsText());
  for (const auto& e : final_metrics.errors) ADD_FAILURE() << "final: " << e;
  for (const char* code : {"TR", "MF"}) {
    EXPECT_EQ(final_metrics.Value("brokerbench_transactions_total", {{"type", code}}),
              by_type[code])
        << code;
  }
  for (int i = 0; i <= pr::kMaxOutcome; ++i) {
    const std::string name = pr::OutcomeName(static_cast<pr::Outcome>(i));
    EXPECT_EQ(final_metrics.Value("brokerbench_outcomes_total", {{"outcome", name}}),
              by_outcome[name])
        << name;
  }
  EXPECT_EQ(final_metrics.Value("brokerbench_in_flight"), 0);
  EXPECT_EQ(final_metrics.Value("brokerbench_phase", {{"brokerbench_phase", "stopping"}}), 1);
}

}  // namespace
}  // namespace bb
