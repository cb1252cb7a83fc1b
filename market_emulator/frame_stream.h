// FrameStream: splits a TCP byte stream into whole frames. A connection reads whatever has
// arrived into space(), calls Commit(n), then takes frames with Next() until it says kNeedMore;
// many small frames per read cost one system call, which is what lets one I/O thread carry
// tens of thousands of orders and deliveries per second. The header is validated (body
// length above all) first, and the buffer grows with the bytes that arrive (space() per read),
// never to the length a header declares: a peer that sends a header alone claims no body.
//
// Ownership: owns its buffer. Thread-safety: none; one per connection.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "common/protocol/frame.h"

namespace bb::mee {

class FrameStream {
 public:
  enum class State { kFrame, kNeedMore, kBad };

  // Writable space at the end of the buffer, at least `min_free` bytes.
  std::span<uint8_t> space(size_t min_free = 16384) {
    if (start_ > 0 && start_ == end_) start_ = end_ = 0;
    if (buffer_.size() - end_ < min_free) {
      if (start_ > 0) {  // compact before growing
        std::memmove(buffer_.data(), buffer_.data() + start_, end_ - start_);
        end_ -= start_;
        start_ = 0;
      }
      if (buffer_.size() - end_ < min_free) buffer_.resize(end_ + min_free);
    }
    return {buffer_.data() + end_, buffer_.size() - end_};
  }
  void Commit(size_t n) { end_ += n; }
  // Forgets what is buffered (a new connection); keeps the memory, which a cancelled read may
  // still name.
  void Reset() { start_ = end_ = 0; }

  // kFrame: header() and body() describe the next frame until the following call.
  // kBad: status() says why; the stream has lost its framing.
  State Next() {
    std::span<const uint8_t> available(buffer_.data() + start_, end_ - start_);
    auto parsed = protocol::ParseFrameHeader(available);
    if (parsed.state == protocol::FrameHeaderParser::State::kNeedMore) return State::kNeedMore;
    if (parsed.state == protocol::FrameHeaderParser::State::kBad) {
      status_ = parsed.status;
      return State::kBad;
    }
    const size_t whole = protocol::kFrameHeaderBytes + parsed.header.body_length;
    if (available.size() < whole) return State::kNeedMore;
    header_ = parsed.header;
    body_ = available.subspan(protocol::kFrameHeaderBytes, parsed.header.body_length);
    start_ += whole;
    return State::kFrame;
  }

  const protocol::FrameHeader& header() const { return header_; }
  std::span<const uint8_t> body() const { return body_; }
  const Status& status() const { return status_; }

 private:
  std::vector<uint8_t> buffer_;
  size_t start_ = 0;  // first unread byte
  size_t end_ = 0;    // one past the last received byte
  protocol::FrameHeader header_;
  std::span<const uint8_t> body_;
  Status status_;
};

}  // namespace bb::mee
