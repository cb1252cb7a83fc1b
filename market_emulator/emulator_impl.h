// MarketEmulator::Impl, shared by the files that implement it, each one job (emulator.h has the
// design): emulator.cpp starts and stops the run, order_server.cpp takes the Brokerage House's
// orders, delivery.cpp delivers Trade-Results and Market-Feeds to it, summary.cpp writes the
// summary line, the metrics, and the trade files at the end. Everything runs on the one I/O
// thread; nothing here is for use outside market_emulator/.
#pragma once

#include <array>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/net/link.h"
#include "common/util/accept_loop.h"
#include "common/util/asio.h"
#include "common/util/end_of_run_record.h"
#include "common/util/latency_histogram.h"
#include "common/util/metrics_histogram.h"
#include "common/util/metrics_server.h"
#include "common/util/mix_log.h"
#include "common/util/stream_socket.h"
#include "market_emulator/emulator.h"
#include "market_emulator/failed_trades_file.h"
#include "market_emulator/trading_floor.h"

namespace bb::mee {

namespace pr = protocol;
using Clock = std::chrono::steady_clock;

class MarketEmulator::Impl {
 public:
  explicit Impl(EmulatorOptions options);

  Status Run();
  void Stop() {
    asio::post(io_, [this] { BeginShutdown(); });
  }
  std::string MetricsText() const;
  std::atomic<uint16_t> port_{0};
  std::atomic<uint16_t> metrics_port_{0};
  std::atomic<bool> listening_{false};
  EmulatorStats stats_;

  // ---- the order side (order_server.cpp): one session per Brokerage House connection ----
  class Session;
  // ---- the delivery side (delivery.cpp): one slot per connection to the Brokerage House ----
  class DeliveryLink;
  struct InFlight {
    uint64_t request_id = 0;
    Delivery delivery;
    int64_t sent_us = 0;  // floor time (monotonic) at send
    int64_t sent_wall_us = 0;
  };
  struct Slot {
    Slot(asio::io_context& io, int i) : retry(io), index(i) {}
    asio::steady_timer retry;
    int index;
    // kDown: no connection; kConnecting: connecting or saying hello; kPaused: the BH said it is
    // busy, the slot waits 10 ms before it sends again.
    enum class State { kDown, kConnecting, kReady, kPaused } state = State::kDown;
    std::shared_ptr<DeliveryLink> link;
    std::vector<InFlight> in_flight;  // at most max_in_flight
    bool warned = false;
  };

 private:
  int64_t NowUs() const {
    return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - base_).count();
  }
  net::Identity Identity() const {
    return {options_.component, options_.sizing.customers,
            static_cast<int32_t>(options_.sizing.scale_factor),
            static_cast<int32_t>(options_.sizing.initial_trade_days)};
  }
  void RefreshGauges() {
    stats_.pending.store(static_cast<int64_t>(floor_.pending()), std::memory_order_relaxed);
    stats_.due.store(static_cast<int64_t>(floor_.due_count()), std::memory_order_relaxed);
  }
  size_t InFlightCount() const;

  // emulator.cpp: start and stop.
  Status Open();
  void BeginShutdown();
  void MaybeFinish();
  void Finish();
  void StopOnError(Status why);
  // order_server.cpp
  void Accepted(StreamSocket&& socket);
  void CloseSessions();
  void OrdersRead();
  void OnOrder(const pr::MarketTradeRequest& request, uint64_t request_id, net::Link& out);
  void ArmBookTimer();
  // delivery.cpp
  void Connect(Slot& slot);
  void OnReply(Slot& slot, const pr::FrameHeader& header, std::span<const uint8_t> body);
  void DropLink(Slot& slot, const std::string& why);
  void RetryLater(Slot& slot, std::chrono::milliseconds after);
  void Pump();
  void Delivered(Slot& slot, InFlight& f, const pr::ReplyStatus& status);
  void LinkUp(Slot& slot, const std::string& component);
  // summary.cpp
  void Summary();
  void WriteUnfinished();
  void Fail(int64_t trade_id, std::string_view code, std::string_view reason);
  Status WritePending(const std::string& text);
  // The end-of-run record (emulator.h), written by Run once every file is closed; `result`: what
  // Run returns (an error stopped it).
  EndOfRunRecord EndRecord(const Status& result) const;
  // Counts a mix row for the metrics endpoint; `reply`: the BH answered it.
  void CountRow(const MixRow& row, bool is_tr, bool reply);

  EmulatorOptions options_;
  asio::io_context io_;
  TradingFloor floor_;
  StreamAcceptor acceptor_;
  AcceptLoop accept_;
  asio::signal_set signals_;
  asio::steady_timer book_timer_;
  asio::steady_timer summary_timer_;
  asio::steady_timer drain_timer_;
  Clock::time_point base_;
  std::optional<int64_t> armed_due_us_;
  std::vector<std::weak_ptr<Session>> sessions_;
  std::vector<std::unique_ptr<Slot>> slots_;
  size_t next_slot_ = 0;
  uint64_t next_request_id_ = 1;
  std::unique_ptr<MixLog> mix_;
  FailedTradesFile failed_;
  Status pending_written_;  // of pending-trades.csv, at the end
  Status failure_;          // a file that could not be written: the run stopped on it
  bool stopping_ = false;
  bool finished_ = false;
  bool signalled_ = false;  // SIGTERM or SIGINT stopped it (the record's "stop")
  Clock::time_point last_refusal_log_{};
  int64_t refusals_unlogged_ = 0;
  // For the summary's rates: valid Trade-Result replies (ok, rollback, warning, as the report
  // counts TRTPS) and their response times since the last summary line; Market-Feeds.
  Clock::time_point last_summary_;
  LatencyHistogram tr_interval_;
  int64_t last_mf_ = 0;
  // For the metrics endpoint, per mix row: [0] Trade-Result, [1] Market-Feed.
  std::array<int64_t, 2> rows_by_type_{};
  std::array<int64_t, pr::kMaxOutcome + 1> rows_by_outcome_{};
  std::array<BucketHistogram, 2> response_by_type_{};
  std::unique_ptr<MetricsServer> metrics_;  // after io_: closed and destroyed before it
};

}  // namespace bb::mee
