// WorkerLanes: the Dispatcher's lanes for client-side frames and --no-db: a thread per lane,
// each with a BlockingRunner (blocking_runner.h), taking jobs from the Dispatcher's queue. A
// worker runs its job, finishes the reply itself (Dispatcher::Finish: encoded on the worker,
// handed to the I/O thread in a batch with the others finished meanwhile), and takes the next.
//
// Wake-ups are the JobQueue's economy (job_queue.h): queueing wakes no one; the first job
// queued in a turn of the I/O loop posts one JobQueue::Wake behind the handlers already ready
// to run, so the requests that arrive together share one wake-up.
//
// A runner whose database session breaks follows the Dispatcher's reconnect rule: its worker
// takes the lane out of service and runs Dispatcher::Reconnect itself (it is off the I/O
// thread), then serves again.
//
// Ownership: owned by the Dispatcher; owns its runners and threads. Thread-safety: JobsQueued
// on the I/O thread, Stop from the Dispatcher's stopping thread.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "brokerage_house/blocking_runner.h"
#include "brokerage_house/dispatcher.h"

namespace bb::bh {

using RunnerFactory = std::function<Result<std::unique_ptr<BlockingRunner>>()>;

class WorkerLanes : public Lanes {
 public:
  // Makes dispatcher.lanes() runners first (so bad SQL or an unreachable database fails at
  // start), then starts the threads.
  static Result<std::unique_ptr<Lanes>> Start(Dispatcher& dispatcher, const RunnerFactory& factory);
  ~WorkerLanes() override;

  void JobsQueued() override;
  void Stop() override;

 private:
  explicit WorkerLanes(Dispatcher& dispatcher) : dispatcher_(dispatcher) {}
  void Work(int lane, BlockingRunner& runner);

  Dispatcher& dispatcher_;
  std::atomic<bool> wake_posted_{false};  // a JobQueue::Wake is posted and has not run
  std::vector<std::unique_ptr<BlockingRunner>> runners_;
  std::vector<std::thread> threads_;
};

// A LanesFactory for Server: a worker lane per runner of `factory`.
LanesFactory MakeWorkerLanes(RunnerFactory factory);

}  // namespace bb::bh
