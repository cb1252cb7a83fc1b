#include "brokerage_house/client_connection.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "brokerage_house/handler.h"
#include "common/protocol/message_type.h"
#include "common/util/clock.h"

namespace bb::bh {

namespace pr = protocol;

ClientConnection::ClientConnection(asio::ip::tcp::socket socket, WorkerPool& pool, Stats& stats,
                                   const ServerIdentity& identity)
    : socket_(std::move(socket)), pool_(pool), stats_(stats), identity_(identity) {
  error_code ec;
  auto remote = socket_.remote_endpoint(ec);
  peer_ = ec ? "unknown peer" : fmt::format("{}:{}", remote.address().to_string(), remote.port());
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
}

void ClientConnection::Start() {
  stats_.clients.fetch_add(1, std::memory_order_relaxed);
  asio::post(socket_.get_executor(), [self = shared_from_this()] { self->ReadHeader(); });
}

void ClientConnection::Close() {
  asio::post(socket_.get_executor(), [self = shared_from_this()] {
    if (self->writing_) {
      self->close_after_write_ = true;  // the last replies go out first
    } else {
      self->CloseNow();
    }
  });
}

void ClientConnection::CloseNow() {
  if (closed_) return;
  closed_ = true;
  stats_.clients.fetch_sub(1, std::memory_order_relaxed);
  error_code ec;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  socket_.close(ec);
}

void ClientConnection::WarnOnce(const std::string& what) {
  if (warned_) return;
  warned_ = true;
  spdlog::warn("client {}: {}", peer_, what);
}

void ClientConnection::ReadHeader() {
  asio::async_read(socket_, asio::buffer(header_bytes_),
                   [self = shared_from_this()](error_code ec, std::size_t) {
                     if (ec) {
                       if (ec != asio::error::eof && ec != asio::error::operation_aborted &&
                           ec != asio::error::connection_reset) {
                         self->WarnOnce(fmt::format("read failed: {}", ec.message()));
                       }
                       self->CloseNow();
                       return;
                     }
                     auto parsed = pr::ParseFrameHeader(self->header_bytes_);
                     self->header_ = parsed.header;
                     if (parsed.state != pr::FrameHeaderParser::State::kGood) {
                       // The length can't be trusted: answer, then close.
                       self->stats_.malformed_frames.fetch_add(1, std::memory_order_relaxed);
                       self->WarnOnce(parsed.status.message() + "; closing the connection");
                       self->close_after_write_ = true;
                       self->SendError(parsed.header.request_id, pr::ErrorCode::kMalformedFrame,
                                       parsed.status.message());
                       return;
                     }
                     self->ReadBody();
                   });
}

void ClientConnection::ReadBody() {
  body_.resize(header_.body_length);  // bounded by kMaxBodyBytes, checked with the header
  asio::async_read(
      socket_, asio::buffer(body_), [self = shared_from_this()](error_code ec, std::size_t) {
        if (ec) {
          self->WarnOnce(fmt::format("connection ended inside a frame: {}", ec.message()));
          self->CloseNow();
          return;
        }
        self->HandleFrame();
      });
}

void ClientConnection::HandleFrame() {
  const int64_t received = MonotonicMicros();
  const uint64_t id = header_.request_id;
  auto decoded = pr::DecodeMessage(header_.type, body_);
  if (!decoded.ok()) {
    stats_.malformed_frames.fetch_add(1, std::memory_order_relaxed);
    WarnOnce(decoded.status().message());
    SendError(id, pr::ErrorCode::kMalformedFrame, decoded.status().message());
    ReadHeader();
    return;
  }
  if (header_.type == pr::MessageType::kHello) {
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
      spdlog::warn("client {}: hello refused: {}", peer_, reply.reason);
    } else {
      hello_done_ = true;
      spdlog::info("client {}: {} connected", peer_, hello.component);
    }
    Reply(id, reply);
    ReadHeader();
    return;
  }
  if (!IsTransactionRequest(header_.type)) {
    SendError(id, pr::ErrorCode::kUnexpectedMessage,
              fmt::format("{} is not a request a Brokerage House serves",
                          pr::MessageTypeName(header_.type)));
  } else if (!hello_done_) {
    SendError(id, pr::ErrorCode::kUnexpectedMessage,
              "a hello with the run's sizing must come first");
  } else if (!pool_.Submit(
                 Job{shared_from_this(), id, header_.type, std::move(decoded).value(), received})) {
    stats_.overloaded.fetch_add(1, std::memory_order_relaxed);
    SendError(id, pr::ErrorCode::kOverloaded, "the request queue is full");
  }
  ReadHeader();
}

void ClientConnection::Deliver(uint64_t request_id, pr::Message reply) {
  asio::post(socket_.get_executor(),
             [self = shared_from_this(), request_id, reply = std::move(reply)] {
               self->Reply(request_id, reply);
             });
}

void ClientConnection::SendError(uint64_t request_id, pr::ErrorCode code, std::string text) {
  if (text.size() > pr::width::kReason) text.resize(pr::width::kReason);
  Reply(request_id, pr::ErrorReply{code, std::move(text)});
}

void ClientConnection::Reply(uint64_t request_id, const pr::Message& reply) {
  if (closed_) return;
  std::vector<uint8_t> buffer;
  if (!spare_.empty()) {
    buffer = std::move(spare_.back());
    spare_.pop_back();
    buffer.clear();
  }
  pr::Writer w(buffer);
  Status s = pr::EncodeFrame(reply, request_id, w);
  if (!s.ok()) {
    // Our own reply broke a protocol limit: a bug on this side. Say so to the client.
    spdlog::error("client {}: cannot encode the reply to request {}: {}", peer_, request_id,
                  s.message());
    w.Truncate(0);
    std::string text =
        ("server could not encode its reply: " + s.message()).substr(0, pr::width::kReason);
    (void)pr::EncodeFrame(pr::ErrorReply{pr::ErrorCode::kInternal, text}, request_id, w);
  }
  writes_.push_back(std::move(buffer));
  if (!writing_) Write();
}

void ClientConnection::Write() {
  if (writes_.empty()) {
    writing_ = false;
    if (close_after_write_) CloseNow();
    return;
  }
  writing_ = true;
  asio::async_write(socket_, asio::buffer(writes_.front()),
                    [self = shared_from_this()](error_code ec, std::size_t) {
                      if (ec) {
                        self->CloseNow();
                        return;
                      }
                      if (self->spare_.size() < 8)
                        self->spare_.push_back(std::move(self->writes_.front()));
                      self->writes_.pop_front();
                      self->Write();
                    });
}

}  // namespace bb::bh
