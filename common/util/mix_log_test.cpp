#include "common/util/mix_log.h"

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

namespace bb {
namespace {

std::vector<std::string> Lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(MixLog, WritesHeaderRowsAndMarkersFromManyThreads) {
  auto path =
      (std::filesystem::temp_directory_path() / ("mixlog." + std::to_string(getpid()))).string();
  auto log = MixLog::Open(path);
  ASSERT_TRUE(log.ok()) << log.status().message();
  (*log)->Mark("START");
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < 5000; ++i) {
          MixRow row;
          row.start_us = 1'700'000'000'000'000 + i;
          row.SetCode("TO");
          row.spec_status = -711;
          row.outcome = 3;
          row.response_us = 1234;
          row.retries = 2;
          row.user = t;
          row.SetInputs(i % 2 == 0 ? "TLB q200 name tp margin lifo" : "");
          row.trade_id = i % 2 == 0 ? 200'000'000'000'000 + i : 0;
          (*log)->Append(row);
        }
      });
    }
  }
  (*log)->Mark("STOP");
  ASSERT_TRUE((*log)->Close().ok());
  EXPECT_EQ((*log)->rows_written(), 20002);

  auto lines = Lines(path);
  ASSERT_EQ(lines.size(), 20004u);
  EXPECT_EQ(lines[0], MixLog::kHeader);
  EXPECT_EQ(lines[1], MixLog::kColumns);
  EXPECT_TRUE(lines[2].ends_with(",START,,,,,,,,")) << lines[2];
  // The first row comes from whichever thread ran first: its user is that thread's; each
  // thread's first row has the inputs and a trade id, its second neither (empty columns).
  const std::string row = lines[3].substr(lines[3].find(','));
  EXPECT_TRUE(row.starts_with(",TO,-711,invalid,1234,2,")) << row;
  EXPECT_TRUE(row.ends_with(",0,TLB q200 name tp margin lifo,200000000000000")) << row;
  int with_inputs = 0, without = 0;
  for (size_t i = 3; i + 1 < lines.size(); ++i) {
    with_inputs += lines[i].find(",0,TLB q200 name tp margin lifo,2000000000") != std::string::npos;
    without += lines[i].ends_with(",0,,");
  }
  EXPECT_EQ(with_inputs, 10000);
  EXPECT_EQ(without, 10000);
  EXPECT_TRUE(lines.back().ends_with(",STOP,,,,,,,,")) << lines.back();
  std::filesystem::remove(path);
}

TEST(MixLog, InputsLongerThanTheRowHoldsAreCut) {
  MixRow row;
  row.SetInputs("TMB q800 name tp margin lifo rb");  // the longest the CE writes: kept whole
  EXPECT_STREQ(row.inputs, "TMB q800 name tp margin lifo rb");
  const std::string long_text(100, 'x');
  row.SetInputs(long_text);
  EXPECT_EQ(std::string(row.inputs), long_text.substr(0, sizeof row.inputs - 1));
  row.SetInputs("");
  EXPECT_STREQ(row.inputs, "");
}

// The writer flushes every wake-up (100 ms): rows are on disk while the log is open, so a
// killed emulator leaves them behind.
TEST(MixLog, RowsReachTheFileWhileItIsOpen) {
  auto path = (std::filesystem::temp_directory_path() / ("mixlog-open." + std::to_string(getpid())))
                  .string();
  auto log = MixLog::Open(path);
  ASSERT_TRUE(log.ok()) << log.status().message();
  MixRow row;
  row.SetCode("TS");
  (*log)->Append(row);
  std::vector<std::string> lines;
  for (int i = 0; i < 100 && lines.size() < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    lines = Lines(path);
  }
  ASSERT_EQ(lines.size(), 3u) << "the row is not in the file 2 s after Append";
  EXPECT_EQ(lines[2], "0,TS,0,ok,0,0,0,0,,");
  ASSERT_TRUE((*log)->Close().ok());
  std::filesystem::remove(path);
}

// A full disk is seen on the writer's next flush, not at Close: the owner hears of it once.
TEST(MixLog, AWriteErrorReachesTheOwnerAtOnceAndOnce) {
  std::mutex mutex;
  std::condition_variable called;
  std::vector<std::string> errors;
  auto log = MixLog::Open("/dev/full", [&](const Status& s) {
    std::lock_guard lock(mutex);
    errors.push_back(s.message());
    called.notify_one();
  });
  ASSERT_TRUE(log.ok()) << log.status().message();
  MixRow row;
  row.SetCode("TO");
  (*log)->Append(row);
  {
    std::unique_lock lock(mutex);
    ASSERT_TRUE(called.wait_for(lock, std::chrono::seconds(2), [&] { return !errors.empty(); }))
        << "no error 2 s after the first row";
  }
  (*log)->Append(row);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // three more flushes
  Status closed = (*log)->Close();
  std::lock_guard lock(mutex);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "mix log '/dev/full': No space left on device");
  EXPECT_EQ(closed.message(), errors[0]);
}

TEST(MixLog, AnUnwritablePathIsAClearError) {
  auto log = MixLog::Open("/nonexistent-dir/mix.csv");
  ASSERT_FALSE(log.ok());
  EXPECT_NE(log.status().message().find("mix log '/nonexistent-dir/mix.csv'"), std::string::npos);
}

}  // namespace
}  // namespace bb
