// ClientConnection: one client of the Brokerage House (a customer emulator or the market
// emulator), in the manner of Asio's HTTP server "connection": it reads frames, checks each
// header before allocating its body, answers the hello itself, queues transaction requests for
// its RequestSink, and writes their replies, already encoded, in the order they come.
//
// A bad header leaves the byte stream without framing: the connection answers with an error
// naming the field and value, then closes. A bad body keeps the framing: the request gets an
// error reply and the connection goes on. Either way one warning names the peer, and every
// other client is untouched. A refused hello is answered, then the connection closes.
//
// Hostile or careless peers (issue 16) cost bounded memory and no lost replies:
// - The end of the input (a client that half-closes) stops reading, not writing: every reply
//   owed, to requests still with the sink, is written before the connection closes, as an HTTP
//   server does.
// - The read buffer grows with the bytes that have arrived (at most doubling what is held), not
//   to the length a header declares: a header alone costs a read chunk, not 1 MiB.
// - While more than kMaxUnsentBytes of replies wait to be written (a client that sends and never
//   reads), the connection is not read; reading resumes once the writes drain below it.
//
// Ownership: shared (Asio handlers, queued jobs and queued replies hold it); the server keeps
// a weak reference to close it at shutdown. Thread-safety: Close from any thread; everything
// else runs on the server's one I/O thread, which is all the serialisation a connection needs
// (no strand: see Server).
#pragma once

#include <atomic>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "brokerage_house/request_sink.h"
#include "brokerage_house/stats.h"
#include "common/protocol/codec.h"
#include "common/protocol/frame.h"
#include "common/util/asio.h"
#include "common/util/stream_socket.h"

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
  ClientConnection(StreamSocket socket, RequestSink& sink, Stats& stats,
                   const ServerIdentity& identity);
  void Start();
  // Stops reading (from any thread) and closes the connection once every reply owed is written.
  void Close();
  // A worker's reply (ReplyQueue), on the I/O thread.
  void Queue(std::span<const uint8_t> frame) override;
  void Flush() override;

  // Replies waiting to be written beyond which the connection stops reading.
  static constexpr std::size_t kMaxUnsentBytes = 1 << 20;

 private:
  void ReadMore();
  void HandleInput();
  void HandleFrame(const protocol::FrameHeader& header, std::span<const uint8_t> body);
  void Reply(uint64_t request_id, const protocol::Message& reply);
  void SendError(uint64_t request_id, protocol::ErrorCode code, std::string text);
  void Write();
  void WriteDone();
  // Reads no more: what is owed is written, then the connection closes.
  void EndInput();
  void CloseIfDone();
  std::size_t Unsent() const { return queued_.size() + sending_.size(); }
  void WarnOnce(const std::string& what);
  void CloseNow();

  StreamSocket socket_;
  RequestSink& sink_;
  Stats& stats_;
  const ServerIdentity& identity_;
  std::string peer_;
  // Bytes read and not yet handled are [input_begin_, input_end_). One read takes whatever has
  // arrived, usually a whole request (header and body) or several, rather than one read for
  // the header and another for the body.
  std::vector<uint8_t> input_;
  std::size_t input_begin_ = 0;
  std::size_t input_end_ = 0;
  // Encoded frames: those queued while a write is in progress, and those being written. Every
  // frame queued goes out in the next write, one system call for many replies when a client
  // (the market emulator) has many requests in flight. Swapped, so their memory is reused.
  std::vector<uint8_t> queued_;
  std::vector<uint8_t> sending_;
  bool writing_ = false;
  std::size_t owed_ = 0;      // requests with the sink, their replies not yet queued
  bool input_ended_ = false;  // the peer's end of stream, a bad header, a refusal, Close
  bool read_paused_ = false;  // too much unsent (kMaxUnsentBytes); resumed by a write's end
  bool hello_done_ = false;
  bool warned_ = false;
  bool closed_ = false;
};

}  // namespace bb::bh
