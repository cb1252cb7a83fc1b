#include "brokerage_house/worker_lanes.h"

#include <chrono>

#include "common/protocol/reply.h"

namespace bb::bh {

Result<std::unique_ptr<Lanes>> WorkerLanes::Start(Dispatcher& dispatcher,
                                                  const RunnerFactory& factory) {
  std::unique_ptr<WorkerLanes> lanes(new WorkerLanes(dispatcher));
  for (int i = 0; i < dispatcher.lanes(); ++i) {
    auto runner = factory();
    if (!runner.ok()) return runner.status().WithContext("starting DB worker");
    lanes->runners_.push_back(std::move(runner).value());
  }
  for (std::size_t i = 0; i < lanes->runners_.size(); ++i) {
    lanes->threads_.emplace_back(
        [l = lanes.get(), i] { l->Work(static_cast<int>(i), *l->runners_[i]); });
  }
  return std::unique_ptr<Lanes>(std::move(lanes));
}

WorkerLanes::~WorkerLanes() { Stop(); }

void WorkerLanes::JobsQueued() {
  if (!wake_posted_.exchange(true, std::memory_order_acq_rel)) {
    asio::post(dispatcher_.io(), [this] {
      wake_posted_.store(false, std::memory_order_release);
      dispatcher_.queue().Wake();
    });
  }
}

void WorkerLanes::Stop() {
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void WorkerLanes::Work(int lane, BlockingRunner& runner) {
  JobQueue& queue = dispatcher_.queue();
  Completion done;
  std::vector<uint8_t> frame;  // the encoded reply, reused
  Job job;
  int64_t nanos = -1;  // how long the last job ran; none yet
  while (queue.Next(job, nanos)) {
    const auto start = std::chrono::steady_clock::now();
    runner.Run(job.request, done);
    nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                                 start)
                .count();
    dispatcher_.Finish(job, done, frame);
    if (runner.connected()) continue;
    const protocol::ReplyStatus* status = protocol::StatusOf(done.reply);
    dispatcher_.LaneLost(lane, status != nullptr ? status->detail : "connection lost", frame);
    if (!dispatcher_.Reconnect(lane, [&runner] { return runner.Reconnect(); })) return;
    dispatcher_.LaneBack(lane);
    nanos = -1;  // LaneLost ended the job
  }
}

LanesFactory MakeWorkerLanes(RunnerFactory factory) {
  return [factory = std::move(factory)](Dispatcher& d) { return WorkerLanes::Start(d, factory); };
}

}  // namespace bb::bh
