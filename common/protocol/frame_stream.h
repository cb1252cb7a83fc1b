// FrameStream: splits a byte stream into whole frames (PROTOCOL.md), with no I/O of its own. A
// connection reads whatever has arrived into space(), calls Commit(n), then takes frames with
// Next() until it says kNeedMore: many small frames per read cost one system call.
//
// The header goes through the protocol's incremental FrameHeaderParser, so it is checked (the
// body length above all) as soon as its 24 bytes are in, before any room is made for the body.
// The buffer grows with the bytes that have arrived (beyond a read chunk, space() offers at most
// as much again as is held, and never more than the frame still lacks), never to the length a
// header declares: a peer that sends a header alone claims a read chunk, not 1 MiB. Once a large frame is done and
// nothing is buffered, its memory is given back.
//
// Ownership: owns its buffer. Thread-safety: none; one per connection.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "common/protocol/frame.h"

namespace bb::protocol {

class FrameStream {
 public:
  enum class State { kFrame, kNeedMore, kBad };

  // The usual read size: many small frames, or the start of a large one.
  static constexpr size_t kChunk = 16 * 1024;

  // Writable space at the end of the buffer, for the next read (see the growth rule above).
  std::span<uint8_t> space() {
    if (start_ == end_) {
      start_ = end_ = 0;
      if (buffer_.size() > 4 * kChunk) buffer_ = std::vector<uint8_t>(kChunk);  // give it back
    }
    const size_t held = end_ - start_;
    size_t grow = held;  // beyond a chunk: at most as much again as is held...
    if (in_body_) {      // ...and no more than the body still lacks
      grow = std::min<size_t>(grow, header_.body_length > held ? header_.body_length - held : 0);
    }
    const size_t want = std::max(kChunk, grow);
    if (buffer_.size() - end_ < want) {
      if (start_ > 0) {  // compact before growing
        std::memmove(buffer_.data(), buffer_.data() + start_, held);
        end_ = held;
        start_ = 0;
      }
      if (buffer_.size() - end_ < want) buffer_.resize(end_ + want);
    }
    return {buffer_.data() + end_, buffer_.size() - end_};
  }
  void Commit(size_t n) { end_ += n; }

  // kFrame: header() and body() describe the next frame until the following call.
  // kBad: status() says why and header() holds what arrived (an error reply may echo its
  // request id); the stream has lost its framing.
  State Next() {
    if (!in_body_) {
      auto [state, next] = parser_.Parse(buffer_.data() + start_, buffer_.data() + end_);
      header_started_ = header_started_ || next != buffer_.data() + start_;
      start_ = static_cast<size_t>(next - buffer_.data());
      if (state == FrameHeaderParser::State::kNeedMore) return State::kNeedMore;
      header_ = parser_.header();
      if (state == FrameHeaderParser::State::kBad) {
        status_ = parser_.status();
        return State::kBad;
      }
      in_body_ = true;
    }
    if (end_ - start_ < header_.body_length) return State::kNeedMore;
    body_ = {buffer_.data() + start_, header_.body_length};
    start_ += header_.body_length;
    in_body_ = false;
    header_started_ = false;
    parser_.Reset();
    return State::kFrame;
  }

  // Bytes received and not yet taken as part of a frame (a partial frame).
  bool partial() const { return in_body_ || header_started_ || end_ > start_; }
  const FrameHeader& header() const { return header_; }
  std::span<const uint8_t> body() const { return body_; }
  const Status& status() const { return status_; }

 private:
  std::vector<uint8_t> buffer_ = std::vector<uint8_t>(kChunk);
  size_t start_ = 0;  // first byte not yet taken
  size_t end_ = 0;    // one past the last received byte
  FrameHeaderParser parser_;
  bool header_started_ = false;  // some of the next header is in the parser
  bool in_body_ = false;         // the header is parsed; its body is awaited
  FrameHeader header_;
  std::span<const uint8_t> body_;
  Status status_;
};

}  // namespace bb::protocol
