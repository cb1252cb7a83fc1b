// The Customer Emulator's metrics endpoint through a run (README, "Live metrics").
#include "tests/ce_fixture.h"
#include "tests/support/metrics_watcher.h"

namespace bb::ce_test {

// The metrics endpoint (README, "Live metrics"), scraped every 100 ms through a short run: each
// scrape is valid OpenMetrics, no counter goes down, the phase goes through ramp-up and
// measuring; at the end the exposition has exactly the mix log's rows per type and outcome, and
// its histograms the log's response times; the endpoint closes with the run.
TEST(CustomerEmulator, MetricsEndpointFollowsTheRunAndEndsWithTheMixLogsCounts) {
  RunningBh bh(kSizing, RunningBh::Canned(), 2);
  ASSERT_NE(bh.port(), 0);
  const std::string path = TempLog("metrics");
  const std::string port_file = TempLog("metrics-port");
  auto o = Options(bh.port(), path);
  o.users = 20;
  o.ramp_up = 1s;
  o.duration = 3s;
  o.pacing = 20ms;
  o.metrics_listen = HostPort("127.0.0.1", 0);
  o.metrics_port_file = port_file;
  ce::Emulator emulator(o);
  std::promise<Status> done;
  auto result = done.get_future();
  std::thread runner([&] { done.set_value(emulator.Run()); });
  const auto t0 = std::chrono::steady_clock::now();
  metricstest::MetricsWatcher watcher;
  uint16_t port = 0;
  while (result.wait_for(100ms) != std::future_status::ready) {  // a scrape every 100 ms
    if (std::chrono::steady_clock::now() - t0 > 60s) {
      ADD_FAILURE() << "the emulator did not finish within 60 s";
      emulator.Stop();
      break;
    }
    port = emulator.metrics_port();
    if (port != 0) watcher.Scrape(port);  // nothing answers once the run has ended
  }
  runner.join();
  Status s = result.get();
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_GE(watcher.scrapes(), 20);
  EXPECT_TRUE(watcher.phases().contains("ramp-up")) << ::testing::PrintToString(watcher.phases());
  EXPECT_TRUE(watcher.phases().contains("measuring")) << ::testing::PrintToString(watcher.phases());
  EXPECT_GT(watcher.Last("brokerbench_transactions_total", {{"type", "TO"}}), 0);
  std::ifstream in(port_file);
  int written = 0;
  in >> written;
  EXPECT_EQ(written, port);
  EXPECT_EQ(metricstest::Get(port).status, 0) << "the endpoint outlived the run";

  auto log = ReadMixLog(path);
  ASSERT_TRUE(log.errors.empty());
  ASSERT_FALSE(log.rows.empty());
  const auto final_text = emulator.MetricsText();
  auto m = metricstest::ParseOpenMetrics(final_text);
  for (const auto& e : m.errors) ADD_FAILURE() << "final: " << e;
  std::map<std::string, int64_t> by_type, by_outcome;
  for (const auto& r : log.rows) {
    ++by_type[r.code];
    ++by_outcome[r.outcome];
  }
  double listed = 0;
  for (const auto& sample : m.Find("brokerbench_transactions")->samples) {
    const std::string& code = sample.labels.at("type");
    EXPECT_EQ(sample.value, by_type[code]) << code;
    listed += sample.value;
  }
  EXPECT_EQ(listed, static_cast<double>(log.rows.size())) << "a type is missing";
  for (int i = 0; i <= protocol::kMaxOutcome; ++i) {
    const std::string name = protocol::OutcomeName(static_cast<protocol::Outcome>(i));
    EXPECT_EQ(m.Value("brokerbench_outcomes_total", {{"outcome", name}}), by_outcome[name]) << name;
  }
  // Histograms: per type, each bucket holds the rows at most its bound (replies, not errors).
  for (const char* code : {"BV", "CP", "MW", "SD", "TL", "TO", "TS", "TU", "DM", "TC"}) {
    std::vector<int64_t> times;
    for (const auto& r : log.rows) {
      if (r.code == code && r.outcome != "net_error" && r.outcome != "timeout" &&
          r.outcome != "db_error" && r.outcome != "retry_exhausted") {
        times.push_back(r.response_us);
      }
    }
    const std::map<std::string, std::string> type{{"type", code}};
    EXPECT_EQ(m.Value("brokerbench_response_seconds_count", type), times.size()) << code;
    int64_t sum = 0;
    for (int64_t t : times) sum += t;
    EXPECT_NEAR(m.Value("brokerbench_response_seconds_sum", type).value_or(-1), sum / 1e6, 1e-6)
        << code;
    for (const auto& bound : BucketHistogram::kBounds) {
      const auto within =
          std::count_if(times.begin(), times.end(), [&](int64_t t) { return t <= bound.micros; });
      EXPECT_EQ(m.Value("brokerbench_response_seconds_bucket",
                        {{"type", code}, {"le", std::string(bound.le)}}),
                within)
          << code << " le " << bound.le;
    }
  }
  EXPECT_EQ(m.Value("brokerbench_in_flight"), 0);
  EXPECT_EQ(m.Value("brokerbench_users_started"), 20);
  EXPECT_EQ(m.Value("brokerbench_phase", {{"brokerbench_phase", "stopping"}}), 1);
  std::filesystem::remove(path);
  std::filesystem::remove(port_file);
}

TEST(CustomerEmulator, AMetricsPortFileThatCannotBeWrittenEndsTheRunAtOnceNamingIt) {
  RunningBh bh(kSizing, RunningBh::Canned(), 2);
  const std::string path = TempLog("metrics-port-file");
  auto o = Options(bh.port(), path);
  o.metrics_listen = HostPort("127.0.0.1", 0);
  o.metrics_port_file = "/nonexistent-dir/metrics.port";
  ce::Emulator emulator(o);
  Status s = RunBounded(emulator, 30s);
  EXPECT_EQ(s.message(),
            "--metrics-port-file '/nonexistent-dir/metrics.port': No such file or directory");
  EXPECT_EQ(emulator.summary().rows, 0);
  std::filesystem::remove(path);
}

}  // namespace bb::ce_test
