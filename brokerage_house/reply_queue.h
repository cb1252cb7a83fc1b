// ReplyQueue: finished replies on their way from the DB workers back to the I/O thread, the
// mirror of WorkerWakeup. A worker encodes its reply frame itself and appends the bytes here;
// only the reply that finds the queue empty posts to the I/O thread, which then takes every
// reply queued by then in one turn, hands each connection its bytes, then has each write
// them: a connection with several replies in the batch (the market emulator's) gets them in
// one system call. So the I/O thread is woken (and the io_context's queue locked) once per
// batch, not once per reply, and it never encodes a worker's reply: it copies bytes and
// writes them.
//
// A batch is two growing buffers (the frames' bytes, one after another, and where each starts),
// swapped with a second pair when the I/O thread takes it, so a steady load allocates nothing.
//
// Ownership: the server's; it must outlive the workers and the io_context's handlers. It
// holds a reference to each target until its reply is handed over. Thread-safety: Push from
// any thread; the targets' Queue and Flush run on the I/O thread (the one thread that runs io).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "common/protocol/codec.h"
#include "common/util/asio.h"

namespace bb::bh {

// Where a request's reply goes (the client connection that sent the request). Both calls on
// the I/O thread; neither may block.
class ReplyTarget {
 public:
  virtual ~ReplyTarget() = default;
  // Queues one whole encoded frame.
  virtual void Queue(std::span<const uint8_t> frame) = 0;
  // Starts writing what is queued, unless a write is under way.
  virtual void Flush() = 0;
};

class ReplyQueue {
 public:
  explicit ReplyQueue(asio::io_context& io) : io_(io) {}

  // Queues `frame` (copied) for `target`. Any thread; posts to the I/O thread only when the
  // queue was empty.
  void Push(std::shared_ptr<ReplyTarget>&& target, std::span<const uint8_t> frame);

 private:
  struct Entry {
    std::shared_ptr<ReplyTarget> target;
    std::size_t offset = 0;  // of its frame in the batch's bytes
    std::size_t size = 0;
  };
  struct Batch {
    std::vector<Entry> entries;
    std::vector<uint8_t> bytes;
  };

  // On the I/O thread: takes the queued batch and hands every reply to its target.
  void Drain();

  asio::io_context& io_;
  std::mutex mutex_;
  Batch queued_;    // guarded by mutex_; non-empty exactly while a Drain is posted
  Batch draining_;  // the I/O thread's
};

// Sets server_micros on a transaction reply: the time in the server, queueing included
// (docs/ARCHITECTURE.md).
void StampServerTime(protocol::Message& reply, int64_t micros);

// The status of a transaction reply, or null for other messages.
const protocol::ReplyStatus* StatusOf(const protocol::Message& reply);

// Appends the frame of `reply` to `out`. If our own reply breaks a protocol limit (a bug on
// this side) it logs an error and appends an internal-error reply that says so instead.
void EncodeReply(const protocol::Message& reply, uint64_t request_id, std::vector<uint8_t>& out);

}  // namespace bb::bh
