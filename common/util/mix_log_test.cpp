#include "common/util/mix_log.h"

#include <filesystem>
#include <fstream>
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
  EXPECT_TRUE(lines[2].ends_with(",START,,,,,,,")) << lines[2];
  // The first row comes from whichever thread ran first: its user is that thread's; each
  // thread's first row has the inputs, its second none.
  const std::string row = lines[3].substr(lines[3].find(','));
  EXPECT_TRUE(row.starts_with(",TO,-711,invalid,1234,2,")) << row;
  EXPECT_TRUE(row.ends_with(",0,TLB q200 name tp margin lifo")) << row;
  int with_inputs = 0, without = 0;
  for (size_t i = 3; i + 1 < lines.size(); ++i) {
    with_inputs += lines[i].ends_with(",0,TLB q200 name tp margin lifo");
    without += lines[i].ends_with(",0,");
  }
  EXPECT_EQ(with_inputs, 10000);
  EXPECT_EQ(without, 10000);
  EXPECT_TRUE(lines.back().ends_with(",STOP,,,,,,,")) << lines.back();
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

TEST(MixLog, AnUnwritablePathIsAClearError) {
  auto log = MixLog::Open("/nonexistent-dir/mix.csv");
  ASSERT_FALSE(log.ok());
  EXPECT_NE(log.status().message().find("mix log '/nonexistent-dir/mix.csv'"), std::string::npos);
}

}  // namespace
}  // namespace bb
