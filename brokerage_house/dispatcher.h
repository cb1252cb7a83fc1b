// Dispatcher: the Brokerage House's one request engine. Client connections Submit their
// transaction requests; a bounded JobQueue (job_queue.h) holds those waiting; lanes run them,
// each with a database session of its own (or, with --no-db, none); the Dispatcher finishes
// every reply (Finish: stamp the server time, count, encode, deliver, then send the market
// requests), fails requests at once while no session is connected, drains at stop, and holds
// the one reconnect rule. A thousand emulated users need not mean a thousand PostgreSQL
// backends: --workers lanes serve them all.
//
// Lanes come in two kinds, one per Dispatcher, made by its LanesFactory:
// - CallLanes (call_lanes.h), server-side frames: each transaction is one call on a
//   non-blocking session, sent and read by the I/O thread itself; no thread woken per request.
// - WorkerLanes (worker_lanes.h), client-side frames and --no-db: a worker thread per lane runs
//   a BlockingRunner (blocking_runner.h) and finishes its replies there, which go back to the
//   I/O thread in batches (reply_batcher.h).
//
// The reconnect rule, one for every lane: a lane whose session breaks fails its request
// (db_error, counted), is out of service, and is reconnected off the I/O thread (Reconnect),
// then serves again (LaneBack); while no lane is connected, requests fail at once and so do the
// queued ones. While lanes are out, one of them at a time probes the database, every 100 ms;
// when a probe connects, every other lane out of service tries at once. Why: the I/O thread
// serves every client and must never wait for a database, so no reconnection runs on it; a lane
// out of service takes no request it could only fail; failing at once, rather than queueing
// behind an outage, gives each client its db_error within a round trip; one probe bounds what a
// database that is restarting gets from us (10 connection attempts a second, whatever the
// --workers, and a log line when the reason changes or every 10 s) however many requests arrive
// meanwhile; and every 100 ms keeps our part of a measured outage (durability's downtime: the
// failure to the first commit after it) within 0.1 s of the database's own. It was once a
// second per lane: half a second of each outage, on average, was the kit's.
//
// Ownership: owns its queue and its lanes; borrows the io_context, the reply batcher and the
// counters, which outlive it. Thread-safety: Submit on the I/O thread; Stop from another
// thread while the I/O thread runs; the lanes' calls as each says.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "brokerage_house/job.h"
#include "brokerage_house/job_queue.h"
#include "brokerage_house/reply_batcher.h"
#include "brokerage_house/stats.h"
#include "common/util/asio.h"
#include "common/util/status.h"

namespace bb::bh {

class Dispatcher;

// The lanes of a Dispatcher: they take its queued jobs and hand back completions.
class Lanes {
 public:
  virtual ~Lanes() = default;
  // Jobs were queued (on the I/O thread, once per Submit that queued): let the lanes take them.
  virtual void JobsQueued() = 0;
  // Once drained (every job finished, reconnections told to give up): ends the lanes' threads.
  virtual void Stop() = 0;
};

// Makes a Dispatcher's lanes (Dispatcher::lanes() of them); fails when they cannot start (e.g.
// the database refuses).
using LanesFactory = std::function<Result<std::unique_ptr<Lanes>>(Dispatcher&)>;

struct DispatcherSettings {
  int lanes = 4;                       // --workers
  std::size_t queue_capacity = 10000;  // --queue
};

class Dispatcher {
 public:
  Dispatcher(asio::io_context& io, ReplyBatcher& replies, Stats& stats, MarketSink market,
             DispatcherSettings settings);
  ~Dispatcher();

  // Makes the lanes; call once, before the first Submit.
  Status Start(const LanesFactory& factory);

  // Takes a job, on the I/O thread: it runs, or waits, or fails at once (no lane connected: its
  // db_error reply may go out within this call). False when the queue is full or stopping (the
  // client gets "overloaded").
  bool Submit(Job&& job);
  // Takes no more jobs, finishes every job taken, then ends the lanes. From any thread but the
  // I/O thread, which must keep running meanwhile (replies still go out through it).
  void Stop();

  // --- For the lanes.
  asio::io_context& io() { return io_; }
  JobQueue& queue() { return queue_; }
  int lanes() const { return settings_.lanes; }

  // Finishes a job's reply, the one place it is done: stamps the time in the server, counts
  // the outcome, encodes the frame into `frame` (the caller's buffer, reused) and delivers it:
  // straight to the client on the I/O thread, through the reply batcher from any other; then
  // hands the market requests to the market sink.
  void Finish(Job& job, Completion& done, std::vector<uint8_t>& frame);

  // The reconnect rule (above). LaneLost: lane `lane`'s session broke while running its job
  // (finished already); takes the lane out of service and, if it was the last, fails the
  // queued jobs (their replies encoded into `frame`). Any thread.
  void LaneLost(int lane, std::string_view why, std::vector<uint8_t>& frame);
  // Reconnects lane `lane` by `reconnect` (the rule above: as the probe every kProbeInterval,
  // or at once after another lane's probe connected) until it succeeds (true) or the
  // dispatcher stops (false). Blocks: never on the I/O thread.
  bool Reconnect(int lane, const std::function<Status()>& reconnect);
  static constexpr std::chrono::milliseconds kProbeInterval{100};
  // Lane `lane` is connected again and serves (it takes its next job itself). Any thread.
  void LaneBack(int lane);

 private:
  // Finishes `job` with a db_error reply: no lane is connected.
  void FailNotConnected(Job& job, std::vector<uint8_t>& frame);

  asio::io_context& io_;
  ReplyBatcher& replies_;
  Stats& stats_;
  MarketSink market_;
  const DispatcherSettings settings_;
  JobQueue queue_;
  std::unique_ptr<Lanes> lanes_;
  std::vector<uint8_t> frame_;     // the I/O thread's encoded reply, reused
  std::atomic<bool> quit_{false};  // tells reconnections to give up
  bool stopped_ = false;

  // The reconnections' shared state (Reconnect), under probe_mu_; probe_cv_ wakes the lanes out
  // of service when a probe ends or the dispatcher stops.
  void Quit();
  void ProbeFailed(int lane, const Status& why);  // logs it, as the rule above says
  std::mutex probe_mu_;
  std::condition_variable probe_cv_;
  bool probing_ = false;    // a lane is probing for all of them
  uint64_t connected_ = 0;  // probes that connected: a lane out of service tries when it grows
  std::string probe_why_;   // the last failure logged, and when; failures since
  std::chrono::steady_clock::time_point probe_logged_;
  int probe_failures_ = 0;
};

}  // namespace bb::bh
