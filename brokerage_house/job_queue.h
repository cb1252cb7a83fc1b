// JobQueue: the requests waiting for a lane of the Dispatcher (dispatcher.h), bounded, and the
// lanes' accounting that says whether a request may wait, when a worker lane is woken, and when
// the queue has drained.
//
// Two kinds of lane take jobs. Lanes driven on the I/O thread (call_lanes.h) take one without
// waiting (TryNext). Worker lanes (worker_lanes.h) wait for one (Next), and are woken sparingly:
// Push wakes no one (an awake worker sees the job at once), and Wake, which the worker lanes
// post once per turn of the I/O loop, wakes as many sleeping workers as the queued jobs need,
// judged by how long jobs have been taking. Jobs slower than a wake-up (kWakeNanos, 50 µs; every
// database transaction, 0.5 ms and more) get a worker each, as far as there are workers. Quicker
// ones (--no-db's canned replies, about a microsecond) get as many workers as finish them within
// about one wake-up: at least one, usually one. Waking a second worker for less work than its
// wake-up only adds a futex call, two context switches and often a worker preempting the I/O
// thread (BENCHMARKS.md, "Replies back in batches, one worker woken per turn"). The estimate
// lags: after a long run of quick jobs the first slow one may hold a job queued behind it for as
// long as it runs, after which the estimate says "slow".
//
// Capacity: a job that an idle lane will take does not count against it; the queue bounds the
// jobs waiting for a lane. (Idle, not asleep: a worker between two jobs is idle too.)
//
// Ownership: holds the queued jobs. Thread-safety: every function from any thread. mutex_
// guards jobs_, head_, closed_, connected_, busy_, sleeping_, woken_ and job_nanos_; ready_
// (a job for a sleeping worker, or closed) and drained_ (closed, empty and no job running)
// wait on it.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "brokerage_house/job.h"
#include "brokerage_house/stats.h"

namespace bb::bh {

class JobQueue {
 public:
  // `lanes` lanes, all connected at first.
  JobQueue(std::size_t capacity, int lanes, Stats& stats)
      : capacity_(capacity), connected_(lanes), stats_(stats) {}

  enum class Admission {
    kQueued,   // `job` was moved into the queue
    kRefused,  // closed, or full: the client gets "overloaded"
    kNoLane,   // no lane is connected: the job fails at once (left in `job`)
  };
  Admission Push(Job& job);

  // A lane's next job, counted as running until the lane's next call of TryNext, Next or Lost.
  // `finished`: the lane's previous job is done (its reply finished). Never waits: false when
  // nothing is queued.
  bool TryNext(Job& job, bool finished);
  // The same for a worker lane, which sleeps until woken when nothing is queued.
  // `finished_nanos`: how long the previous job ran (the wake-up estimate learns from it), or -1
  // when there was none. False once closed and empty: the worker ends.
  bool Next(Job& job, int64_t finished_nanos);
  // Wakes the sleeping workers the queued jobs need (see above). Any thread.
  void Wake();

  // The lane's session broke: its job is done and the lane is out of service until Back. When
  // it was the last lane connected, every queued job is moved to `orphans` (each counted as
  // running until Finished), so that none waits for a reconnection.
  void Lost(std::vector<Job>& orphans);
  void Finished(std::size_t jobs);
  void Back();

  // Refuses new jobs from now on; workers end once the queue is empty.
  void Close();
  // Until closed, empty and no job running.
  void WaitDrained();

 private:
  std::size_t Queued() const { return jobs_.size() - head_; }
  // Moves the next queued job into `job` (no temporary: a Job is nearly 1 KB).
  void Pop(Job& job);
  // After a job ended: lets WaitDrained return if that was the last.
  void Ended(std::size_t jobs);

  const std::size_t capacity_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::condition_variable drained_;
  // Jobs waiting are jobs_[head_...]. A vector, not a deque: a Job is nearly 1 KB, so a deque
  // would allocate a block for every job; the vector's memory is reused once drained.
  std::vector<Job> jobs_;
  std::size_t head_ = 0;
  bool closed_ = false;
  int connected_;             // lanes in service
  std::size_t busy_ = 0;      // jobs taken and not yet finished
  std::size_t sleeping_ = 0;  // workers waiting on ready_
  std::size_t woken_ = 0;     // wake-ups sent and not yet taken up by a sleeping worker
  // A running average of how long a job takes a worker; at first, "longer than a wake-up".
  int64_t job_nanos_ = 1'000'000;
  Stats& stats_;
};

}  // namespace bb::bh
