// Server: wires the Brokerage House together (Asio's HTTP server 3 "server"): an acceptor on
// one I/O thread that never blocks (an AcceptLoop: failed accepts back off), a ClientConnection
// per client, the Dispatcher that serves their requests on its lanes (server-side calls on the
// I/O thread itself, or worker threads whose replies come back through the ReplyBatcher), the
// MarketClient, a periodic summary line, and a graceful stop on SIGTERM/SIGINT: stop accepting,
// serve what is queued, deliver the replies, close.
//
// The io_context runs on one thread only (Run's), so its handlers never run concurrently:
// connections need no strand of their own (Asio calls this an implicit strand), which saves
// a strand hand-off on every read, write and reply. Other threads reach a connection only
// through io_ (ReplyBatcher, Close).
//
// Ownership: owns everything it starts. Thread-safety: Run on one thread; Stop from any.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "brokerage_house/client_connection.h"
#include "brokerage_house/dispatcher.h"
#include "brokerage_house/market_client.h"
#include "brokerage_house/reply_batcher.h"
#include "brokerage_house/stats.h"
#include "brokerage_house/worker_lanes.h"
#include "common/util/accept_loop.h"
#include "common/util/asio.h"
#include "common/util/cli.h"
#include "common/util/stream_socket.h"

namespace bb::bh {

struct ServerOptions {
  HostPort listen{"127.0.0.1", 30000};  // or unix:PATH
  int workers = 4;
  std::size_t queue_capacity = 10000;
  std::optional<HostPort> market;  // none: market requests are counted as failed
  int market_connections = 4;
  ServerIdentity identity;
  int summary_seconds = 10;
  std::string port_file;   // if set, the bound port is written here once listening
  std::string stats_file;  // if set, the totals per type are written here when stopped (CSV)
};

class Server {
 public:
  // Requests served by options.workers worker lanes, each with a runner of `factory`.
  Server(ServerOptions options, RunnerFactory factory);
  // Requests served by the lanes `factory` makes (e.g. MakeCallLanes).
  Server(ServerOptions options, LanesFactory factory);
  ~Server();

  // Starts the workers and listens; returns when stopped. An error if the workers cannot
  // start (e.g. the database refuses) or the address cannot be bound.
  Status Run();
  // Asks a running server to stop gracefully (as SIGTERM does).
  void Stop();
  // The bound port, once listening (0 before, and for a Unix-domain socket).
  uint16_t port() const { return port_.load(); }
  // Whether it listens yet.
  bool listening() const { return listening_.load(); }
  Stats& stats() { return stats_; }

 private:
  void Accepted(StreamSocket&& socket);
  void Summary();
  void BeginShutdown();
  void WaitForClients(std::chrono::steady_clock::time_point deadline);

  ServerOptions options_;
  LanesFactory factory_;
  Stats stats_;
  asio::io_context io_{1};  // run by one thread (the concurrency hint says so to Asio)
  ReplyBatcher replies_{io_};
  StreamAcceptor acceptor_;
  AcceptLoop accept_;
  asio::signal_set signals_;
  asio::steady_timer summary_timer_;
  std::unique_ptr<Dispatcher> dispatcher_;
  std::unique_ptr<MarketClient> market_;
  std::vector<std::weak_ptr<ClientConnection>> clients_;
  std::chrono::steady_clock::time_point last_summary_;
  std::thread drainer_;
  // Keeps the I/O loop running through the stop, until WaitForClients ends it: the dispatcher's
  // Stop needs the loop while it drains, even when no client is left to give it work.
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> stopping_guard_;
  std::atomic<uint16_t> port_{0};
  std::atomic<bool> listening_{false};
  bool shutting_down_ = false;
};

}  // namespace bb::bh
