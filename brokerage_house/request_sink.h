// RequestSink: where a client connection hands its transaction requests. Two kinds serve them:
// - WorkerPool: DB worker threads, each running a Handler that blocks on its own database
//   connection (client-side frames, statement by statement; --no-db's canned replies).
// - CallDispatcher (call_dispatcher.h): server-side frames, one call per transaction, sent and
//   read by the I/O thread itself on non-blocking connections: no thread hand-off at all.
// Either encodes each reply and hands it to the job's ReplyTarget, and passes the market
// requests of committed transactions to the MarketSink.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "brokerage_house/reply_queue.h"
#include "brokerage_house/stats.h"
#include "common/protocol/codec.h"
#include "common/util/asio.h"
#include "common/util/status.h"

namespace bb::bh {

struct Job {
  std::shared_ptr<ReplyTarget> target;
  uint64_t request_id = 0;
  protocol::MessageType type{};
  protocol::Message request;
  int64_t received_micros = 0;  // monotonic, when the last byte of the request arrived
};

using MarketSink = std::function<void(std::vector<protocol::MarketTradeRequest>&)>;

class RequestSink {
 public:
  virtual ~RequestSink() = default;
  // Takes a job, on the I/O thread; false when the queue is full or the sink is stopping (the
  // client gets "overloaded").
  virtual bool Submit(Job&& job) = 0;
  // Takes no more jobs, serves every job taken, then returns. From any thread but the I/O
  // thread, which must keep running meanwhile (replies still go out through it).
  virtual void Stop() = 0;
};

// What a sink is made with: the server's I/O loop, reply path, counters and market sink, and
// the --workers and --queue settings. Everything in it outlives the sink.
struct SinkContext {
  asio::io_context& io;
  ReplyQueue& replies;
  Stats& stats;
  MarketSink market;
  int workers = 4;
  std::size_t queue_capacity = 10000;
};

using SinkFactory = std::function<Result<std::unique_ptr<RequestSink>>(const SinkContext&)>;

}  // namespace bb::bh
