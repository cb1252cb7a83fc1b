// The Customer Emulator's Data-Maintenance sender over a run of 2.5 minutes against an
// in-process --no-db Brokerage House: DM rows (user -1) 58-62 s apart (spec 6.3.3),
// every one answered, and no row lost. A separate binary so that it runs beside the
// other tests; a few paced users keep its CPU cost small.
#include <chrono>
#include <filesystem>
#include <future>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "customer_emulator/emulator.h"
#include "tests/ce_test_support.h"

namespace bb {
namespace {

using namespace std::chrono_literals;

TEST(CustomerEmulatorDataMaintenance, SendsOneEverySixtySeconds) {
  const workload::Sizing sizing{.customers = 1000, .scale_factor = 500, .initial_trade_days = 10};
  cetest::RunningBh bh(sizing, cetest::RunningBh::Canned(), 1);
  ASSERT_NE(bh.port(), 0);
  const std::string path =
      (std::filesystem::temp_directory_path() / fmt::format("bb-ce-dm-{}.csv", ::getpid()))
          .string();
  ce::EmulatorOptions o;
  o.bh = {"127.0.0.1", bh.port()};
  o.sizing = sizing;
  o.mix_log = path;
  o.users = 10;
  o.pacing = 100ms;
  o.duration = 150s;
  o.stop_wait = 10s;
  o.progress_seconds = 30;
  ce::Emulator emulator(o);
  std::promise<Status> done;
  auto result = done.get_future();
  std::thread runner([&] { done.set_value(emulator.Run()); });
  if (result.wait_for(240s) != std::future_status::ready) {
    ADD_FAILURE() << "the emulator did not finish within 240 s";
    emulator.Stop();
  }
  runner.join();
  Status s = result.get();
  ASSERT_TRUE(s.ok()) << s.message();

  auto log = cetest::ReadMixLog(path);
  for (const auto& e : log.errors) ADD_FAILURE() << e;
  EXPECT_EQ(static_cast<int64_t>(log.rows.size()), emulator.summary().rows);
  EXPECT_EQ(emulator.summary().errors, 0);
  std::vector<int64_t> dm;
  for (const auto& r : log.rows) {
    if (r.code != "DM") continue;
    EXPECT_EQ(r.user, -1);
    EXPECT_EQ(r.outcome, "ok");
    dm.push_back(r.start_us);
  }
  // From the start of ramp-up: at 0, 60 and 120 s of a 150 s run.
  ASSERT_EQ(dm.size(), 3u);
  for (size_t i = 1; i < dm.size(); ++i) {
    const double gap = (dm[i] - dm[i - 1]) / 1e6;
    EXPECT_GE(gap, 58.0) << "DM " << i;
    EXPECT_LE(gap, 62.0) << "DM " << i;
    std::fprintf(stderr, "DM interval %zu: %.6f s\n", i, gap);
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace bb
