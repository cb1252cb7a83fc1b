// MarketClient: sends trade requests to the market exchange emulator over a pool of
// connections (DBT-5 used one socket and serialised everything behind it). Each connection
// says hello with the run's sizing, then streams MarketTradeRequest frames; the emulator acks
// each one. A request that cannot go out (no connection up, or a connection's queue full) is
// counted and logged, and its trade stays pending for Trade-Cleanup (docs/ARCHITECTURE.md):
// customer transactions never wait for the market.
//
// Ownership: owned by the server; runs on the server's io_context. Thread-safety: Send from
// any thread; the rest runs on the client's strand.
#pragma once

#include <chrono>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "brokerage_house/client_connection.h"
#include "brokerage_house/stats.h"
#include "common/protocol/transactions.h"
#include "common/util/asio.h"
#include "common/util/cli.h"
#include "common/util/stream_socket.h"

namespace bb::bh {

class MarketClient {
 public:
  static constexpr std::size_t kMaxQueuedPerConnection = 10000;

  MarketClient(asio::io_context& io, HostPort market, int connections,
               const ServerIdentity& identity, Stats& stats);
  ~MarketClient();

  void Start();
  // Queues the requests (moved out of `requests`).
  void Send(std::vector<protocol::MarketTradeRequest>& requests);
  void Stop();

 private:
  struct Link;  // one connection
  void Connect(Link& link);
  void ReadAcks(Link& link);
  void Write(Link& link);
  void Drop(Link& link, const std::string& why);
  void Enqueue(protocol::MarketTradeRequest& request);

  asio::io_context& io_;
  asio::strand<asio::io_context::executor_type> strand_;
  HostPort market_;
  const ServerIdentity& identity_;
  Stats& stats_;
  std::vector<std::unique_ptr<Link>> links_;
  std::size_t next_ = 0;
  bool stopped_ = false;
  std::chrono::steady_clock::time_point last_warning_{};
  uint64_t next_request_id_ = 1;
};

}  // namespace bb::bh
