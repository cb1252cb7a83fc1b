// The frame header of the brokerbench wire protocol (PROTOCOL.md): 24 bytes, little-endian,
//
//   offset size field
//        0    4 magic        kMagic ("BBPT" on the wire)
//        4    2 version      kProtocolVersion
//        6    2 type         MessageType
//        8    4 flags        reserved, must be 0
//       12    8 request_id   chosen by the requester, echoed by the reply
//       20    4 body_length  <= kMaxBodyBytes
//
// followed by body_length bytes of body (codec.h). FrameHeaderParser consumes bytes as they
// arrive, in the manner of Asio's HTTP server 3 request_parser, so that a server validates the
// header, and above all the body length, before it allocates or reads the body.
//
// Thread-safety: FrameHeaderParser is a value with no shared state; one per connection.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

#include "common/protocol/message_type.h"
#include "common/util/status.h"

namespace bb::protocol {

inline constexpr uint32_t kMagic = 0x54504242;  // bytes 'B' 'B' 'P' 'T'
// Any change to the header or to any message's encoding bumps this (PROTOCOL.md).
inline constexpr uint16_t kProtocolVersion = 1;
// The largest legal message is a Security-Detail reply with two 100 000-byte news items
// (NI_ITEM is BLOB(100000)), about 205 KB. 1 MiB leaves room for that and bounds what one
// peer can make the server allocate.
inline constexpr uint32_t kMaxBodyBytes = 1u << 20;
inline constexpr size_t kFrameHeaderBytes = 24;

struct FrameHeader {
  uint32_t magic = kMagic;
  uint16_t version = kProtocolVersion;
  MessageType type = MessageType::kHello;
  uint32_t flags = 0;
  uint64_t request_id = 0;
  uint32_t body_length = 0;
  bool operator==(const FrameHeader&) const = default;
};

void WriteFrameHeader(const FrameHeader& header, std::span<uint8_t, kFrameHeaderBytes> out);

// Checks magic, version, type, flags and body length; the message names the field and value,
// e.g. "frame header magic: 0x12345678 is not 0x54504242".
Status ValidateFrameHeader(const FrameHeader& header);

// Incremental header parser. Feed it whatever bytes have arrived; it says kGood once the 24
// header bytes are in and valid, kBad (with status()) as soon as they are complete and
// invalid, and kNeedMore until then. Call Reset() before the next frame.
class FrameHeaderParser {
 public:
  enum class State { kGood, kBad, kNeedMore };

  // Consumes bytes from [begin, end) up to the end of the header; returns the state and a
  // pointer to the first byte not consumed (the start of the body when kGood).
  std::pair<State, const uint8_t*> Parse(const uint8_t* begin, const uint8_t* end);
  std::pair<State, const uint8_t*> Parse(std::span<const uint8_t> bytes) {
    return Parse(bytes.data(), bytes.data() + bytes.size());
  }

  void Reset();
  // The decoded fields, valid after kGood, and after kBad too (so an error reply can echo the
  // request id).
  const FrameHeader& header() const { return header_; }
  const Status& status() const { return status_; }

 private:
  std::array<uint8_t, kFrameHeaderBytes> buffer_{};
  size_t filled_ = 0;
  FrameHeader header_;
  Status status_;
};

// One-shot form for a buffer that may hold a whole frame: kNeedMore if fewer than 24 bytes.
struct ParsedHeader {
  FrameHeaderParser::State state = FrameHeaderParser::State::kNeedMore;
  FrameHeader header;
  Status status;
};
ParsedHeader ParseFrameHeader(std::span<const uint8_t> bytes);

}  // namespace bb::protocol
