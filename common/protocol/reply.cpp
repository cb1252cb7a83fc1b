#include "common/protocol/reply.h"

#include <string>
#include <utility>
#include <variant>

#include <fmt/format.h>

#include "common/protocol/codec.h"

namespace bb::protocol {

MessageType ReplyTypeOf(MessageType request) {
  using T = MessageType;
  switch (request) {
    case T::kHello:
      return T::kHelloReply;
    case T::kMarketTradeRequest:
      return T::kMarketTradeAck;
    case T::kBrokerVolumeInput:
      return T::kBrokerVolumeOutput;
    case T::kCustomerPositionInput:
      return T::kCustomerPositionOutput;
    case T::kMarketFeedInput:
      return T::kMarketFeedOutput;
    case T::kMarketWatchInput:
      return T::kMarketWatchOutput;
    case T::kSecurityDetailInput:
      return T::kSecurityDetailOutput;
    case T::kTradeLookupInput:
      return T::kTradeLookupOutput;
    case T::kTradeOrderInput:
      return T::kTradeOrderOutput;
    case T::kTradeResultInput:
      return T::kTradeResultOutput;
    case T::kTradeStatusInput:
      return T::kTradeStatusOutput;
    case T::kTradeUpdateInput:
      return T::kTradeUpdateOutput;
    case T::kDataMaintenanceInput:
      return T::kDataMaintenanceOutput;
    case T::kTradeCleanupInput:
      return T::kTradeCleanupOutput;
    default:
      return T::kErrorReply;
  }
}

bool IsReplyTo(MessageType reply, MessageType request) {
  return reply == MessageType::kErrorReply || reply == ReplyTypeOf(request);
}

bool IsTransactionRequest(MessageType type) {
  using T = MessageType;
  switch (type) {
    case T::kBrokerVolumeInput:
    case T::kCustomerPositionInput:
    case T::kMarketFeedInput:
    case T::kMarketWatchInput:
    case T::kSecurityDetailInput:
    case T::kTradeLookupInput:
    case T::kTradeOrderInput:
    case T::kTradeResultInput:
    case T::kTradeStatusInput:
    case T::kTradeUpdateInput:
    case T::kDataMaintenanceInput:
    case T::kTradeCleanupInput:
      return true;
    default:
      return false;
  }
}

namespace {

// The transaction replies: each body starts with its ReplyStatus (PROTOCOL.md).
bool IsTransactionReply(MessageType type) {
  using T = MessageType;
  switch (type) {
    case T::kBrokerVolumeOutput:
    case T::kCustomerPositionOutput:
    case T::kMarketFeedOutput:
    case T::kMarketWatchOutput:
    case T::kSecurityDetailOutput:
    case T::kTradeLookupOutput:
    case T::kTradeOrderOutput:
    case T::kTradeResultOutput:
    case T::kTradeStatusOutput:
    case T::kTradeUpdateOutput:
    case T::kDataMaintenanceOutput:
    case T::kTradeCleanupOutput:
      return true;
    default:
      return false;
  }
}

}  // namespace

Status DecodeReplyHead(MessageType type, std::span<const uint8_t> body, ReplyHead& out) {
  if (!IsTransactionReply(type)) {
    return Status::InvalidArgument(
        fmt::format("reply type: {} is not a transaction reply", MessageTypeName(type)));
  }
  Reader reader(body);
  uint8_t outcome = 0;
  if (!reader.GetI32(out.spec_status) || !reader.GetU8(outcome) || !reader.GetU32(out.retries)) {
    return Status::InvalidArgument(fmt::format("{} body: {} bytes, too short for its reply status",
                                               MessageTypeName(type), body.size()));
  }
  if (outcome > kMaxOutcome) {
    return Status::InvalidArgument(fmt::format("{} outcome: {} is not an outcome (0..{})",
                                               MessageTypeName(type), outcome, kMaxOutcome));
  }
  out.outcome = static_cast<Outcome>(outcome);
  out.trade_id = 0;
  if (type != MessageType::kTradeOrderOutput) return Status::Ok();
  // ReplyStatus goes on with server_micros and detail (u16 length, bytes); then the trade id.
  int64_t server_micros = 0;
  uint16_t detail_length = 0;
  const uint8_t* detail = nullptr;
  if (!reader.GetI64(server_micros) || !reader.GetU16(detail_length) ||
      !reader.GetBytes(detail_length, detail) || !reader.GetI64(out.trade_id)) {
    return Status::InvalidArgument(fmt::format("{} trade_id: {} bytes, too short to hold it",
                                               MessageTypeName(type), body.size()));
  }
  return Status::Ok();
}

const ReplyStatus* StatusOf(const Message& reply) {
  return std::visit(
      [](const auto& r) -> const ReplyStatus* {
        if constexpr (requires { r.status.outcome; }) {
          return &r.status;
        } else {
          return nullptr;
        }
      },
      reply);
}

void StampServerTime(Message& reply, int64_t micros) {
  std::visit(
      [&](auto& r) {
        if constexpr (requires { r.status.server_micros; }) r.status.server_micros = micros;
      },
      reply);
}

namespace {

// Emplaces in `reply` the alternative of Message whose type is `type`, if it is a transaction
// reply, and gives it `status`.
template <std::size_t... I>
bool EmplaceReply(MessageType type, const ReplyStatus& status, Message& reply,
                  std::index_sequence<I...>) {
  bool made = false;
  (
      [&] {
        using M = std::variant_alternative_t<I, Message>;
        if constexpr (requires(M m) { m.status.outcome; }) {
          if (!made && M::kType == type) {
            reply.emplace<I>().status = status;
            made = true;
          }
        }
      }(),
      ...);
  return made;
}

}  // namespace

bool MakeEmptyReply(const Message& request, const ReplyStatus& status, Message& reply) {
  const MessageType type = TypeOf(request);
  if (!IsTransactionRequest(type)) return false;
  return EmplaceReply(ReplyTypeOf(type), status, reply,
                      std::make_index_sequence<std::variant_size_v<Message>>());
}

Status EncodeReply(const Message& reply, uint64_t request_id, std::vector<uint8_t>& out) {
  Writer w(out);
  Status s = EncodeFrame(reply, request_id, w);  // on failure it appends nothing
  if (s.ok()) return s;
  std::string text =
      ("server could not encode its reply: " + s.message()).substr(0, width::kReason);
  (void)EncodeFrame(ErrorReply{ErrorCode::kInternal, text}, request_id, w);
  return s;
}

}  // namespace bb::protocol
