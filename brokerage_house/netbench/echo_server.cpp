#include "brokerage_house/netbench/echo_server.h"

#include <array>
#include <csignal>
#include <memory>

#include <fmt/format.h>

#include "common/util/port_file.h"

namespace bb::netbench {

namespace {

// One client: read whatever has arrived, write exactly that back, repeat. Owned by its
// pending handler (shared_ptr for the Asio session lifetime, docs/STYLE.md).
class EchoSession : public std::enable_shared_from_this<EchoSession> {
 public:
  explicit EchoSession(asio::ip::tcp::socket socket) : socket_(std::move(socket)) {
    error_code ec;
    socket_.set_option(asio::ip::tcp::no_delay(true), ec);
  }

  void Read() {
    socket_.async_read_some(asio::buffer(buffer_),
                            [self = shared_from_this()](error_code ec, std::size_t n) {
                              if (!ec) self->Write(n);
                            });
  }

 private:
  void Write(std::size_t n) {
    asio::async_write(socket_, asio::buffer(buffer_.data(), n),
                      [self = shared_from_this()](error_code ec, std::size_t) {
                        if (!ec) self->Read();
                      });
  }

  asio::ip::tcp::socket socket_;
  std::array<uint8_t, 16 * 1024> buffer_{};
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
