// WorkerPool: a fixed set of DB worker threads, each owning one Handler (so one database
// connection with every statement prepared), serving a bounded queue of requests. A thousand
// emulated users need not mean a thousand PostgreSQL backends (docs/ARCHITECTURE.md).
//
// A job names where its reply goes (a ReplyTarget: the client connection). The worker encodes
// the reply frame itself and pushes it to the ReplyQueue, which hands it to the I/O thread in
// a batch with the other replies finished meanwhile; market requests go to the market sink
// after the reply.
//
// Thread-safety: Submit and WakeWorkers from any thread (the I/O thread); Stop from one thread,
// not an I/O thread (it waits for the queue to drain).
//
// Submit wakes no one itself: the first request queued in a turn of the I/O loop posts one
// WakeWorkers() behind the handlers that are already ready to run, so the requests that
// arrive together share one wake-up.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "brokerage_house/handler.h"
#include "brokerage_house/request_sink.h"

namespace bb::bh {

using HandlerFactory = std::function<Result<std::unique_ptr<Handler>>()>;

class WorkerPool : public RequestSink {
 public:
  // Creates context.workers handlers first (so bad SQL or an unreachable database fails at
  // start), then starts the threads.
  static Result<std::unique_ptr<WorkerPool>> Start(const SinkContext& context,
                                                   const HandlerFactory& factory);
  ~WorkerPool() override;

  // Queues a job; false when the queue is full or the pool is stopping (reply "overloaded").
  // A job that an idle worker will take does not count against the capacity: the queue
  // bounds the requests waiting for a worker. (Idle, not asleep: a worker that has not yet
  // reached its first wait, or is between two jobs, is idle too.) Submit wakes no one: an
  // awake worker sees the job at once, and sleeping ones wait for the next WakeWorkers().
  // The I/O thread queues every request of one turn of its loop and then wakes the workers
  // once (WorkerWakeup), rather than once per request: each wake is a futex call and, on a
  // busy machine, a worker preempting the I/O thread (bench harness: about one context
  // switch per request).
  bool Submit(Job&& job) override;
  // Wakes as many sleeping workers as the queued jobs need, judged by how long jobs have been
  // taking the handler. Jobs slower than a wake-up (kWakeNanos, 50 µs; every database
  // transaction, 0.5 ms and more) get a worker each, as far as there are workers. Quicker
  // ones (--no-db's canned replies, about a microsecond) get as many workers as finish them
  // within about one wake-up: at least one, usually one. Waking a second worker for less
  // work than its wake-up only adds a futex call, two context switches and often a worker
  // preempting the I/O thread (bench harness at 16 connections: 0.7 context switches per
  // request became 0.3, and 61 % of the echo server's rate became 73 %). The estimate lags:
  // after a long run of quick jobs the first slow one may hold a job queued behind it for as
  // long as it runs, after which the estimate says "slow". Any thread.
  void WakeWorkers();

  // Serves what is queued, then joins the workers.
  void Stop() override;

 private:
  explicit WorkerPool(const SinkContext& c)
      : io_(c.io),
        capacity_(c.queue_capacity),
        replies_(c.replies),
        stats_(c.stats),
        market_(c.market) {}
  void Work(Handler& handler);
  // Runs one job and hands its reply on; `result` and `frame` are the worker's, reused.
  void Serve(Handler& handler, Job& job, HandlerResult& result, std::vector<uint8_t>& frame);
  // The queue, under mutex_.
  std::size_t Queued() const { return queue_.size() - head_; }
  Job Pop();

  asio::io_context& io_;
  std::atomic<bool> wake_posted_{false};  // a WakeWorkers is posted to io_ and has not run
  const std::size_t capacity_;
  ReplyQueue& replies_;
  Stats& stats_;
  MarketSink market_;
  std::mutex mutex_;
  std::condition_variable ready_;
  // Jobs waiting are queue_[head_...]. A vector, not a deque: a Job is nearly 1 KB, so a
  // deque would allocate a block for every job; the vector's memory is reused once drained.
  std::vector<Job> queue_;
  std::size_t head_ = 0;
  std::size_t sleeping_ = 0;  // workers waiting on ready_
  std::size_t woken_ = 0;     // wake-ups sent and not yet taken up by a sleeping worker
  std::size_t busy_ = 0;      // workers running a job
  // A running average of how long a job takes the handler; at first, "longer than a wake-up".
  std::atomic<int64_t> job_nanos_{1'000'000};
  bool stopping_ = false;
  std::vector<std::unique_ptr<Handler>> handlers_;
  std::vector<std::thread> threads_;
};

}  // namespace bb::bh
