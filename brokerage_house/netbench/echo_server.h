// EchoServer: a plain TCP echo server, the transport's ceiling for the Brokerage House's
// network side. One I/O thread (as the BH has), TCP_NODELAY, and per connection, once the
// client's hello is answered, nothing but "read what has arrived, write it back": no framing,
// no decoding, no hand-off to other threads. A request/reply of the same size through it costs
// the kernel and Asio what the BH cannot avoid paying, so BH/echo says how much the BH adds on
// top. It is the one server of the kit that is not a common/net Link, on purpose: a Link would
// parse what the ceiling must not.
//
// Ownership: owns its io_context, acceptor and (through Asio handlers) its sessions.
// Thread-safety: Run on one thread; Stop from any.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "common/util/asio.h"
#include "common/util/cli.h"
#include "common/util/status.h"

namespace bb::netbench {

struct EchoServerOptions {
  HostPort listen{"127.0.0.1", 0};
  std::string port_file;  // if set, the bound port is written here once listening
};

class EchoServer {
 public:
  explicit EchoServer(EchoServerOptions options);

  // Listens and echoes until Stop, SIGTERM or SIGINT; an error if it cannot listen.
  Status Run();
  void Stop();
  // The bound port, once listening (0 before).
  uint16_t port() const { return port_.load(); }

 private:
  void Accept();

  EchoServerOptions options_;
  asio::io_context io_;
  asio::ip::tcp::acceptor acceptor_;
  asio::signal_set signals_;
  std::atomic<uint16_t> port_{0};
};

}  // namespace bb::netbench
