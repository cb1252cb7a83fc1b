// The prepared statements of each transaction, one group per file in brokerage_house/frames/:
// the client-side frames' statements, or the call of the transaction's server-side function.
// Statement names start with the transaction's code (e.g. "to_f3_...", "to_call") so they
// never clash.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "brokerage_house/frame_runner.h"
#include "common/db/session.h"

namespace bb::bh::frames {

std::span<const db::PreparedStatement> BrokerVolumeStatements(FrameMode mode);
std::span<const db::PreparedStatement> CustomerPositionStatements(FrameMode mode);
std::span<const db::PreparedStatement> MarketFeedStatements(FrameMode mode);
std::span<const db::PreparedStatement> MarketWatchStatements(FrameMode mode);
std::span<const db::PreparedStatement> SecurityDetailStatements(FrameMode mode);
std::span<const db::PreparedStatement> TradeLookupStatements(FrameMode mode);
std::span<const db::PreparedStatement> TradeOrderStatements(FrameMode mode);
std::span<const db::PreparedStatement> TradeResultStatements(FrameMode mode);
std::span<const db::PreparedStatement> TradeStatusStatements(FrameMode mode);
std::span<const db::PreparedStatement> TradeUpdateStatements(FrameMode mode);
std::span<const db::PreparedStatement> DataMaintenanceStatements(FrameMode mode);
std::span<const db::PreparedStatement> TradeCleanupStatements(FrameMode mode);

// The statements of one mode: the server-side function's call, or the client-side frames'.
inline std::span<const db::PreparedStatement> ForMode(
    FrameMode mode, std::span<const db::PreparedStatement> server,
    std::span<const db::PreparedStatement> client) {
  return mode == FrameMode::kServer ? server : client;
}

// Each transaction's server-side call (frames/<txn>.cpp). Prepare fills the call for an input,
// or returns false when the input is refused before any database work (`refused` is then the
// reply); Read makes the reply from the call's outcome and row, and appends the market
// requests of a committed Trade-Order or Market-Feed to `to_market`.
bool Prepare(const protocol::BrokerVolumeInput& in, ServerCall& call,
             protocol::BrokerVolumeOutput& refused);
protocol::BrokerVolumeOutput Read(const protocol::BrokerVolumeInput& in,
                                  const db::TxnOutcome& outcome, const db::QueryResult& row,
                                  std::vector<protocol::MarketTradeRequest>& to_market);
bool Prepare(const protocol::CustomerPositionInput& in, ServerCall& call,
             protocol::CustomerPositionOutput& refused);
protocol::CustomerPositionOutput Read(const protocol::CustomerPositionInput& in,
                                      const db::TxnOutcome& outcome, const db::QueryResult& row,
                                      std::vector<protocol::MarketTradeRequest>& to_market);
bool Prepare(const protocol::MarketFeedInput& in, ServerCall& call,
             protocol::MarketFeedOutput& refused);
protocol::MarketFeedOutput Read(const protocol::MarketFeedInput& in, const db::TxnOutcome& outcome,
                                const db::QueryResult& row,
                                std::vector<protocol::MarketTradeRequest>& to_market);
bool Prepare(const protocol::MarketWatchInput& in, ServerCall& call,
             protocol::MarketWatchOutput& refused);
protocol::MarketWatchOutput Read(const protocol::MarketWatchInput& in,
                                 const db::TxnOutcome& outcome, const db::QueryResult& row,
                                 std::vector<protocol::MarketTradeRequest>& to_market);
bool Prepare(const protocol::SecurityDetailInput& in, ServerCall& call,
             protocol::SecurityDetailOutput& refused);
protocol::SecurityDetailOutput Read(const protocol::SecurityDetailInput& in,
                                    const db::TxnOutcome& outcome, const db::QueryResult& row,
                                    std::vector<protocol::MarketTradeRequest>& to_market);
bool Prepare(const protocol::TradeLookupInput& in, ServerCall& call,
             protocol::TradeLookupOutput& refused);
protocol::TradeLookupOutput Read(const protocol::TradeLookupInput& in,
                                 const db::TxnOutcome& outcome, const db::QueryResult& row,
                                 std::vector<protocol::MarketTradeRequest>& to_market);
bool Prepare(const protocol::TradeOrderInput& in, ServerCall& call,
             protocol::TradeOrderOutput& refused);
protocol::TradeOrderOutput Read(const protocol::TradeOrderInput& in, const db::TxnOutcome& outcome,
                                const db::QueryResult& row,
                                std::vector<protocol::MarketTradeRequest>& to_market);
bool Prepare(const protocol::TradeResultInput& in, ServerCall& call,
             protocol::TradeResultOutput& refused);
protocol::TradeResultOutput Read(const protocol::TradeResultInput& in,
                                 const db::TxnOutcome& outcome, const db::QueryResult& row,
                                 std::vector<protocol::MarketTradeRequest>& to_market);
bool Prepare(const protocol::TradeStatusInput& in, ServerCall& call,
             protocol::TradeStatusOutput& refused);
protocol::TradeStatusOutput Read(const protocol::TradeStatusInput& in,
                                 const db::TxnOutcome& outcome, const db::QueryResult& row,
                                 std::vector<protocol::MarketTradeRequest>& to_market);
bool Prepare(const protocol::TradeUpdateInput& in, ServerCall& call,
             protocol::TradeUpdateOutput& refused);
protocol::TradeUpdateOutput Read(const protocol::TradeUpdateInput& in,
                                 const db::TxnOutcome& outcome, const db::QueryResult& row,
                                 std::vector<protocol::MarketTradeRequest>& to_market);
bool Prepare(const protocol::DataMaintenanceInput& in, ServerCall& call,
             protocol::DataMaintenanceOutput& refused);
protocol::DataMaintenanceOutput Read(const protocol::DataMaintenanceInput& in,
                                     const db::TxnOutcome& outcome, const db::QueryResult& row,
                                     std::vector<protocol::MarketTradeRequest>& to_market);
bool Prepare(const protocol::TradeCleanupInput& in, ServerCall& call,
             protocol::TradeCleanupOutput& refused);
protocol::TradeCleanupOutput Read(const protocol::TradeCleanupInput& in,
                                  const db::TxnOutcome& outcome, const db::QueryResult& row,
                                  std::vector<protocol::MarketTradeRequest>& to_market);

// Appends the frames' current time (T_DTS, TH_DTS, CT_DTS ... of clause 3.3) to the call's
// parameters as ServerCall::now_param: a placeholder that the session sets before each attempt.
inline void AppendNow(ServerCall& call) {
  call.now_param = static_cast<int>(call.params.size());
  call.params.push_back(db::Param::Null());
}

// Runs a transaction's server-side call on a blocking session (FrameRunner in server mode).
template <typename In>
auto RunServerCall(db::Session& session, int max_retries, const In& in,
                   std::vector<protocol::MarketTradeRequest>& to_market) {
  decltype(Read(in, db::TxnOutcome(), db::QueryResult(), to_market)) out;
  ServerCall call;
  if (!Prepare(in, call, out)) return out;
  db::QueryResult row;
  const db::TxnOutcome outcome =
      session.Call(call.isolation, max_retries, call.statement, call.params, call.finish, row,
                   call.guard, call.now_param);
  return Read(in, outcome, row, to_market);
}

// The spec status of a server-side frame call: the one the function rolled back with (SQLSTATE
// BB001), else its `status` column (column 0), else 0 (the call failed; the outcome says how).
inline int32_t CallStatus(const db::TxnOutcome& outcome, const db::QueryResult& row) {
  if (outcome.rollback_status != 0) return outcome.rollback_status;
  if (row.size() != 1) return 0;
  return static_cast<int32_t>(row.Int(0, 0));
}

// Readers of N parallel array columns of row 0, from column `first` on.
template <std::size_t N>
std::array<db::ArrayReader, N> Lists(const db::QueryResult& row, int first) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<db::ArrayReader, N>{
        db::ArrayReader(row.Text(0, first + static_cast<int>(I)))...};
  }
  (std::make_index_sequence<N>());
}

inline std::array<std::span<const db::PreparedStatement>, 12> AllStatementGroups(FrameMode m) {
  return {BrokerVolumeStatements(m), CustomerPositionStatements(m), MarketFeedStatements(m),
          MarketWatchStatements(m),  SecurityDetailStatements(m),   TradeLookupStatements(m),
          TradeOrderStatements(m),   TradeResultStatements(m),      TradeStatusStatements(m),
          TradeUpdateStatements(m),  DataMaintenanceStatements(m),  TradeCleanupStatements(m)};
}

}  // namespace bb::bh::frames
