#include "tests/support/test_cluster.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/db/connection.h"

namespace bb::testing {

std::string ClusterConninfo() {
  const char* conninfo = std::getenv("BB_TEST_CONNINFO");
  return conninfo != nullptr ? conninfo : "";
}

Result<std::string> CreateDatabase(std::string_view prefix) {
  static std::atomic<int> counter{0};
  std::string name = fmt::format("{}_{}_{}", prefix, getpid(), counter.fetch_add(1));
  auto admin = db::Connection::Open(ClusterConninfo());
  if (!admin.ok()) return admin.status();
  Status s = (*admin)->Execute(fmt::format("CREATE DATABASE \"{}\"", name));
  if (!s.ok()) return s;
  return fmt::format("{} dbname={}", ClusterConninfo(), name);
}

Result<std::string> RunCommand(const std::string& command) {
  struct PipeCloser {
    void operator()(FILE* f) const { pclose(f); }
  };
  FILE* raw = popen(command.c_str(), "r");
  if (raw == nullptr) return Status::IoError(fmt::format("cannot run '{}'", command));
  std::unique_ptr<FILE, PipeCloser> pipe(raw);
  std::string out;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe.get())) > 0) out.append(buffer, n);
  int status = pclose(pipe.release());
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return Status::IoError(fmt::format("'{}' failed (exit status {}): {}", command,
                                       WIFEXITED(status) ? WEXITSTATUS(status) : -1, out));
  }
  return out;
}

}  // namespace bb::testing
