#include "brokerage_house/call_lanes.h"

#include <spdlog/spdlog.h>

namespace bb::bh {

namespace pr = protocol;

// One database session and the call it carries.
struct CallLanes::Lane {
  Lane(asio::io_context& io, int index) : socket(io), index(index) {}
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

CallLanes::CallLanes(Dispatcher& dispatcher, FrameOptions options)
    : dispatcher_(dispatcher), options_(std::move(options)) {}

Result<std::unique_ptr<Lanes>> CallLanes::Start(Dispatcher& dispatcher, const std::string& conninfo,
                                                FrameOptions options) {
  options.mode = FrameMode::kServer;
  std::unique_ptr<CallLanes> lanes(new CallLanes(dispatcher, std::move(options)));
  for (int i = 0; i < dispatcher.lanes(); ++i) {
    auto session = FrameRunner::OpenSession(conninfo, FrameMode::kServer);
    if (!session.ok()) return session.status().WithContext("opening database session");
    Status s = (*session)->SetNonBlocking();
    if (!s.ok()) return s;
    auto lane = std::make_unique<Lane>(dispatcher.io(), i);
    lane->session = std::move(session).value();
    lane->session->SetClock(lanes->options_.clock);
    lane->socket.assign(lane->session->socket());
    lanes->lanes_.push_back(std::move(lane));
  }
  return std::unique_ptr<Lanes>(std::move(lanes));
}

CallLanes::~CallLanes() {
  Stop();
  for (auto& lane : lanes_) {
    if (lane->socket.is_open()) lane->socket.release();
  }
}

void CallLanes::JobsQueued() {
  for (auto& lane : lanes_) {
    if (!lane->connected || lane->job) continue;
    Job job;
    if (!dispatcher_.queue().TryNext(job, /*finished=*/false)) return;
    Begin(*lane, std::move(job));
  }
}

void CallLanes::Begin(Lane& lane, Job&& job) {
  lane.job = std::move(job);
  for (;;) {
    if (PrepareServerCall(lane.job->request, lane.call, done_.reply)) break;
    // Answered without the database (an input the harness's checks refuse).
    done_.to_market.clear();
    done_.db_round_trips = done_.db_statements = 0;
    dispatcher_.Finish(*lane.job, done_, frame_);
    if (Job next; dispatcher_.queue().TryNext(next, /*finished=*/true)) {
      *lane.job = std::move(next);
      continue;
    }
    lane.job.reset();
    return;
  }
  lane.before = lane.session->counters();
  lane.session->StartCall(lane.call.isolation, options_.max_retries, lane.call.statement,
                          lane.call.params, lane.call.finish, lane.call.guard, lane.call.now_param);
  if (lane.session->socket() < 0) return OnReady(lane);  // the send failed: Progress says so
  Watch(lane);
}

void CallLanes::Watch(Lane& lane) {
  const auto what = lane.session->WantsWrite() ? asio::posix::descriptor_base::wait_write
                                               : asio::posix::descriptor_base::wait_read;
  lane.socket.async_wait(what, [this, &lane](error_code ec) {
    if (ec == asio::error::operation_aborted) return;
    OnReady(lane);
  });
}

void CallLanes::OnReady(Lane& lane) {
  if (!lane.session->Progress(lane.outcome, lane.rows)) return Watch(lane);
  done_.to_market.clear();
  ReadServerCall(lane.job->request, lane.outcome, lane.rows, done_.reply, done_.to_market);
  lane.rows = db::QueryResult();  // gives the result back now
  const db::Session::Counters after = lane.session->counters();
  done_.db_round_trips = after.round_trips - lane.before.round_trips;
  done_.db_statements = after.statements - lane.before.statements;
  dispatcher_.Finish(*lane.job, done_, frame_);
  if (lane.outcome.end == db::TxnEnd::kConnectionLost) return Broken(lane);
  Next(lane);
}

void CallLanes::Next(Lane& lane) {
  if (Job next; dispatcher_.queue().TryNext(next, /*finished=*/true)) {
    Begin(lane, std::move(next));
  } else {
    lane.job.reset();
  }
}

void CallLanes::Broken(Lane& lane) {
  lane.job.reset();
  lane.connected = false;
  if (lane.socket.is_open()) lane.socket.release();
  dispatcher_.LaneLost(lane.index, lane.outcome.message, frame_);
  if (lane.reconnector.joinable()) lane.reconnector.join();  // the last outage's, finished
  lane.reconnector = std::thread([this, &lane] {
    const bool back = dispatcher_.Reconnect(lane.index, [&lane] {
      Status s = lane.session->Reconnect();
      return s.ok() ? lane.session->SetNonBlocking() : s;
    });
    if (back) asio::post(dispatcher_.io(), [this, &lane] { Reconnected(lane); });
  });
}

void CallLanes::Reconnected(Lane& lane) {
  lane.socket.assign(lane.session->socket());
  lane.connected = true;
  dispatcher_.LaneBack(lane.index);
  if (Job next; dispatcher_.queue().TryNext(next, /*finished=*/false)) Begin(lane, std::move(next));
}

void CallLanes::Stop() {
  for (auto& lane : lanes_) {
    if (lane->reconnector.joinable()) lane->reconnector.join();
  }
}

LanesFactory MakeCallLanes(std::string conninfo, FrameOptions options) {
  return [conninfo = std::move(conninfo), options = std::move(options)](Dispatcher& d) {
    return CallLanes::Start(d, conninfo, options);
  };
}

}  // namespace bb::bh
