// The market emulator's metrics endpoint through a run (README, "Live metrics").
#include "tests/mee_fixture.h"
#include "tests/support/metrics_watcher.h"

namespace bb::mee_test {

// The metrics endpoint (README, "Live metrics"), scraped while orders are delivered: valid
// OpenMetrics each time, counters that never go down; once every order is delivered, the
// Trade-Results sent and completed and the deliveries' rows; at the end the exposition has
// exactly the mix log's rows per type and outcome, and the endpoint closes with the emulator.
TEST(MarketEmulator, MetricsEndpointFollowsTheDeliveriesAndEndsWithTheMixLogsCounts) {
  RunningBh bh;
  ASSERT_NE(bh.port(), 0);
  RunningMee mee(bh.port(), 100000, 3, 0, /*metrics=*/true);
  ASSERT_NE(mee.metrics_port(), 0);
  metricstest::MetricsWatcher watcher;
  EXPECT_TRUE(watcher.Scrape(mee.metrics_port()));
  constexpr int kOrders = 300;
  auto c = OrderClient(mee.port());
  ASSERT_EQ(SendOrders(*c, 1, kOrders), kOrders);
  ASSERT_TRUE(RunningMee::WaitFor(
      [&] {
        EXPECT_TRUE(watcher.Scrape(mee.metrics_port()));
        return mee.stats().trade_results_delivered.load() >= kOrders &&
               mee.stats().market_feeds_delivered.load() >= kOrders / 10;
      },
      std::chrono::seconds(20)));
  EXPECT_TRUE(watcher.Scrape(mee.metrics_port()));
  const auto& m = watcher.latest();
  EXPECT_TRUE(watcher.phases().contains("delivering"))
      << ::testing::PrintToString(watcher.phases());
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

}  // namespace bb::mee_test
