// CallDispatcher: the Brokerage House's server-side frames with no worker threads. Each
// transaction is one call of a server-side function, a single round trip with nothing for the
// Brokerage House to do between its statements, so the I/O thread that read the request can
// send the call itself and read the answer when it comes: no hand-off to a worker and back, no
// thread woken per request (on a 2-core machine those wake-ups cost more than the call).
//
// It owns --workers database sessions in non-blocking mode (Session::StartCall, Progress); a
// request takes a free session, or waits in a bounded queue for one; Asio watches each busy
// session's socket. When a call ends, the reply (ReadServerCall) goes straight to the client
// connection and the market requests to the market sink, on the same thread.
//
// A session whose connection breaks fails its request (db_error, counted), and a thread of its
// own reconnects it, once a second until it succeeds, without holding up the I/O thread; while
// no session is connected, requests fail at once.
//
// Ownership: owns its sessions and reconnecting threads. Thread-safety: Submit and everything
// else on the I/O thread; Stop from any other thread while the I/O thread runs.
#pragma once

#include <atomic>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "brokerage_house/frame_runner.h"
#include "brokerage_house/request_sink.h"

namespace bb::bh {

class CallDispatcher : public RequestSink {
 public:
  // Opens context.workers sessions with the server-side statements prepared (the functions
  // must be installed: InstallFrameFunctions); fails fast when the database refuses.
  static Result<std::unique_ptr<RequestSink>> Start(const SinkContext& context,
                                                    const std::string& conninfo,
                                                    FrameOptions options);
  ~CallDispatcher() override;

  bool Submit(Job&& job) override;
  void Stop() override;

 private:
  struct Slot;
  CallDispatcher(const SinkContext& context, FrameOptions options);
  void Begin(Slot& slot, Job&& job);
  void Watch(Slot& slot);
  void OnReady(Slot& slot);
  void Reply(Job& job, protocol::Message& reply, int64_t round_trips, int64_t statements);
  void Broken(Slot& slot);
  void Reconnected(Slot& slot);
  void CheckDrained();
  // The next queued job, if any.
  bool TakeQueued(Job& job);
  Slot* FreeSlot();
  bool AnyConnected() const;

  asio::io_context& io_;
  Stats& stats_;
  MarketSink market_;
  const std::size_t capacity_;
  FrameOptions options_;
  std::vector<std::unique_ptr<Slot>> slots_;
  // Jobs waiting for a session: queue_[head_...], the memory reused once drained.
  std::vector<Job> queue_;
  std::size_t head_ = 0;
  std::vector<uint8_t> frame_;  // the encoded reply, reused
  std::vector<protocol::MarketTradeRequest> to_market_;
  bool stopping_ = false;
  std::promise<void>* drained_ = nullptr;  // Stop's, while it waits
  std::atomic<bool> quit_{false};          // tells reconnecting threads to give up
};

// A SinkFactory for Server: installs nothing (see InstallFrameFunctions), opens the sessions.
SinkFactory MakeCallDispatcher(std::string conninfo, FrameOptions options);

}  // namespace bb::bh
