// Trade-Result (clause 3.3.8): the market exchange reports that a trade filled
// at a price. Frame 1 reads the trade; frame 2 moves the account's holdings (closing lots FIFO
// or LIFO, opening a lot for the remainder) with a HOLDING_HISTORY row per lot touched; frame 3
// computes the tax on a realised gain; frame 4 finds the commission rate; frame 5 completes the
// trade and credits the broker; frame 6 settles it and, for cash trades, moves the cash.
// SERIALIZABLE (L3, clause 7.4.1.3); the session retries serialization failures.
// Server-side: sql/trade_result.sql.
//
// The reads of frames 1, 2 and 4 touch rows nothing in this transaction changes before, so
// they are one statement; likewise the writes of frame 5 and of frame 6. The rows written
// follow the rules the loader uses for the initial trades (loader/trade_tables.cpp), so
// the audit of loader/check.cpp holds for completed trades after a run.
#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "brokerage_house/frame_runner.h"
#include "brokerage_house/frames/statements.h"
#include "common/workload/ids.h"

namespace bb::bh {

namespace {

// Frames 1, 2 and 4 read: the trade and its type, the holding summary, the account, the
// customer's tier, the security and the commission rate of the band (hundredths of a percent).
enum TradeColumn : int {
  kCaId,
  kTypeId,
  kSymbol,
  kQty,
  kCharge,
  kLifo,
  kIsCash,
  kTypeName,
  kIsSell,
  kHsQty,
  kBrokerId,
  kCustId,
  kTaxStatus,
  kSecurityName,
  kCommRate,
};
constexpr db::PreparedStatement kTrade{
    "tr_f1_trade",
    "SELECT t_ca_id, t_tt_id, t_s_symb, t_qty, t_chrg, t_lifo, t_is_cash, tt_name, tt_is_sell, "
    "coalesce((SELECT hs_qty FROM holding_summary WHERE hs_ca_id = t_ca_id AND hs_s_symb = "
    "t_s_symb), 0), ca_b_id, ca_c_id, ca_tax_st, s_name, (SELECT (cr_rate * 100)::bigint FROM "
    "commission_rate WHERE cr_c_tier = c_tier AND cr_tt_id = t_tt_id AND cr_ex_id = s_ex_id AND "
    "cr_from_qty <= t_qty AND cr_to_qty >= t_qty ORDER BY cr_from_qty LIMIT 1) FROM trade JOIN "
    "trade_type ON tt_id = t_tt_id JOIN customer_account ON ca_id = t_ca_id JOIN customer ON "
    "c_id = ca_c_id JOIN security ON s_symb = t_s_symb WHERE t_id = $1"};

// Frame 2: the holding summary. Parameters: account, symbol, quantity.
constexpr db::PreparedStatement kInsertSummary{
    "tr_f2_insert_summary",
    "INSERT INTO holding_summary (hs_ca_id, hs_s_symb, hs_qty) VALUES ($1, $2, $3)"};
constexpr db::PreparedStatement kUpdateSummary{
    "tr_f2_update_summary",
    "UPDATE holding_summary SET hs_qty = $3 WHERE hs_ca_id = $1 AND hs_s_symb = $2"};
constexpr db::PreparedStatement kDeleteSummary{
    "tr_f2_delete_summary", "DELETE FROM holding_summary WHERE hs_ca_id = $1 AND hs_s_symb = $2"};

// Frame 2: the lots to close, oldest first (FIFO) or newest first (LIFO); the trade id breaks
// ties of H_DTS the way the lots were opened.
constexpr db::PreparedStatement kLotsFifo{
    "tr_f2_lots_fifo",
    "SELECT h_t_id, h_qty, h_price FROM holding WHERE h_ca_id = $1 AND h_s_symb = $2 "
    "ORDER BY h_dts, h_t_id"};
constexpr db::PreparedStatement kLotsLifo{
    "tr_f2_lots_lifo",
    "SELECT h_t_id, h_qty, h_price FROM holding WHERE h_ca_id = $1 AND h_s_symb = $2 "
    "ORDER BY h_dts DESC, h_t_id DESC"};

// Frame 2: a lot changes with its history row. Parameters: lot, trade, before, after.
constexpr db::PreparedStatement kReduceLot{
    "tr_f2_reduce_lot",
    "WITH h AS (UPDATE holding SET h_qty = $4 WHERE h_t_id = $1) INSERT INTO holding_history "
    "(hh_h_t_id, hh_t_id, hh_before_qty, hh_after_qty) VALUES ($1, $2, $3, $4)"};
constexpr db::PreparedStatement kCloseLot{
    "tr_f2_close_lot",
    "WITH h AS (DELETE FROM holding WHERE h_t_id = $1) INSERT INTO holding_history "
    "(hh_h_t_id, hh_t_id, hh_before_qty, hh_after_qty) VALUES ($1, $2, $3, 0)"};
// Parameters: trade, account, symbol, dts, price, quantity.
constexpr db::PreparedStatement kOpenLot{
    "tr_f2_open_lot",
    "WITH h AS (INSERT INTO holding (h_t_id, h_ca_id, h_s_symb, h_dts, h_price, h_qty) VALUES "
    "($1, $2, $3, $4, $5, $6)) INSERT INTO holding_history (hh_h_t_id, hh_t_id, hh_before_qty, "
    "hh_after_qty) VALUES ($1, $1, 0, $6)"};

// Frame 3: the sum of the customer's tax rates, in units of 1e-5.
constexpr db::PreparedStatement kTaxRate{
    "tr_f3_tax_rate",
    "SELECT coalesce(round(sum(tx_rate) * 100000), 0)::bigint FROM customer_taxrate JOIN "
    "taxrate ON tx_id = cx_tx_id WHERE cx_c_id = $1"};

// Frames 3 and 5: the trade completes (T_TAX only when frame 3 ran: $5 NULL keeps it), its
// CMPT history row, the broker's totals. Parameters: trade, commission, dts, price, tax,
// broker. Returns 1 if the trade row was updated.
constexpr db::PreparedStatement kComplete{
    "tr_f5_complete",
    "WITH t AS (UPDATE trade SET t_comm = $2, t_dts = $3, t_st_id = 'CMPT', t_trade_price = $4, "
    "t_tax = coalesce($5, t_tax) WHERE t_id = $1 RETURNING t_id), h AS (INSERT INTO "
    "trade_history (th_t_id, th_dts, th_st_id) VALUES ($1, $3, 'CMPT')), b AS (UPDATE broker "
    "SET b_comm_total = b_comm_total + $2, b_num_trades = b_num_trades + 1 WHERE b_id = $6) "
    "SELECT count(*) FROM t"};

// Frame 6: the settlement and, for cash trades, the cash transaction and the new balance.
// Parameters: trade, due date, amount, account (cash: dts, name). Return CA_BAL.
constexpr db::PreparedStatement kSettleCash{
    "tr_f6_settle_cash",
    "WITH s AS (INSERT INTO settlement (se_t_id, se_cash_type, se_cash_due_date, se_amt) VALUES "
    "($1, 'Cash Account', $2, $3)), c AS (INSERT INTO cash_transaction (ct_dts, ct_t_id, ct_amt, "
    "ct_name) VALUES ($5, $1, $3, $6)) UPDATE customer_account SET ca_bal = ca_bal + $3 WHERE "
    "ca_id = $4 RETURNING ca_bal"};
constexpr db::PreparedStatement kSettleMargin{
    "tr_f6_settle_margin",
    "WITH s AS (INSERT INTO settlement (se_t_id, se_cash_type, se_cash_due_date, se_amt) VALUES "
    "($1, 'Margin', $2, $3)) SELECT ca_bal FROM customer_account WHERE ca_id = $4"};

// The guard (db::Session::Call): Trade-Results of one broker wait for each other before their
// transactions begin. Each adds to its broker's B_NUM_TRADES and B_COMM_TOTAL (frame 5), so
// under SERIALIZABLE two of them that overlap always conflict, and the second fails with
// "could not serialize access due to concurrent update" (0.04 retries per Trade-Result at
// saturation, all on the BROKER row, once the scans were gone: BENCHMARKS.md "Trade-Result at
// saturation"). The lock is taken before the SERIALIZABLE snapshot, which is what lets the
// waiter see the other's commit; the isolation level is unchanged. Same broker also covers the
// same account's HOLDING_SUMMARY and HOLDING rows. The key is the broker id (above 2^32, clear
// of the int4 hash that InstallFrameFunctions locks).
constexpr db::PreparedStatement kGuard{
    "tr_guard",
    "SELECT pg_advisory_lock(ca_b_id) FROM trade JOIN customer_account ON ca_id = t_ca_id "
    "WHERE t_id = $1"};

constexpr db::PreparedStatement kStatements[] = {
    kTrade,    kInsertSummary, kUpdateSummary, kDeleteSummary, kLotsFifo,
    kLotsLifo, kReduceLot,     kCloseLot,      kOpenLot,       kTaxRate,
    kComplete, kSettleCash,    kSettleMargin,  kGuard};

// Harness status codes (3.3.8.5).
constexpr int32_t kTradeNotFound = -811;
constexpr int32_t kNoTaxOnGain = -831;
constexpr int32_t kNoCommissionRate = -841;

constexpr int64_t kMicrosPerDay = 86'400'000'000LL;
constexpr int32_t kSettlementDays = 2;

// The server-side frames: one call of sql/trade_result.sql's function. Its columns:
enum CallColumn : int {
  kStatus,
  kAcctId,
  kAcctBal,
  kCallCustId,  // the account's customer, for the load unit
};
constexpr std::string_view kCall = "tr_call";
constexpr db::PreparedStatement kServerStatements[] = {
    {kCall, "SELECT * FROM bb_trade_result($1, $2, $3)"}, kGuard};

}  // namespace

std::span<const db::PreparedStatement> frames::TradeResultStatements(FrameMode mode) {
  return ForMode(mode, kServerStatements, kStatements);
}

bool frames::Prepare(const protocol::TradeResultInput& in, ServerCall& call,
                     protocol::TradeResultOutput&) {
  call.isolation = db::Isolation::kSerializable;
  call.finish = db::Finish::kCommit;
  call.statement = kCall;
  call.guard = kGuard.name;  // its parameter is the call's first: the trade id
  call.params.assign({in.trade_id, db::Param::Cents(in.trade_price)});
  AppendNow(call);  // trade_dts (frame 2), per attempt as in the client-side frames below
  return true;
}

protocol::TradeResultOutput frames::Read(const protocol::TradeResultInput&,
                                         const db::TxnOutcome& outcome, const db::QueryResult& row,
                                         std::vector<protocol::MarketTradeRequest>&) {
  protocol::TradeResultOutput out;
  if (outcome.end == db::TxnEnd::kCommitted && row.size() == 1) {
    out.acct_id = row.Int(0, kAcctId);
    out.acct_bal = row.Cents(0, kAcctBal);
    out.load_unit = static_cast<int32_t>(workload::LoadUnitOfCustomer(row.Int(0, kCallCustId)));
  }
  out.status = MakeReplyStatus(outcome, frames::CallStatus(outcome, row));
  return out;
}

protocol::TradeResultOutput FrameRunner::Run(const protocol::TradeResultInput& in) {
  if (on_server()) {
    std::vector<protocol::MarketTradeRequest> none;
    return frames::RunServerCall(session_, options_.max_retries, in, none);
  }
  protocol::TradeResultOutput out;
  int32_t status = 0;
  const db::Param guard_key[] = {in.trade_id};
  const db::TxnOutcome outcome = session_.Run(
      db::Isolation::kSerializable, options_.max_retries,
      [&](db::Transaction& tx) {
        out = {};
        status = 0;

        // Frame 1 (with the reads of frames 2 and 4).
        const db::QueryResult trade = tx.Exec(kTrade.name, {in.trade_id});
        if (trade.size() != 1) {
          status = kTradeNotFound;
          return db::Finish::kRollback;
        }
        const int64_t acct_id = trade.Int(0, kCaId);
        const std::string_view symbol = trade.Text(0, kSymbol);
        const int32_t qty = static_cast<int32_t>(trade.Int(0, kQty));
        const bool lifo = trade.Bool(0, kLifo);
        const bool is_cash = trade.Bool(0, kIsCash);
        const bool is_sell = trade.Bool(0, kIsSell);
        const int32_t hs_qty = static_cast<int32_t>(trade.Int(0, kHsQty));
        const int64_t tax_status = trade.Int(0, kTaxStatus);
        const int64_t comm_rate = trade.IsNull(0, kCommRate) ? 0 : trade.Int(0, kCommRate);
        const int64_t trade_dts = Now();
        const db::Param dts = db::Param::Timestamp(trade_dts);
        const db::Param price = db::Param::Cents(in.trade_price);

        // Frame 2. A sell closes long lots and a buy short ones; `sign` is the sign of the
        // lots this trade closes. The summary moves by the trade's quantity.
        const int32_t sign = is_sell ? 1 : -1;
        const int32_t new_hs_qty = hs_qty - sign * qty;
        if (hs_qty == 0) {
          tx.Exec(kInsertSummary.name, {acct_id, symbol, new_hs_qty});
        } else if (new_hs_qty != 0) {
          tx.Exec(kUpdateSummary.name, {acct_id, symbol, new_hs_qty});
        }
        int64_t buy_value = 0;
        int64_t sell_value = 0;
        int32_t needed = qty;
        if (hs_qty * sign > 0) {
          const db::QueryResult lots =
              tx.Exec(lifo ? kLotsLifo.name : kLotsFifo.name, {acct_id, symbol});
          for (std::size_t i = 0; i < lots.size() && needed > 0; ++i) {
            const int64_t lot_id = lots.Int(i, 0);
            const int32_t lot_qty = static_cast<int32_t>(lots.Int(i, 1));
            const int32_t held = lot_qty * sign;  // > 0
            const int32_t closed = std::min(held, needed);
            const int32_t after = (held - closed) * sign;
            if (after != 0) {
              tx.Exec(kReduceLot.name, {lot_id, in.trade_id, lot_qty, after});
            } else {
              tx.Exec(kCloseLot.name, {lot_id, in.trade_id, lot_qty});
            }
            const int64_t open_value = int64_t{closed} * lots.Cents(i, 2);
            const int64_t close_value = int64_t{closed} * in.trade_price;
            buy_value += is_sell ? open_value : close_value;
            sell_value += is_sell ? close_value : open_value;
            needed -= closed;
          }
        }
        if (needed > 0) {
          tx.Exec(kOpenLot.name, {in.trade_id, acct_id, symbol, dts, price, -needed * sign});
        } else if (new_hs_qty == 0) {
          tx.Exec(kDeleteSummary.name, {acct_id, symbol});
        }

        // Frame 3: tax on a realised gain of a taxable account, here in 1e-5 cents. The harness
        // after frame 3 (clause 3.3.8) checks the amount as computed, -831 when it is not
        // positive; T_TAX and the settlement take it rounded to cents.
        int64_t tax_amount = 0;
        const bool taxed = (tax_status == 1 || tax_status == 2) && sell_value > buy_value;
        if (taxed) {
          const int64_t rate_e5 = tx.Exec(kTaxRate.name, {trade.Int(0, kCustId)}).Int(0, 0);
          const int64_t tax_e5 = (sell_value - buy_value) * rate_e5;
          if (tax_e5 <= 0) {
            status = kNoTaxOnGain;
            return db::Finish::kRollback;
          }
          tax_amount = (tax_e5 + 50'000) / 100'000;
        }

        // Frame 4 (read above), then the commission on the trade's value in cents.
        if (comm_rate <= 0) {
          status = kNoCommissionRate;
          return db::Finish::kRollback;
        }
        const int64_t value = int64_t{qty} * in.trade_price;
        const int64_t comm_amount = (value * comm_rate + 5'000) / 10'000;

        // Frame 5.
        tx.Exec(kComplete.name, {in.trade_id, db::Param::Cents(comm_amount), dts, price,
                                 taxed ? db::Param::Cents(tax_amount) : db::Param::Null(),
                                 trade.Int(0, kBrokerId)});

        // Frame 6: settle two days after the trade date, withholding the tax for status 1.
        const int64_t charge = trade.Cents(0, kCharge);
        int64_t se_amount =
            is_sell ? value - charge - comm_amount : -(value + charge + comm_amount);
        if (tax_status == 1) se_amount -= tax_amount;
        const int32_t trade_day = static_cast<int32_t>(trade_dts / kMicrosPerDay);
        const db::Param due_date = db::Param::Date(trade_day + kSettlementDays);
        const db::QueryResult balance =
            is_cash ? tx.Exec(kSettleCash.name,
                              {in.trade_id, due_date, db::Param::Cents(se_amount), acct_id, dts,
                               fmt::format("{} {} shares of {}", trade.Text(0, kTypeName), qty,
                                           trade.Text(0, kSecurityName))})
                    : tx.Exec(kSettleMargin.name,
                              {in.trade_id, due_date, db::Param::Cents(se_amount), acct_id});
        out.acct_id = acct_id;
        out.acct_bal = balance.Cents(0, 0);
        out.load_unit = static_cast<int32_t>(workload::LoadUnitOfCustomer(trade.Int(0, kCustId)));
        return db::Finish::kCommit;
      },
      kGuard.name, guard_key);
  out.status = MakeReplyStatus(outcome, status);
  return out;
}

}  // namespace bb::bh
