#include "brokerage_house/stats.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "common/protocol/message_type.h"

namespace bb::bh {

namespace {

// The mix log's two-letter code of a transaction request type; "" for other messages.
std::string_view RequestCode(protocol::MessageType type) {
  using protocol::MessageType;
  switch (type) {
    case MessageType::kBrokerVolumeInput:
      return "BV";
    case MessageType::kCustomerPositionInput:
      return "CP";
    case MessageType::kMarketFeedInput:
      return "MF";
    case MessageType::kMarketWatchInput:
      return "MW";
    case MessageType::kSecurityDetailInput:
      return "SD";
    case MessageType::kTradeLookupInput:
      return "TL";
    case MessageType::kTradeOrderInput:
      return "TO";
    case MessageType::kTradeResultInput:
      return "TR";
    case MessageType::kTradeStatusInput:
      return "TS";
    case MessageType::kTradeUpdateInput:
      return "TU";
    case MessageType::kDataMaintenanceInput:
      return "DM";
    case MessageType::kTradeCleanupInput:
      return "TC";
    default:
      return "";
  }
}

}  // namespace

void Stats::Count(protocol::MessageType type, const protocol::ReplyStatus& status,
                  int64_t db_round_trips, int64_t db_statements) {
  TypeCounters& c = of(type);
  c.db_round_trips.fetch_add(static_cast<uint64_t>(db_round_trips), std::memory_order_relaxed);
  c.db_statements.fetch_add(static_cast<uint64_t>(db_statements), std::memory_order_relaxed);
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

Status Stats::WriteCsv(const std::string& path) const {
  std::string text = "type,requests";
  for (int o = 0; o <= protocol::kMaxOutcome; ++o) {
    text += fmt::format(",{}", protocol::OutcomeName(static_cast<protocol::Outcome>(o)));
  }
  text += ",retries,server_us,db_round_trips,db_statements\n";
  for (int i = 0; i < kTypeSlots; ++i) {
    const TypeCounters& c = types_[i];
    const uint64_t n = c.requests.load(std::memory_order_relaxed);
    if (n == 0) continue;
    const auto type = static_cast<protocol::MessageType>(i);
    const std::string_view code = RequestCode(type);
    text += fmt::format("{},{}", code.empty() ? protocol::MessageTypeName(type) : code, n);
    for (const auto& outcome : c.outcomes) text += fmt::format(",{}", outcome.load());
    text += fmt::format(",{},{},{},{}\n", c.retries.load(), c.server_micros.load(),
                        c.db_round_trips.load(), c.db_statements.load());
  }
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (f == nullptr) {
    return Status::IoError(fmt::format("--stats-file {}: {}", path, std::strerror(errno)));
  }
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !written || std::rename(tmp.c_str(), path.c_str()) != 0) {
    Status s = Status::IoError(fmt::format("--stats-file {}: {}", path, std::strerror(errno)));
    std::remove(tmp.c_str());
    return s;
  }
  return Status::Ok();
}

}  // namespace bb::bh
