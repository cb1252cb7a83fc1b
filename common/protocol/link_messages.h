// The messages of a connection rather than of a transaction: the hello each connection starts
// with, the error reply, and the trade request the BH sends to the MEE with its acknowledgement.
//
// Thread-safety: values; copy freely.
#pragma once

#include <cstdint>
#include <string>

#include "common/protocol/message_type.h"
#include "common/protocol/wire_values.h"

namespace bb::protocol {

// First message on every connection, from the connecting side. The receiver compares the
// sizing with its own and refuses a mismatch (docs/ARCHITECTURE.md, "Wire protocol").
struct Hello {
  static constexpr MessageType kType = MessageType::kHello;
  uint16_t protocol_version = 0;   // kProtocolVersion of the sender
  std::string component;           // e.g. "bb-customer-emulator 0.1.0 host-a" (<= kComponentName)
  int64_t customers_total = 0;     // configured customers in the database
  int32_t scale_factor = 0;        // customers per tpsE (SF), 500 by default
  int32_t initial_trade_days = 0;  // ITD, 300 by default
  bool operator==(const Hello&) const = default;
};

struct HelloReply {
  static constexpr MessageType kType = MessageType::kHelloReply;
  bool accepted = false;
  std::string component;  // the answering side (<= kComponentName)
  std::string reason;     // why it refused, naming the field and both values (<= kReason)
  bool operator==(const HelloReply&) const = default;
};

enum class ErrorCode : uint8_t {
  kMalformedFrame = 1,     // bad header, bad body: the text names the field and value
  kUnexpectedMessage = 2,  // e.g. a request before the hello, or a reply type sent to a server
  kOverloaded = 3,         // the server's queue is full
  kInternal = 4,           // the server failed for a reason of its own
  kShuttingDown = 5,
};
inline constexpr uint8_t kMinErrorCode = 1;
inline constexpr uint8_t kMaxErrorCode = 5;

// Sent instead of the expected reply; carries the request id of the offending frame.
struct ErrorReply {
  static constexpr MessageType kType = MessageType::kErrorReply;
  ErrorCode code = ErrorCode::kMalformedFrame;
  std::string text;  // <= kReason
  bool operator==(const ErrorReply&) const = default;
};

// ---------------------------------------------------------------------------------------------
// BH -> MEE: SendToMarket (Trade-Order 3.3.7.6 after commit; Market-Feed 3.3.3 for triggered
// limit orders).

enum class MarketAction : uint8_t {
  kProcessOrder = 0,     // market order, or a limit order Market-Feed triggered: fill it
  kSetLimitTrigger = 1,  // pending limit order: fill when the price curve reaches the limit
};
inline constexpr uint8_t kMaxMarketAction = 1;

struct MarketTradeRequest {
  static constexpr MessageType kType = MessageType::kMarketTradeRequest;
  int64_t trade_id = 0;
  std::string symbol;  // <= kSymbol
  int32_t trade_qty = 0;
  Cents price = 0;            // requested (bid) price
  std::string trade_type_id;  // "TMB", "TMS", "TLB", "TLS", "TSL" (<= kTradeTypeId)
  MarketAction action = MarketAction::kProcessOrder;
  TimestampMicros sent_at = 0;  // BH wall clock at send, for the MEE's delivery log
  bool operator==(const MarketTradeRequest&) const = default;
};

// MEE -> BH: the request was queued (so the BH's sender can bound what it has in flight).
struct MarketTradeAck {
  static constexpr MessageType kType = MessageType::kMarketTradeAck;
  int64_t trade_id = 0;
  bool operator==(const MarketTradeAck&) const = default;
};

}  // namespace bb::protocol
