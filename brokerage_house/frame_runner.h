// FrameRunner: runs the twelve TPC-E transactions (reference §4) frame by frame on one
// database session, as the Brokerage House's DB workers and bb-txn do. Each Run() is one
// database transaction at the isolation level of reference §4.0, with bounded retries on
// serialization failures and deadlocks, and returns the spec's outputs with a ReplyStatus that
// says how it ended (DESIGN.md, "Status and outcome: never conflate").
//
// Trade-Order (market orders) and Market-Feed (triggered limit orders) produce requests for the
// market exchange emulator; they are appended to `to_market` only after the transaction
// commits, so the caller can send them (spec: SendToMarket after commit).
//
// Ownership: borrows the session, which must outlive the runner. Thread-safety: none; one
// runner per DB worker thread.
#pragma once

#include <span>
#include <vector>

#include "common/db/session.h"
#include "common/protocol/transactions.h"

namespace bb::bh {

struct FrameOptions {
  int max_retries = 5;  // per transaction, on 40001/40P01
};

class FrameRunner {
 public:
  FrameRunner(db::Session& session, FrameOptions options) : session_(session), options_(options) {}

  // Every statement the frames use, to prepare when a session opens.
  static std::span<const db::PreparedStatement> Statements();

  protocol::BrokerVolumeOutput Run(const protocol::BrokerVolumeInput& in);
  protocol::CustomerPositionOutput Run(const protocol::CustomerPositionInput& in);
  protocol::MarketFeedOutput Run(const protocol::MarketFeedInput& in,
                                 std::vector<protocol::MarketTradeRequest>& to_market);
  protocol::MarketWatchOutput Run(const protocol::MarketWatchInput& in);
  protocol::SecurityDetailOutput Run(const protocol::SecurityDetailInput& in);
  protocol::TradeLookupOutput Run(const protocol::TradeLookupInput& in);
  protocol::TradeOrderOutput Run(const protocol::TradeOrderInput& in,
                                 std::vector<protocol::MarketTradeRequest>& to_market);
  protocol::TradeResultOutput Run(const protocol::TradeResultInput& in);
  protocol::TradeStatusOutput Run(const protocol::TradeStatusInput& in);
  protocol::TradeUpdateOutput Run(const protocol::TradeUpdateInput& in);
  protocol::DataMaintenanceOutput Run(const protocol::DataMaintenanceInput& in);
  protocol::TradeCleanupOutput Run(const protocol::TradeCleanupInput& in);

 private:
  db::Session& session_;
  FrameOptions options_;
};

// How a transaction ended, for its reply: the database's end (TxnOutcome) and the spec status
// the frames set (0 ok, > 0 warning, < 0 invalid; reference §4 status codes). A body that
// finished with kRollback because the spec status is negative gives kInvalid; Trade-Order's
// intended roll-back gives kRollback (pass intended_rollback).
protocol::ReplyStatus MakeReplyStatus(const db::TxnOutcome& outcome, int32_t spec_status,
                                      bool intended_rollback = false);

}  // namespace bb::bh
