#include "brokerage_house/job_queue.h"

#include <algorithm>

namespace bb::bh {

// About what waking a sleeping worker costs before it runs: a futex call and a context switch,
// and on a busy machine a wait for a core. Jobs quicker than this are not worth a wake-up each.
constexpr std::size_t kWakeNanos = 50'000;

JobQueue::Admission JobQueue::Push(Job& job) {
  {
    std::lock_guard lock(mutex_);
    if (closed_) return Admission::kRefused;
    if (connected_ == 0) return Admission::kNoLane;
    const std::size_t idle = busy_ < static_cast<std::size_t>(connected_) ? connected_ - busy_ : 0;
    if (Queued() >= capacity_ + idle) return Admission::kRefused;
    jobs_.push_back(std::move(job));
  }
  stats_.queue_depth.fetch_add(1, std::memory_order_relaxed);
  return Admission::kQueued;
}

void JobQueue::Pop(Job& job) {
  job = std::move(jobs_[head_++]);
  if (head_ == jobs_.size()) {
    jobs_.clear();  // keeps the memory
    head_ = 0;
  } else if (head_ >= 1024 && head_ * 2 >= jobs_.size()) {
    // A queue that never drains (a backlog): drop the taken half now and then.
    jobs_.erase(jobs_.begin(), jobs_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
  ++busy_;
  stats_.queue_depth.fetch_sub(1, std::memory_order_relaxed);
}

void JobQueue::Ended(std::size_t jobs) {
  busy_ -= jobs;
  if (closed_ && busy_ == 0 && Queued() == 0) drained_.notify_all();
}

bool JobQueue::TryNext(Job& job, bool finished) {
  std::lock_guard lock(mutex_);
  if (finished) Ended(1);
  if (Queued() == 0) return false;
  Pop(job);
  return true;
}

bool JobQueue::Next(Job& job, int64_t finished_nanos) {
  std::unique_lock lock(mutex_);
  if (finished_nanos >= 0) {
    job_nanos_ += (finished_nanos - job_nanos_) / 8;
    Ended(1);
  }
  for (;;) {
    if (Queued() > 0) {
      Pop(job);
      return true;
    }
    if (closed_) return false;  // closed and drained
    ++sleeping_;
    ready_.wait(lock, [&] { return woken_ > 0 || closed_; });
    --sleeping_;
    if (woken_ > 0) --woken_;
  }
}

void JobQueue::Wake() {
  std::size_t wake = 0;
  {
    std::lock_guard lock(mutex_);
    const std::size_t queued = Queued();
    if (queued == 0) return;
    const auto job = static_cast<std::size_t>(job_nanos_);
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

void JobQueue::Lost(std::vector<Job>& orphans) {
  std::lock_guard lock(mutex_);
  --connected_;
  if (connected_ == 0) {
    while (Queued() > 0) Pop(orphans.emplace_back());
  }
  Ended(1);
}

void JobQueue::Finished(std::size_t jobs) {
  std::lock_guard lock(mutex_);
  Ended(jobs);
}

void JobQueue::Back() {
  std::lock_guard lock(mutex_);
  ++connected_;
}

void JobQueue::Close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  ready_.notify_all();
}

void JobQueue::WaitDrained() {
  std::unique_lock lock(mutex_);
  drained_.wait(lock, [&] { return closed_ && busy_ == 0 && Queued() == 0; });
}

}  // namespace bb::bh
