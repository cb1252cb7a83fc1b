// MarketClient: sends trade requests to the market exchange emulator over a pool of
// connections (DBT-5 used one socket and serialised everything behind it). Each connection is
// a net::Link (common/net/link.h): it says hello with the run's sizing, then streams
// MarketTradeRequest frames, batched; the emulator acks each one. A request that cannot go out
// (no connection up, or a connection with more than net::Link::kMaxUnsentBytes unsent) is
// counted and logged, and its trade stays pending for Trade-Cleanup (docs/ARCHITECTURE.md): customer
// transactions never wait for the market. A broken connection is retried every second; a
// refused hello (the sizing differs) is not retried.
//
// Ownership: owned by the server; runs on the server's io_context (one thread). Thread-safety:
// Send and Stop from any thread; the rest runs on the I/O thread.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "brokerage_house/client_connection.h"
#include "brokerage_house/stats.h"
#include "common/protocol/transactions.h"
#include "common/util/asio.h"
#include "common/util/cli.h"

namespace bb::bh {

class MarketClient {
 public:
  MarketClient(asio::io_context& io, HostPort market, int connections,
               const ServerIdentity& identity, Stats& stats);
  ~MarketClient();

  void Start();
  // Queues the requests (moved out of `requests`).
  void Send(std::vector<protocol::MarketTradeRequest>& requests);
  void Stop();

 private:
  class MarketLink;
  struct Slot;  // one connection's place in the pool: its link and its retry timer
  void Connect(Slot& slot);
  void Dropped(Slot& slot, const Status& why, bool hello_failed);
  void Enqueue(protocol::MarketTradeRequest& request);
  void WarnAtMostEvery10s(const std::string& what);

  asio::io_context& io_;
  HostPort market_;
  const ServerIdentity& identity_;
  Stats& stats_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::size_t next_ = 0;
  bool stopped_ = false;
  std::chrono::steady_clock::time_point last_warning_{};
  uint64_t next_request_id_ = 1;
};

}  // namespace bb::bh
