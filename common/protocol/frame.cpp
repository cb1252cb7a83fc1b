#include "common/protocol/frame.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace bb::protocol {
namespace {

uint16_t LoadU16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }

uint32_t LoadU32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

uint64_t LoadU64(const uint8_t* p) {
  return static_cast<uint64_t>(LoadU32(p)) | (static_cast<uint64_t>(LoadU32(p + 4)) << 32);
}

void StoreLE(uint8_t* p, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

FrameHeader DecodeHeader(const uint8_t* p) {
  FrameHeader h;
  h.magic = LoadU32(p);
  h.version = LoadU16(p + 4);
  h.type = static_cast<MessageType>(LoadU16(p + 6));
  h.flags = LoadU32(p + 8);
  h.request_id = LoadU64(p + 12);
  h.body_length = LoadU32(p + 20);
  return h;
}

}  // namespace

bool IsKnownMessageType(uint16_t type) {
  return (type >= 1 && type <= 5) || (type >= 16 && type <= 39);
}

const char* MessageTypeName(MessageType type) {
  switch (type) {
    case MessageType::kHello:
      return "Hello";
    case MessageType::kHelloReply:
      return "HelloReply";
    case MessageType::kErrorReply:
      return "ErrorReply";
    case MessageType::kMarketTradeRequest:
      return "MarketTradeRequest";
    case MessageType::kMarketTradeAck:
      return "MarketTradeAck";
    case MessageType::kBrokerVolumeInput:
      return "BrokerVolumeInput";
    case MessageType::kBrokerVolumeOutput:
      return "BrokerVolumeOutput";
    case MessageType::kCustomerPositionInput:
      return "CustomerPositionInput";
    case MessageType::kCustomerPositionOutput:
      return "CustomerPositionOutput";
    case MessageType::kMarketFeedInput:
      return "MarketFeedInput";
    case MessageType::kMarketFeedOutput:
      return "MarketFeedOutput";
    case MessageType::kMarketWatchInput:
      return "MarketWatchInput";
    case MessageType::kMarketWatchOutput:
      return "MarketWatchOutput";
    case MessageType::kSecurityDetailInput:
      return "SecurityDetailInput";
    case MessageType::kSecurityDetailOutput:
      return "SecurityDetailOutput";
    case MessageType::kTradeLookupInput:
      return "TradeLookupInput";
    case MessageType::kTradeLookupOutput:
      return "TradeLookupOutput";
    case MessageType::kTradeOrderInput:
      return "TradeOrderInput";
    case MessageType::kTradeOrderOutput:
      return "TradeOrderOutput";
    case MessageType::kTradeResultInput:
      return "TradeResultInput";
    case MessageType::kTradeResultOutput:
      return "TradeResultOutput";
    case MessageType::kTradeStatusInput:
      return "TradeStatusInput";
    case MessageType::kTradeStatusOutput:
      return "TradeStatusOutput";
    case MessageType::kTradeUpdateInput:
      return "TradeUpdateInput";
    case MessageType::kTradeUpdateOutput:
      return "TradeUpdateOutput";
    case MessageType::kDataMaintenanceInput:
      return "DataMaintenanceInput";
    case MessageType::kDataMaintenanceOutput:
      return "DataMaintenanceOutput";
    case MessageType::kTradeCleanupInput:
      return "TradeCleanupInput";
    case MessageType::kTradeCleanupOutput:
      return "TradeCleanupOutput";
  }
  return "unknown";
}

void WriteFrameHeader(const FrameHeader& header, std::span<uint8_t, kFrameHeaderBytes> out) {
  uint8_t* p = out.data();
  StoreLE(p, header.magic, 4);
  StoreLE(p + 4, header.version, 2);
  StoreLE(p + 6, static_cast<uint16_t>(header.type), 2);
  StoreLE(p + 8, header.flags, 4);
  StoreLE(p + 12, header.request_id, 8);
  StoreLE(p + 20, header.body_length, 4);
}

Status ValidateFrameHeader(const FrameHeader& header) {
  if (header.magic != kMagic) {
    return Status::InvalidArgument(
        fmt::format("frame header magic: 0x{:08x} is not 0x{:08x}", header.magic, kMagic));
  }
  if (header.version != kProtocolVersion) {
    return Status::InvalidArgument(
        fmt::format("frame header version: {} is not {} (the peer speaks another protocol version)",
                    header.version, kProtocolVersion));
  }
  const auto type = static_cast<uint16_t>(header.type);
  if (!IsKnownMessageType(type)) {
    return Status::InvalidArgument(
        fmt::format("frame header type: {} is not a known message type", type));
  }
  if (header.flags != 0) {
    return Status::InvalidArgument(
        fmt::format("frame header flags: 0x{:08x} is not 0 (no flags are defined)", header.flags));
  }
  if (header.body_length > kMaxBodyBytes) {
    return Status::InvalidArgument(
        fmt::format("frame header body_length: {} exceeds {}", header.body_length, kMaxBodyBytes));
  }
  return Status::Ok();
}

std::pair<FrameHeaderParser::State, const uint8_t*> FrameHeaderParser::Parse(const uint8_t* begin,
                                                                             const uint8_t* end) {
  if (filled_ == kFrameHeaderBytes) {  // already decided; consume nothing more
    return {status_.ok() ? State::kGood : State::kBad, begin};
  }
  const size_t take = std::min(kFrameHeaderBytes - filled_, static_cast<size_t>(end - begin));
  if (take > 0) std::memcpy(buffer_.data() + filled_, begin, take);
  filled_ += take;
  begin += take;
  if (filled_ < kFrameHeaderBytes) return {State::kNeedMore, begin};
  header_ = DecodeHeader(buffer_.data());
  status_ = ValidateFrameHeader(header_);
  return {status_.ok() ? State::kGood : State::kBad, begin};
}

void FrameHeaderParser::Reset() {
  filled_ = 0;
  header_ = FrameHeader{};
  status_ = Status::Ok();
}

ParsedHeader ParseFrameHeader(std::span<const uint8_t> bytes) {
  ParsedHeader out;
  if (bytes.size() < kFrameHeaderBytes) return out;
  out.header = DecodeHeader(bytes.data());
  out.status = ValidateFrameHeader(out.header);
  out.state = out.status.ok() ? FrameHeaderParser::State::kGood : FrameHeaderParser::State::kBad;
  return out;
}

}  // namespace bb::protocol
