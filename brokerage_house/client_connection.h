// ClientConnection: one client of the Brokerage House (a customer emulator or the market
// emulator) on a net::Link (common/net/link.h), which reads frames, answers the hello (one rule:
// protocol version and sizing), checks every header before making room for a body, and holds the
// hostile-input rules of issue 16: a bad header is answered and closes, a half-close gets every
// reply owed, a client that never reads is not read either. This class says what a request
// means: a bad body gets an error reply and the connection goes on; a transaction request goes
// to the Dispatcher, whose replies, already encoded, come back (Queue, Flush) on the I/O thread
// and go out in the order they come, batched.
//
// Ownership: shared (Asio handlers, queued jobs and queued replies hold it); the server keeps
// a weak reference to stop it at shutdown. Thread-safety: Stop from any thread; everything
// else runs on the server's one I/O thread, which is all the serialisation a connection needs
// (no strand: see Server).
#pragma once

#include <memory>
#include <span>

#include "brokerage_house/dispatcher.h"
#include "brokerage_house/stats.h"
#include "common/net/link.h"
#include "common/protocol/codec.h"
#include "common/protocol/frame.h"
#include "common/util/stream_socket.h"

namespace bb::bh {

// What a connection checks a client's hello against.
using ServerIdentity = net::Identity;

class ClientConnection : public net::Link, public ReplyTarget {
 public:
  ClientConnection(StreamSocket socket, Dispatcher& dispatcher, Stats& stats,
                   const ServerIdentity& identity);
  void Start();
  // The reply to one request the dispatcher took, on the I/O thread.
  void Queue(std::span<const uint8_t> frame) override;
  void Flush() override { Link::Flush(); }

 private:
  void OnReady(const std::string& peer_component) override;
  void OnFrame(const protocol::FrameHeader& header, std::span<const uint8_t> body) override;
  void OnBadHeader(const Status& why) override;
  void OnClosed(const Status& why) override;

  Dispatcher& dispatcher_;
  Stats& stats_;
};

}  // namespace bb::bh
