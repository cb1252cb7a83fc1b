// Trade-Cleanup (clause 3.3.12): before a run, cancel what an earlier run left
// unfinished. Every pending limit order (a TRADE_REQUEST row) gets SBMT and CNCL history rows,
// its trade becomes CNCL and the request is deleted; then every submitted trade from the
// run-time id range on becomes CNCL with a CNCL history row. One READ COMMITTED transaction
// (the frame may use several; one keeps it all-or-nothing). Set-based: a statement for each
// of the two steps. Server-side: sql/trade_cleanup.sql.
#include <string_view>

#include "brokerage_house/frame_runner.h"
#include "brokerage_house/frames/statements.h"

namespace bb::bh {

namespace {

// Parameters: now, submitted status, canceled status. A history row the trade already has
// is kept (the primary key allows one per status).
constexpr db::PreparedStatement kCancelRequests{
    "tc_cancel_requests",
    "WITH r AS (DELETE FROM trade_request RETURNING tr_t_id), t AS (UPDATE trade SET t_st_id = "
    "$3, t_dts = $1 FROM r WHERE t_id = r.tr_t_id), h AS (INSERT INTO trade_history (th_t_id, "
    "th_dts, th_st_id) SELECT tr_t_id, $1::timestamp, s FROM r CROSS JOIN (VALUES "
    "($2::varchar), ($3::varchar)) AS v(s) ON CONFLICT DO NOTHING) SELECT count(*) FROM r"};

// Parameters: now, submitted status, canceled status, first run-time trade id.
constexpr db::PreparedStatement kCancelSubmitted{
    "tc_cancel_submitted",
    "WITH t AS (UPDATE trade SET t_st_id = $3, t_dts = $1 WHERE t_id >= $4 AND t_st_id = $2 "
    "RETURNING t_id) INSERT INTO trade_history (th_t_id, th_dts, th_st_id) SELECT t_id, "
    "$1::timestamp, $3::varchar FROM t ON CONFLICT DO NOTHING"};

constexpr db::PreparedStatement kStatements[] = {kCancelRequests, kCancelSubmitted};

// The server-side frame: one call of sql/trade_cleanup.sql's function. Its one column is the
// status.
constexpr std::string_view kCall = "tc_call";
constexpr db::PreparedStatement kServerStatements[] = {
    {kCall, "SELECT * FROM bb_trade_cleanup($1, $2, $3, $4)"}};

}  // namespace

std::span<const db::PreparedStatement> frames::TradeCleanupStatements(FrameMode mode) {
  return ForMode(mode, kServerStatements, kStatements);
}

bool frames::Prepare(const protocol::TradeCleanupInput& in, ServerCall& call,
                     protocol::TradeCleanupOutput&) {
  call.isolation = db::Isolation::kReadCommitted;
  call.finish = db::Finish::kCommit;
  call.statement = kCall;
  call.params.assign({in.st_canceled_id, in.st_submitted_id, in.start_trade_id});
  AppendNow(call);
  return true;
}

protocol::TradeCleanupOutput frames::Read(const protocol::TradeCleanupInput&,
                                          const db::TxnOutcome& outcome, const db::QueryResult& row,
                                          std::vector<protocol::MarketTradeRequest>&) {
  protocol::TradeCleanupOutput out;
  out.status = MakeReplyStatus(outcome, frames::CallStatus(outcome, row));
  return out;
}

protocol::TradeCleanupOutput FrameRunner::Run(const protocol::TradeCleanupInput& in) {
  if (on_server()) {
    std::vector<protocol::MarketTradeRequest> none;
    return frames::RunServerCall(session_, options_.max_retries, in, none);
  }
  protocol::TradeCleanupOutput out;
  const db::TxnOutcome outcome =
      session_.Run(db::Isolation::kReadCommitted, options_.max_retries, [&](db::Transaction& tx) {
        const db::Param now = db::Param::Timestamp(Now());
        tx.Exec(kCancelRequests.name, {now, in.st_submitted_id, in.st_canceled_id});
        tx.Exec(kCancelSubmitted.name,
                {now, in.st_submitted_id, in.st_canceled_id, in.start_trade_id});
        return db::Finish::kCommit;
      });
  out.status = MakeReplyStatus(outcome, 0);
  return out;
}

}  // namespace bb::bh
