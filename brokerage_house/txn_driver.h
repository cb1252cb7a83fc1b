// TxnDriver: runs transactions with generated inputs (common/workload/inputs.h) straight
// against the database through FrameRunner, as bb-txn does, and plays the market emulator's
// part so that trades complete: each market request that Trade-Order or Market-Feed produces
// is answered at once with a Trade-Result at the request's price. Market-Feed gets 20 ticker
// entries priced on the securities' curves (common/workload/price_curve.h), at the time since the
// driver started by options.clock (the wall clock when empty).
//
// Ownership: borrows the session. Thread-safety: none; one driver per thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "brokerage_house/frame_runner.h"
#include "common/db/session.h"
#include "common/protocol/codec.h"
#include "common/workload/inputs.h"
#include "common/workload/market.h"
#include "common/workload/mix.h"

namespace bb::bh {

// One transaction run: how it ended and what it cost.
struct TxnSample {
  workload::TransactionType type{};
  protocol::ReplyStatus status;
  int64_t micros = 0;       // wall time of the call, on a monotonic clock
  int64_t statements = 0;   // statements the frames ran (all attempts)
  int64_t round_trips = 0;  // groups of statements sent and answered together (all attempts)
};

// Called with each input and its output, when a caller wants to see them.
using ShowFn = std::function<void(const protocol::Message& input, const protocol::Message& output)>;

class TxnDriver {
 public:
  // The session must have the statements of options.mode prepared.
  TxnDriver(db::Session& session, const workload::Sizing& sizing, uint64_t seed,
            FrameOptions options = {});

  // Runs one transaction of `type` with a generated input; appends its sample, and those of
  // the Trade-Results that complete its market requests. TR alone runs a market Trade-Order
  // first. DM walks its table rotation, one table per call.
  void Run(workload::TransactionType type, std::vector<TxnSample>& samples,
           const ShowFn& show = nullptr);

 private:
  template <typename In>
  protocol::Message Call(workload::TransactionType type, const In& input,
                         std::vector<TxnSample>& samples, const ShowFn& show);
  void CompleteTrades(std::vector<TxnSample>& samples, const ShowFn& show);
  protocol::MarketFeedInput Ticker();

  db::Session& session_;
  FrameRunner runner_;
  workload::Sizing sizing_;
  workload::InputGenerator inputs_;
  workload::Market market_;
  workload::Random random_;
  std::vector<protocol::MarketTradeRequest> to_market_;
  int next_dm_table_ = 0;
  std::function<int64_t()> clock_;  // µs; the frames' clock
  int64_t started_us_;
};

}  // namespace bb::bh
