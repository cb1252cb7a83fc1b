// The Customer Emulator's run from start to end (tests/ce_fixture.h): a Brokerage House that
// dies mid-run, a stop on request, a hello with another sizing, an unreachable address, option
// checks, a partition, the users' start spread, and a request stream replayed from its seed.
#include "tests/ce_fixture.h"

namespace bb::ce_test {

TEST(CustomerEmulator, ABrokerageHouseDyingMidRunGivesNetErrorRowsAndACleanExit) {
  auto bh = std::make_unique<RunningBh>(kSizing, RunningBh::Canned(), 2);
  ASSERT_NE(bh->port(), 0);
  const std::string path = TempLog("dies");
  auto o = Options(bh->port(), path);
  o.users = 100;
  o.duration = 60s;
  o.trade_cleanup = false;
  ce::Emulator emulator(o);
  std::promise<Status> done;
  auto result = done.get_future();
  std::thread runner([&] { done.set_value(emulator.Run()); });
  EXPECT_TRUE(WaitForRowsAfterStart(path, 200));
  bh->StopAndJoin();  // the BH goes away with requests outstanding
  const bool finished = result.wait_for(30s) == std::future_status::ready;
  EXPECT_TRUE(finished) << "the emulator hung after its Brokerage House died";
  if (!finished) emulator.Stop();
  runner.join();
  Status s = result.get();
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("lost every connection to the Brokerage House"));

  const auto& sum = emulator.summary();
  auto log = ReadMixLog(path);
  for (const auto& e : log.errors) ADD_FAILURE() << e;
  EXPECT_EQ(static_cast<int64_t>(log.rows.size()), sum.rows);  // every row written
  EXPECT_EQ(sum.sent, sum.rows) << "a request outstanding when the BH died has no row";
  int64_t net_errors = 0;
  for (const auto& r : log.rows) net_errors += r.outcome == "net_error";
  EXPECT_GE(net_errors, 1);
  EXPECT_EQ(net_errors, sum.count_by_outcome[static_cast<int>(protocol::Outcome::kNetError)]);
  EXPECT_GT(sum.replies, 100);
  EXPECT_NE(log.MarkerTime("STOP"), -1);
  // The end-of-run record beside the mix log: the error that ended the run, and its totals.
  const std::string record_path = EndOfRunRecord::PathFor(path);
  const auto record = testing::ReadEndRecordFile(record_path);
  ASSERT_TRUE(record.exists) << record_path;
  EXPECT_EQ(record.header, "# brokerbench end-of-run record v1");
  EXPECT_EQ(record.bad_lines, "");
  EXPECT_EQ(record["program"], "bb-customer-emulator");
  EXPECT_EQ(record["mix_log"], std::filesystem::path(path).filename().string());
  EXPECT_EQ(record["stop"], "error");
  EXPECT_THAT(record["error"], HasSubstr("lost every connection to the Brokerage House"));
  EXPECT_EQ(record["sent"], std::to_string(sum.sent));
  EXPECT_EQ(record["rows"], std::to_string(log.rows.size()));
  EXPECT_EQ(record["replies"], std::to_string(sum.replies));
  EXPECT_EQ(record["errors"], std::to_string(sum.errors));
  EXPECT_EQ(record["in_flight"], "0");
  std::filesystem::remove(path);
  std::filesystem::remove(record_path);
}

TEST(CustomerEmulator, StopsOnRequestAndStillWritesEveryRow) {
  RunningBh bh(kSizing, RunningBh::Canned(), 2);
  const std::string path = TempLog("stop");
  auto o = Options(bh.port(), path);
  o.users = 50;
  o.duration = 600s;
  o.pacing = 2ms;
  ce::Emulator emulator(o);
  std::thread stopper([&] {
    EXPECT_TRUE(WaitForRowsAfterStart(path, 500));
    emulator.Stop();
  });
  Status s = RunBounded(emulator, 30s);
  stopper.join();
  ASSERT_TRUE(s.ok()) << s.message();
  auto log = ReadMixLog(path);
  EXPECT_TRUE(log.errors.empty());
  EXPECT_EQ(static_cast<int64_t>(log.rows.size()), emulator.summary().rows);
  EXPECT_EQ(emulator.summary().rows, emulator.summary().replies);
  EXPECT_NE(log.MarkerTime("START"), -1);
  EXPECT_NE(log.MarkerTime("STOP"), -1);
  const auto& sum = emulator.summary();
  const std::string record_path = EndOfRunRecord::PathFor(path);
  const auto record = testing::ReadEndRecordFile(record_path);
  ASSERT_TRUE(record.exists) << record_path;
  EXPECT_EQ(record.bad_lines, "");
  EXPECT_EQ(record["stop"], "request");
  EXPECT_EQ(record["error"], "(none)");
  EXPECT_EQ(record["sent"], std::to_string(log.rows.size()));
  EXPECT_EQ(record["rows"], std::to_string(log.rows.size()));
  EXPECT_EQ(record["users"], "50");
  EXPECT_EQ(record["users_started"], std::to_string(sum.users_started));
  EXPECT_EQ(record["started"], "1");
  EXPECT_EQ(record["measured_transactions"], std::to_string(sum.measured_transactions));
  EXPECT_EQ(record["dispatch_count"], std::to_string(sum.dispatch_lateness.count()));
  EXPECT_FALSE(std::filesystem::exists(record_path + ".part"));
  std::filesystem::remove(path);
  std::filesystem::remove(record_path);
}

TEST(CustomerEmulator, RefusesABrokerageHouseWithAnotherSizingNamingBoth) {
  RunningBh bh(kSizing, RunningBh::Canned(), 1);
  const std::string path = TempLog("sizing");
  auto o = Options(bh.port(), path);
  o.sizing.initial_trade_days = 300;
  ce::Emulator emulator(o);
  Status s = RunBounded(emulator, 20s);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("refused the hello"));
  EXPECT_THAT(s.message(), HasSubstr("initial trade days 300"));
  EXPECT_THAT(s.message(), HasSubstr("initial trade days 10"));
  auto log = ReadMixLog(path);
  EXPECT_TRUE(log.errors.empty());
  EXPECT_TRUE(log.rows.empty());
  EXPECT_TRUE(log.markers.empty());
  std::filesystem::remove(path);
}

TEST(CustomerEmulator, NamesAnUnreachableBrokerageHouse) {
  uint16_t port = 0;
  {
    asio::io_context io;
    asio::ip::tcp::acceptor a(io, {asio::ip::make_address("127.0.0.1"), 0});
    port = a.local_endpoint().port();
  }  // closed: nothing listens there now
  const std::string path = TempLog("unreachable");
  ce::Emulator emulator(Options(port, path));
  Status s = RunBounded(emulator, 20s);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr(fmt::format("127.0.0.1:{}", port)));
  EXPECT_THAT(s.message(), HasSubstr("connect"));
  std::filesystem::remove(path);
}

TEST(CustomerEmulator, ChecksItsOptionsNamingTheOption) {
  ce::EmulatorOptions o;
  o.mix_log = "x.csv";
  o.users = 0;
  EXPECT_THAT(ce::ValidateOptions(o).message(), HasSubstr("--users: '0'"));
  o.users = 1;
  o.sizing.customers = 1500;
  EXPECT_THAT(ce::ValidateOptions(o).message(), HasSubstr("--customers"));
  o.sizing.customers = 10000;
  o.partition_first = 1;
  o.partition_customers = 500;
  EXPECT_FALSE(ce::ValidateOptions(o).ok());
  o.partition_customers = 5000;
  EXPECT_TRUE(ce::ValidateOptions(o).ok()) << ce::ValidateOptions(o).message();
}

// A partitioned emulator (clause 6.4.2) runs: half its customers come from its range (the
// selector's own tests check the split; here the wiring).
TEST(CustomerEmulator, RunsWithAPartition) {
  const workload::Sizing sizing{.customers = 10000, .scale_factor = 500, .initial_trade_days = 10};
  RunningBh bh(sizing, RunningBh::Canned(), 1);
  const std::string path = TempLog("partition");
  auto o = Options(bh.port(), path);
  o.sizing = sizing;
  o.users = 20;
  o.duration = 1s;
  o.partition_first = 5001;
  o.partition_customers = 5000;
  ce::Emulator emulator(o);
  Status s = RunBounded(emulator, 30s);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_GT(emulator.summary().replies, 20);
  EXPECT_EQ(emulator.summary().errors, 0);
  std::filesystem::remove(path);
}

// A ramp-up longer than the users' start spread: every user starts within the spread, and START
// waits for the end of the ramp-up (the rest of it runs at full load, for the pending limit
// orders to reach their level before the measurement interval).
TEST(CustomerEmulator, UsersStartWithinTheSpreadAndStartIsMarkedWhenTheRampUpEnds) {
  RunningBh bh(kSizing, RunningBh::Canned(), 1);
  const std::string path = TempLog("spread");
  auto o = Options(bh.port(), path);
  o.users = 20;
  o.user_start_spread = 1s;
  o.ramp_up = 3s;
  o.duration = 1s;
  o.trade_cleanup = false;
  o.dm_interval = 0s;
  ce::Emulator emulator(o);
  Status s = RunBounded(emulator, 30s);
  ASSERT_TRUE(s.ok()) << s.message();
  auto log = ReadMixLog(path);
  ASSERT_TRUE(log.errors.empty());
  std::map<int64_t, int64_t> first;  // user -> its first request's start
  for (const auto& r : log.rows) first.emplace(r.user, r.start_us);
  ASSERT_EQ(first.size(), 20u);
  int64_t lo = INT64_MAX, hi = 0;
  for (const auto& [user, at] : first) lo = std::min(lo, at), hi = std::max(hi, at);
  EXPECT_GE(hi - lo, 900'000);
  EXPECT_LT(hi - lo, 1'500'000) << "users started over more than the 1 s spread";
  const int64_t start = log.MarkerTime("START");
  EXPECT_GE(start - lo, 2'900'000) << "START before the 3 s ramp-up ended";
  EXPECT_LT(start - lo, 4'000'000);
  std::filesystem::remove(path);
}

// One user's requests, in order, for a run with `seed` (no Trade-Cleanup, no DM).
std::vector<std::vector<uint8_t>> RequestStream(uint64_t seed, const std::string& name) {
  std::mutex mutex;
  std::vector<std::vector<uint8_t>> requests;  // encoded, in arrival order
  RunningBh bh(kSizing, CannedObserving([&](const protocol::Message& request) {
                 std::vector<uint8_t> bytes;
                 protocol::Writer w(bytes);
                 std::visit([&](const auto& m) { EXPECT_TRUE(protocol::Encode(m, w).ok()); },
                            request);
                 std::lock_guard lock(mutex);
                 requests.push_back(std::move(bytes));
               }),
               1);
  const std::string path = TempLog(name);
  auto o = Options(bh.port(), path);
  o.users = 1;
  o.duration = 1s;
  o.seed = seed;
  o.trade_cleanup = false;
  o.dm_interval = 0s;
  ce::Emulator emulator(o);
  Status s = RunBounded(emulator, 30s);
  EXPECT_TRUE(s.ok()) << s.message();
  bh.StopAndJoin();
  std::filesystem::remove(path);
  return requests;
}

// `--seed N` replays a run: the same seed gives the same requests with the same inputs, another
// seed other ones (clause 5.8.2 seeds a compliant run from the time of day; main does that).
TEST(CustomerEmulator, TheSameSeedReplaysTheSameRequestStream) {
  const auto a = RequestStream(7, "seed7a"), b = RequestStream(7, "seed7b");
  const auto c = RequestStream(8, "seed8");
  const size_t n = std::min({a.size(), b.size(), c.size()});
  ASSERT_GE(n, 100u) << "too few requests in 1 s to compare";
  EXPECT_TRUE(std::equal(a.begin(), a.begin() + n, b.begin())) << "seed 7 twice differs";
  size_t same = 0;
  for (size_t i = 0; i < n; ++i) same += a[i] == c[i];
  EXPECT_LT(same, n / 2) << "seeds 7 and 8 gave " << same << " of " << n << " identical requests";
}

}  // namespace bb::ce_test
