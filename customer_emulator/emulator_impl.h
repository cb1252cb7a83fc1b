// Emulator::Impl, shared by the files that implement it, each one job (emulator.h has the
// design): emulator.cpp runs and stops the run, connection.h is the transport (a net::Link per
// connection), scheduling.cpp dispatches the users, the Data-Maintenance and the Trade-Cleanup
// and pairs their replies, summary.cpp keeps the rows' counts and writes the summary, the
// progress line and the metrics. Nothing here is for use outside customer_emulator/.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/protocol/codec.h"
#include "common/protocol/frame.h"
#include "common/util/asio.h"
#include "common/util/clock.h"
#include "common/util/end_of_run_record.h"
#include "common/util/metrics_server.h"
#include "common/util/mix_log.h"
#include "common/workload/inputs.h"
#include "customer_emulator/emulator.h"

namespace bb::ce {

namespace pr = protocol;
namespace wl = workload;
using TT = wl::TransactionType;
using SteadyClock = std::chrono::steady_clock;

constexpr int kDefaultMaxConnections = 64;
constexpr int kMaxWarnings = 5;  // of each kind, then only counted

inline bool IsError(pr::Outcome o) {
  return o == pr::Outcome::kRetryExhausted || o == pr::Outcome::kDbError ||
         o == pr::Outcome::kNetError || o == pr::Outcome::kTimeout;
}

inline SteadyClock::time_point SteadyAt(int64_t micros) {
  return SteadyClock::time_point(std::chrono::microseconds(micros));
}

// The request bookkeeping of one requester: a user, the DM sender or the Trade-Cleanup.
struct Request {
  uint32_t seq = 0;  // of the request outstanding or last sent
  uint32_t connection = 0;
  TT type = TT::kTradeStatus;
  bool outstanding = false;
  bool written = false;     // its frame's write has started
  int64_t ready_us = 0;     // monotonic: when the requester was ready to send
  int64_t sent_us = 0;      // monotonic: write start (response time origin, and the row's start)
  wl::InputVariant inputs;  // a user's: its input's variant, for the row (empty for DM, TC)
};
static_assert(wl::InputVariant::kCapacity < sizeof(MixRow::inputs),
              "a mix row holds every input variant whole");

// An emulated user: its one request (the deck and the input generator are the emulator's).
struct User {
  Request request;
  bool started = false;  // its first request was written
};

class Connection;

class Emulator::Impl {
 public:
  explicit Impl(EmulatorOptions options);
  Status Run();
  void Stop();
  const RunSummary& summary() const { return *summary_; }
  std::string MetricsText() const;
  uint16_t metrics_port() const { return metrics_port_.load(); }
  // summary.cpp: the end-of-run record's totals (emulator.h), once the run is over.
  EndOfRunRecord EndRecord() const;

  // --- called by Connection, on the I/O thread ---
  void OnHelloReply(Connection& c, const std::string& component);
  void OnReply(Connection& c, const pr::FrameHeader& header, std::span<const uint8_t> body,
               int64_t end_us);
  void OnWriteStarted(uint32_t slot, int64_t mono_us);
  void OnConnectionLost(Connection& c, const Status& why);
  asio::io_context& io() { return io_; }
  const EmulatorOptions& options() const { return options_; }

 private:
  enum class Phase { kConnecting, kCleanup, kRunning };

  uint32_t dm_slot() const { return static_cast<uint32_t>(users_.size()); }
  uint32_t tc_slot() const { return dm_slot() + 1; }
  Request& RequestOf(uint32_t slot);
  static uint64_t RequestId(uint32_t slot, uint32_t seq) {
    return (static_cast<uint64_t>(seq) << 32) | slot;
  }
  Connection* FirstLiveConnection();
  int LiveConnections() const;

  void Fail(Status s);
  size_t PhaseIndex() const;
  void StartTradeCleanup();
  void StartUsers();
  void Dispatch(uint32_t user, int64_t ready_us);
  void Schedule(uint32_t user, int64_t due_us);
  void ArmScheduler();
  void OnScheduler(uint64_t generation);
  void SendDataMaintenance();
  void MaybeMarkStart();
  void BeginStop();
  void TimeoutOutstanding();
  void Finish();
  void Progress();
  void ArmProgress();
  void WaitForSignal();
  // Ends request `slot` with a row; `type` and the times come from its Request; `trade_id` is a
  // Trade-Order reply's (0 when there is none).
  void EndRequest(uint32_t slot, pr::Outcome outcome, int32_t spec_status, uint32_t retries,
                  int64_t end_us, bool reply, int64_t trade_id = 0);
  void AfterReply(uint32_t slot, int64_t end_us);

  EmulatorOptions options_;
  // io_ first: sockets and timers below are destroyed before it.
  asio::io_context io_;
  asio::steady_timer scheduler_timer_;
  asio::steady_timer dm_timer_;
  asio::steady_timer duration_timer_;
  asio::steady_timer stop_timer_;
  asio::steady_timer progress_timer_;
  asio::steady_timer connect_timer_;
  asio::signal_set signals_;
  std::unique_ptr<MetricsServer> metrics_;
  std::atomic<uint16_t> metrics_port_{0};
  std::vector<std::shared_ptr<Connection>> connections_;
  std::vector<User> users_;
  // The emulator's one 890-card deck, drawn by each user in turn as it dispatches (clause 6.3.1:
  // every 890 consecutive transactions of this CE hold the exact mix). Set by Run.
  std::optional<wl::MixDeck> deck_;
  // The users' inputs, drawn as they dispatch: one generator, so that its variant decks give
  // the shares of clause 6.4.1 over the emulator's transactions (inputs.h). Set by Run.
  std::unique_ptr<wl::InputGenerator> inputs_;
  Request dm_;
  Request tc_;
  std::unique_ptr<wl::InputGenerator> dm_inputs_;
  std::unique_ptr<MixLog> log_;
  std::unique_ptr<RunSummary> summary_;

  // Users waiting for their ramp-up slot or their pacing delay: (due µs, user), earliest on top.
  using Due = std::pair<int64_t, uint32_t>;
  std::priority_queue<Due, std::vector<Due>, std::greater<>> due_;
  uint64_t scheduler_generation_ = 0;
  int64_t scheduler_armed_for_ = INT64_MAX;

  Phase phase_ = Phase::kConnecting;
  int hellos_accepted_ = 0;
  int users_never_started_ = 0;
  int64_t outstanding_ = 0;
  int64_t dm_due_us_ = 0;
  int dm_next_table_ = 0;
  WallFromMonotonic wall_clock_;  // the mix log's start_us, from the response time's clock
  int64_t run_start_us_ = 0;
  int64_t start_marker_us_ = 0;
  bool ramp_up_over_ = false;  // the ramp-up's time has passed (START needs it and every user)
  bool stopping_ = false;
  bool finished_ = false;
  std::atomic<bool> stop_requested_{false};
  bool signalled_ = false;  // SIGTERM or SIGINT stopped the run (the record's "stop")
  Status status_;
  int64_t progress_last_us_ = 0;
  int64_t progress_last_replies_ = 0;
  int warnings_ = 0;
};

}  // namespace bb::ce
