// WorkerPool: a fixed set of DB worker threads, each owning one Handler (so one database
// connection with every statement prepared), serving a bounded queue of requests. A thousand
// emulated users need not mean a thousand PostgreSQL backends (DESIGN.md).
//
// A job names where its reply goes (a ReplyTarget: the client connection, which hands the
// reply to its I/O strand); market requests go to the market sink after the reply.
//
// Thread-safety: Submit and WakeWorkers from any thread (the I/O thread); Stop from one thread,
// not an I/O thread (it waits for the queue to drain).
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "brokerage_house/handler.h"
#include "brokerage_house/stats.h"
#include "common/protocol/codec.h"

namespace bb::bh {

class ReplyTarget {
 public:
  virtual ~ReplyTarget() = default;
  // Called on a worker thread; must not block.
  virtual void Deliver(uint64_t request_id, protocol::Message reply) = 0;
};

struct Job {
  std::shared_ptr<ReplyTarget> target;
  uint64_t request_id = 0;
  protocol::MessageType type{};
  protocol::Message request;
  int64_t received_micros = 0;  // monotonic, when the last byte of the request arrived
};

using MarketSink = std::function<void(std::vector<protocol::MarketTradeRequest>&)>;
using HandlerFactory = std::function<Result<std::unique_ptr<Handler>>()>;

class WorkerPool {
 public:
  // Creates every handler first (so bad SQL or an unreachable database fails at start), then
  // starts the threads.
  static Result<std::unique_ptr<WorkerPool>> Start(int workers, std::size_t capacity,
                                                   const HandlerFactory& factory, Stats& stats,
                                                   MarketSink market);
  ~WorkerPool();

  // Queues a job; false when the queue is full or the pool is stopping (reply "overloaded").
  // A job that a sleeping worker will take does not count against the capacity: the queue
  // bounds the requests waiting for a worker. Submit wakes no one: an awake worker sees the
  // job at once, and sleeping ones wait for the next WakeWorkers(). The I/O thread queues
  // every request of one turn of its loop and then wakes the workers once (WorkerWakeup),
  // rather than once per request: each wake is a futex call and, on a busy machine, a
  // worker preempting the I/O thread (bench harness: about one context switch per request).
  bool Submit(Job&& job);
  // Wakes as many sleeping workers as there are queued jobs. Any thread.
  void WakeWorkers();

  // Serves what is queued, then joins the workers.
  void Stop();

 private:
  WorkerPool(std::size_t capacity, Stats& stats, MarketSink market)
      : capacity_(capacity), stats_(stats), market_(std::move(market)) {}
  void Work(Handler& handler);

  const std::size_t capacity_;
  Stats& stats_;
  MarketSink market_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Job> queue_;
  std::size_t sleeping_ = 0;  // workers waiting on ready_
  bool stopping_ = false;
  std::vector<std::unique_ptr<Handler>> handlers_;
  std::vector<std::thread> threads_;
};

}  // namespace bb::bh
