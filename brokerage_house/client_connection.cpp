#include "brokerage_house/client_connection.h"

#include <algorithm>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "brokerage_house/handler.h"
#include "common/protocol/message_type.h"
#include "common/util/clock.h"

namespace bb::bh {

namespace pr = protocol;

// The read buffer's usual size: many small frames, or the start of a large one (which grows
// it to the frame's length, bounded by kMaxBodyBytes).
constexpr std::size_t kReadChunk = 8 * 1024;
// Write buffers beyond this (a large reply) are given back once written.
constexpr std::size_t kKeepWriteBytes = 64 * 1024;

ClientConnection::ClientConnection(StreamSocket socket, RequestSink& sink, Stats& stats,
                                   const ServerIdentity& identity)
    : socket_(std::move(socket)),
      sink_(sink),
      stats_(stats),
      identity_(identity),
      input_(kReadChunk) {
  peer_ = PeerName(socket_);
  SetNoDelay(socket_);
  error_code ec;
  socket_.non_blocking(true, ec);  // Write tries a send at once; it must not block
}

void ClientConnection::Start() {
  stats_.clients.fetch_add(1, std::memory_order_relaxed);
  asio::post(socket_.get_executor(), [self = shared_from_this()] { self->ReadMore(); });
}

void ClientConnection::Close() {
  asio::post(socket_.get_executor(), [self = shared_from_this()] { self->EndInput(); });
}

void ClientConnection::EndInput() {
  input_ended_ = true;
  CloseIfDone();
}

// Closes once nothing is owed, queued or being written. A read may still be pending: closing
// the socket ends it.
void ClientConnection::CloseIfDone() {
  if (input_ended_ && owed_ == 0 && !writing_ && queued_.empty()) CloseNow();
}

void ClientConnection::CloseNow() {
  if (closed_) return;
  closed_ = true;
  stats_.clients.fetch_sub(1, std::memory_order_relaxed);
  error_code ec;
  socket_.shutdown(StreamSocket::shutdown_both, ec);
  socket_.close(ec);
}

void ClientConnection::WarnOnce(const std::string& what) {
  if (warned_) return;
  warned_ = true;
  spdlog::warn("client {}: {}", peer_, what);
}

void ClientConnection::ReadMore() {
  // Keep the unhandled bytes (a partial frame) at the front. Room for the rest of a frame grows
  // with what has arrived, at most doubling it per read, never straight to the length its header
  // (checked already) declares: that costs memory only a peer that sends the bytes can claim.
  const std::size_t pending = input_end_ - input_begin_;
  std::size_t need = kReadChunk;
  if (pending >= pr::kFrameHeaderBytes) {
    auto parsed = pr::ParseFrameHeader(
        std::span<const uint8_t>(input_.data() + input_begin_, pr::kFrameHeaderBytes));
    need = std::max(need, std::min(pr::kFrameHeaderBytes + parsed.header.body_length, 2 * pending));
  }
  if (input_begin_ > 0) {
    std::copy(input_.begin() + static_cast<std::ptrdiff_t>(input_begin_),
              input_.begin() + static_cast<std::ptrdiff_t>(input_end_), input_.begin());
    input_begin_ = 0;
    input_end_ = pending;
  }
  if (input_.size() < need) input_.resize(need);
  if (pending == 0 && input_.size() > kReadChunk) {
    input_ = std::vector<uint8_t>(kReadChunk);  // a large frame is done: give its memory back
  }
  socket_.async_read_some(
      asio::buffer(input_.data() + input_end_, input_.size() - input_end_),
      [self = shared_from_this()](error_code ec, std::size_t n) {
        if (self->closed_ || self->input_ended_) return;  // closing: the bytes are not wanted
        if (ec) {
          if (self->input_end_ > self->input_begin_) {
            self->WarnOnce(fmt::format("connection ended inside a frame: {}", ec.message()));
          } else if (ec != asio::error::eof && ec != asio::error::operation_aborted &&
                     ec != asio::error::connection_reset) {
            self->WarnOnce(fmt::format("read failed: {}", ec.message()));
          }
          // A half-closed client still reads: the replies it is owed go out first.
          if (ec == asio::error::eof) return self->EndInput();
          self->CloseNow();
          return;
        }
        self->input_end_ += n;
        self->HandleInput();
      });
}

// Handles every whole frame that has arrived, then reads on, unless the input has ended (a bad
// header, a refused hello) or too many replies wait to be written.
void ClientConnection::HandleInput() {
  while (!closed_ && !input_ended_) {
    std::span<const uint8_t> pending(input_.data() + input_begin_, input_end_ - input_begin_);
    if (pending.size() < pr::kFrameHeaderBytes) break;
    auto parsed = pr::ParseFrameHeader(pending);
    if (parsed.state != pr::FrameHeaderParser::State::kGood) {
      // The length can't be trusted: answer, then close.
      stats_.malformed_frames.fetch_add(1, std::memory_order_relaxed);
      WarnOnce(parsed.status.message() + "; closing the connection");
      input_ended_ = true;
      SendError(parsed.header.request_id, pr::ErrorCode::kMalformedFrame, parsed.status.message());
      break;
    }
    const std::size_t frame_bytes = pr::kFrameHeaderBytes + parsed.header.body_length;
    if (pending.size() < frame_bytes) break;
    input_begin_ += frame_bytes;
    HandleFrame(parsed.header, pending.subspan(pr::kFrameHeaderBytes, parsed.header.body_length));
  }
  if (input_begin_ == input_end_) input_begin_ = input_end_ = 0;
  if (closed_) return;
  if (input_ended_) return CloseIfDone();
  // One read's frames add a bounded amount (a read chunk of the smallest frames, each answered
  // with at most an error text), so checking between reads bounds what waits.
  if (Unsent() > kMaxUnsentBytes) {
    read_paused_ = true;
    return;
  }
  ReadMore();
}

void ClientConnection::HandleFrame(const pr::FrameHeader& header, std::span<const uint8_t> body) {
  const int64_t received = MonotonicMicros();
  const uint64_t id = header.request_id;
  auto decoded = pr::DecodeMessage(header.type, body);
  if (!decoded.ok()) {
    stats_.malformed_frames.fetch_add(1, std::memory_order_relaxed);
    WarnOnce(decoded.status().message());
    SendError(id, pr::ErrorCode::kMalformedFrame, decoded.status().message());
    return;
  }
  if (header.type == pr::MessageType::kHello) {
    const auto& hello = std::get<pr::Hello>(*decoded);
    pr::HelloReply reply;
    reply.component = identity_.component;
    reply.accepted = true;
    if (hello.customers_total != identity_.customers_total ||
        hello.scale_factor != identity_.scale_factor ||
        hello.initial_trade_days != identity_.initial_trade_days) {
      reply.accepted = false;
      reply.reason = fmt::format(
          "sizing differs: {} has customers {}, scale factor {}, initial trade days {}; this "
          "Brokerage House serves customers {}, scale factor {}, initial trade days {}",
          hello.component, hello.customers_total, hello.scale_factor, hello.initial_trade_days,
          identity_.customers_total, identity_.scale_factor, identity_.initial_trade_days);
      spdlog::warn("client {}: hello refused: {}; closing the connection", peer_, reply.reason);
      input_ended_ = true;  // the refusal is its last reply
    } else {
      hello_done_ = true;
      spdlog::info("client {}: {} connected", peer_, hello.component);
    }
    Reply(id, reply);
    return;
  }
  if (!IsTransactionRequest(header.type)) {
    SendError(id, pr::ErrorCode::kUnexpectedMessage,
              fmt::format("{} is not a request a Brokerage House serves",
                          pr::MessageTypeName(header.type)));
  } else if (!hello_done_) {
    SendError(id, pr::ErrorCode::kUnexpectedMessage,
              "a hello with the run's sizing must come first");
  } else {
    ++owed_;  // before Submit: a sink may reply at once, from within it
    if (!sink_.Submit(
            Job{shared_from_this(), id, header.type, std::move(decoded).value(), received})) {
      --owed_;
      stats_.overloaded.fetch_add(1, std::memory_order_relaxed);
      SendError(id, pr::ErrorCode::kOverloaded, "the request queue is full");
    }
  }
}

// Each call is the reply to one job the sink took.
void ClientConnection::Queue(std::span<const uint8_t> frame) {
  if (owed_ > 0) --owed_;
  if (!closed_) queued_.insert(queued_.end(), frame.begin(), frame.end());
}

void ClientConnection::Flush() {
  if (closed_) return;
  if (!writing_ && !queued_.empty()) return Write();
  CloseIfDone();
}

void ClientConnection::SendError(uint64_t request_id, pr::ErrorCode code, std::string text) {
  if (text.size() > pr::width::kReason) text.resize(pr::width::kReason);
  Reply(request_id, pr::ErrorReply{code, std::move(text)});
}

void ClientConnection::Reply(uint64_t request_id, const pr::Message& reply) {
  if (closed_) return;
  EncodeReply(reply, request_id, queued_);
  Flush();
}

// Sends every queued frame in one write. The socket is non-blocking, so the send is tried at
// once: replies usually fit in the socket's buffer, and then need no write operation and no
// completion handler. What does not fit goes out with async_write.
void ClientConnection::Write() {
  if (queued_.empty()) {
    writing_ = false;
    CloseIfDone();
    return;
  }
  writing_ = true;
  std::swap(queued_, sending_);
  error_code ec;
  const std::size_t sent = socket_.write_some(asio::buffer(sending_), ec);
  if (!ec && sent == sending_.size()) return WriteDone();
  if (ec && ec != asio::error::would_block) {
    CloseNow();
    return;
  }
  asio::async_write(socket_, asio::buffer(sending_.data() + sent, sending_.size() - sent),
                    [self = shared_from_this()](error_code e, std::size_t) {
                      if (e) {
                        self->CloseNow();
                        return;
                      }
                      self->WriteDone();
                      // A write that had to wait is what pauses reading; its end resumes it.
                      if (self->read_paused_ && !self->closed_ && !self->input_ended_ &&
                          self->Unsent() <= kMaxUnsentBytes) {
                        self->read_paused_ = false;
                        self->ReadMore();
                      }
                    });
}

void ClientConnection::WriteDone() {
  sending_.clear();
  if (sending_.capacity() > kKeepWriteBytes) sending_.shrink_to_fit();
  Write();
}

}  // namespace bb::bh
