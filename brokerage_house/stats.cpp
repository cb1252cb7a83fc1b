#include "brokerage_house/stats.h"

#include <fmt/format.h>

#include "common/protocol/message_type.h"

namespace bb::bh {

void Stats::Count(protocol::MessageType type, const protocol::ReplyStatus& status) {
  TypeCounters& c = of(type);
  c.requests.fetch_add(1, std::memory_order_relaxed);
  c.outcomes[static_cast<int>(status.outcome)].fetch_add(1, std::memory_order_relaxed);
  c.retries.fetch_add(status.retries, std::memory_order_relaxed);
  c.server_micros.fetch_add(static_cast<uint64_t>(status.server_micros), std::memory_order_relaxed);
}

std::string Stats::SummaryLine(double seconds) {
  std::string rates;
  uint64_t total = 0, errors = 0, retries = 0;
  for (int i = 0; i < kTypeSlots; ++i) {
    uint64_t n = types_[i].requests.load(std::memory_order_relaxed);
    uint64_t delta = n - last_requests_[i];
    last_requests_[i] = n;
    total += n;
    retries += types_[i].retries.load(std::memory_order_relaxed);
    for (auto o : {protocol::Outcome::kRetryExhausted, protocol::Outcome::kDbError}) {
      errors += types_[i].outcomes[static_cast<int>(o)].load(std::memory_order_relaxed);
    }
    const char* name = protocol::MessageTypeName(static_cast<protocol::MessageType>(i));
    if (seconds <= 0 && n > 0) {
      rates += fmt::format(" {}={}", name, n);
    } else if (seconds > 0 && delta > 0) {
      rates += fmt::format(" {}={:.1f}/s", name, static_cast<double>(delta) / seconds);
    }
  }
  return fmt::format(
      "clients {} queue {} requests {} errors {} retries {} malformed {} overloaded {} market "
      "sent {} failed {} |{}",
      clients.load(), queue_depth.load(), total, errors, retries, malformed_frames.load(),
      overloaded.load(), market_sent.load(), market_failed.load(), rates.empty() ? " idle" : rates);
}

}  // namespace bb::bh
