// Link: one framed connection of the brokerbench wire protocol (PROTOCOL.md) over a TCP or
// Unix-domain stream socket, on one Asio I/O thread. Every program's connections are Links: the
// Brokerage House's clients and its market connections, the customer emulator's, the market
// emulator's order sessions and delivery connections, and the load tools.
//
// A subclass says what a frame means (OnFrame); the Link does the rest, the same way at both ends:
// - Connect (the connecting side) or Accept (the accepting side). The connecting side says
//   hello with its Identity; the accepting side answers it (hello.h: one rule, protocol version
//   and sizing). Frames before the hello are answered "a hello ... must come first"; a refused
//   hello or such an answer is the last reply, then the connection closes. The connecting side
//   gets OnReady once its hello is accepted, or OnClosed with the refusal's reason.
// - Writes: frames appended to out() go out with Flush(). The socket is non-blocking and the
//   send is tried at once: a burst of replies usually fits the socket's buffer and needs no
//   write operation. What does not fit goes out with one async_write; frames appended meanwhile
//   go out together in the next, one system call for many (OnSending marks each batch's start).
// - Reads: whatever has arrived, into a protocol::FrameStream (the protocol's incremental header
//   parser; the buffer grows with the bytes that arrive, never to a declared length), then
//   OnFrame for each whole frame and OnReadDone once the read's frames are handled.
// - Hostile or careless peers (issue 16): a bad header (magic, version, type, flags, length)
//   loses the framing: the accepting side answers it with an ErrorReply naming the field and
//   value, then closes; a bad body is the subclass's to answer (AnswerError), and the framing
//   holds. While more than kMaxUnsentBytes wait to be written the link is not read (a peer that
//   sends and never reads); the end of a write that drains it resumes reading. The end of the
//   input (a peer that half-closes) stops reading, not writing: every reply owed (Owe/Repaid,
//   for replies that come later from other threads) and queued is written before the close.
// - Shutdown: Stop() (any thread) ends the input and closes once what is owed is written;
//   Close() closes at once. OnClosed runs once, with OK for a close the owner asked for and an
//   error saying why otherwise (the peer ended, a read or write failed, a refusal). After it no
//   hook runs, so an owner may go once it has closed (or been told of the close of) its links.
//
// Ownership: shared (its pending operations hold it); make it with std::make_shared. Thread-
// safety: Stop from any thread; everything else on the I/O thread, which is all the
// serialisation a link needs (no strand).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/net/hello.h"
#include "common/protocol/codec.h"
#include "common/protocol/frame_stream.h"
#include "common/protocol/transactions.h"
#include "common/util/asio.h"
#include "common/util/status.h"
#include "common/util/stream_socket.h"

namespace bb::net {

class Link : public std::enable_shared_from_this<Link> {
 public:
  // Unsent bytes beyond which the link is not read.
  static constexpr size_t kMaxUnsentBytes = 1 << 20;

  // `role` names the peer in log lines ("client", "Brokerage House"); `us` is what the hello
  // says or checks.
  Link(StreamSocket socket, Identity us, std::string role);
  virtual ~Link() = default;
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;

  // The accepting side: reads, answers the hello.
  void Accept();
  // The connecting side: connects, says hello, reads (OnClosed if it cannot connect).
  void Connect(const StreamProtocol::endpoint& endpoint);
  // The connecting side over a socket already connected: says hello, reads.
  void Connected();

  // The buffer frames are appended to; Flush sends them.
  std::vector<uint8_t>& out() { return queued_; }
  // Appends one frame; a message that cannot be encoded is a bug, logged and dropped.
  template <typename M>
  void Append(const M& message, uint64_t request_id) {
    protocol::Writer w(queued_);
    if (Status s = protocol::EncodeFrame(message, request_id, w); !s.ok()) EncodeFailed(s);
  }
  void Flush();
  // Appends an ErrorReply (the text cut to the protocol's width) and flushes.
  void AnswerError(uint64_t request_id, protocol::ErrorCode code, std::string text);

  // A reply that will be appended later (from another thread's work, via the I/O thread).
  void Owe() { ++owed_; }
  void Repaid() {
    if (owed_ > 0) --owed_;
  }

  // Reads no more; closes once every reply owed and queued is written.
  void EndInput();
  // EndInput from any thread.
  void Stop();
  // Closes now; OnClosed(OK).
  void Close();

  bool ready() const { return ready_; }  // hello done, not closed
  bool closed() const { return closed_; }
  bool input_ended() const { return input_ended_; }
  size_t unsent() const { return queued_.size() + sending_.size(); }
  // Monotonic µs of the read that delivered the frames being handled (a response's end).
  int64_t read_us() const { return read_us_; }
  // "client 10.0.0.2:41234", for log lines.
  const std::string& name() const { return name_; }
  // One warning per link ("<name>: <what>"); the rest are not logged.
  void WarnOnce(std::string_view what);

 protected:
  // The hello is done: the peer's (accepting side) or our own accepted (connecting side).
  virtual void OnReady(const std::string& peer_component) { (void)peer_component; }
  // A frame after the hello, in order. The body is valid until the call returns.
  virtual void OnFrame(const protocol::FrameHeader& header, std::span<const uint8_t> body) = 0;
  // The frames of one read are handled (a good moment to send what they caused).
  virtual void OnReadDone() {}
  // A bad header arrived (it is answered and the link closes, or, connecting side, closes).
  virtual void OnBadHeader(const Status& why) { (void)why; }
  // A batch of queued frames is about to be written (before its system call).
  virtual void OnSending() {}
  // The link has closed (once): OK when asked (Close, Stop), else why.
  virtual void OnClosed(const Status& why) { (void)why; }

  StreamSocket& socket() { return socket_; }

 private:
  void Opened();
  void Read();
  void HandleInput();
  bool HandleHello(const protocol::FrameHeader& header, std::span<const uint8_t> body);
  void Write();
  void WriteDone();
  void CloseIfDone();
  void CloseWith(Status why);
  void EncodeFailed(const Status& s);

  StreamSocket socket_;
  Identity us_;
  std::string role_;
  std::string name_;
  bool connecting_side_ = false;
  protocol::FrameStream stream_;
  std::vector<uint8_t> queued_;   // appended while a write is in progress
  std::vector<uint8_t> sending_;  // being written; swapped with queued_, memory reused
  int64_t read_us_ = 0;
  size_t owed_ = 0;
  Status end_why_;  // why the input ended, for OnClosed
  bool writing_ = false;
  bool ready_ = false;
  bool input_ended_ = false;
  bool read_paused_ = false;
  bool warned_ = false;
  bool closed_ = false;
};

}  // namespace bb::net
