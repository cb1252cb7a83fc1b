#include "common/util/stream_socket.h"

#include <sys/socket.h>
#include <sys/stat.h>

#include <cstring>

#include <fmt/format.h>

namespace bb {

namespace {

bool IsTcp(const StreamProtocol::endpoint& e) {
  return e.protocol().family() == AF_INET || e.protocol().family() == AF_INET6;
}

asio::ip::tcp::endpoint AsTcp(const StreamProtocol::endpoint& e) {
  asio::ip::tcp::endpoint tcp;
  std::memcpy(tcp.data(), e.data(), std::min<std::size_t>(e.size(), tcp.capacity()));
  tcp.resize(e.size());
  return tcp;
}

}  // namespace

Result<StreamProtocol::endpoint> EndpointOf(asio::io_context& io, const HostPort& address,
                                            std::string_view option) {
  if (address.is_unix()) {
    return StreamProtocol::endpoint(asio::local::stream_protocol::endpoint(address.path));
  }
  error_code ec;
  auto ip = asio::ip::make_address(address.host, ec);
  if (!ec) return StreamProtocol::endpoint(asio::ip::tcp::endpoint(ip, address.port));
  asio::ip::tcp::resolver resolver(io);
  auto found = resolver.resolve(address.host, std::to_string(address.port), ec);
  if (ec || found.empty()) {
    return Status::InvalidArgument(fmt::format("{} {}: cannot resolve '{}': {}", option,
                                               ToString(address), address.host,
                                               ec ? ec.message() : "no address"));
  }
  return StreamProtocol::endpoint(found.begin()->endpoint());
}

Status Listen(StreamAcceptor& acceptor, const HostPort& address, std::string_view option) {
  error_code ec;
  StreamProtocol::endpoint endpoint;
  if (address.is_unix()) {
    // A socket file left by an earlier process would make bind fail; anything else there is
    // not ours to remove.
    struct stat st {};
    if (::lstat(address.path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) {
      ::unlink(address.path.c_str());
    }
    endpoint = asio::local::stream_protocol::endpoint(address.path);
  } else {
    auto ip = asio::ip::make_address(address.host, ec);
    if (ec) {
      return Status::InvalidArgument(
          fmt::format("{}: '{}' is not an IP address or unix:PATH", option, address.host));
    }
    endpoint = asio::ip::tcp::endpoint(ip, address.port);
  }
  acceptor.open(endpoint.protocol(), ec);
  if (!ec && !address.is_unix()) acceptor.set_option(StreamAcceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec && address.is_unix()) {
    if (::chmod(address.path.c_str(), 0600) != 0) ec.assign(errno, asio::error::get_system_category());
  }
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status::IoError(fmt::format("{} {}: {}", option, ToString(address), ec.message()));
  }
  return Status::Ok();
}

uint16_t BoundPort(const StreamAcceptor& acceptor) {
  error_code ec;
  auto local = acceptor.local_endpoint(ec);
  if (ec || !IsTcp(local)) return 0;
  return AsTcp(local).port();
}

void SetNoDelay(StreamSocket& socket) {
  error_code ec;
  auto local = socket.local_endpoint(ec);
  if (!ec && IsTcp(local)) socket.set_option(asio::ip::tcp::no_delay(true), ec);
}

std::string PeerName(const StreamSocket& socket) {
  error_code ec;
  auto remote = socket.remote_endpoint(ec);
  if (ec) return "unknown peer";
  if (!IsTcp(remote)) return "unix socket";
  auto tcp = AsTcp(remote);
  return fmt::format("{}:{}", tcp.address().to_string(), tcp.port());
}

}  // namespace bb
