#include "common/util/accept_loop.h"

#include <algorithm>

#include <spdlog/spdlog.h>

namespace bb {

AcceptLoop::AcceptLoop(StreamAcceptor& acceptor, OnAccept on_accept)
    : acceptor_(acceptor), retry_(acceptor.get_executor()), on_accept_(std::move(on_accept)) {}

void AcceptLoop::Start() { Accept(); }

void AcceptLoop::Stop() { retry_.cancel(); }

void AcceptLoop::Accept() {
  acceptor_.async_accept([this](error_code ec, StreamSocket socket) {
    if (!acceptor_.is_open()) return;
    if (ec) return Failed(ec);
    if (failures_ > 0) {
      spdlog::info("accepting connections again after {} failed attempts", failures_);
      failures_ = 0;
      pause_ = {};
    }
    on_accept_(std::move(socket));
    Accept();
  });
}

void AcceptLoop::Failed(const error_code& ec) {
  if (failures_++ == 0) {
    spdlog::warn(
        "accept failed: {}; trying again after {} ms, then up to once a second (logged again "
        "when it works)",
        ec.message(), kFirstPause.count());
  }
  pause_ = pause_.count() == 0 ? kFirstPause : std::min(2 * pause_, kLongestPause);
  retry_.expires_after(pause_);
  retry_.async_wait([this](error_code e) {
    if (!e && acceptor_.is_open()) Accept();
  });
}

}  // namespace bb
