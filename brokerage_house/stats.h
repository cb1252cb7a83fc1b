// Counters of the Brokerage House, per transaction type: requests, outcomes, retries, time in
// the server; plus market deliveries. Updated by workers and the I/O thread with relaxed
// atomics (cheap per request); read by the periodic summary.
//
// Thread-safety: all members may be used from any thread.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>

#include "common/protocol/transactions.h"

namespace bb::bh {

inline constexpr int kTypeSlots = 64;  // indexed by MessageType value of the input

struct TypeCounters {
  std::atomic<uint64_t> requests{0};
  std::array<std::atomic<uint64_t>, protocol::kMaxOutcome + 1> outcomes{};
  std::atomic<uint64_t> retries{0};
  std::atomic<uint64_t> server_micros{0};
};

class Stats {
 public:
  void Count(protocol::MessageType type, const protocol::ReplyStatus& status);
  TypeCounters& of(protocol::MessageType type) {
    return types_[static_cast<int>(type) % kTypeSlots];
  }

  std::atomic<uint64_t> malformed_frames{0};
  std::atomic<uint64_t> overloaded{0};
  std::atomic<uint64_t> market_sent{0};
  std::atomic<uint64_t> market_failed{0};
  std::atomic<int64_t> queue_depth{0};
  std::atomic<int64_t> clients{0};

  // One line: the rate per type since the last call (or, with seconds_since_last 0, the total
  // per type), errors and retries, queue depth.
  std::string SummaryLine(double seconds_since_last);

 private:
  std::array<TypeCounters, kTypeSlots> types_;
  std::array<uint64_t, kTypeSlots> last_requests_{};
};

}  // namespace bb::bh
