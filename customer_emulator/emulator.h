// Emulator: the Customer Emulator (docs/ARCHITECTURE.md, "Customer Emulator"; clauses 6.3-6.6).
//
// Emulated users loop: draw the next transaction from the emulator's one 890-card MixDeck
// (clause 6.3.1), generate its inputs with the emulator's one InputGenerator (clause 6.4.1,
// partition clause 6.4.2), send it to the Brokerage House, wait for the reply, append one MixRow, then wait
// for the next start: with pacing P a user starts a request every P seconds (start to start), or
// at once when a reply took longer than P.
// Before the users start, one Trade-Cleanup (clause 3.3.12, clause 6.3.3); from the start of
// ramp-up, one Data-Maintenance every 60 s on a steady timer, walking the twelve tables in rotation
// (clause 3.3.11).
//
// Design choices:
//  * Event-driven on ONE Asio I/O thread (the thread that calls Run). Users are small structs
//    (request bookkeeping), never threads, and all of them, the deck,
//    the connections and the timers live on that thread, so nothing needs a lock
//    except the MixLog queue (its own background writer does the disk I/O). One thread keeps
//    dispatch simple and, on the 2-core machines we target, leaves the other core to the BH.
//  * One deck and one input generator for the whole emulator, not one per user: every 890
//    consecutive transactions it sends hold the exact mix (clause 6.3.1), so the number of
//    Trade-Orders in a measurement interval, and with it TRTPS under --pacing auto, depends on
//    the interval's length, not on how far into its own deck each user happens to be. Likewise
//    every input variant with a required share (clause 6.4.1: Trade-Order's trade types,
//    quantities, margin, LIFO, third party, by name and roll-back; the frames of Trade-Lookup
//    and Trade-Update; CP's, MW's and SD's choices) is dealt from a deck of the generator's
//    (inputs.h, VariantDecks), so a measurement interval holds each within two passes of its
//    deck of the exact share, where independent draws at 1000 users missed the clause's ranges
//    in most 2-hour intervals. The sequence of inputs follows from --seed alone (each user
//    takes the next as it dispatches, so which user sends which depends on timing).
//  * `connections` TCP connections to the BH (default min(users, 64)); user i uses connection
//    i % connections. Requests are multiplexed on a connection by request id: the low 32 bits
//    are the requester's slot (user index; then the DM and TC senders), the high 32 bits a
//    per-slot sequence number, so a reply finds its user without a map and a stale reply is
//    recognised. Each user has at most one request outstanding.
//  * Writes are batched per connection: frames encoded while a write is in flight go to a
//    second buffer that is written as soon as the first completes. Both buffers, the read
//    buffer and the slot lists are reused, so steady state allocates only what the input
//    generator's structs and encoding need.
//  * Replies are not decoded beyond their leading ReplyStatus (spec status, outcome, retries),
//    which is all a mix row needs; this keeps reading allocation-free.
//  * Response time (spec 6.5, "first byte sent to last byte received"): the start is the
//    monotonic clock read immediately before the async_write that carries the request frame's
//    first byte is started (so time queued behind an earlier write on the same connection is
//    not counted, but encoding is done); the end is the monotonic clock read in the read
//    completion handler that delivered the reply frame's last byte, before it is parsed. The
//    wall-clock start (µs) is that monotonic reading on the wall clock (WallFromMonotonic:
//    one origin pair per run, so a preempted thread cannot stamp a row late).
//  * Pacing is start to start, so that the offered rate is users / P whatever the response
//    times (a delay after each reply offered users / (P + response time): 2-3 % under the
//    nominal rate that --pacing auto computes). A user whose reply comes after its next start
//    was due sends at once and keeps that later start as its new origin: no burst to catch up.
//  * Dispatch lateness: a user is "ready" at its next start (for its first request, its ramp-up
//    slot), or when its reply has been read if that is later; lateness = write start - ready. It
//    covers input generation, encoding, timer latency and waiting behind a write in flight.
//  * Scheduling: one steady_timer over a min-heap of (due, user) serves ramp-up and pacing;
//    with no pacing a user sends straight from its reply handler.
//  * Ramp-up: user i is due at i * min(ramp_up, user_start_spread) / users, so every user runs
//    for most of the ramp-up (pending limit orders need it to reach their steady level); START is
//    marked when the ramp-up is over and every user has sent its first request; the measured
//    duration runs from START; then STOP (see Stop below).
//  * A broken connection: every request outstanding on it gets a net_error row (response time
//    up to the moment the break was seen); its users stop (no reconnection). When every
//    connection is gone the run ends with an error. An ErrorReply from the BH (overloaded,
//    shutting down...) is logged as net_error too: the request never reached the database.
//  * No per-request timeout. At the end (duration over, Stop(), SIGTERM/SIGINT) users stop
//    sending, outstanding replies are awaited for at most `stop_wait`; what is still missing
//    then is logged with outcome `timeout`; then STOP is marked and the log closed (every row
//    flushed).
//  * The metrics endpoint (metrics_listen, off by default; README, "Live metrics"): an
//    OpenMetrics server on the same I/O thread, so a scrape reads the summary's counters, the
//    in-flight count and the phase where they are kept, with no lock and no copy made unless
//    somebody scrapes. The only cost per transaction is one more histogram (fixed bounds, for
//    aggregation) beside the summary's LatencyHistogram. It closes with the run.
//  * The end-of-run record (EndOfRunRecord, postprocess/MIXLOG.md): once the mix log is closed,
//    the run's totals (sent, rows, replies, errors, in flight, how it stopped: duration, signal,
//    request for Stop(), or error with its message) go to the mix log's name with ".end" for
//    ".csv", whole or not at all; a killed emulator leaves none. The programs that account for
//    the requests read it; the summary text is for people and nothing parses it.
//  * A mix log that cannot be written (its writer flushes every 100 ms and reports the first
//    error) ends the run at once with that error: no wait for outstanding replies.
//
// Ownership: owns its io_context, sockets, timers and mix log. Thread-safety: Run on one
// thread, once; Stop from any thread (or a signal).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/util/cli.h"
#include "common/util/latency_histogram.h"
#include "common/util/metrics_histogram.h"
#include "common/util/status.h"
#include "common/workload/mix.h"
#include "common/workload/sizing.h"

namespace bb::ce {

struct EmulatorOptions {
  HostPort bh{"127.0.0.1", 30000};
  workload::Sizing sizing{.customers = 1000, .scale_factor = 500, .initial_trade_days = 10};
  int users = 10;
  std::chrono::milliseconds ramp_up{0};
  // Users start spread over min(ramp_up, this); the rest of the ramp-up runs at full load.
  std::chrono::milliseconds user_start_spread{std::chrono::seconds(60)};
  std::chrono::milliseconds duration{std::chrono::seconds(60)};
  std::chrono::microseconds pacing{0};
  uint64_t seed = 1;
  int64_t partition_first = 0;      // customer ordinal (1-based); 0: no partition
  int64_t partition_customers = 0;  // with partition_first
  int connections = 0;              // 0: min(users, 64)
  std::string mix_log;              // the mix log file to write
  bool trade_cleanup = true;
  std::chrono::milliseconds dm_interval{std::chrono::seconds(60)};  // 0: no DM
  std::chrono::milliseconds stop_wait{std::chrono::seconds(30)};
  std::chrono::milliseconds connect_timeout{std::chrono::seconds(10)};
  int progress_seconds = 5;     // progress line period on stderr; 0: none
  bool handle_signals = false;  // SIGTERM/SIGINT stop the run (the program sets this)
  // The OpenMetrics endpoint: none unless set; port 0 takes one the system picks, written to
  // metrics_port_file (when given) once listening.
  std::optional<HostPort> metrics_listen;
  std::string metrics_port_file;
  std::string component = "bb-customer-emulator 0.1.0";
};

// Checks the options before anything starts: sizing, users, connections, partition (the
// message names the option and value, e.g. "--partition-first: ..."). main exits 2 on these.
Status ValidateOptions(const EmulatorOptions& options);

// What a run did, for the final summary and the tests.
struct RunSummary {
  int64_t sent = 0;                // requests handed to a connection; each ends in one row
  int64_t rows = 0;                // mix rows appended (transactions; markers not counted)
  int64_t replies = 0;             // transaction replies received and logged
  int64_t errors = 0;              // rows with retry_exhausted, db_error, net_error or timeout
  int64_t invalid = 0;             // rows with a negative spec status
  int64_t unexpected_replies = 0;  // replies to no outstanding request (ignored)
  std::array<int64_t, workload::kTransactionTypeCount> count_by_type{};
  std::array<int64_t, 8> count_by_outcome{};  // protocol::Outcome order
  std::array<LatencyHistogram, workload::kTransactionTypeCount> response_by_type{};
  // The same replies over the fixed bounds of the metrics endpoint's histograms.
  std::array<BucketHistogram, workload::kTransactionTypeCount> response_buckets_by_type{};
  LatencyHistogram dispatch_lateness;
  int users_started = 0;
  bool started = false;  // START was marked
  double measured_seconds = 0;
  int64_t measured_transactions = 0;  // user transactions answered between START and STOP
};

class Emulator {
 public:
  explicit Emulator(EmulatorOptions options);
  ~Emulator();
  Emulator(const Emulator&) = delete;
  Emulator& operator=(const Emulator&) = delete;

  // Connects, says hello on every connection, runs Trade-Cleanup, ramps up, runs for the
  // duration, stops, closes the mix log. An error when the BH cannot be reached, refuses the
  // hello (the BH's reason is in the message), every connection is lost, or the log cannot be
  // written; the rows of what did run are in the log either way.
  Status Run();
  // Ends the run early (as SIGTERM does): from any thread, before or during Run.
  void Stop();

  // Valid after Run returns (the heap-allocated summary stays put: the histograms are big).
  const RunSummary& summary() const;
  // The final summary as text lines, facts only: users, measured seconds and transactions,
  // errors; per type over the whole run the rows, mean, p90 and max response time; outcomes;
  // dispatch lateness median and p99. No mix share or verdict: the report judges the mix over
  // its measurement interval, and the controller prints that.
  std::string SummaryText() const;
  // The OpenMetrics exposition that GET /metrics answers (whether or not the endpoint is on):
  // call it after Run returns, for the run's final numbers.
  std::string MetricsText() const;
  // The metrics endpoint's TCP port once it listens (0 before, or without one); from any thread.
  uint16_t metrics_port() const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace bb::ce
