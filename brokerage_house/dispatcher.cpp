#include "brokerage_house/dispatcher.h"

#include <chrono>
#include <string>
#include <thread>

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
    quit_ = true;
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
  spdlog::warn("database session {}: {}; reconnecting once a second", lane, why);
  std::vector<Job> orphans;
  queue_.Lost(orphans);
  if (orphans.empty()) return;
  for (Job& job : orphans) FailNotConnected(job, frame);
  queue_.Finished(orphans.size());
}

bool Dispatcher::Reconnect(int lane, const std::function<Status()>& reconnect) {
  while (!quit_) {
    for (int i = 0; i < 20 && !quit_; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (quit_) return false;
    Status s = reconnect();
    if (s.ok()) return true;
    spdlog::warn("database session {}: {}", lane, s.message());
  }
  return false;
}

void Dispatcher::LaneBack(int lane) {
  queue_.Back();
  spdlog::info("database session {} reconnected", lane);
}

void Dispatcher::Stop() {
  queue_.Close();
  queue_.WaitDrained();
  quit_ = true;
  if (lanes_) lanes_->Stop();
  stopped_ = true;
}

}  // namespace bb::bh
