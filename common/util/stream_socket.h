// Stream sockets that are TCP or Unix-domain alike (Asio's generic stream protocol), so that
// every program can talk over either: TCP between hosts, a Unix-domain socket between programs
// on one host, which costs the kernel far less than loopback TCP (no TCP/IP stack, no soft
// interrupts; BENCHMARKS.md, "bench overhead").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/util/asio.h"
#include "common/util/cli.h"
#include "common/util/status.h"

namespace bb {

using StreamProtocol = asio::generic::stream_protocol;
using StreamSocket = StreamProtocol::socket;
using StreamAcceptor = asio::basic_socket_acceptor<StreamProtocol>;

// The endpoint of `address`: a Unix-domain path, or a TCP host (an IP address, or a name
// looked up here, blocking) and port. The error names `option` and the address.
Result<StreamProtocol::endpoint> EndpointOf(asio::io_context& io, const HostPort& address,
                                            std::string_view option);

// Opens, binds and listens on `address` (a stale socket file of a Unix path is removed
// first; the file is made accessible to its owner only). The error names `option`.
Status Listen(StreamAcceptor& acceptor, const HostPort& address, std::string_view option);

// The TCP port the acceptor is bound to; 0 for a Unix-domain socket.
uint16_t BoundPort(const StreamAcceptor& acceptor);

// Small frames go out at once on TCP (TCP_NODELAY); nothing to do for a Unix-domain socket.
void SetNoDelay(StreamSocket& socket);

// "10.0.0.2:41234", or "unix socket" for a Unix-domain peer, for log lines.
std::string PeerName(const StreamSocket& socket);

}  // namespace bb
