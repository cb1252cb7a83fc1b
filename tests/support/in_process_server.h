// Tests that wait for events, not for time: WaitUntil polls a condition (a port bound, a row
// written, a counter reached) until it holds or a limit passes; InProcessServer runs a server on
// its own thread and returns once it listens.
//
// Thread-safety: InProcessServer is driven by the test's thread; the server runs on its own.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <utility>

#include "common/util/status.h"

namespace bb::testing {

// Polls `ready` every 10 ms until it returns true (then true) or `limit` has passed (then
// false). The limit only bounds a failing test; a passing one waits for the event alone.
template <typename F>
bool WaitUntil(F&& ready, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!ready()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// A server (bh::Server, mee::MarketEmulator, netbench's echo server: anything with
// Status Run(), Stop() and uint16_t port(), 0 until it listens) on its own thread. The
// constructor returns once the server listens, on the port its options name or the one the
// system picked for port 0, or once Run has returned (it could not listen: port() stays 0 and
// status() says why after StopAndJoin). The destructor stops it and joins.
template <typename Server>
class InProcessServer {
 public:
  explicit InProcessServer(std::unique_ptr<Server> server) : server_(std::move(server)) {
    thread_ = std::thread([this] {
      status_ = server_->Run();
      returned_ = true;
    });
    WaitUntil([this] { return server_->port() != 0 || returned_; });
  }
  ~InProcessServer() { StopAndJoin(); }
  InProcessServer(const InProcessServer&) = delete;
  InProcessServer& operator=(const InProcessServer&) = delete;

  void StopAndJoin() {
    if (!thread_.joinable()) return;
    server_->Stop();
    thread_.join();
  }
  uint16_t port() const { return server_->port(); }
  Server& server() { return *server_; }
  const Server& server() const { return *server_; }
  // What Run returned; read it after StopAndJoin (or once port() stayed 0).
  const Status& status() const { return status_; }

 private:
  std::unique_ptr<Server> server_;
  std::thread thread_;
  Status status_;
  std::atomic<bool> returned_{false};
};

}  // namespace bb::testing
