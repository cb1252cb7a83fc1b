// FrameRunner: runs the twelve TPC-E transactions (clause 3.3) frame by frame on one
// database session, as the Brokerage House's worker lanes and bb-txn do. Each Run() is one
// database transaction at the isolation level of clause 7.4.1.3, with bounded retries on
// serialization failures and deadlocks, and returns the spec's outputs with a ReplyStatus that
// says how it ended (docs/ARCHITECTURE.md, "Status and outcome: never conflate").
//
// Two ways to run the frames, the same statements in each (frames/<txn>.cpp beside
// frames/sql/<txn>.sql):
// - server (the default): each transaction is one PL/pgSQL function, installed in the database
//   by InstallFrameFunctions, and one round trip (BEGIN, the call and COMMIT pipelined).
// - client: the frames' statements one by one from C++, a round trip each: for databases that
//   take no functions, and to measure what the round trips cost.
// A database test runs both on the same inputs and requires the same outputs and the same
// database afterwards (tests/frames_cross_db_test.cpp).
//
// Trade-Order (market orders) and Market-Feed (triggered limit orders) produce requests for the
// market exchange emulator; they are appended to `to_market` only after the transaction
// commits, so the caller can send them (spec: SendToMarket after commit).
//
// Ownership: borrows the session, which must outlive the runner. Thread-safety: none; one
// runner per worker thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/db/session.h"
#include "common/protocol/codec.h"
#include "common/protocol/transactions.h"
#include "common/util/status.h"

namespace bb::bh {

enum class FrameMode { kServer, kClient };

// "server" or "client" (the --frames option); an error names the value.
Result<FrameMode> ParseFrameMode(std::string_view text);
std::string_view FrameModeName(FrameMode mode);

struct FrameOptions {
  int max_retries = 5;  // per transaction, on 40001/40P01
  FrameMode mode = FrameMode::kServer;
  // The "current time" the frames write (T_DTS, TH_DTS, CT_DTS, ...), in µs since the epoch;
  // empty: the wall clock. Read in each attempt of a transaction, so a retried one writes the
  // time of the attempt that commits. Tests set it to compare runs row for row.
  std::function<int64_t()> clock;
};

class FrameRunner {
 public:
  // Sets the session's clock (db::Session::SetClock) to options.clock: the server-side calls'
  // current time is read by the session, before each attempt.
  FrameRunner(db::Session& session, FrameOptions options)
      : session_(session), options_(std::move(options)) {
    session_.SetClock(options_.clock);
  }

  // Every statement the frames of `mode` use, to prepare when a session opens.
  static std::span<const db::PreparedStatement> Statements(FrameMode mode);
  // A session for the frames of `mode`: their statements prepared, and for the client-side
  // frames the planner settings the server-side functions carry (frame_functions.cpp).
  static Result<std::unique_ptr<db::Session>> OpenSession(const std::string& conninfo,
                                                          FrameMode mode);

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
  bool on_server() const { return options_.mode == FrameMode::kServer; }
  int64_t Now() const;

  db::Session& session_;
  FrameOptions options_;
};

// One transaction as its server-side call, ready to send: FrameRunner sends it with
// Session::Call, the Brokerage House's CallLanes with Session::StartCall.
struct ServerCall {
  db::Isolation isolation = db::Isolation::kReadCommitted;
  db::Finish finish = db::Finish::kCommit;
  std::string_view statement;     // a prepared statement of FrameMode::kServer
  std::vector<db::Param> params;  // cleared and refilled for each call
  std::string_view guard;         // empty, or a prepared statement: see db::Session::Call
  // The index in `params` of the frames' current time, which the session sets before each
  // attempt (db::Session::Call); -1: the call has none.
  int now_param = -1;
};

// The call of `request` (one of the twelve transaction inputs). False when the request is
// answered without the database (an input the spec's harness checks refuse): `reply` then holds
// its reply.
bool PrepareServerCall(const protocol::Message& request, ServerCall& call,
                       protocol::Message& reply);
// The reply to `request` once its call has ended; the market requests of a committed
// Trade-Order or Market-Feed are appended to `to_market`.
void ReadServerCall(const protocol::Message& request, const db::TxnOutcome& outcome,
                    const db::QueryResult& rows, protocol::Message& reply,
                    std::vector<protocol::MarketTradeRequest>& to_market);

// Creates or replaces the server-side frame functions (frames/sql/*.sql) in the database of
// `conninfo`, unless it already has this build's version of them; under an advisory lock, so
// several Brokerage Houses starting at once do not collide. An error says what to do.
Status InstallFrameFunctions(const std::string& conninfo);

// How a transaction ended, for its reply: the database's end (TxnOutcome) and the spec status
// the frames set (0 ok, > 0 warning, < 0 invalid; clause 3.2.1.8). A body that
// finished with kRollback because the spec status is negative gives kInvalid; Trade-Order's
// intended roll-back gives kRollback (pass intended_rollback).
protocol::ReplyStatus MakeReplyStatus(const db::TxnOutcome& outcome, int32_t spec_status,
                                      bool intended_rollback = false);

}  // namespace bb::bh
