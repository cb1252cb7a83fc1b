#include "brokerage_house/call_dispatcher.h"

#include <chrono>
#include <optional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/util/clock.h"

namespace bb::bh {

namespace pr = protocol;

// One database session and the call it carries.
struct CallDispatcher::Slot {
  Slot(asio::io_context& io, int index) : socket(io), index(index) {}
  std::unique_ptr<db::Session> session;
  // Watches the session's socket; the session owns the descriptor, so this one is released,
  // never closed.
  asio::posix::stream_descriptor socket;
  int index;
  bool connected = true;
  std::optional<Job> job;  // the request in flight
  ServerCall call;
  db::Session::Counters before;
  db::TxnOutcome outcome;
  db::QueryResult rows;
  std::thread reconnector;
};

CallDispatcher::CallDispatcher(const SinkContext& c, FrameOptions options)
    : io_(c.io),
      stats_(c.stats),
      market_(c.market),
      capacity_(c.queue_capacity),
      options_(std::move(options)) {}

Result<std::unique_ptr<RequestSink>> CallDispatcher::Start(const SinkContext& context,
                                                           const std::string& conninfo,
                                                           FrameOptions options) {
  options.mode = FrameMode::kServer;
  std::unique_ptr<CallDispatcher> d(new CallDispatcher(context, std::move(options)));
  for (int i = 0; i < context.workers; ++i) {
    auto session = FrameRunner::OpenSession(conninfo, FrameMode::kServer);
    if (!session.ok()) return session.status().WithContext("opening database session");
    Status s = (*session)->SetNonBlocking();
    if (!s.ok()) return s;
    auto slot = std::make_unique<Slot>(context.io, i);
    slot->session = std::move(session).value();
    slot->session->SetClock(d->options_.clock);
    slot->socket.assign(slot->session->socket());
    d->slots_.push_back(std::move(slot));
  }
  return std::unique_ptr<RequestSink>(std::move(d));
}

CallDispatcher::~CallDispatcher() {
  quit_ = true;
  for (auto& slot : slots_) {
    if (slot->reconnector.joinable()) slot->reconnector.join();
    if (slot->socket.is_open()) slot->socket.release();
  }
}

CallDispatcher::Slot* CallDispatcher::FreeSlot() {
  for (auto& slot : slots_) {
    if (slot->connected && !slot->job) return slot.get();
  }
  return nullptr;
}

bool CallDispatcher::AnyConnected() const {
  for (const auto& slot : slots_) {
    if (slot->connected) return true;
  }
  return false;
}

bool CallDispatcher::Submit(Job&& job) {
  if (stopping_) return false;
  if (Slot* slot = FreeSlot()) {
    Begin(*slot, std::move(job));
    return true;
  }
  if (!AnyConnected()) {
    // Every session is reconnecting: fail at once rather than queue behind an outage.
    db::TxnOutcome lost;
    lost.end = db::TxnEnd::kConnectionLost;
    lost.message = "not connected to the database (reconnecting)";
    pr::Message reply;
    ReadServerCall(job.request, lost, db::QueryResult(), reply, to_market_);
    Reply(job, reply, 0, 0);
    return true;
  }
  if (queue_.size() - head_ >= capacity_) return false;
  queue_.push_back(std::move(job));
  stats_.queue_depth.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void CallDispatcher::Begin(Slot& slot, Job&& job) {
  slot.job = std::move(job);
  pr::Message reply;
  if (!PrepareServerCall(slot.job->request, slot.call, reply)) {
    Reply(*slot.job, reply, 0, 0);
    slot.job.reset();
    return;
  }
  slot.before = slot.session->counters();
  slot.session->StartCall(slot.call.isolation, options_.max_retries, slot.call.statement,
                          slot.call.params, slot.call.finish, slot.call.guard, slot.call.now_param);
  if (slot.session->socket() < 0) return OnReady(slot);  // the send failed: Progress says so
  Watch(slot);
}

void CallDispatcher::Watch(Slot& slot) {
  const auto what = slot.session->WantsWrite() ? asio::posix::descriptor_base::wait_write
                                               : asio::posix::descriptor_base::wait_read;
  slot.socket.async_wait(what, [this, &slot](error_code ec) {
    if (ec == asio::error::operation_aborted) return;
    OnReady(slot);
  });
}

void CallDispatcher::OnReady(Slot& slot) {
  if (!slot.session->Progress(slot.outcome, slot.rows)) return Watch(slot);
  Job job = std::move(*slot.job);
  slot.job.reset();
  pr::Message reply;
  to_market_.clear();
  ReadServerCall(job.request, slot.outcome, slot.rows, reply, to_market_);
  slot.rows = db::QueryResult();  // gives the result back now
  const db::Session::Counters after = slot.session->counters();
  Reply(job, reply, after.round_trips - slot.before.round_trips,
        after.statements - slot.before.statements);
  if (!to_market_.empty() && market_) market_(to_market_);
  if (slot.outcome.end == db::TxnEnd::kConnectionLost) {
    Broken(slot);
  } else if (Job next; TakeQueued(next)) {
    Begin(slot, std::move(next));
  }
  CheckDrained();
}

bool CallDispatcher::TakeQueued(Job& job) {
  if (head_ == queue_.size()) return false;
  job = std::move(queue_[head_++]);
  if (head_ == queue_.size()) {
    queue_.clear();  // keeps the memory
    head_ = 0;
  }
  stats_.queue_depth.fetch_sub(1, std::memory_order_relaxed);
  return true;
}

void CallDispatcher::Reply(Job& job, pr::Message& reply, int64_t round_trips, int64_t statements) {
  StampServerTime(reply, MonotonicMicros() - job.received_micros);
  if (const auto* status = StatusOf(reply)) {
    stats_.Count(job.type, *status, round_trips, statements);
  }
  frame_.clear();
  EncodeReply(reply, job.request_id, frame_);
  job.target->Queue(frame_);
  job.target->Flush();
}

void CallDispatcher::Broken(Slot& slot) {
  slot.connected = false;
  if (slot.socket.is_open()) slot.socket.release();
  spdlog::warn("database session {}: {}; reconnecting once a second", slot.index,
               slot.outcome.message);
  if (!AnyConnected()) {
    // Nothing left to serve the queue: its requests fail now, as new ones would.
    db::TxnOutcome lost;
    lost.end = db::TxnEnd::kConnectionLost;
    lost.message = "not connected to the database (reconnecting)";
    for (; head_ < queue_.size(); ++head_) {
      pr::Message reply;
      ReadServerCall(queue_[head_].request, lost, db::QueryResult(), reply, to_market_);
      Reply(queue_[head_], reply, 0, 0);
      stats_.queue_depth.fetch_sub(1, std::memory_order_relaxed);
    }
    queue_.clear();
    head_ = 0;
  }
  if (slot.reconnector.joinable()) slot.reconnector.join();  // the last outage's, finished
  slot.reconnector = std::thread([this, &slot] {
    while (!quit_) {
      for (int i = 0; i < 20 && !quit_; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (quit_) return;
      Status s = slot.session->Reconnect();
      if (s.ok()) s = slot.session->SetNonBlocking();
      if (s.ok()) {
        asio::post(io_, [this, &slot] { Reconnected(slot); });
        return;
      }
      spdlog::warn("database session {}: {}", slot.index, s.message());
    }
  });
}

void CallDispatcher::Reconnected(Slot& slot) {
  slot.socket.assign(slot.session->socket());
  slot.connected = true;
  spdlog::info("database session {} reconnected", slot.index);
  if (Job next; TakeQueued(next)) Begin(slot, std::move(next));
}

void CallDispatcher::CheckDrained() {
  if (drained_ == nullptr || head_ < queue_.size()) return;
  for (const auto& slot : slots_) {
    if (slot->job) return;
  }
  drained_->set_value();
  drained_ = nullptr;
}

void CallDispatcher::Stop() {
  std::promise<void> drained;
  std::future<void> done = drained.get_future();
  asio::post(io_, [this, &drained] {
    stopping_ = true;
    drained_ = &drained;
    CheckDrained();
  });
  done.wait();
  quit_ = true;
  for (auto& slot : slots_) {
    if (slot->reconnector.joinable()) slot->reconnector.join();
  }
}

SinkFactory MakeCallDispatcher(std::string conninfo, FrameOptions options) {
  return [conninfo = std::move(conninfo), options = std::move(options)](const SinkContext& c) {
    return CallDispatcher::Start(c, conninfo, options);
  };
}

}  // namespace bb::bh
