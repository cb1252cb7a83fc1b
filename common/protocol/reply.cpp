#include "common/protocol/reply.h"

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
    return Status::InvalidArgument(fmt::format(
        "{} body: {} bytes, too short for its reply status", MessageTypeName(type), body.size()));
  }
  if (outcome > kMaxOutcome) {
    return Status::InvalidArgument(
        fmt::format("{} outcome: {} is not an outcome (0..{})", MessageTypeName(type), outcome,
                    kMaxOutcome));
  }
  out.outcome = static_cast<Outcome>(outcome);
  return Status::Ok();
}

}  // namespace bb::protocol
