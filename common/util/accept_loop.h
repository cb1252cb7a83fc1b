// AcceptLoop: accepts connections on a listening socket and hands each to a callback, until the
// acceptor is closed. A failed accept is tried again after a pause (100 ms, doubling up to 1 s),
// not at once: when the process is out of descriptors (EMFILE, ENFILE) the connection stays in
// the backlog and the listening socket stays readable, so an immediate retry spins a core and,
// logged each time, floods the log (issue 16: 877 965 lines in 5 s). A run of failures (an
// episode) logs one warning with its first error, and the first accept after it logs once that
// accepting works again.
//
// Ownership: the acceptor is the caller's and must outlive the loop's handlers; the loop owns
// its retry timer. Thread-safety: none; Start and Stop on the acceptor's executor, which runs
// the handlers.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

#include "common/util/asio.h"
#include "common/util/stream_socket.h"

namespace bb {

class AcceptLoop {
 public:
  using OnAccept = std::function<void(StreamSocket&&)>;

  AcceptLoop(StreamAcceptor& acceptor, OnAccept on_accept);
  void Start();
  // Cancels a pending retry; the caller closes the acceptor, which ends the loop.
  void Stop();

  static constexpr std::chrono::milliseconds kFirstPause{100};
  static constexpr std::chrono::milliseconds kLongestPause{1000};

 private:
  void Accept();
  void Failed(const error_code& ec);

  StreamAcceptor& acceptor_;
  asio::steady_timer retry_;
  OnAccept on_accept_;
  std::chrono::milliseconds pause_{0};
  int64_t failures_ = 0;  // in the current episode
};

}  // namespace bb
