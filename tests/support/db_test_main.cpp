// main() of `db` and `e2e` test binaries: one throwaway PostgreSQL cluster per binary.
// See test_cluster.h.
#include <cstdlib>
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "tests/support/test_cluster.h"

namespace {

const std::string kPgCluster = std::string(BB_SOURCE_DIR) + "/controller/pgcluster";

// Owns the temporary directory and the cluster in it; destroys both when it goes.
class ThrowawayCluster {
 public:
  ThrowawayCluster() {
    std::string pattern = (std::filesystem::temp_directory_path() / "bbtest.XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      error_ = fmt::format("mkdtemp {} failed", pattern);
      return;
    }
    dir_ = pattern;
    // As root the cluster runs as an unprivileged user, who must be able to enter.
    chmod(dir_.c_str(), 0711);
    auto init = bb::testing::RunCommand(
        fmt::format("{} init {}/pg --throwaway --no-tcp 2>&1 && {} start {}/pg 2>&1", kPgCluster,
                    dir_, kPgCluster, dir_));
    if (!init.ok()) {
      error_ = init.status().message();
      return;
    }
    auto conninfo = bb::testing::RunCommand(fmt::format("{} conninfo {}/pg", kPgCluster, dir_));
    if (!conninfo.ok()) {
      error_ = conninfo.status().message();
      return;
    }
    std::string value = *conninfo;
    while (!value.empty() && value.back() == '\n') value.pop_back();
    setenv("BB_TEST_CONNINFO", value.c_str(), 1);
  }

  ~ThrowawayCluster() {
    if (dir_.empty()) return;
    auto destroyed =
        bb::testing::RunCommand(fmt::format("{} destroy {}/pg 2>&1", kPgCluster, dir_));
    if (!destroyed.ok()) fmt::print(stderr, "{}\n", destroyed.status().message());
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  ThrowawayCluster(const ThrowawayCluster&) = delete;
  ThrowawayCluster& operator=(const ThrowawayCluster&) = delete;

  const std::string& error() const { return error_; }

 private:
  std::string dir_;
  std::string error_;
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (std::getenv("BB_TEST_CONNINFO") != nullptr) return RUN_ALL_TESTS();
  ThrowawayCluster cluster;
  if (!cluster.error().empty()) {
    fmt::print(stderr, "cannot start the test PostgreSQL cluster: {}\n", cluster.error());
    return 1;
  }
  return RUN_ALL_TESTS();
}
