// Trade-Status (clause 3.3.9): the 50 most recent trades of an account with
// their status, type, security and exchange, plus the account owner's and broker's names.
// Read-only, one frame, READ COMMITTED (L1, clause 7.4.1.3). Server-side:
// sql/trade_status.sql.
#include <array>
#include <string>
#include <string_view>

#include "brokerage_house/frame_runner.h"
#include "brokerage_house/frames/statements.h"

namespace bb::bh {
namespace {

constexpr std::string_view kTrades = "ts_f1_trades";
constexpr std::string_view kNames = "ts_f1_names";

// The two statements are independent (a candidate for pipelining). T_ID breaks ties between
// trades of the same T_DTS so that "the 50 most recent" is deterministic.
constexpr db::PreparedStatement kStatements[] = {
    {kTrades, R"sql(
SELECT t_id, t_dts, st_name, tt_name, t_s_symb, t_qty, t_exec_name, t_chrg, s_name, ex_name
FROM trade
JOIN status_type ON st_id = t_st_id
JOIN trade_type ON tt_id = t_tt_id
JOIN security ON s_symb = t_s_symb
JOIN exchange ON ex_id = s_ex_id
WHERE t_ca_id = $1
ORDER BY t_dts DESC, t_id DESC
LIMIT 50)sql"},
    {kNames, R"sql(
SELECT c_l_name, c_f_name, b_name
FROM customer_account
JOIN customer ON c_id = ca_c_id
JOIN broker ON b_id = ca_b_id
WHERE ca_id = $1)sql"},
};

// The server-side frame: one call of sql/trade_status.sql's function. Its columns:
enum CallColumn : int {
  kStatus,
  kCustLName,
  kCustFName,
  kBrokerName,
  kTradeIds,  // then the other lists, parallel to it, in the order of TradeStatusRow
};
constexpr std::string_view kCall = "ts_call";
constexpr db::PreparedStatement kServerStatements[] = {
    {kCall, "SELECT * FROM bb_trade_status($1)"}};

}  // namespace

std::span<const db::PreparedStatement> frames::TradeStatusStatements(FrameMode mode) {
  return ForMode(mode, kServerStatements, kStatements);
}

bool frames::Prepare(const protocol::TradeStatusInput& in, ServerCall& call,
                     protocol::TradeStatusOutput&) {
  call.isolation = db::Isolation::kReadCommitted;
  call.finish = db::Finish::kCommit;
  call.statement = kCall;
  call.params.emplace_back(in.acct_id);
  return true;
}

protocol::TradeStatusOutput frames::Read(const protocol::TradeStatusInput&,
                                         const db::TxnOutcome& outcome, const db::QueryResult& row,
                                         std::vector<protocol::MarketTradeRequest>&) {
  protocol::TradeStatusOutput out;
  if (outcome.end == db::TxnEnd::kCommitted && row.size() == 1) {
    out.cust_l_name = row.Text(0, kCustLName);
    out.cust_f_name = row.Text(0, kCustFName);
    out.broker_name = row.Text(0, kBrokerName);
    auto lists = frames::Lists<10>(row, kTradeIds);
    auto& [ids, dts, st_name, tt_name, symbol, qty, exec, charge, s_name, ex_name] = lists;
    while (ids.Next()) {
      for (std::size_t i = 1; i < lists.size(); ++i) lists[i].Next();
      out.trades.push_back({
          .trade_id = ids.Int(),
          .trade_dts = dts.TimestampMicros(),
          .status_name = std::string(st_name.value()),
          .type_name = std::string(tt_name.value()),
          .symbol = std::string(symbol.value()),
          .trade_qty = static_cast<int32_t>(qty.Int()),
          .exec_name = std::string(exec.value()),
          .charge = charge.Cents(),
          .s_name = std::string(s_name.value()),
          .ex_name = std::string(ex_name.value()),
      });
    }
  }
  out.status = MakeReplyStatus(outcome, frames::CallStatus(outcome, row));
  return out;
}

protocol::TradeStatusOutput FrameRunner::Run(const protocol::TradeStatusInput& in) {
  if (on_server()) {
    std::vector<protocol::MarketTradeRequest> none;
    return frames::RunServerCall(session_, options_.max_retries, in, none);
  }
  protocol::TradeStatusOutput out;
  int32_t status = 0;
  const db::TxnOutcome outcome =
      session_.Run(db::Isolation::kReadCommitted, options_.max_retries, [&](db::Transaction& tx) {
        out = {};
        status = 0;
        const db::QueryResult trades = tx.Exec(kTrades, {in.acct_id});
        out.trades.reserve(trades.size());
        for (std::size_t i = 0; i < trades.size(); ++i) {
          out.trades.push_back({
              .trade_id = trades.Int(i, 0),
              .trade_dts = trades.TimestampMicros(i, 1),
              .status_name = std::string(trades.Text(i, 2)),
              .type_name = std::string(trades.Text(i, 3)),
              .symbol = std::string(trades.Text(i, 4)),
              .trade_qty = static_cast<int32_t>(trades.Int(i, 5)),
              .exec_name = std::string(trades.Text(i, 6)),
              .charge = trades.Cents(i, 7),
              .s_name = std::string(trades.Text(i, 8)),
              .ex_name = std::string(trades.Text(i, 9)),
          });
        }
        const db::QueryResult names = tx.Exec(kNames, {in.acct_id});
        if (!names.empty()) {
          out.cust_l_name = names.Text(0, 0);
          out.cust_f_name = names.Text(0, 1);
          out.broker_name = names.Text(0, 2);
        }
        // Harness check: num_found ≠ max_trade_status_len (50) is invalid.
        if (out.trades.size() != protocol::kMaxTradeStatus) {
          status = -911;
          return db::Finish::kRollback;
        }
        return db::Finish::kCommit;
      });
  out.status = MakeReplyStatus(outcome, status);
  return out;
}

}  // namespace bb::bh
