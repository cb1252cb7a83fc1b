// The market emulator against an in-process Brokerage House with canned replies (--no-db), on
// loopback: every market order yields exactly one Trade-Result delivery, a Market-Feed comes
// once per ten Trade-Results, the mix log has the documented format with wait_us filled, a
// sizing mismatch is refused naming both sides, the pending cap refuses and logs, what is left at
// the stop is pending or failed (never both, never neither), a Brokerage House stopped and
// restarted mid-run loses no order silently, and the summary line has the Trade-Results per
// second and their 90th percentile.
#include "tests/mee_fixture.h"

namespace bb::mee_test {

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
  const auto record = mee.EndRecord();
  ASSERT_TRUE(record.exists);
  EXPECT_EQ(record.header, "# brokerbench end-of-run record v1");
  EXPECT_EQ(record.bad_lines, "");
  EXPECT_EQ(record["program"], "bb-market-emulator");
  EXPECT_EQ(record["mix_log"], "mix-mee.csv");
  EXPECT_EQ(record["stop"], "request");
  EXPECT_EQ(record["orders_received"], std::to_string(kOrders));
  EXPECT_EQ(record["limit_orders_triggered"], "0");
  EXPECT_EQ(record["trade_results_delivered"], std::to_string(kOrders));
  EXPECT_EQ(record["market_feeds_delivered"], std::to_string(kOrders / 10));
  EXPECT_EQ(record["pending"], "0");
  EXPECT_EQ(record["failed_lines"], "0");
  EXPECT_EQ(record["in_flight"], "0");
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
  // Every order out of its completion delay: all that is pending is due (and stays so).
  ASSERT_TRUE(RunningMee::WaitFor(
      [&] {
        const int64_t due = mee.stats().due.load();
        return due >= 25 && mee.stats().pending.load() == due;
      },
      std::chrono::seconds(30)))
      << mee.stats().pending.load() << " pending, " << mee.stats().due.load() << " due";
  send(26, 60);
  EXPECT_EQ(acked, 48);
  EXPECT_EQ(overloaded, 12);
  // Written only at the end: a market emulator killed before it has none.
  EXPECT_FALSE(mee.Has(mee::MarketEmulator::kPendingName));
  EXPECT_FALSE(mee.EndRecord().exists);
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
  // The record counts what the files hold: every order received ends in one of them.
  const auto record = mee.EndRecord();
  ASSERT_TRUE(record.exists);
  EXPECT_EQ(record["orders_received"], std::to_string(mee.stats().orders_received.load()));
  EXPECT_EQ(record["orders_refused"], "12");
  EXPECT_EQ(record["pending"], std::to_string(pending.size()));
  EXPECT_EQ(record["unsent_at_stop"], std::to_string(48 - pending.size()));
  const std::string failed_text = mee.ReadFile(mee::MarketEmulator::kFailedName);
  EXPECT_EQ(record["failed_lines"],
            std::to_string(std::count(failed_text.begin(), failed_text.end(), '\n') - 1));
}

TEST(MarketEmulator, ABrokerageHouseRestartLosesNoOrderSilently) {
  auto bh = std::make_unique<RunningBh>();
  const uint16_t bh_port = bh->port();
  ASSERT_NE(bh_port, 0);
  RunningMee mee(bh_port);
  constexpr int kOrders = 300;
  auto c = OrderClient(mee.port());
  ASSERT_EQ(SendOrders(*c, 1, kOrders / 2), kOrders / 2);
  ASSERT_TRUE(RunningMee::WaitFor([&] { return mee.stats().trade_results_delivered.load() > 0; },
                                  std::chrono::seconds(20)));
  bh->Stop();  // some Trade-Results delivered, most still waiting for their delay
  ASSERT_EQ(SendOrders(*c, kOrders / 2 + 1, kOrders / 2), kOrders / 2);
  // Deliveries wait for the Brokerage House: one came due while it was away.
  RunningMee::WaitFor([&] { return mee.stats().due.load() > 0; }, std::chrono::seconds(20));
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

}  // namespace bb::mee_test
