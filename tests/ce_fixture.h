// Shared by the Customer Emulator's --no-db tests (ce_test.cpp, ce_lifecycle_test.cpp,
// ce_metrics_test.cpp): the sizing, the options of a short run, and a run with a time limit.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "common/util/asio.h"
#include "common/util/end_of_run_record.h"
#include "common/workload/ids.h"
#include "common/workload/person.h"
#include "customer_emulator/emulator.h"
#include "tests/ce_test_support.h"
#include "tests/support/end_record_file.h"
#include "tests/support/openmetrics_check.h"

namespace bb::ce_test {

using cetest::ReadMixLog;
using cetest::RunningBh;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

inline const workload::Sizing kSizing{
    .customers = 1000, .scale_factor = 500, .initial_trade_days = 10};

inline std::string TempLog(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          fmt::format("bb-ce-test-{}-{}.csv", ::getpid(), name))
      .string();
}

// The canned Brokerage House, handing every request it answers to `see` first (from its worker
// threads: `see` locks what it shares).
inline bh::RunnerFactory CannedObserving(std::function<void(const protocol::Message&)> see) {
  class Observing : public bh::BlockingRunner {
   public:
    explicit Observing(std::function<void(const protocol::Message&)> see)
        : see_(std::move(see)), canned_(bh::MakeCannedRunner()) {}
    void Run(const protocol::Message& request, bh::Completion& out) override {
      see_(request);
      canned_->Run(request, out);
    }

   private:
    std::function<void(const protocol::Message&)> see_;
    std::unique_ptr<bh::BlockingRunner> canned_;
  };
  return [see] {
    return Result<std::unique_ptr<bh::BlockingRunner>>(std::make_unique<Observing>(see));
  };
}

inline ce::EmulatorOptions Options(uint16_t port, const std::string& log) {
  ce::EmulatorOptions o;
  o.bh = {"127.0.0.1", port};
  o.sizing = kSizing;
  o.mix_log = log;
  o.stop_wait = 10s;
  o.progress_seconds = 2;
  return o;
}

// Runs the emulator on a thread; gives up (Stop, then a failure) after `limit`, so that no test
// can hang.
inline Status RunBounded(ce::Emulator& emulator, std::chrono::seconds limit) {
  std::promise<Status> done;
  auto result = done.get_future();
  std::thread runner([&] { done.set_value(emulator.Run()); });
  if (result.wait_for(limit) != std::future_status::ready) {
    ADD_FAILURE() << "the emulator did not finish within " << limit.count() << " s";
    emulator.Stop();
  }
  runner.join();
  return result.get();
}

// Waits (at most 30 s) until the mix log at `path` has `rows` rows after its START marker (its
// writer flushes every 100 ms): the run is then under way with requests in flight, the moment a
// test stops it or its Brokerage House. False if that never came.
inline bool WaitForRowsAfterStart(const std::string& path, int rows) {
  for (int i = 0; i < 3000; ++i) {
    std::ifstream in(path);
    std::string line;
    int after = -1;                                // rows after START; -1 before it
    while (std::getline(in, line) && !in.eof()) {  // a line cut by the flush is not counted
      if (after >= 0) {
        ++after;
      } else if (line.find(",START,") != std::string::npos) {
        after = 0;
      }
    }
    if (after >= rows) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

}  // namespace bb::ce_test
