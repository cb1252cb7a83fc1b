#include "brokerage_house/dispatcher.h"

#include <chrono>
#include <string>

#include <spdlog/spdlog.h>

#include "common/protocol/reply.h"
#include "common/util/clock.h"

namespace bb::bh {

namespace pr = protocol;

Dispatcher::Dispatcher(asio::io_context& io, ReplyBatcher& replies, Stats& stats, MarketSink market,
                       DispatcherSettings settings)
    : io_(io),
      replies_(replies),
      stats_(stats),
      market_(std::move(market)),
      settings_(settings),
      queue_(settings.queue_capacity, settings.lanes, stats) {}

Dispatcher::~Dispatcher() {
  // A dispatcher that never served (the server failed to start) still ends its lanes' threads.
  if (!stopped_) {
    queue_.Close();
    Quit();
    if (lanes_) lanes_->Stop();
  }
}

Status Dispatcher::Start(const LanesFactory& factory) {
  auto lanes = factory(*this);
  if (!lanes.ok()) return lanes.status();
  lanes_ = std::move(lanes).value();
  return Status::Ok();
}

bool Dispatcher::Submit(Job&& job) {
  switch (queue_.Push(job)) {
    case JobQueue::Admission::kQueued:
      lanes_->JobsQueued();
      return true;
    case JobQueue::Admission::kNoLane:
      FailNotConnected(job, frame_);
      return true;
    case JobQueue::Admission::kRefused:
      break;
  }
  return false;
}

void Dispatcher::Finish(Job& job, Completion& done, std::vector<uint8_t>& frame) {
  pr::StampServerTime(done.reply, MonotonicMicros() - job.received_micros);
  if (const auto* status = pr::StatusOf(done.reply)) {
    stats_.Count(job.type, *status, done.db_round_trips, done.db_statements);
  }
  frame.clear();
  if (Status s = pr::EncodeReply(done.reply, job.request_id, frame); !s.ok()) {
    spdlog::error("cannot encode the reply to request {}: {}", job.request_id, s.message());
  }
  if (io_.get_executor().running_in_this_thread()) {
    job.target->Queue(frame);
    job.target->Flush();
  } else {
    replies_.Push(std::move(job.target), frame);
  }
  if (!done.to_market.empty() && market_) market_(done.to_market);
}

void Dispatcher::FailNotConnected(Job& job, std::vector<uint8_t>& frame) {
  Completion failed;
  pr::ReplyStatus status;
  status.outcome = pr::Outcome::kDbError;
  status.detail = "connection lost: not connected to the database (reconnecting)";
  if (!pr::MakeEmptyReply(job.request, status, failed.reply)) {
    failed.reply = pr::ErrorReply{pr::ErrorCode::kUnexpectedMessage, "not a transaction request"};
  }
  Finish(job, failed, frame);
}

void Dispatcher::LaneLost(int lane, std::string_view why, std::vector<uint8_t>& frame) {
  spdlog::warn("database session {}: {}; reconnecting", lane, why);
  std::vector<Job> orphans;
  queue_.Lost(orphans);
  if (orphans.empty()) return;
  for (Job& job : orphans) FailNotConnected(job, frame);
  queue_.Finished(orphans.size());
}

bool Dispatcher::Reconnect(int lane, const std::function<Status()>& reconnect) {
  std::unique_lock lock(probe_mu_);
  uint64_t seen = connected_;
  while (!quit_) {
    const bool probe = connected_ == seen && !probing_;
    if (connected_ == seen && !probe) {
      // Another lane probes: wait for its end (or the stop).
      probe_cv_.wait(lock, [&] { return quit_ || connected_ != seen || !probing_; });
      continue;
    }
    // This lane probes, after the interval; or another lane's probe connected: it tries at once.
    seen = connected_;
    if (probe) {
      probing_ = true;
      probe_cv_.wait_for(lock, kProbeInterval, [&] { return quit_.load(); });
    }
    Status s = Status::Ok();
    if (!quit_) {
      lock.unlock();
      s = reconnect();
      lock.lock();
    }
    if (probe) {
      probing_ = false;
      if (s.ok() && !quit_) ++connected_;
      probe_cv_.notify_all();
    }
    if (quit_) return false;
    if (s.ok()) {
      probe_failures_ = 0;
      probe_why_.clear();
      return true;
    }
    ProbeFailed(lane, s);
  }
  return false;
}

void Dispatcher::ProbeFailed(int lane, const Status& why) {
  const auto now = std::chrono::steady_clock::now();
  ++probe_failures_;
  if (why.message() == probe_why_ && now - probe_logged_ < std::chrono::seconds(10)) return;
  spdlog::warn("database session {}: {} ({} attempt{} since the last connection)", lane,
               why.message(), probe_failures_, probe_failures_ == 1 ? "" : "s");
  probe_why_ = why.message();
  probe_logged_ = now;
}

void Dispatcher::Quit() {
  {
    std::lock_guard lock(probe_mu_);
    quit_ = true;
  }
  probe_cv_.notify_all();
}

void Dispatcher::LaneBack(int lane) {
  queue_.Back();
  spdlog::info("database session {} reconnected", lane);
}

void Dispatcher::Stop() {
  queue_.Close();
  queue_.WaitDrained();
  Quit();
  if (lanes_) lanes_->Stop();
  stopped_ = true;
}

}  // namespace bb::bh
