// Trade-Lookup (clause 3.3.6): historical trade information, by one of four
// mutually exclusive frames that the input's frame number selects: F1 a list of trade ids,
// F2 an account's trades in a time window, F3 a symbol's trades in a time window, F4 the holding
// history of the first trade of an account from a given time. Read-only, READ COMMITTED (L1,
// clause 7.4.1.3). Server-side: sql/trade_lookup.sql.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "brokerage_house/frame_runner.h"
#include "brokerage_house/frames/statements.h"
#include "brokerage_house/frames/trade_info.h"

namespace bb::bh {
namespace {

using frames::ReadTradeInfo;
using frames::ReadTradeInfoArrays;
using frames::TradeIdArrayLiteral;

constexpr std::string_view kFrame1 = "tl_f1_trades";
constexpr std::string_view kFrame2 = "tl_f2_trades";
constexpr std::string_view kFrame3 = "tl_f3_trades";
constexpr std::string_view kFrame4 = "tl_f4_holding_history";

// Frames 1-3 return, per trade, the trade's own columns, its SETTLEMENT row, its
// CASH_TRANSACTION row if it is a cash trade, and its first 3 TRADE_HISTORY rows by TH_DTS. The
// spec reads these per trade with four selects; here one statement per frame returns one row
// per history entry (at most 3 per trade), the trade's columns repeated, so a frame costs one
// round trip. Every frame has the same column layout; a column the frame does not return is a
// typed NULL and leaves the output field at its default:
//   0 group key (input position in F1, T_ID otherwise), 1 T_ID, 2 T_CA_ID, 3 T_EXEC_NAME,
//   4 T_IS_CASH, 5 TT_IS_MRKT, 6 T_BID_PRICE, 7 T_TRADE_PRICE, 8 T_QTY, 9 T_DTS, 10 T_TT_ID,
//   11 S_NAME, 12 TT_NAME, 13 SE_AMT, 14 SE_CASH_DUE_DATE, 15 SE_CASH_TYPE, 16 CT_AMT,
//   17 CT_DTS, 18 CT_NAME, 19 TH_DTS, 20 TH_ST_ID.
// Trade-Update (trade_update.cpp) reads the same layout.
//
// F2 and F3 take the first max_trades trades of the window by T_DTS ascending; T_ID breaks ties
// so that the choice is deterministic. F3's max_acct_id is an engineering hook the spec does
// not apply, and neither do we.
constexpr db::PreparedStatement kStatements[] = {
    {kFrame1, R"sql(
SELECT ids.pos, t_id, NULL::bigint, t_exec_name, t_is_cash, tt_is_mrkt, t_bid_price,
       t_trade_price, NULL::integer, NULL::timestamp, NULL::varchar, NULL::varchar,
       NULL::varchar, se_amt, se_cash_due_date, se_cash_type, ct_amt, ct_dts, ct_name,
       h.th_dts, h.th_st_id
FROM unnest($1::bigint[]) WITH ORDINALITY AS ids(id, pos)
JOIN trade ON t_id = ids.id
JOIN trade_type ON tt_id = t_tt_id
LEFT JOIN settlement ON se_t_id = t_id
LEFT JOIN cash_transaction ON ct_t_id = t_id AND t_is_cash
LEFT JOIN LATERAL (SELECT th_dts, th_st_id FROM trade_history WHERE th_t_id = t_id
                   ORDER BY th_dts, th_st_id LIMIT 3) AS h ON true
ORDER BY ids.pos, h.th_dts, h.th_st_id)sql"},
    {kFrame2, R"sql(
SELECT t.t_id, t.t_id, NULL::bigint, t.t_exec_name, t.t_is_cash, NULL::boolean, t.t_bid_price,
       t.t_trade_price, NULL::integer, t.t_dts, NULL::varchar, NULL::varchar, NULL::varchar,
       se_amt, se_cash_due_date, se_cash_type, ct_amt, ct_dts, ct_name, h.th_dts, h.th_st_id
FROM (SELECT t_id, t_exec_name, t_is_cash, t_bid_price, t_trade_price, t_dts
      FROM trade
      WHERE t_ca_id = $1 AND t_dts BETWEEN $2 AND $3
      ORDER BY t_dts, t_id
      LIMIT $4) AS t
LEFT JOIN settlement ON se_t_id = t.t_id
LEFT JOIN cash_transaction ON ct_t_id = t.t_id AND t.t_is_cash
LEFT JOIN LATERAL (SELECT th_dts, th_st_id FROM trade_history WHERE th_t_id = t.t_id
                   ORDER BY th_dts, th_st_id LIMIT 3) AS h ON true
ORDER BY t.t_dts, t.t_id, h.th_dts, h.th_st_id)sql"},
    {kFrame3, R"sql(
SELECT t.t_id, t.t_id, t.t_ca_id, t.t_exec_name, t.t_is_cash, NULL::boolean, NULL::numeric,
       t.t_trade_price, t.t_qty, t.t_dts, t.t_tt_id, NULL::varchar, NULL::varchar,
       se_amt, se_cash_due_date, se_cash_type, ct_amt, ct_dts, ct_name, h.th_dts, h.th_st_id
FROM (SELECT t_id, t_ca_id, t_exec_name, t_is_cash, t_trade_price, t_qty, t_dts, t_tt_id
      FROM trade
      WHERE t_s_symb = $1 AND t_dts BETWEEN $2 AND $3
      ORDER BY t_dts, t_id
      LIMIT $4) AS t
LEFT JOIN settlement ON se_t_id = t.t_id
LEFT JOIN cash_transaction ON ct_t_id = t.t_id AND t.t_is_cash
LEFT JOIN LATERAL (SELECT th_dts, th_st_id FROM trade_history WHERE th_t_id = t.t_id
                   ORDER BY th_dts, th_st_id LIMIT 3) AS h ON true
ORDER BY t.t_dts, t.t_id, h.th_dts, h.th_st_id)sql"},
    // F4: the first trade of the account at or after the start time, then up to 20
    // HOLDING_HISTORY rows of every lot that trade touched (HH_H_T_ID among the lots of the
    // rows with HH_T_ID = that trade). No row: no trade found; one row with NULL history
    // columns: a trade without holding history.
    {kFrame4, R"sql(
SELECT t.t_id, hh.hh_h_t_id, hh.hh_t_id, hh.hh_before_qty, hh.hh_after_qty
FROM (SELECT t_id FROM trade WHERE t_ca_id = $1 AND t_dts >= $2 ORDER BY t_dts, t_id LIMIT 1) AS t
LEFT JOIN LATERAL (
  SELECT hh_h_t_id, hh_t_id, hh_before_qty, hh_after_qty
  FROM holding_history
  WHERE hh_h_t_id IN (SELECT hh_h_t_id FROM holding_history WHERE hh_t_id = t.t_id)
  ORDER BY hh_h_t_id, hh_t_id
  LIMIT 20) AS hh ON true)sql"},
};

// The server-side frames: one call of sql/trade_lookup.sql's function. Its columns:
enum CallColumn : int {
  kStatus,
  kNumTradesFound,
  kTradeId,
  kTradeInfo,  // frames 1-3: the 21 arrays of the trade-information layout (trade_info.h)
  kHoldingTradeIds = kTradeInfo + frames::kTradeInfoColumns,  // frame 4: then 3 more arrays
};
constexpr std::string_view kCall = "tl_call";
constexpr db::PreparedStatement kServerStatements[] = {
    {kCall, "SELECT * FROM bb_trade_lookup($1, $2, $3, $4, $5, $6, $7, $8)"}};

// Rows a frame may return: max_trades, never more than the protocol carries.
int32_t TradeLimit(int32_t max_trades) {
  return std::clamp<int32_t>(max_trades, 0, protocol::kMaxTradesPerFrame);
}

// The outcome of a transaction refused before it reached the database.
db::TxnOutcome NotRun() {
  db::TxnOutcome outcome;
  outcome.end = db::TxnEnd::kRolledBack;
  return outcome;
}

// True when the input is refused before any database work, with its reply in `out`.
bool Refused(const protocol::TradeLookupInput& in, protocol::TradeLookupOutput& out) {
  out.frame = in.frame;
  if (in.frame >= 1 && in.frame <= 4) return false;
  // The protocol decoder admits frames 1..4 only; a caller that bypasses it gets an invalid
  // outcome naming the frame (-1 is ours, not a spec status).
  out.status = MakeReplyStatus(NotRun(), -1);
  out.status.detail = "Trade-Lookup frame " + std::to_string(in.frame) + " is not 1..4";
  return true;
}

// Frame 1's trade ids as an array literal, at most `limit` of them.
std::string FrameOneIds(const protocol::TradeLookupInput& in, int32_t limit) {
  return TradeIdArrayLiteral(in.trade_ids,
                             std::min(in.trade_ids.size(), static_cast<std::size_t>(limit)));
}

}  // namespace

std::span<const db::PreparedStatement> frames::TradeLookupStatements(FrameMode mode) {
  return ForMode(mode, kServerStatements, kStatements);
}

bool frames::Prepare(const protocol::TradeLookupInput& in, ServerCall& call,
                     protocol::TradeLookupOutput& refused) {
  if (Refused(in, refused)) return false;
  const int32_t limit = TradeLimit(in.max_trades);
  call.isolation = db::Isolation::kReadCommitted;
  call.finish = db::Finish::kCommit;
  call.statement = kCall;
  call.params.assign({in.frame, in.max_trades, limit, FrameOneIds(in, limit), in.acct_id, in.symbol,
                      db::Param::Timestamp(in.start_trade_dts),
                      db::Param::Timestamp(in.end_trade_dts)});
  return true;
}

protocol::TradeLookupOutput frames::Read(const protocol::TradeLookupInput& in,
                                         const db::TxnOutcome& outcome, const db::QueryResult& row,
                                         std::vector<protocol::MarketTradeRequest>&) {
  protocol::TradeLookupOutput out;
  out.frame = in.frame;
  if (outcome.end == db::TxnEnd::kCommitted && row.size() == 1) {
    if (in.frame == 4) {
      out.num_trades_found = static_cast<int32_t>(row.Int(0, kNumTradesFound));
      if (!row.IsNull(0, kTradeId)) out.trade_id = row.Int(0, kTradeId);
      auto lists = frames::Lists<4>(row, kHoldingTradeIds);
      auto& [lot_ids, hh_trade_ids, before_qtys, after_qtys] = lists;
      while (lot_ids.Next()) {
        for (std::size_t i = 1; i < lists.size(); ++i) lists[i].Next();
        out.holding_history.push_back({lot_ids.Int(), hh_trade_ids.Int(),
                                       static_cast<int32_t>(before_qtys.Int()),
                                       static_cast<int32_t>(after_qtys.Int())});
      }
    } else {
      ReadTradeInfoArrays(row, kTradeInfo, out.trades);
    }
  }
  out.status = MakeReplyStatus(outcome, frames::CallStatus(outcome, row));
  return out;
}

protocol::TradeLookupOutput FrameRunner::Run(const protocol::TradeLookupInput& in) {
  if (on_server()) {
    std::vector<protocol::MarketTradeRequest> none;
    return frames::RunServerCall(session_, options_.max_retries, in, none);
  }
  protocol::TradeLookupOutput out;
  if (Refused(in, out)) return out;
  const int32_t limit = TradeLimit(in.max_trades);
  const std::string trade_ids = FrameOneIds(in, limit);
  int32_t status = 0;
  const db::TxnOutcome outcome =
      session_.Run(db::Isolation::kReadCommitted, options_.max_retries, [&](db::Transaction& tx) {
        out.trades.clear();
        out.num_trades_found = 0;
        out.trade_id = 0;
        out.holding_history.clear();
        status = 0;
        const auto num_found = [&out] { return static_cast<int32_t>(out.trades.size()); };
        switch (in.frame) {
          case 1:
            ReadTradeInfo(tx.Exec(kFrame1, {trade_ids}), out.trades);
            // Harness check: num_found ≠ max_trades is invalid.
            if (num_found() != in.max_trades) status = -611;
            break;
          case 2:
            ReadTradeInfo(tx.Exec(kFrame2, {in.acct_id, db::Param::Timestamp(in.start_trade_dts),
                                            db::Param::Timestamp(in.end_trade_dts), limit}),
                          out.trades);
            // Harness checks: num_found outside 0..max_trades is invalid; 0 is a warning.
            if (num_found() > in.max_trades) {
              status = -621;
            } else if (num_found() == 0) {
              status = 621;
            }
            break;
          case 3:
            ReadTradeInfo(tx.Exec(kFrame3, {in.symbol, db::Param::Timestamp(in.start_trade_dts),
                                            db::Param::Timestamp(in.end_trade_dts), limit}),
                          out.trades);
            if (num_found() > in.max_trades) {
              status = -631;
            } else if (num_found() == 0) {
              status = 631;
            }
            break;
          default: {
            const db::QueryResult rows =
                tx.Exec(kFrame4, {in.acct_id, db::Param::Timestamp(in.start_trade_dts)});
            out.num_trades_found = rows.empty() ? 0 : 1;
            if (!rows.empty()) out.trade_id = rows.Int(0, 0);
            for (std::size_t i = 0; i < rows.size(); ++i) {
              if (rows.IsNull(i, 1)) continue;
              out.holding_history.push_back({rows.Int(i, 1), rows.Int(i, 2),
                                             static_cast<int32_t>(rows.Int(i, 3)),
                                             static_cast<int32_t>(rows.Int(i, 4))});
            }
            // Harness checks: no trade is a warning; otherwise 1..20 history rows.
            if (out.num_trades_found == 0) {
              status = 641;
            } else if (out.holding_history.empty() ||
                       out.holding_history.size() > protocol::kMaxHoldingHistory) {
              status = -642;
            }
            break;
          }
        }
        return status < 0 ? db::Finish::kRollback : db::Finish::kCommit;
      });
  out.status = MakeReplyStatus(outcome, status);
  return out;
}

}  // namespace bb::bh
