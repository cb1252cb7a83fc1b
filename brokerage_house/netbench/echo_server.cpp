#include "brokerage_house/netbench/echo_server.h"

#include <array>
#include <csignal>
#include <memory>
#include <span>
#include <vector>

#include <fmt/format.h>

#include "common/protocol/codec.h"
#include "common/protocol/frame.h"
#include "common/util/port_file.h"

namespace bb::netbench {

namespace pr = protocol;

namespace {

// One client: answers its hello (the load client is a common/net Link, which says hello
// first), then reads whatever has arrived and writes exactly that back, unread, repeatedly.
// Owned by its pending handler (shared_ptr for the Asio session lifetime, docs/STYLE.md).
class EchoSession : public std::enable_shared_from_this<EchoSession> {
 public:
  explicit EchoSession(asio::ip::tcp::socket socket) : socket_(std::move(socket)) {
    error_code ec;
    socket_.set_option(asio::ip::tcp::no_delay(true), ec);
  }

  void Read() {
    socket_.async_read_some(asio::buffer(buffer_.data() + filled_, buffer_.size() - filled_),
                            [self = shared_from_this()](error_code ec, std::size_t n) {
                              if (!ec) self->Received(n);
                            });
  }

 private:
  void Received(std::size_t n) {
    if (hello_answered_) return Write(asio::buffer(buffer_.data(), n));
    // The first frame is the hello: accepted whatever it says (the echo server has no sizing to
    // check). Anything after it in the same read is echoed behind the answer.
    filled_ += n;
    auto parsed = pr::ParseFrameHeader(std::span<const uint8_t>(buffer_.data(), filled_));
    if (parsed.state == pr::FrameHeaderParser::State::kBad) return;  // not our client: close
    const size_t hello = pr::kFrameHeaderBytes + parsed.header.body_length;
    if (parsed.state == pr::FrameHeaderParser::State::kNeedMore || filled_ < hello) {
      if (filled_ == buffer_.size()) return;  // a hello larger than the buffer: close
      return Read();
    }
    hello_answered_ = true;
    answer_ = HelloAnswer();
    answer_.insert(answer_.end(), buffer_.begin() + static_cast<std::ptrdiff_t>(hello),
                   buffer_.begin() + static_cast<std::ptrdiff_t>(filled_));
    filled_ = 0;
    Write(asio::buffer(answer_));
  }

  void Write(asio::const_buffer bytes) {
    asio::async_write(socket_, bytes, [self = shared_from_this()](error_code ec, std::size_t) {
      if (!ec) self->Read();
    });
  }

  static std::vector<uint8_t> HelloAnswer() {
    std::vector<uint8_t> bytes;
    pr::Writer w(bytes);
    (void)pr::EncodeFrame(pr::HelloReply{true, "bb-netbench echo-server", ""}, 0, w);
    return bytes;
  }

  asio::ip::tcp::socket socket_;
  std::array<uint8_t, 16 * 1024> buffer_{};
  std::size_t filled_ = 0;  // before the hello is answered
  bool hello_answered_ = false;
  std::vector<uint8_t> answer_;
};

}  // namespace

EchoServer::EchoServer(EchoServerOptions options)
    : options_(std::move(options)), acceptor_(io_), signals_(io_, SIGINT, SIGTERM) {}

Status EchoServer::Run() {
  error_code ec;
  auto address = asio::ip::make_address(options_.listen.host, ec);
  if (ec) {
    return Status::InvalidArgument(
        fmt::format("--listen: '{}' is not an IP address", options_.listen.host));
  }
  asio::ip::tcp::endpoint endpoint(address, options_.listen.port);
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status::IoError(fmt::format("--listen {}:{}: {}", options_.listen.host,
                                       options_.listen.port, ec.message()));
  }
  port_ = acceptor_.local_endpoint().port();
  if (!options_.port_file.empty()) {
    if (Status written = WritePortFile(options_.port_file, port_.load()); !written.ok()) {
      return written;
    }
  }
  signals_.async_wait([this](error_code e, int) {
    if (!e) io_.stop();
  });
  Accept();
  io_.run();
  return Status::Ok();
}

void EchoServer::Stop() { io_.stop(); }

void EchoServer::Accept() {
  acceptor_.async_accept([this](error_code ec, asio::ip::tcp::socket socket) {
    if (!acceptor_.is_open()) return;
    if (!ec) std::make_shared<EchoSession>(std::move(socket))->Read();
    Accept();
  });
}

}  // namespace bb::netbench
