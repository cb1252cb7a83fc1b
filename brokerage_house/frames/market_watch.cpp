// Market-Watch (clause 3.3.4): the percentage change in market
// capitalisation, from the close of start_date to the last trade, of the securities on a
// customer's watch list, of an industry's companies in a company-id window, or held by an
// account. Read-only, one frame, READ COMMITTED (L1, clause 7.4.1.3). Server-side:
// sql/market_watch.sql.
#include <string_view>

#include "brokerage_house/frame_runner.h"
#include "brokerage_house/frames/statements.h"

namespace bb::bh {
namespace {

constexpr std::string_view kByWatchList = "mw_f1_watch_list";
constexpr std::string_view kByIndustry = "mw_f1_industry";
constexpr std::string_view kByAccount = "mw_f1_account";

// Each statement builds the frame's symbol list and sums, over it, S_NUM_OUT × DM_CLOSE of
// start_date (old_cap) and S_NUM_OUT × LT_PRICE (new_cap); the spec's per-symbol loop reads the
// same rows. pct_change = 100 × (new_cap / old_cap − 1), or 0 when old_cap is 0 (no symbols),
// computed in NUMERIC so nothing is lost before the final conversion.
//
// Our decision where the spec is silent: a symbol without a DAILY_MARKET row on start_date
// (start_date a holiday or outside the loaded range) counts in neither sum, so old and new
// capitalisation always cover the same securities. The CE only draws weekdays of the loaded
// range (clause 6.4.1), where every security has a row.
//
// A symbol on the customer's watch lists twice (two lists) counts twice, as in the spec's loop.
constexpr db::PreparedStatement kStatements[] = {
    {kByWatchList, R"sql(
SELECT CASE WHEN old_cap <> 0 THEN (100 * (new_cap / old_cap - 1))::float8 ELSE 0 END
FROM (SELECT sum(s_num_out * dm_close) AS old_cap, sum(s_num_out * lt_price) AS new_cap
      FROM watch_list
      JOIN watch_item ON wi_wl_id = wl_id
      JOIN security ON s_symb = wi_s_symb
      JOIN last_trade ON lt_s_symb = wi_s_symb
      JOIN daily_market ON dm_s_symb = wi_s_symb AND dm_date = $2
      WHERE wl_c_id = $1) AS caps)sql"},
    {kByIndustry, R"sql(
SELECT CASE WHEN old_cap <> 0 THEN (100 * (new_cap / old_cap - 1))::float8 ELSE 0 END
FROM (SELECT sum(s_num_out * dm_close) AS old_cap, sum(s_num_out * lt_price) AS new_cap
      FROM industry
      JOIN company ON co_in_id = in_id
      JOIN security ON s_co_id = co_id
      JOIN last_trade ON lt_s_symb = s_symb
      JOIN daily_market ON dm_s_symb = s_symb AND dm_date = $4
      WHERE in_name = $1 AND co_id BETWEEN $2 AND $3) AS caps)sql"},
    {kByAccount, R"sql(
SELECT CASE WHEN old_cap <> 0 THEN (100 * (new_cap / old_cap - 1))::float8 ELSE 0 END
FROM (SELECT sum(s_num_out * dm_close) AS old_cap, sum(s_num_out * lt_price) AS new_cap
      FROM holding_summary
      JOIN security ON s_symb = hs_s_symb
      JOIN last_trade ON lt_s_symb = hs_s_symb
      JOIN daily_market ON dm_s_symb = hs_s_symb AND dm_date = $2
      WHERE hs_ca_id = $1) AS caps)sql"},
};

// The outcome of a transaction refused before it reached the database.
db::TxnOutcome NotRun() {
  db::TxnOutcome outcome;
  outcome.end = db::TxnEnd::kRolledBack;
  return outcome;
}

// The server-side frame: one call of sql/market_watch.sql's function. Its columns:
enum CallColumn : int { kStatus, kPctChange };
constexpr std::string_view kCall = "mw_call";
constexpr db::PreparedStatement kServerStatements[] = {
    {kCall, "SELECT * FROM bb_market_watch($1, $2, $3, $4, $5, $6)"}};

// True when the input is refused before any database work, with its reply in `out`.
bool Refused(const protocol::MarketWatchInput& in, protocol::MarketWatchOutput& out) {
  // Harness check (3.3.4): acct_id, cust_id and industry_name all empty is invalid; no
  // database work is needed to say so.
  if (in.acct_id != 0 || in.cust_id != 0 || !in.industry_name.empty()) return false;
  out.status = MakeReplyStatus(NotRun(), -411);
  return true;
}

}  // namespace

std::span<const db::PreparedStatement> frames::MarketWatchStatements(FrameMode mode) {
  return ForMode(mode, kServerStatements, kStatements);
}

bool frames::Prepare(const protocol::MarketWatchInput& in, ServerCall& call,
                     protocol::MarketWatchOutput& refused) {
  if (Refused(in, refused)) return false;
  call.isolation = db::Isolation::kReadCommitted;
  call.finish = db::Finish::kCommit;
  call.statement = kCall;
  call.params.assign({in.acct_id, in.cust_id, in.industry_name, in.starting_co_id, in.ending_co_id,
                      db::Param::Date(in.start_date)});
  return true;
}

protocol::MarketWatchOutput frames::Read(const protocol::MarketWatchInput&,
                                         const db::TxnOutcome& outcome, const db::QueryResult& row,
                                         std::vector<protocol::MarketTradeRequest>&) {
  protocol::MarketWatchOutput out;
  if (outcome.end == db::TxnEnd::kCommitted && row.size() == 1) {
    out.pct_change = row.Double(0, kPctChange);
  }
  out.status = MakeReplyStatus(outcome, frames::CallStatus(outcome, row));
  return out;
}

protocol::MarketWatchOutput FrameRunner::Run(const protocol::MarketWatchInput& in) {
  if (on_server()) {
    std::vector<protocol::MarketTradeRequest> none;
    return frames::RunServerCall(session_, options_.max_retries, in, none);
  }
  protocol::MarketWatchOutput out;
  if (Refused(in, out)) return out;
  const db::Param start_date = db::Param::Date(in.start_date);
  const db::TxnOutcome outcome =
      session_.Run(db::Isolation::kReadCommitted, options_.max_retries, [&](db::Transaction& tx) {
        // The spec's order of precedence when more than one is set: watch list, industry,
        // account.
        const db::QueryResult row =
            in.cust_id != 0             ? tx.Exec(kByWatchList, {in.cust_id, start_date})
            : !in.industry_name.empty() ? tx.Exec(kByIndustry, {in.industry_name, in.starting_co_id,
                                                                in.ending_co_id, start_date})
                                        : tx.Exec(kByAccount, {in.acct_id, start_date});
        out.pct_change = row.Double(0, 0);
        return db::Finish::kCommit;
      });
  out.status = MakeReplyStatus(outcome, 0);
  return out;
}

}  // namespace bb::bh
