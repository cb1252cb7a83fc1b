#include "common/protocol/codec.h"

#include <array>
#include <bit>
#include <cassert>
#include <concepts>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

#include "common/protocol/field_visitors.h"
#include "common/protocol/message_fields.h"

namespace bb::protocol {

// ---------------------------------------------------------------------------------------------
// Writer and Reader.

// The fixed buffer's room for `size` more bytes, or null once it has overflowed.
uint8_t* Writer::Extend(size_t size) {
  if (overflowed_ || size > fixed_.size() - fixed_size_) {
    overflowed_ = true;
    return nullptr;
  }
  uint8_t* p = fixed_.data() + fixed_size_;
  fixed_size_ += size;
  return p;
}

void Writer::Put(uint64_t v, size_t width) {
  uint8_t bytes[8];
  for (size_t i = 0; i < width; ++i) bytes[i] = static_cast<uint8_t>(v >> (8 * i));
  PutBytes(bytes, width);
}

void Writer::PutF64(double v) { PutU64(std::bit_cast<uint64_t>(v)); }

// A vector grows by insert, not resize, which would first zero the bytes about to be written.
void Writer::PutBytes(const void* data, size_t size) {
  if (size == 0) return;
  const auto* bytes = static_cast<const uint8_t*>(data);
  if (vector_ != nullptr) {
    vector_->insert(vector_->end(), bytes, bytes + size);
  } else if (uint8_t* p = Extend(size)) {
    std::memcpy(p, bytes, size);
  }
}

void Writer::Truncate(size_t size) {
  if (vector_ != nullptr) {
    if (size < vector_->size()) vector_->resize(size);
  } else if (size <= fixed_size_) {
    fixed_size_ = size;
    overflowed_ = false;
  }
}

void Writer::Overwrite(size_t offset, std::span<const uint8_t> bytes) {
  assert(offset + bytes.size() <= size());
  uint8_t* base = vector_ != nullptr ? vector_->data() : fixed_.data();
  std::memcpy(base + offset, bytes.data(), bytes.size());
}

std::span<const uint8_t> Writer::bytes() const {
  if (vector_ != nullptr) return {vector_->data(), vector_->size()};
  return {fixed_.data(), fixed_size_};
}

bool Reader::GetBytes(size_t size, const uint8_t*& data) {
  if (size > remaining()) return false;
  data = bytes_.data() + position_;
  position_ += size;
  return true;
}

namespace {

template <typename U>
bool GetLE(Reader& r, U& v) {
  const uint8_t* p = nullptr;
  if (!r.GetBytes(sizeof(U), p)) return false;
  U x = 0;
  for (size_t i = 0; i < sizeof(U); ++i) x |= static_cast<U>(static_cast<U>(p[i]) << (8 * i));
  v = x;
  return true;
}

}  // namespace

bool Reader::GetU8(uint8_t& v) { return GetLE(*this, v); }
bool Reader::GetU16(uint16_t& v) { return GetLE(*this, v); }
bool Reader::GetU32(uint32_t& v) { return GetLE(*this, v); }
bool Reader::GetU64(uint64_t& v) { return GetLE(*this, v); }
bool Reader::GetI32(int32_t& v) {
  uint32_t u = 0;
  if (!GetU32(u)) return false;
  v = static_cast<int32_t>(u);
  return true;
}
bool Reader::GetI64(int64_t& v) {
  uint64_t u = 0;
  if (!GetU64(u)) return false;
  v = static_cast<int64_t>(u);
  return true;
}
bool Reader::GetF64(double& v) {
  uint64_t u = 0;
  if (!GetU64(u)) return false;
  v = std::bit_cast<double>(u);
  return true;
}

namespace {

// ---------------------------------------------------------------------------------------------

template <typename M>
Status EncodeBody(const M& m, Writer& w) {
  const size_t start = w.size();
  EncodeVisitor v(MessageTypeName(M::kType), w);
  Fields(v, m);
  if (v.failed()) {
    w.Truncate(start);
    return v.TakeStatus();
  }
  return Status::Ok();
}

template <typename M>
Status DecodeBody(std::span<const uint8_t> body, M& out) {
  Reader r(body);
  DecodeVisitor v(MessageTypeName(M::kType), r);
  Fields(v, out);
  if (v.failed()) return v.TakeStatus();
  if (r.remaining() != 0) {
    return Status::InvalidArgument(fmt::format("{}: {} trailing bytes after the message",
                                               MessageTypeName(M::kType), r.remaining()));
  }
  return Status::Ok();
}

// Calls f(std::type_identity<M>{}) for the message type numbered `type`; false if unknown.
template <typename F>
bool WithMessageType(MessageType type, F&& f) {
  bool found = false;
  [&]<size_t... I>(std::index_sequence<I...>) {
    ((std::variant_alternative_t<I, Message>::kType == type
          ? (f(std::type_identity<std::variant_alternative_t<I, Message>>{}), found = true)
          : false) ||
     ...);
  }
  (std::make_index_sequence<std::variant_size_v<Message>>{});
  return found;
}

}  // namespace

Status Encode(const Hello& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const HelloReply& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const ErrorReply& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const MarketTradeRequest& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const MarketTradeAck& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const BrokerVolumeInput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const BrokerVolumeOutput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const CustomerPositionInput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const CustomerPositionOutput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const MarketFeedInput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const MarketFeedOutput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const MarketWatchInput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const MarketWatchOutput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const SecurityDetailInput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const SecurityDetailOutput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const TradeLookupInput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const TradeLookupOutput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const TradeOrderInput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const TradeOrderOutput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const TradeResultInput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const TradeResultOutput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const TradeStatusInput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const TradeStatusOutput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const TradeUpdateInput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const TradeUpdateOutput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const DataMaintenanceInput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const DataMaintenanceOutput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const TradeCleanupInput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const TradeCleanupOutput& m, Writer& w) { return EncodeBody(m, w); }

Status Decode(std::span<const uint8_t> b, Hello& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, HelloReply& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, ErrorReply& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, MarketTradeRequest& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, MarketTradeAck& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, BrokerVolumeInput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, BrokerVolumeOutput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, CustomerPositionInput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, CustomerPositionOutput& out) {
  return DecodeBody(b, out);
}
Status Decode(std::span<const uint8_t> b, MarketFeedInput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, MarketFeedOutput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, MarketWatchInput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, MarketWatchOutput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, SecurityDetailInput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, SecurityDetailOutput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, TradeLookupInput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, TradeLookupOutput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, TradeOrderInput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, TradeOrderOutput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, TradeResultInput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, TradeResultOutput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, TradeStatusInput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, TradeStatusOutput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, TradeUpdateInput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, TradeUpdateOutput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, DataMaintenanceInput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, DataMaintenanceOutput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, TradeCleanupInput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, TradeCleanupOutput& out) { return DecodeBody(b, out); }

MessageType TypeOf(const Message& message) {
  return std::visit([](const auto& m) { return std::decay_t<decltype(m)>::kType; }, message);
}

Status DecodeMessage(MessageType type, std::span<const uint8_t> body, Message& out) {
  Status status;
  const bool known = WithMessageType(type, [&]<typename M>(std::type_identity<M>) {
    M* target = std::get_if<M>(&out);
    if (target == nullptr) target = &out.emplace<M>();
    status = Decode(body, *target);
  });
  if (!known) {
    return Status::InvalidArgument(
        fmt::format("message type: {} is not a known message type", static_cast<uint16_t>(type)));
  }
  return status;
}

Result<Message> DecodeMessage(MessageType type, std::span<const uint8_t> body) {
  Message out;
  if (Status s = DecodeMessage(type, body, out); !s.ok()) return s;
  return out;
}

size_t BeginFrame(Writer& w) {
  const size_t start = w.size();
  const std::array<uint8_t, kFrameHeaderBytes> zeros{};
  w.PutBytes(zeros.data(), zeros.size());
  return start;
}

Status FinishFrame(Writer& w, size_t start, MessageType type, uint64_t request_id) {
  if (w.overflowed()) {
    w.Truncate(start);
    return Status::InvalidArgument(
        fmt::format("{}: the frame does not fit in the writer's buffer", MessageTypeName(type)));
  }
  const size_t body = w.size() - start - kFrameHeaderBytes;
  if (body > kMaxBodyBytes) {
    w.Truncate(start);
    return Status::InvalidArgument(fmt::format("{}: body of {} bytes exceeds kMaxBodyBytes {}",
                                               MessageTypeName(type), body, kMaxBodyBytes));
  }
  FrameHeader header;
  header.type = type;
  header.request_id = request_id;
  header.body_length = static_cast<uint32_t>(body);
  std::array<uint8_t, kFrameHeaderBytes> bytes{};
  WriteFrameHeader(header, bytes);
  w.Overwrite(start, bytes);
  return Status::Ok();
}

Status EncodeFrame(const Message& message, uint64_t request_id, Writer& w) {
  return std::visit([&](const auto& m) { return EncodeFrame(m, request_id, w); }, message);
}

Result<Frame> DecodeFrame(std::span<const uint8_t> bytes) {
  ParsedHeader parsed = ParseFrameHeader(bytes);
  if (parsed.state == FrameHeaderParser::State::kNeedMore) {
    return Status::InvalidArgument(fmt::format("frame: {} bytes is shorter than the {}-byte header",
                                               bytes.size(), kFrameHeaderBytes));
  }
  if (parsed.state == FrameHeaderParser::State::kBad) return parsed.status;
  const size_t available = bytes.size() - kFrameHeaderBytes;
  if (available != parsed.header.body_length) {
    return Status::InvalidArgument(fmt::format("frame header body_length: {} but {} bytes follow",
                                               parsed.header.body_length, available));
  }
  Frame frame{parsed.header, Message{}};
  if (Status s = DecodeMessage(parsed.header.type, bytes.subspan(kFrameHeaderBytes), frame.message);
      !s.ok()) {
    return s;
  }
  return frame;
}

}  // namespace bb::protocol
