#include "tests/support/bh_client.h"

#include <fmt/format.h>

#include "common/protocol/frame.h"

namespace bb::testing {

namespace pr = protocol;

BhClient::BhClient() : socket_(io_) {}

Status BhClient::Connect(const std::string& host, uint16_t port) {
  return Connect(HostPort(host, port));
}

Status BhClient::Connect(const HostPort& address) {
  auto endpoint = EndpointOf(io_, address, "connect");
  if (!endpoint.ok()) return endpoint.status();
  error_code ec;
  socket_.connect(*endpoint, ec);
  if (ec) {
    return Status::Unavailable(fmt::format("connect {}: {}", ToString(address), ec.message()));
  }
  SetNoDelay(socket_);
  return Status::Ok();
}

Status BhClient::Hello(int64_t customers, int32_t scale_factor, int32_t initial_trade_days) {
  auto reply = Call(
      pr::Hello{pr::kProtocolVersion, "test client", customers, scale_factor, initial_trade_days});
  if (!reply.ok()) return reply.status();
  const auto* hello = std::get_if<pr::HelloReply>(&*reply);
  if (hello == nullptr) return Status::InvalidArgument("hello: the reply is not a HelloReply");
  if (!hello->accepted) return Status::InvalidArgument("hello refused: " + hello->reason);
  return Status::Ok();
}

Result<pr::Message> BhClient::Call(const pr::Message& request) {
  const uint64_t id = next_id_++;
  buffer_.clear();
  pr::Writer w(buffer_);
  if (Status s = pr::EncodeFrame(request, id, w); !s.ok()) return s;
  if (Status s = SendRaw(buffer_); !s.ok()) return s;
  auto frame = ReadFrame();
  if (!frame.ok()) return frame.status();
  if (frame->header.request_id != id) {
    return Status::InvalidArgument(
        fmt::format("reply to request {} arrived for {}", frame->header.request_id, id));
  }
  return std::move(frame->message);
}

Status BhClient::SendRaw(std::span<const uint8_t> bytes) {
  error_code ec;
  asio::write(socket_, asio::buffer(bytes.data(), bytes.size()), ec);
  if (ec) return Status::IoError("send: " + ec.message());
  return Status::Ok();
}

Result<pr::Frame> BhClient::ReadFrame() {
  std::vector<uint8_t> bytes(pr::kFrameHeaderBytes);
  error_code ec;
  asio::read(socket_, asio::buffer(bytes), ec);
  if (ec) return Status::IoError("read: " + ec.message());
  auto parsed = pr::ParseFrameHeader(bytes);
  if (parsed.state != pr::FrameHeaderParser::State::kGood) return parsed.status;
  bytes.resize(pr::kFrameHeaderBytes + parsed.header.body_length);
  asio::read(socket_, asio::buffer(bytes.data() + pr::kFrameHeaderBytes, parsed.header.body_length),
             ec);
  if (ec) return Status::IoError("read body: " + ec.message());
  return pr::DecodeFrame(bytes);
}

void BhClient::ShutdownSend() {
  error_code ec;
  socket_.shutdown(StreamSocket::shutdown_send, ec);
}

void BhClient::Close() {
  error_code ec;
  socket_.close(ec);
}

}  // namespace bb::testing
