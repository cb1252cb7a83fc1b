#include "brokerage_house/worker_pool.h"

#include <algorithm>
#include <type_traits>

#include "common/util/clock.h"

namespace bb::bh {

Result<std::unique_ptr<WorkerPool>> WorkerPool::Start(int workers, std::size_t capacity,
                                                      const HandlerFactory& factory, Stats& stats,
                                                      MarketSink market) {
  std::unique_ptr<WorkerPool> pool(new WorkerPool(capacity, stats, std::move(market)));
  for (int i = 0; i < workers; ++i) {
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
    if (stopping_ || queue_.size() >= capacity_ + sleeping_) return false;
    queue_.push_back(std::move(job));
  }
  stats_.queue_depth.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void WorkerPool::WakeWorkers() {
  std::size_t wake = 0, sleeping = 0;
  {
    std::lock_guard lock(mutex_);
    sleeping = sleeping_;
    wake = std::min(queue_.size(), sleeping_);
  }
  if (wake == 0) return;
  if (wake == sleeping) {
    ready_.notify_all();
  } else {
    for (std::size_t i = 0; i < wake; ++i) ready_.notify_one();
  }
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

// Sets server_micros on a transaction reply: queueing included (DESIGN.md).
static void StampServerTime(protocol::Message& reply, int64_t micros) {
  std::visit(
      [&](auto& r) {
        if constexpr (requires { r.status.server_micros; }) r.status.server_micros = micros;
      },
      reply);
}

static const protocol::ReplyStatus* StatusOf(const protocol::Message& reply) {
  return std::visit(
      [](const auto& r) -> const protocol::ReplyStatus* {
        if constexpr (requires { r.status.outcome; }) {
          return &r.status;
        } else {
          return nullptr;
        }
      },
      reply);
}

void WorkerPool::Work(Handler& handler) {
  HandlerResult result;
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mutex_);
      ++sleeping_;
      ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      --sleeping_;
      if (queue_.empty()) return;  // stopping and drained
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    stats_.queue_depth.fetch_sub(1, std::memory_order_relaxed);
    handler.Handle(job.request, result);
    StampServerTime(result.reply, MonotonicMicros() - job.received_micros);
    if (const auto* status = StatusOf(result.reply)) stats_.Count(job.type, *status);
    job.target->Deliver(job.request_id, std::move(result.reply));
    if (!result.to_market.empty() && market_) market_(result.to_market);
  }
}

}  // namespace bb::bh
