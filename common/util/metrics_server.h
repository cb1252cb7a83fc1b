// MetricsServer: a program's OpenMetrics endpoint (--metrics-listen), a small HTTP/1.1 server
// of our own on the program's own Asio I/O thread, for Prometheus or curl to look inside a run
// while it runs (issue 17).
//
// GET /metrics (a query string is ignored) answers 200 with the exposition that `render`
// builds then and there (OpenMetricsText, Content-Type application/openmetrics-text; version
// 1.0.0), so nothing is rendered, copied or locked unless somebody scrapes: `render` runs on
// the I/O thread that owns the numbers it reads. Another path gets 404, another method on
// /metrics 405 (Allow: GET), a request that breaks HTTP/1.x 400 (as soon as the byte that breaks
// it arrives), a request head over the size limit 431. Every answer says Connection: close,
// and the connection is closed after it.
//
// Bounded: a request head of at most `max_request_bytes`; each connection has `deadline` to
// send its request and take the answer (a client that never finishes is closed then); at most
// `max_connections` at once, a connection beyond them is answered 503 and closed at once.
//
// Ownership: owns its acceptor and connections; `io` must outlive it. Thread-safety: every
// call on the I/O thread (Start may come before io.run()). Close it before the io_context is
// to run dry: an open acceptor keeps it running.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/util/asio.h"
#include "common/util/cli.h"
#include "common/util/status.h"
#include "common/util/stream_socket.h"

namespace bb {

struct MetricsServerLimits {
  size_t max_request_bytes = 8 * 1024;
  std::chrono::milliseconds deadline{5000};
  int max_connections = 8;
};

class MetricsServer {
 public:
  // Builds the exposition for one scrape (OpenMetricsText::Finish()).
  using Render = std::function<std::string()>;

  MetricsServer(asio::io_context& io, Render render, MetricsServerLimits limits = {});
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // Listens on `address` (--metrics-listen: host:port, port 0 for one the system picks, or
  // unix:PATH), writes the bound port to `port_file` if one is given (--metrics-port-file; not
  // for a Unix-domain socket), logs where it serves and starts accepting. An error names the
  // option and the address or the file.
  Status Start(const HostPort& address, const std::string& port_file = {});
  // The bound TCP port once started; 0 for a Unix-domain socket.
  uint16_t port() const { return port_; }
  // Stops accepting and closes every connection, answered or not.
  void Close();

 private:
  class Connection;
  void Accept();

  std::shared_ptr<const Render> render_;  // shared with the connections
  MetricsServerLimits limits_;
  StreamAcceptor acceptor_;
  asio::steady_timer accept_retry_;
  std::vector<std::weak_ptr<Connection>> connections_;
  uint16_t port_ = 0;
  bool closed_ = false;
};

}  // namespace bb
