// Counters of the Brokerage House, per transaction type: requests, outcomes, retries, time in
// the server, database round trips and statements; plus market deliveries. Updated by workers
// and the I/O thread with relaxed atomics (cheap per request); read by the periodic summary
// and, at the end, written to the stats file (--stats-file).
//
// Thread-safety: all members may be used from any thread.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>

#include "common/protocol/transactions.h"
#include "common/util/status.h"

namespace bb::bh {

inline constexpr int kTypeSlots = 64;  // indexed by MessageType value of the input

struct TypeCounters {
  std::atomic<uint64_t> requests{0};
  std::array<std::atomic<uint64_t>, protocol::kMaxOutcome + 1> outcomes{};
  std::atomic<uint64_t> retries{0};
  std::atomic<uint64_t> server_micros{0};
  std::atomic<uint64_t> db_round_trips{0};
  std::atomic<uint64_t> db_statements{0};
};

class Stats {
 public:
  void Count(protocol::MessageType type, const protocol::ReplyStatus& status,
             int64_t db_round_trips = 0, int64_t db_statements = 0);
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

  // The totals per transaction type as CSV (type code, requests, one column per outcome,
  // retries, server time, database round trips and statements), written to `path` through a
  // temporary file. The format is in postprocess/README.md ("bh/<host>/bh-stats.csv").
  Status WriteCsv(const std::string& path) const;

 private:
  std::array<TypeCounters, kTypeSlots> types_;
  std::array<uint64_t, kTypeSlots> last_requests_{};
};

}  // namespace bb::bh
