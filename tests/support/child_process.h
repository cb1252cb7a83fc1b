// ChildProcess: a program binary a test starts, its standard output and error in one file.
// The test signals and reaps it by its pid only; the destructor kills (SIGKILL) and reaps a
// child still running, so a failed assertion leaves no process behind.
//
// Ownership: owns the child until it is reaped. Thread-safety: none; one thread.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

#include "common/util/status.h"

namespace bb::testing {

class ChildProcess {
 public:
  // Starts argv[0] (a path) with the arguments argv[1...]; stdout and stderr go to `output`
  // (created or truncated).
  static Result<std::unique_ptr<ChildProcess>> Start(const std::vector<std::string>& argv,
                                                     const std::string& output);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  void Signal(int signal) const;
  // Waits up to `timeout` for the child to end: its exit status, 128 + N if signal N ended it,
  // or nothing if it still runs.
  std::optional<int> Wait(std::chrono::milliseconds timeout);

 private:
  explicit ChildProcess(pid_t pid) : pid_(pid) {}
  pid_t pid_;
  std::optional<int> exit_;
};

}  // namespace bb::testing
