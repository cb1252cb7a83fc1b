#include "common/net/link.h"

#include <utility>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/util/clock.h"

namespace bb::net {

namespace pr = protocol;

namespace {
// Write buffers beyond this (a large reply) are given back once written.
constexpr size_t kKeepWriteBytes = 64 * 1024;
}  // namespace

Link::Link(StreamSocket socket, Identity us, std::string role)
    : socket_(std::move(socket)), us_(std::move(us)), role_(std::move(role)), name_(role_) {}

void Link::Opened() {
  name_ = role_ + " " + PeerName(socket_);
  SetNoDelay(socket_);
  error_code ec;
  socket_.non_blocking(true, ec);  // Write tries a send at once; it must not block
}

void Link::Accept() {
  Opened();
  Read();
}

void Link::Connect(const StreamProtocol::endpoint& endpoint) {
  connecting_side_ = true;
  socket_.async_connect(endpoint, [self = shared_from_this()](error_code ec) {
    if (self->closed_) return;
    if (ec) return self->CloseWith(Status::Unavailable("connect: " + ec.message()));
    self->Connected();
  });
}

void Link::Connected() {
  connecting_side_ = true;
  Opened();
  Append(HelloOf(us_), 0);
  Flush();
  if (!closed_) Read();
}

void Link::WarnOnce(std::string_view what) {
  if (std::exchange(warned_, true)) return;
  spdlog::warn("{}: {}", name_, what);
}

void Link::EncodeFailed(const Status& s) {
  spdlog::error("{}: cannot encode a frame: {}", name_, s.message());
}

void Link::Read() {
  auto space = stream_.space();
  socket_.async_read_some(
      asio::buffer(space.data(), space.size()), [self = shared_from_this()](error_code ec, size_t n) {
        if (self->closed_ || self->input_ended_) return;  // closing: the bytes are not wanted
        if (!ec) {
          self->read_us_ = MonotonicMicros();
          self->stream_.Commit(n);
          return self->HandleInput();
        }
        const bool partial = self->stream_.partial();
        std::string what = partial                      ? "connection ended inside a frame: "
                           : ec == asio::error::eof ? "the peer closed the connection"
                                                     : "read failed: ";
        if (partial || ec != asio::error::eof) what += ec.message();
        // The accepting side logs what is unusual; the connecting side's owner reports the loss.
        if (!self->connecting_side_ &&
            (partial || (ec != asio::error::eof && ec != asio::error::operation_aborted &&
                         ec != asio::error::connection_reset))) {
          self->WarnOnce(what);
        }
        self->end_why_ = Status::Unavailable(std::move(what));
        // A half-closed peer still reads: what it is owed goes out first.
        if (ec == asio::error::eof) return self->EndInput();
        self->CloseWith(self->end_why_);
      });
}

// Handles every whole frame that has arrived, then reads on, unless the input has ended (a bad
// header, a refused hello) or too much waits to be written.
void Link::HandleInput() {
  while (!closed_ && !input_ended_) {
    const auto state = stream_.Next();
    if (state == pr::FrameStream::State::kNeedMore) break;
    if (state == pr::FrameStream::State::kBad) {
      // The length can't be trusted: the framing is lost.
      const Status& why = stream_.status();
      OnBadHeader(why);
      if (closed_) return;
      if (connecting_side_) {
        return CloseWith(Status::InvalidArgument("a bad frame from the peer: " + why.message()));
      }
      WarnOnce(why.message() + "; closing the connection");
      end_why_ = why;
      input_ended_ = true;
      AnswerError(stream_.header().request_id, pr::ErrorCode::kMalformedFrame, why.message());
      break;
    }
    if (!ready_) {
      HandleHello(stream_.header(), stream_.body());
    } else {
      OnFrame(stream_.header(), stream_.body());
    }
  }
  if (closed_) return;
  OnReadDone();
  if (closed_) return;
  Flush();
  if (closed_ || input_ended_) return;
  // One read's frames add a bounded amount (a read chunk of the smallest frames, each answered
  // with at most an error text), so checking between reads bounds what waits.
  if (unsent() > kMaxUnsentBytes) {
    read_paused_ = true;
    return;
  }
  Read();
}

bool Link::HandleHello(const pr::FrameHeader& header, std::span<const uint8_t> body) {
  if (connecting_side_) {
    pr::HelloReply reply;
    if (Status s = ReadHelloAnswer(header, body, reply); !s.ok()) {
      CloseWith(std::move(s));
      return false;
    }
    ready_ = true;
    OnReady(reply.component);
    return true;
  }
  if (header.type != pr::MessageType::kHello) {
    end_why_ = Status::InvalidArgument(
        fmt::format("a {} before the hello", pr::MessageTypeName(header.type)));
    input_ended_ = true;  // its answer is the last reply
    Append(pr::ErrorReply{pr::ErrorCode::kUnexpectedMessage,
                          "a hello with the run's sizing must come first"},
           header.request_id);
    return false;
  }
  pr::Hello hello;
  pr::HelloReply reply;
  if (Status s = pr::Decode(body, hello); !s.ok()) {
    reply.component = us_.component;
    reply.reason = s.WithContext("hello").message();
    if (reply.reason.size() > pr::width::kReason) reply.reason.resize(pr::width::kReason);
  } else {
    reply = AnswerHello(hello, us_);
  }
  Append(reply, header.request_id);
  if (!reply.accepted) {
    spdlog::warn("{}: hello refused: {}; closing the connection", name_, reply.reason);
    end_why_ = Status::InvalidArgument("hello refused: " + reply.reason);
    input_ended_ = true;  // the refusal is its last reply
    return false;
  }
  ready_ = true;
  OnReady(hello.component);
  return true;
}

void Link::AnswerError(uint64_t request_id, pr::ErrorCode code, std::string text) {
  if (text.size() > pr::width::kReason) text.resize(pr::width::kReason);
  Append(pr::ErrorReply{code, std::move(text)}, request_id);
  Flush();
}

void Link::Flush() {
  if (closed_) return;
  if (!writing_) return Write();
}

// Sends every queued frame in one write, tried at once on the non-blocking socket: a burst
// usually fits in the socket's buffer, and then needs no write operation and no completion
// handler. What does not fit goes out with async_write.
void Link::Write() {
  if (queued_.empty()) {
    writing_ = false;
    return CloseIfDone();
  }
  writing_ = true;
  std::swap(queued_, sending_);
  OnSending();
  error_code ec;
  const size_t sent = socket_.write_some(asio::buffer(sending_), ec);
  if (!ec && sent == sending_.size()) return WriteDone();
  if (ec && ec != asio::error::would_block && ec != asio::error::try_again) {
    return CloseWith(Status::Unavailable("write failed: " + ec.message()));
  }
  asio::async_write(socket_, asio::buffer(sending_.data() + sent, sending_.size() - sent),
                    [self = shared_from_this()](error_code e, size_t) {
                      if (self->closed_) return;
                      if (e) return self->CloseWith(Status::Unavailable("write failed: " + e.message()));
                      self->WriteDone();
                      // A write that had to wait is what pauses reading; its end resumes it.
                      if (self->read_paused_ && !self->closed_ && !self->input_ended_ &&
                          self->unsent() <= kMaxUnsentBytes) {
                        self->read_paused_ = false;
                        self->Read();
                      }
                    });
}

void Link::WriteDone() {
  sending_.clear();
  if (sending_.capacity() > kKeepWriteBytes) sending_.shrink_to_fit();
  Write();
}

void Link::EndInput() {
  input_ended_ = true;
  CloseIfDone();
}

void Link::Stop() {
  asio::post(socket_.get_executor(), [self = shared_from_this()] { self->EndInput(); });
}

// Closes once nothing is owed, queued or being written. A read may still be pending: closing
// the socket ends it.
void Link::CloseIfDone() {
  if (input_ended_ && owed_ == 0 && !writing_ && queued_.empty()) CloseWith(end_why_);
}

void Link::Close() { CloseWith(Status::Ok()); }

void Link::CloseWith(Status why) {
  if (closed_) return;
  closed_ = true;
  ready_ = false;
  error_code ec;
  socket_.shutdown(StreamSocket::shutdown_both, ec);
  socket_.close(ec);
  OnClosed(why);
}

}  // namespace bb::net
