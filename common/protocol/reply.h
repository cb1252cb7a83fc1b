// Replies: which reply answers which request, and the leading ReplyStatus of a transaction
// reply read without decoding the rest of its body (PROTOCOL.md). For clients that pair replies
// with their requests by request id and need only the status for a mix row.
#pragma once

#include <cstdint>
#include <span>

#include "common/protocol/message_type.h"
#include "common/protocol/transactions.h"
#include "common/util/status.h"

namespace bb::protocol {

// The reply type of a request type (TradeOrderInput -> TradeOrderOutput, Hello -> HelloReply,
// MarketTradeRequest -> MarketTradeAck); kErrorReply for a type that is not a request.
MessageType ReplyTypeOf(MessageType request);

// True when `reply` answers `request`: its own reply type, or an ErrorReply.
bool IsReplyTo(MessageType reply, MessageType request);

// The first fields of every transaction reply's body: spec status, outcome, retries. No
// allocation: the detail text and the rest of the body are not read.
struct ReplyHead {
  int32_t spec_status = 0;
  Outcome outcome = Outcome::kOk;
  uint32_t retries = 0;
};

// Reads the ReplyHead of a transaction reply of type `type`. An error naming the type when it
// is not a transaction reply, or when the body is too short or holds an unknown outcome.
Status DecodeReplyHead(MessageType type, std::span<const uint8_t> body, ReplyHead& out);

}  // namespace bb::protocol
