// Replies: which reply answers which request, and the leading ReplyStatus of a transaction
// reply read without decoding the rest of its body (PROTOCOL.md), for clients that pair replies
// with their requests by request id and need only the status for a mix row; and, for a server,
// the finishing touches of a transaction reply (its status, its time in the server, its frame).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "common/protocol/codec.h"
#include "common/protocol/message_type.h"
#include "common/protocol/transactions.h"
#include "common/util/status.h"

namespace bb::protocol {

// The reply type of a request type (TradeOrderInput -> TradeOrderOutput, Hello -> HelloReply,
// MarketTradeRequest -> MarketTradeAck); kErrorReply for a type that is not a request.
MessageType ReplyTypeOf(MessageType request);

// True when `reply` answers `request`: its own reply type, or an ErrorReply.
bool IsReplyTo(MessageType reply, MessageType request);

// Whether a message type is one of the twelve transaction requests (the inputs of clause 3.3).
bool IsTransactionRequest(MessageType type);

// The first fields of every transaction reply's body: spec status, outcome, retries; and for a
// Trade-Order its trade id (the field after the status), which the mix log records for the
// durability recount. No allocation: the detail text is skipped, the rest is not read.
struct ReplyHead {
  int32_t spec_status = 0;
  Outcome outcome = Outcome::kOk;
  uint32_t retries = 0;
  int64_t trade_id = 0;  // TradeOrderOutput only; 0 for every other reply
};

// Reads the ReplyHead of a transaction reply of type `type`. An error naming the type when it
// is not a transaction reply, or when the body is too short or holds an unknown outcome.
Status DecodeReplyHead(MessageType type, std::span<const uint8_t> body, ReplyHead& out);

// The status of a transaction reply, or null for other messages.
const ReplyStatus* StatusOf(const Message& reply);

// Sets server_micros on a transaction reply (other messages have none): the time the request
// spent in the server, queueing included (docs/ARCHITECTURE.md).
void StampServerTime(Message& reply, int64_t micros);

// Makes `reply` the reply of `request`'s type with every output empty and the status `status`:
// for a request that ends without reaching the database. False (and `reply` untouched) when
// `request` is not a transaction request.
bool MakeEmptyReply(const Message& request, const ReplyStatus& status, Message& reply);

// Appends the frame of `reply` to `out`. When `reply` breaks a protocol limit (a bug of the
// side that made it) it appends an internal-error reply to the same request instead and
// returns why the reply could not be encoded, for the caller to log.
Status EncodeReply(const Message& reply, uint64_t request_id, std::vector<uint8_t>& out);

}  // namespace bb::protocol
