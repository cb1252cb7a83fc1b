// ReplyBatcher: replies finished on worker threads on their way to the I/O thread, the mirror
// of the worker lanes' one wake-up per turn (worker_lanes.h). A worker appends its encoded
// reply frame here; only the reply that finds the batcher empty posts to the I/O thread, which
// then takes every reply queued by then in one turn, hands each connection its bytes, then has
// each write them: a connection with several replies in the batch (the market emulator's) gets
// them in one system call. So the I/O thread is woken (and the io_context's queue locked) once
// per batch, not once per reply, and it never encodes a worker's reply: it copies bytes and
// writes them.
//
// A batch is two growing buffers (the frames' bytes, one after another, and where each starts),
// swapped with a second pair when the I/O thread takes it, so a steady load allocates nothing.
//
// Ownership: the server's; it must outlive the lanes and the io_context's handlers. It holds a
// reference to each target until its reply is handed over. Thread-safety: Push from any thread;
// the targets' Queue and Flush run on the I/O thread (the one thread that runs io). mutex_
// guards queued_; draining_ is the I/O thread's alone.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "brokerage_house/job.h"
#include "common/util/asio.h"

namespace bb::bh {

class ReplyBatcher {
 public:
  explicit ReplyBatcher(asio::io_context& io) : io_(io) {}

  // Queues `frame` (copied) for `target`. Any thread; posts to the I/O thread only when the
  // batcher was empty.
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

}  // namespace bb::bh
