// MarketEmulator: the Market Exchange Emulator (docs/ARCHITECTURE.md, "Market Exchange Emulator";
// its market rules in trading_floor.h). It wires together, on one I/O thread:
//
//  * an order server: an acceptor for one or more Brokerage House connections (an AcceptLoop:
//    failed accepts back off). Each says hello (the sizing must match ours; a refusal names
//    both and closes the connection), then streams MarketTradeRequest frames; every request
//    gets exactly one reply, a MarketTradeAck when the TradingFloor queued it, or an ErrorReply
//    naming why it was refused (the pending cap, a bad symbol). A connection that half-closes
//    still gets its replies; one whose unsent replies pass 1 MiB is not read until they drain;
//    its read buffer grows with the bytes that arrive, not with a header's body length;
//  * the TradingFloor (trading_floor.h): order timers, trade prices, limit triggers, ticker,
//    with one steady_timer armed for the earliest due time;
//  * a delivery client: a pool of --delivery-connections connections to the BH, each saying
//    hello with our sizing, then sending due Trade-Result and Market-Feed requests with at most
//    --max-in-flight requests outstanding per connection (1 = closed loop). Every reply writes
//    a mix row: code TR or MF, response_us from send to reply, wait_us from due to send (the
//    MEE's own queueing, clause 6.5), user = the connection's index, and the reply's outcome and
//    spec status. A BH that answers "overloaded" or "shutting down" gets the request again
//    10 ms later (it never ran it); a Trade-Result that the BH answered retry_exhausted (rolled
//    back after its own serialization retries) is sent again, up to 3 times, and a Trade-Result
//    that still ends other than ok is also written to failed-trades.csv.
//
// Every order received ends completed (its Trade-Result answered ok), failed, pending at stop,
// or, a limit order whose limit the curve reached, triggered into the ticker (the BH sends it
// back as an order to process); the end-of-run record (<out>/mix-mee.end, EndOfRunRecord,
// postprocess/MIXLOG.md) counts the orders received and the limit orders triggered, so the
// report can account for each (postprocess/README.md). The final log line says the same for
// people; nothing parses it.
//
// Nothing is lost silently. An order refused at the cap, a delivery whose connection broke
// while it was in flight (it may or may not have run: it is not sent twice), and, at stop, a
// Trade-Result due but not sent, is written as one line "trade_id,code,reason" to
// <out>/failed-trades.csv (opened at the start) and counted in the final log line. Lost
// in-flight deliveries also get a mix row with outcome net_error. Orders the market has not
// finished with at stop are pending, not failed (a limit order whose price the curve has not
// reached, an order within its processing delay): one line "trade_id,code,state" each
// in <out>/pending-trades.csv, which is written whole at the end, so that a missing file says
// the emulator never reached its end (killed) rather than "nothing pending". While the BH is
// away, due deliveries wait (the queue is bounded by the pending cap) and every connection
// retries each second.
//
// The summary line (every --summary-seconds) has "TR/s" and "TR p90": the valid Trade-Result
// replies (ok, rollback, warning, as the report counts TRTPS) per second since the last line
// and their 90th-percentile response time (LatencyHistogram: within 1/32, never under).
//
// Stop (SIGTERM, SIGINT or Stop()): stop accepting orders and close the BH order connections,
// stop the order timers, give the due backlog and the requests in flight up to
// --drain-seconds to be delivered, write what is left to pending-trades.csv or
// failed-trades.csv, write the STOP marker and close the mix log with every row written, then
// write the end-of-run record (stop=signal, request for Stop(), or error with its message): it
// exists only once every other file is whole; a killed emulator leaves none.
// A file that cannot be written (a full disk: the mix log's writer sees it within 100 ms,
// failed-trades.csv, line-buffered so that a killed emulator keeps its lines, at the line) stops
// it at once, without the drain, and Run returns that error.
//
// The metrics endpoint (metrics_listen, off by default; README, "Live metrics") is served on
// the same I/O thread and reads the numbers where they are kept: Trade-Result and Market-Feed
// rows by type and outcome, their response times over fixed bounds (counted per row, beside
// the mix log), in flight, due, pending, Trade-Results sent and completed. It closes at stop.
//
// Ownership: owns everything it starts. Thread-safety: Run on one thread; Stop, port(),
// metrics_port() and stats() from any; MetricsText() after Run returns.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/protocol/transactions.h"
#include "common/util/cli.h"
#include "common/util/status.h"
#include "common/workload/random.h"
#include "common/workload/sizing.h"

namespace bb::mee {

struct EmulatorOptions {
  HostPort listen{"127.0.0.1", 30001};  // or unix:PATH
  HostPort bh{"127.0.0.1", 30000};      // or unix:PATH
  // If set, the BH's port is read from this file (as the BH's --port-file writes it) before
  // each connection attempt, so both sides can use ephemeral ports; bh.port is then ignored.
  std::string bh_port_file;
  int delivery_connections = 4;
  int max_in_flight = 8;  // per delivery connection; 1 is closed loop
  workload::Sizing sizing;
  uint64_t seed = workload::seeds::kDefault;
  size_t max_pending = 1'000'000;
  // mix-mee.csv, failed-trades.csv, pending-trades.csv and mix-mee.end go here
  std::string out_dir = ".";
  std::string port_file;  // the bound order port is written here once listening
  // The OpenMetrics endpoint: none unless set; port 0 takes one the system picks, written to
  // metrics_port_file (when given) once listening.
  std::optional<HostPort> metrics_listen;
  std::string metrics_port_file;
  int summary_seconds = 10;  // 0: no summary line
  int drain_seconds = 5;
  std::string component = "bb-market-emulator 0.1.0";
  // Test seam: called on the I/O thread for every Trade-Result the BH answered.
  std::function<void(int64_t trade_id, const protocol::ReplyStatus&)> on_trade_result;
};

// Counters for the summary line and for tests (relaxed atomics, written by the I/O thread).
struct EmulatorStats {
  std::atomic<int64_t> orders_received{0};
  std::atomic<int64_t> orders_refused{0};
  std::atomic<int64_t> trade_results_sent{0};       // each send, re-sends included
  std::atomic<int64_t> trade_results_delivered{0};  // the BH replied, finally (any outcome)
  std::atomic<int64_t> market_feeds_delivered{0};
  std::atomic<int64_t> delivery_errors{0};  // replied with something other than ok
  std::atomic<int64_t> lost_in_flight{0};
  std::atomic<int64_t> bh_busy{0};  // "overloaded"/"shutting down" replies, re-sent later
  std::atomic<int64_t> resent{0};   // Trade-Results re-sent after retry_exhausted (at most 3)
  std::atomic<int64_t> unfinished_at_stop{0};  // orders held at stop: pending or not sent
  std::atomic<int64_t> pending_at_stop{0};     // of those, pending (pending-trades.csv)
  std::atomic<int64_t> pending{0};             // TradingFloor::pending(), refreshed as it changes
  std::atomic<int64_t> due{0};                 // due but not yet sent
  std::atomic<int64_t> links_up{0};
};

class MarketEmulator {
 public:
  explicit MarketEmulator(EmulatorOptions options);
  ~MarketEmulator();
  MarketEmulator(const MarketEmulator&) = delete;
  MarketEmulator& operator=(const MarketEmulator&) = delete;

  // Opens the logs, listens, delivers; returns when stopped. An error if the address cannot
  // be bound or a log cannot be written.
  Status Run();
  void Stop();
  uint16_t port() const;          // the bound TCP port, once listening (0 for a Unix-domain socket)
  uint16_t metrics_port() const;  // the metrics endpoint's TCP port, once listening (or 0)
  // The OpenMetrics exposition GET /metrics answers; after Run returns, the final numbers.
  std::string MetricsText() const;
  bool listening() const;
  const EmulatorStats& stats() const;

  static constexpr const char* kMixLogName = "mix-mee.csv";
  static constexpr const char* kFailedName = "failed-trades.csv";
  static constexpr const char* kPendingName = "pending-trades.csv";

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace bb::mee
