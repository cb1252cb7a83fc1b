// A job: one transaction request on its way through the Brokerage House's Dispatcher
// (dispatcher.h), from the client connection that read it to the lane that runs it, and back
// as a Completion, the reply and what follows it, for the Dispatcher to finish and deliver.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "common/protocol/codec.h"
#include "common/protocol/transactions.h"

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

struct Job {
  std::shared_ptr<ReplyTarget> target;
  uint64_t request_id = 0;
  protocol::MessageType type{};
  protocol::Message request;    // one of the twelve transaction inputs
  int64_t received_micros = 0;  // monotonic, when the last byte of the request arrived
};

// What running a job gave: its reply, the market requests of a committed Trade-Order or
// Market-Feed (sent after the reply; TPC-E's SendToMarket comes after the commit), and the
// database work it took (0 without a database).
struct Completion {
  protocol::Message reply;
  std::vector<protocol::MarketTradeRequest> to_market;
  int64_t db_round_trips = 0;
  int64_t db_statements = 0;
};

// Takes the market requests of a completion (it may leave the vector empty). Any thread.
using MarketSink = std::function<void(std::vector<protocol::MarketTradeRequest>&)>;

}  // namespace bb::bh
