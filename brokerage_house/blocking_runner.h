// BlockingRunner: what a worker lane (worker_lanes.h) runs a request with, on its own thread,
// blocking until the reply is ready. Two kinds: the client-side frames (the statements one by
// one from C++ on the lane's own session: MakeClientFramesRunner) and --no-db's canned replies
// (MakeCannedRunner), which touch no database and measure the harness's own ceiling (the
// "remove all data calls and see what remains" baseline). Tests run their own.
//
// Ownership: each worker lane owns one runner. Thread-safety: none; one runner per thread.
#pragma once

#include <memory>
#include <string>

#include "brokerage_house/job.h"
#include "common/protocol/codec.h"
#include "common/util/status.h"

namespace bb::bh {

class BlockingRunner {
 public:
  virtual ~BlockingRunner() = default;
  // Runs `request` (one of the twelve transaction inputs) and fills `out`, whose reply and
  // market requests the caller cleared or reuses.
  virtual void Run(const protocol::Message& request, Completion& out) = 0;
  // False once the runner's database session is lost, until Reconnect succeeds; a runner with
  // no database is always connected.
  virtual bool connected() const { return true; }
  virtual Status Reconnect() { return Status::Ok(); }
};

// Valid fixed replies of the request's type, no database. Trade-Order still produces its market
// request, so the whole pipeline (customer emulator -> BH -> market emulator -> BH) runs.
std::unique_ptr<BlockingRunner> MakeCannedRunner();

// The client-side frames on a session of their own, every statement prepared; fails fast on
// bad SQL or a database that refuses.
struct FrameOptions;
Result<std::unique_ptr<BlockingRunner>> MakeClientFramesRunner(const std::string& conninfo,
                                                               const FrameOptions& options);

}  // namespace bb::bh
