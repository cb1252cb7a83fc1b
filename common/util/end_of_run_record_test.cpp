#include "common/util/end_of_run_record.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

namespace bb {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class EndOfRunRecordTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("end-record." + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST(EndOfRunRecordPath, SitsBesideTheMixLog) {
  EXPECT_EQ(EndOfRunRecord::PathFor("out/mix-ce-42.csv"), "out/mix-ce-42.end");
  EXPECT_EQ(EndOfRunRecord::PathFor("mix-mee.csv"), "mix-mee.end");
  EXPECT_EQ(EndOfRunRecord::PathFor("out/rows.log"), "out/rows.log.end");
  EXPECT_EQ(EndOfRunRecord::PathFor(".csv"), ".csv.end");
}

TEST(EndOfRunRecordText, AVersionLineThenOneKeyValueLineEachInOrder) {
  EndOfRunRecord r;
  r.Add("program", "bb-customer-emulator");
  r.Add("sent", int64_t{12345});
  r.Add("measured_s", 59.9996);
  r.Add("in_flight", int64_t{-1});
  EXPECT_EQ(r.Text(),
            "# brokerbench end-of-run record v1\n"
            "program=bb-customer-emulator\n"
            "sent=12345\n"
            "measured_s=60.000\n"
            "in_flight=-1\n");
}

TEST(EndOfRunRecordText, ATextValueStaysOnItsLine) {
  EndOfRunRecord r;
  r.Add("error", std::string_view("lost every connection\nlast: reset=peer\r"));
  EXPECT_EQ(r.Text(), std::string(EndOfRunRecord::kHeader) +
                          "\nerror=lost every connection last: reset=peer \n");
}

TEST(EndOfRunRecordText, AKeyThatIsNotLowerCaseLettersDigitsAndUnderscoreShowsAsBad) {
  EndOfRunRecord r;
  r.Add("Sent", int64_t{1});
  r.Add("a=b", int64_t{2});
  r.Add("", int64_t{3});
  r.Add("rows_2", int64_t{4});
  EXPECT_EQ(r.Text(),
            std::string(EndOfRunRecord::kHeader) + "\nbad_key=1\nbad_key=2\nbad_key=3\nrows_2=4\n");
}

TEST_F(EndOfRunRecordTest, WritesTheWholeTextAndLeavesNoPartFile) {
  EndOfRunRecord r;
  r.Add("stop", "signal");
  const std::string path = (dir_ / "mix-mee.end").string();
  { std::ofstream(path) << "an older record, replaced whole\n"; }
  ASSERT_TRUE(r.Write(path).ok());
  EXPECT_EQ(Slurp(path), r.Text());
  EXPECT_FALSE(fs::exists(path + ".part"));
}

TEST_F(EndOfRunRecordTest, AMissingDirectoryNamesTheRecordAndTheReasonAndWritesNothing) {
  EndOfRunRecord r;
  const std::string path = (dir_ / "gone" / "mix-mee.end").string();
  Status s = r.Write(path);
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_EQ(s.message(), "end-of-run record '" + path + "': No such file or directory");
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(EndOfRunRecordTest, ARenameThatFailsLeavesNeitherFile) {
  EndOfRunRecord r;
  r.Add("stop", "duration");
  const fs::path path = dir_ / "taken";
  fs::create_directories(path / "inside");  // a non-empty directory: rename cannot replace it
  Status s = r.Write(path.string());
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_NE(s.message().find("end-of-run record '" + path.string() + "': "), std::string::npos)
      << s.message();
  EXPECT_FALSE(fs::exists(path.string() + ".part"));
  EXPECT_TRUE(fs::is_directory(path / "inside"));
}

}  // namespace
}  // namespace bb
