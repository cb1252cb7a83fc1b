#include "common/util/port_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

namespace bb {
namespace {

TEST(WritePortFile, WritesThePortAndANewline) {
  const auto path =
      (std::filesystem::temp_directory_path() / ("port." + std::to_string(getpid()))).string();
  ASSERT_TRUE(WritePortFile(path, 43210).ok());
  ASSERT_TRUE(WritePortFile(path, 5432).ok());  // truncates
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "5432\n");
  std::filesystem::remove(path);
}

TEST(WritePortFile, AMissingDirectoryNamesTheFileAndTheReason) {
  Status s = WritePortFile("/nonexistent-dir/bh.port", 30000);
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_EQ(s.message(), "--port-file '/nonexistent-dir/bh.port': No such file or directory");
}

TEST(WritePortFile, NamesTheOptionItWasGiven) {
  Status s = WritePortFile("/nonexistent-dir/metrics.port", 1, "--metrics-port-file");
  EXPECT_EQ(s.message(),
            "--metrics-port-file '/nonexistent-dir/metrics.port': No such file or directory");
}

TEST(WritePortFile, AFullDiskIsAnErrorEvenThoughOpeningWorked) {
  Status s = WritePortFile("/dev/full", 30000);
  EXPECT_EQ(s.message(), "--port-file '/dev/full': No space left on device");
}

}  // namespace
}  // namespace bb
