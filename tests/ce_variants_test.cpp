// The input variants of the Customer Emulator's mix log against clause 6.4.1's ranges as
// written, over windows of a 2-hour interval's Trade-Orders (14 545 at 1000 customers) at
// several offsets: with 1, 10 and 2 000 users and with two emulators side by side, against an
// in-process Brokerage House in --no-db mode. The emulator deals the variants from the decks of
// its one input generator (emulator.h, inputs.h), so no window may miss a range; drawn
// independently, as before, most windows missed one.
#include <atomic>

#include "common/workload/variant_windows_test_support.h"
#include "tests/ce_fixture.h"

namespace bb::ce_test {
namespace {

namespace vt = workload::variant_test;

// Trade-Orders to log in all: a window from the first Trade-Order and one from the 4 321st.
constexpr int64_t kTradeOrders = vt::kTwoHourTradeOrders + 4321 + 100;

// Runs `emulators` emulators of `users` users each (seeds 11, 12, ...) against one canned
// Brokerage House until it has seen kTradeOrders Trade-Orders (or 150 s have passed); returns
// every valid row of their mix logs in order of start time.
std::vector<vt::Sent> RunUntilEnoughTradeOrders(int emulators, int users) {
  std::atomic<int64_t> trade_orders{0};
  std::vector<std::unique_ptr<ce::Emulator>> ces;
  std::atomic<bool> stopped{false};
  RunningBh bh(kSizing, CannedObserving([&](const protocol::Message& request) {
                 if (!std::holds_alternative<protocol::TradeOrderInput>(request)) return;
                 if (++trade_orders >= kTradeOrders && !stopped.exchange(true)) {
                   for (auto& e : ces) e->Stop();
                 }
               }),
               2);
  EXPECT_NE(bh.port(), 0);
  std::vector<std::string> paths;
  for (int i = 0; i < emulators; ++i) {
    paths.push_back(TempLog(fmt::format("variants-{}-{}-{}", emulators, users, i)));
    auto o = Options(bh.port(), paths.back());
    o.users = users;
    o.duration = 150s;
    o.seed = 11 + static_cast<uint64_t>(i);
    o.trade_cleanup = i == 0;
    if (i > 0) o.dm_interval = 0ms;
    o.progress_seconds = 0;
    ces.push_back(std::make_unique<ce::Emulator>(o));
  }
  std::vector<std::thread> threads;
  std::vector<Status> results(ces.size());
  for (size_t i = 0; i < ces.size(); ++i) {
    threads.emplace_back([&, i] { results[i] = RunBounded(*ces[i], 180s); });
  }
  for (auto& t : threads) t.join();
  bh.StopAndJoin();
  for (const Status& s : results) EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_GE(trade_orders.load(), kTradeOrders) << "the run stopped before logging enough";

  std::vector<std::pair<int64_t, vt::Sent>> rows;
  for (const std::string& path : paths) {
    const auto log = ReadMixLog(path);
    for (const auto& e : log.errors) ADD_FAILURE() << e;
    for (const auto& r : log.rows) {
      const auto type = workload::TransactionTypeFromCode(r.code);
      if (!type || (r.outcome != "ok" && r.outcome != "rollback")) continue;
      rows.push_back({r.start_us, vt::Sent{*type, r.inputs}});
    }
    std::filesystem::remove(path);
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<vt::Sent> sent;
  sent.reserve(rows.size());
  for (auto& [start, s] : rows) sent.push_back(std::move(s));
  return sent;
}

void ExpectEveryWindowInRange(int emulators, int users) {
  const std::vector<vt::Sent> sent = RunUntilEnoughTradeOrders(emulators, users);
  for (const size_t offset : {size_t{0}, size_t{4321}}) {
    const auto [misses, windows] = vt::JudgeWindows(sent, vt::kTwoHourTradeOrders, offset);
    EXPECT_EQ(windows, 1) << "offset " << offset;
    for (const std::string& m : misses) {
      ADD_FAILURE() << emulators << " emulator(s) of " << users << " users: " << m;
    }
  }
}

TEST(CustomerEmulatorVariants, OneUser) { ExpectEveryWindowInRange(1, 1); }
TEST(CustomerEmulatorVariants, TenUsers) { ExpectEveryWindowInRange(1, 10); }
TEST(CustomerEmulatorVariants, TwoThousandUsers) { ExpectEveryWindowInRange(1, 2000); }
TEST(CustomerEmulatorVariants, TwoEmulatorsOfFiftyUsers) { ExpectEveryWindowInRange(2, 50); }

}  // namespace
}  // namespace bb::ce_test
