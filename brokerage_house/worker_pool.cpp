#include "brokerage_house/worker_pool.h"

#include <algorithm>
#include <chrono>
#include <type_traits>

#include "common/util/clock.h"

namespace bb::bh {

// About what waking a sleeping worker costs before it runs: a futex call and a context switch,
// and on a busy machine a wait for a core. Jobs quicker than this are not worth a wake-up each.
constexpr std::size_t kWakeNanos = 50'000;

Result<std::unique_ptr<WorkerPool>> WorkerPool::Start(const SinkContext& context,
                                                      const HandlerFactory& factory) {
  std::unique_ptr<WorkerPool> pool(new WorkerPool(context));
  for (int i = 0; i < context.workers; ++i) {
    auto handler = factory();
    if (!handler.ok()) return handler.status().WithContext("starting DB worker");
    pool->handlers_.push_back(std::move(handler).value());
  }
  for (auto& handler : pool->handlers_) {
    pool->threads_.emplace_back([p = pool.get(), h = handler.get()] { p->Work(*h); });
  }
  return pool;
}

WorkerPool::~WorkerPool() { Stop(); }

bool WorkerPool::Submit(Job&& job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || Queued() >= capacity_ + (handlers_.size() - busy_)) return false;
    queue_.push_back(std::move(job));
  }
  stats_.queue_depth.fetch_add(1, std::memory_order_relaxed);
  if (!wake_posted_.exchange(true, std::memory_order_acq_rel)) {
    asio::post(io_, [this] {
      wake_posted_.store(false, std::memory_order_release);
      WakeWorkers();
    });
  }
  return true;
}

void WorkerPool::WakeWorkers() {
  std::size_t wake = 0;
  {
    std::lock_guard lock(mutex_);
    const std::size_t queued = Queued();
    if (queued == 0) return;
    const auto job = static_cast<std::size_t>(job_nanos_.load(std::memory_order_relaxed));
    const bool quick = job <= kWakeNanos;
    // Workers to finish the queue within about one wake-up; at least one.
    const std::size_t needed =
        quick ? std::clamp<std::size_t>((queued * job + kWakeNanos - 1) / kWakeNanos, 1, queued)
              : queued;
    if (needed <= woken_) return;  // as many wake-ups are on their way
    wake = std::min(needed - woken_, sleeping_ - woken_);
    woken_ += wake;
  }
  for (std::size_t i = 0; i < wake; ++i) ready_.notify_one();
}

Job WorkerPool::Pop() {
  Job job = std::move(queue_[head_++]);
  if (head_ == queue_.size()) {
    queue_.clear();  // keeps the memory
    head_ = 0;
  } else if (head_ >= 1024 && head_ * 2 >= queue_.size()) {
    // A queue that never drains (a backlog): drop the taken half now and then.
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
  return job;
}

void WorkerPool::Stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void WorkerPool::Serve(Handler& handler, Job& job, HandlerResult& result,
                       std::vector<uint8_t>& frame) {
  stats_.queue_depth.fetch_sub(1, std::memory_order_relaxed);
  const auto start = std::chrono::steady_clock::now();
  handler.Handle(job.request, result);
  const int64_t nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count();
  // Two workers may race here and lose an update: it is an estimate.
  const int64_t average = job_nanos_.load(std::memory_order_relaxed);
  job_nanos_.store(average + (nanos - average) / 8, std::memory_order_relaxed);
  StampServerTime(result.reply, MonotonicMicros() - job.received_micros);
  if (const auto* status = StatusOf(result.reply)) {
    stats_.Count(job.type, *status, result.db_round_trips, result.db_statements);
  }
  frame.clear();
  EncodeReply(result.reply, job.request_id, frame);
  replies_.Push(std::move(job.target), frame);
  if (!result.to_market.empty() && market_) market_(result.to_market);
}

void WorkerPool::Work(Handler& handler) {
  HandlerResult result;
  std::vector<uint8_t> frame;  // the encoded reply, reused
  std::unique_lock lock(mutex_);
  for (;;) {
    if (Queued() == 0) {
      if (stopping_) return;  // stopping and drained
      ++sleeping_;
      ready_.wait(lock, [&] { return woken_ > 0 || stopping_; });
      --sleeping_;
      if (woken_ > 0) --woken_;
      continue;
    }
    {
      Job job = Pop();
      ++busy_;
      lock.unlock();
      Serve(handler, job, result, frame);
    }
    lock.lock();
    --busy_;
  }
}

}  // namespace bb::bh
