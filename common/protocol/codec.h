// Encoding and decoding of message bodies and whole frames (PROTOCOL.md).
//
// Bodies are written field by field in a fixed order with explicit little-endian widths;
// strings carry a u16 length (u32 for fields whose limit exceeds 65535), lists a u16 count.
// Encode checks the same limits as Decode, so a peer never receives what it would reject.
// Decode checks every length and count against the field's limit and the bytes that remain
// before it allocates, and fails with a Status that names the message, the field and the
// value, e.g. "TradeLookupInput.frame: 9 is not 1..4" or
// "TradeStatusOutput.trades[7].symbol: length 16 exceeds 15". It checks shape only: lengths,
// counts, enum ranges, booleans, frame numbers; not whether the values make business sense.
//
// Allocation: Writer appends to a caller-owned std::vector (clear() it and reuse it: no
// reallocation in steady state) or into a fixed caller-provided buffer. Decode into an existing
// message reuses its strings' and vectors' capacity.
//
// Thread-safety: Writer and Reader are single-threaded views over caller-owned buffers; the
// free functions are reentrant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <variant>
#include <vector>

#include "common/protocol/frame.h"
#include "common/protocol/transactions.h"
#include "common/util/status.h"

namespace bb::protocol {

// Appends little-endian values to a byte buffer.
class Writer {
 public:
  // Appends to `buffer` (growing it when needed); the buffer must outlive the writer.
  explicit Writer(std::vector<uint8_t>& buffer) : vector_(&buffer) {}
  // Writes into `fixed` from its start; past its end sets overflowed() and drops the bytes.
  explicit Writer(std::span<uint8_t> fixed) : fixed_(fixed) {}

  void PutU8(uint8_t v) { Put(v, 1); }
  void PutU16(uint16_t v) { Put(v, 2); }
  void PutU32(uint32_t v) { Put(v, 4); }
  void PutU64(uint64_t v) { Put(v, 8); }
  void PutI32(int32_t v) { Put(static_cast<uint32_t>(v), 4); }
  void PutI64(int64_t v) { Put(static_cast<uint64_t>(v), 8); }
  void PutF64(double v);
  void PutBytes(const void* data, size_t size);

  // Bytes in the buffer (for a vector: its whole size, including what was there before).
  size_t size() const { return vector_ != nullptr ? vector_->size() : fixed_size_; }
  bool overflowed() const { return overflowed_; }
  // Drops everything after `size` bytes (undoes a failed encode).
  void Truncate(size_t size);
  // Overwrites bytes already written, e.g. a frame header once the body length is known.
  void Overwrite(size_t offset, std::span<const uint8_t> bytes);
  std::span<const uint8_t> bytes() const;

 private:
  uint8_t* Extend(size_t size);  // the fixed buffer only
  void Put(uint64_t v, size_t width);

  std::vector<uint8_t>* vector_ = nullptr;
  std::span<uint8_t> fixed_;
  size_t fixed_size_ = 0;
  bool overflowed_ = false;
};

// Reads little-endian values from a span; each Get returns false, consuming nothing, when
// fewer bytes remain than it needs.
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  bool GetU8(uint8_t& v);
  bool GetU16(uint16_t& v);
  bool GetU32(uint32_t& v);
  bool GetU64(uint64_t& v);
  bool GetI32(int32_t& v);
  bool GetI64(int64_t& v);
  bool GetF64(double& v);
  // Points `data` at the next `size` bytes (no copy) and skips them.
  bool GetBytes(size_t size, const uint8_t*& data);

  size_t remaining() const { return bytes_.size() - position_; }
  size_t position() const { return position_; }

 private:
  std::span<const uint8_t> bytes_;
  size_t position_ = 0;
};

// One Encode/Decode pair per message. Encode appends the body; Decode reads a whole body and
// fails on trailing bytes.
Status Encode(const Hello& m, Writer& w);
Status Encode(const HelloReply& m, Writer& w);
Status Encode(const ErrorReply& m, Writer& w);
Status Encode(const MarketTradeRequest& m, Writer& w);
Status Encode(const MarketTradeAck& m, Writer& w);
Status Encode(const BrokerVolumeInput& m, Writer& w);
Status Encode(const BrokerVolumeOutput& m, Writer& w);
Status Encode(const CustomerPositionInput& m, Writer& w);
Status Encode(const CustomerPositionOutput& m, Writer& w);
Status Encode(const MarketFeedInput& m, Writer& w);
Status Encode(const MarketFeedOutput& m, Writer& w);
Status Encode(const MarketWatchInput& m, Writer& w);
Status Encode(const MarketWatchOutput& m, Writer& w);
Status Encode(const SecurityDetailInput& m, Writer& w);
Status Encode(const SecurityDetailOutput& m, Writer& w);
Status Encode(const TradeLookupInput& m, Writer& w);
Status Encode(const TradeLookupOutput& m, Writer& w);
Status Encode(const TradeOrderInput& m, Writer& w);
Status Encode(const TradeOrderOutput& m, Writer& w);
Status Encode(const TradeResultInput& m, Writer& w);
Status Encode(const TradeResultOutput& m, Writer& w);
Status Encode(const TradeStatusInput& m, Writer& w);
Status Encode(const TradeStatusOutput& m, Writer& w);
Status Encode(const TradeUpdateInput& m, Writer& w);
Status Encode(const TradeUpdateOutput& m, Writer& w);
Status Encode(const DataMaintenanceInput& m, Writer& w);
Status Encode(const DataMaintenanceOutput& m, Writer& w);
Status Encode(const TradeCleanupInput& m, Writer& w);
Status Encode(const TradeCleanupOutput& m, Writer& w);

Status Decode(std::span<const uint8_t> body, Hello& out);
Status Decode(std::span<const uint8_t> body, HelloReply& out);
Status Decode(std::span<const uint8_t> body, ErrorReply& out);
Status Decode(std::span<const uint8_t> body, MarketTradeRequest& out);
Status Decode(std::span<const uint8_t> body, MarketTradeAck& out);
Status Decode(std::span<const uint8_t> body, BrokerVolumeInput& out);
Status Decode(std::span<const uint8_t> body, BrokerVolumeOutput& out);
Status Decode(std::span<const uint8_t> body, CustomerPositionInput& out);
Status Decode(std::span<const uint8_t> body, CustomerPositionOutput& out);
Status Decode(std::span<const uint8_t> body, MarketFeedInput& out);
Status Decode(std::span<const uint8_t> body, MarketFeedOutput& out);
Status Decode(std::span<const uint8_t> body, MarketWatchInput& out);
Status Decode(std::span<const uint8_t> body, MarketWatchOutput& out);
Status Decode(std::span<const uint8_t> body, SecurityDetailInput& out);
Status Decode(std::span<const uint8_t> body, SecurityDetailOutput& out);
Status Decode(std::span<const uint8_t> body, TradeLookupInput& out);
Status Decode(std::span<const uint8_t> body, TradeLookupOutput& out);
Status Decode(std::span<const uint8_t> body, TradeOrderInput& out);
Status Decode(std::span<const uint8_t> body, TradeOrderOutput& out);
Status Decode(std::span<const uint8_t> body, TradeResultInput& out);
Status Decode(std::span<const uint8_t> body, TradeResultOutput& out);
Status Decode(std::span<const uint8_t> body, TradeStatusInput& out);
Status Decode(std::span<const uint8_t> body, TradeStatusOutput& out);
Status Decode(std::span<const uint8_t> body, TradeUpdateInput& out);
Status Decode(std::span<const uint8_t> body, TradeUpdateOutput& out);
Status Decode(std::span<const uint8_t> body, DataMaintenanceInput& out);
Status Decode(std::span<const uint8_t> body, DataMaintenanceOutput& out);
Status Decode(std::span<const uint8_t> body, TradeCleanupInput& out);
Status Decode(std::span<const uint8_t> body, TradeCleanupOutput& out);

// Every message, for code that receives any of them.
using Message =
    std::variant<Hello, HelloReply, ErrorReply, MarketTradeRequest, MarketTradeAck,
                 BrokerVolumeInput, BrokerVolumeOutput, CustomerPositionInput,
                 CustomerPositionOutput, MarketFeedInput, MarketFeedOutput, MarketWatchInput,
                 MarketWatchOutput, SecurityDetailInput, SecurityDetailOutput, TradeLookupInput,
                 TradeLookupOutput, TradeOrderInput, TradeOrderOutput, TradeResultInput,
                 TradeResultOutput, TradeStatusInput, TradeStatusOutput, TradeUpdateInput,
                 TradeUpdateOutput, DataMaintenanceInput, DataMaintenanceOutput, TradeCleanupInput,
                 TradeCleanupOutput>;

MessageType TypeOf(const Message& message);

// A message as readable text, one "name: value" line per field, nested fields indented; long
// strings are cut. For bb-txn and logs, not for parsing.
std::string ToText(const Message& message);

// Decodes a body of the given type into `out`, reusing its storage when it already holds that
// type. On failure `out` holds a partly decoded value of that type.
Status DecodeMessage(MessageType type, std::span<const uint8_t> body, Message& out);
Result<Message> DecodeMessage(MessageType type, std::span<const uint8_t> body);

// Frames: header + body.
size_t BeginFrame(Writer& w);  // reserves the header; returns the frame's offset
// Fills in the header of the frame begun at `start`; fails (and removes the frame) if the body
// exceeds kMaxBodyBytes or the writer overflowed.
Status FinishFrame(Writer& w, size_t start, MessageType type, uint64_t request_id);

template <typename M>
Status EncodeFrame(const M& message, uint64_t request_id, Writer& w) {
  const size_t start = BeginFrame(w);
  if (Status s = Encode(message, w); !s.ok()) {
    w.Truncate(start);
    return s;
  }
  return FinishFrame(w, start, M::kType, request_id);
}
Status EncodeFrame(const Message& message, uint64_t request_id, Writer& w);

struct Frame {
  FrameHeader header;
  Message message;
};
// Decodes exactly one whole frame (header, then body_length bytes, nothing after).
Result<Frame> DecodeFrame(std::span<const uint8_t> bytes);

}  // namespace bb::protocol
