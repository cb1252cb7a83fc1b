// ClientConnection: one client of the Brokerage House (a customer emulator or the market
// emulator), in the manner of Asio's HTTP server 3 "connection": it reads frames on its own
// strand, checks each header before allocating its body, answers the hello itself, queues
// transaction requests for the DB workers, and writes their replies in the order they come.
//
// A bad header leaves the byte stream without framing: the connection answers with an error
// naming the field and value, then closes. A bad body keeps the framing: the request gets an
// error reply and the connection goes on. Either way one warning names the peer, and every
// other client is untouched.
//
// Ownership: shared (Asio handlers and queued jobs hold it); the server keeps a weak
// reference to close it at shutdown. Thread-safety: Deliver from any thread; everything else
// runs on the connection's strand.
#pragma once

#include <array>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "brokerage_house/stats.h"
#include "brokerage_house/worker_pool.h"
#include "common/protocol/codec.h"
#include "common/protocol/frame.h"
#include "common/util/asio.h"

namespace bb::bh {

// What a connection checks a client's hello against.
struct ServerIdentity {
  std::string component;  // e.g. "bb-brokerage-house 0.1.0"
  int64_t customers_total = 0;
  int32_t scale_factor = 0;
  int32_t initial_trade_days = 0;
};

class ClientConnection : public ReplyTarget, public std::enable_shared_from_this<ClientConnection> {
 public:
  ClientConnection(asio::ip::tcp::socket socket, WorkerPool& pool, Stats& stats,
                   const ServerIdentity& identity);
  void Start();
  // Closes the connection (from any thread) once the replies already queued are written.
  void Close();
  void Deliver(uint64_t request_id, protocol::Message reply) override;

 private:
  void ReadHeader();
  void ReadBody();
  void HandleFrame();
  void Reply(uint64_t request_id, const protocol::Message& reply);
  void SendError(uint64_t request_id, protocol::ErrorCode code, std::string text);
  void Write();
  void WarnOnce(const std::string& what);
  void CloseNow();

  asio::ip::tcp::socket socket_;
  WorkerPool& pool_;
  Stats& stats_;
  const ServerIdentity& identity_;
  std::string peer_;
  std::array<uint8_t, protocol::kFrameHeaderBytes> header_bytes_{};
  protocol::FrameHeader header_;
  std::vector<uint8_t> body_;
  std::deque<std::vector<uint8_t>> writes_;  // encoded frames waiting to go out
  std::vector<std::vector<uint8_t>> spare_;  // sent buffers, reused
  bool writing_ = false;
  bool close_after_write_ = false;
  bool hello_done_ = false;
  bool warned_ = false;
  bool closed_ = false;
};

}  // namespace bb::bh
