// Message type numbers of the brokerbench wire protocol (PROTOCOL.md). Kept apart from
// frame.h so that transactions.h can name each message's type without other dependencies.
#pragma once

#include <cstdint>

namespace bb::protocol {

// Message type numbers: never reuse or renumber one. Each request's reply is request + 1.
enum class MessageType : uint16_t {
  kHello = 1,
  kHelloReply = 2,
  kErrorReply = 3,
  kMarketTradeRequest = 4,
  kMarketTradeAck = 5,
  kBrokerVolumeInput = 16,
  kBrokerVolumeOutput = 17,
  kCustomerPositionInput = 18,
  kCustomerPositionOutput = 19,
  kMarketFeedInput = 20,
  kMarketFeedOutput = 21,
  kMarketWatchInput = 22,
  kMarketWatchOutput = 23,
  kSecurityDetailInput = 24,
  kSecurityDetailOutput = 25,
  kTradeLookupInput = 26,
  kTradeLookupOutput = 27,
  kTradeOrderInput = 28,
  kTradeOrderOutput = 29,
  kTradeResultInput = 30,
  kTradeResultOutput = 31,
  kTradeStatusInput = 32,
  kTradeStatusOutput = 33,
  kTradeUpdateInput = 34,
  kTradeUpdateOutput = 35,
  kDataMaintenanceInput = 36,
  kDataMaintenanceOutput = 37,
  kTradeCleanupInput = 38,
  kTradeCleanupOutput = 39,
};

bool IsKnownMessageType(uint16_t type);
// The C++ type's name ("TradeOrderInput"), or "unknown" for a number that is not a type.
const char* MessageTypeName(MessageType type);

}  // namespace bb::protocol
