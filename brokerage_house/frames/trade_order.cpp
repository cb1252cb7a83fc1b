// Trade-Order (clause 3.3.7): a customer, or someone the account authorizes,
// orders a trade. Frames 1-3 read the account, check the executor, resolve the security and
// estimate the buy/sell values, tax, charge and commission; frame 4 inserts the trade (and,
// for limit orders, its TRADE_REQUEST); frame 5 rolls back (roll_it_back, ~1 %), frame 6
// commits. REPEATABLE READ (L2, clause 7.4.1.3). The request for the market exchange is handed
// back only after the commit (SendToMarket, 3.3.7.6). Server-side: sql/trade_order.sql.
#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include "brokerage_house/frame_runner.h"
#include "brokerage_house/frames/statements.h"

namespace bb::bh {

namespace {

// Frame 1: the account, its owner and its broker, in one read.
constexpr db::PreparedStatement kAccount{
    "to_f1_account",
    "SELECT ca_name, ca_b_id, ca_c_id, ca_tax_st, c_f_name, c_l_name, c_tier, c_tax_id, b_name "
    "FROM customer_account JOIN customer ON c_id = ca_c_id JOIN broker ON b_id = ca_b_id "
    "WHERE ca_id = $1"};

// Frame 2: the executor's permission on the account.
constexpr db::PreparedStatement kPermission{
    "to_f2_permission",
    "SELECT ap_acl FROM account_permission WHERE ap_ca_id = $1 AND ap_f_name = $2 AND "
    "ap_l_name = $3 AND ap_tax_id = $4"};

// Frame 3: the security (by symbol, or by company name and issue) with its company, last
// price and the account's holding summary. Columns: s_co_id, s_ex_id, s_name, s_symb, co_name,
// lt_price, hs_qty (NULL: no holding).
constexpr db::PreparedStatement kSecurityBySymbol{
    "to_f3_security_by_symbol",
    "SELECT s_co_id, s_ex_id, s_name, s_symb, co_name, lt_price, (SELECT hs_qty FROM "
    "holding_summary WHERE hs_ca_id = $2 AND hs_s_symb = s_symb) FROM security JOIN company ON "
    "co_id = s_co_id JOIN last_trade ON lt_s_symb = s_symb WHERE s_symb = $1"};
constexpr db::PreparedStatement kSecurityByName{
    "to_f3_security_by_name",
    "SELECT s_co_id, s_ex_id, s_name, s_symb, co_name, lt_price, (SELECT hs_qty FROM "
    "holding_summary WHERE hs_ca_id = $3 AND hs_s_symb = s_symb) FROM company JOIN security ON "
    "s_co_id = co_id JOIN last_trade ON lt_s_symb = s_symb WHERE co_name = $1 AND s_issue = $2"};

// Frame 3: the trade type, the charge for the tier and the commission rate of the band, in
// hundredths of a percent. Parameters: type, tier, exchange, quantity.
constexpr db::PreparedStatement kTradeType{
    "to_f3_trade_type",
    "SELECT tt_is_mrkt, tt_is_sell, (SELECT ch_chrg FROM charge WHERE ch_tt_id = tt_id AND "
    "ch_c_tier = $2), (SELECT (cr_rate * 100)::bigint FROM commission_rate WHERE cr_c_tier = $2 "
    "AND cr_tt_id = tt_id AND cr_ex_id = $3 AND cr_from_qty <= $4 AND cr_to_qty >= $4 "
    "ORDER BY cr_from_qty LIMIT 1) FROM trade_type WHERE tt_id = $1"};

// Frame 3: the lots the order would close, oldest first (FIFO) or newest first (LIFO). The
// trade id breaks ties of H_DTS the way the lots were opened.
constexpr db::PreparedStatement kLotsFifo{
    "to_f3_lots_fifo",
    "SELECT h_qty, h_price FROM holding WHERE h_ca_id = $1 AND h_s_symb = $2 "
    "ORDER BY h_dts, h_t_id"};
constexpr db::PreparedStatement kLotsLifo{
    "to_f3_lots_lifo",
    "SELECT h_qty, h_price FROM holding WHERE h_ca_id = $1 AND h_s_symb = $2 "
    "ORDER BY h_dts DESC, h_t_id DESC"};

// Frame 3: the sum of the customer's tax rates, in units of 1e-5.
constexpr db::PreparedStatement kTaxRate{
    "to_f3_tax_rate",
    "SELECT coalesce(round(sum(tx_rate) * 100000), 0)::bigint FROM customer_taxrate JOIN "
    "taxrate ON tx_id = cx_tx_id WHERE cx_c_id = $1"};

// Frame 3, margin orders: the account's assets (the spec computes them and nothing uses them;
// clause 3.3.7).
constexpr db::PreparedStatement kAssets{
    "to_f3_assets",
    "SELECT ca_bal + coalesce((SELECT sum(hs_qty * lt_price) FROM holding_summary JOIN "
    "last_trade ON lt_s_symb = hs_s_symb WHERE hs_ca_id = $1), 0) FROM customer_account "
    "WHERE ca_id = $1"};

// Frame 4: the trade and its first history row; limit orders also get their TRADE_REQUEST.
// Parameters: now, status, type, is_cash, symbol, qty, bid price, account, exec name, charge,
// commission, lifo (and broker for limit orders). Returns the new T_ID.
constexpr db::PreparedStatement kInsertMarketTrade{
    "to_f4_insert_market",
    "WITH t AS (INSERT INTO trade (t_id, t_dts, t_st_id, t_tt_id, t_is_cash, t_s_symb, t_qty, "
    "t_bid_price, t_ca_id, t_exec_name, t_trade_price, t_chrg, t_comm, t_tax, t_lifo) VALUES "
    "(nextval('seq_trade_id'), $1, $2, $3, $4, $5, $6, $7, $8, $9, NULL, $10, $11, 0, $12) "
    "RETURNING t_id, t_dts, t_st_id) INSERT INTO trade_history (th_t_id, th_dts, th_st_id) "
    "SELECT t_id, t_dts, t_st_id FROM t RETURNING th_t_id"};
constexpr db::PreparedStatement kInsertLimitTrade{
    "to_f4_insert_limit",
    "WITH t AS (INSERT INTO trade (t_id, t_dts, t_st_id, t_tt_id, t_is_cash, t_s_symb, t_qty, "
    "t_bid_price, t_ca_id, t_exec_name, t_trade_price, t_chrg, t_comm, t_tax, t_lifo) VALUES "
    "(nextval('seq_trade_id'), $1, $2, $3, $4, $5, $6, $7, $8, $9, NULL, $10, $11, 0, $12) "
    "RETURNING t_id, t_dts, t_st_id, t_tt_id, t_s_symb, t_qty, t_bid_price), r AS (INSERT INTO "
    "trade_request (tr_t_id, tr_tt_id, tr_s_symb, tr_qty, tr_bid_price, tr_b_id) SELECT t_id, "
    "t_tt_id, t_s_symb, t_qty, t_bid_price, $13 FROM t) INSERT INTO trade_history (th_t_id, "
    "th_dts, th_st_id) SELECT t_id, t_dts, t_st_id FROM t RETURNING th_t_id"};

constexpr db::PreparedStatement kStatements[] = {
    kAccount,  kPermission, kSecurityBySymbol, kSecurityByName,    kTradeType,       kLotsFifo,
    kLotsLifo, kTaxRate,    kAssets,           kInsertMarketTrade, kInsertLimitTrade};

// Harness status codes (3.3.7.5).
constexpr int32_t kAccountNotFound = -711;
constexpr int32_t kExecutorNotAuthorized = -721;
constexpr int32_t kNoTaxOnGain = -731;
constexpr int32_t kNoCommissionRate = -732;
constexpr int32_t kNoCharge = -733;

// The server-side frames: one call of sql/trade_order.sql's function. Its columns:
enum CallColumn : int {
  kStatus,
  kTradeId,
  kBuyValue,
  kSellValue,
  kTaxAmount,
  kRequestSymbol,  // the request for the market: the security, the price, and whether it is
  kRequestPrice,   // a market order (to fill) or a limit order (to trigger)
  kRequestIsMarket,
};
constexpr std::string_view kCall = "to_call";
constexpr db::PreparedStatement kServerStatements[] = {
    {kCall,
     "SELECT * FROM bb_trade_order($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, "
     "$15)"}};

}  // namespace

std::span<const db::PreparedStatement> frames::TradeOrderStatements(FrameMode mode) {
  return ForMode(mode, kServerStatements, kStatements);
}

// Frames 1-4 in one call, then frame 5 (roll back, as the driver asked) or frame 6 (commit):
// the call's outputs come back either way.
bool frames::Prepare(const protocol::TradeOrderInput& in, ServerCall& call,
                     protocol::TradeOrderOutput&) {
  call.isolation = db::Isolation::kRepeatableRead;
  call.finish = in.roll_it_back ? db::Finish::kRollback : db::Finish::kCommit;
  call.statement = kCall;
  call.params.assign({in.acct_id, in.exec_f_name, in.exec_l_name, in.exec_tax_id, in.symbol,
                      in.co_name, in.issue, in.trade_type_id, in.trade_qty,
                      db::Param::Cents(in.requested_price), in.is_lifo, in.type_is_margin,
                      in.st_pending_id, in.st_submitted_id});
  AppendNow(call);
  return true;
}

// The request goes to the market only after a commit.
protocol::TradeOrderOutput frames::Read(const protocol::TradeOrderInput& in,
                                        const db::TxnOutcome& outcome, const db::QueryResult& row,
                                        std::vector<protocol::MarketTradeRequest>& to_market) {
  protocol::TradeOrderOutput out;
  const int32_t status = frames::CallStatus(outcome, row);
  const bool returned = row.size() == 1;  // a call that raised a status returns no row
  if (returned) {
    out.trade_id = row.Int(0, kTradeId);
    out.buy_value = row.Cents(0, kBuyValue);
    out.sell_value = row.Cents(0, kSellValue);
    out.tax_amount = row.Cents(0, kTaxAmount);
  }
  const bool intended_rollback =
      outcome.end == db::TxnEnd::kRolledBack && status == 0 && in.roll_it_back;
  out.status = MakeReplyStatus(outcome, status, intended_rollback);
  if (returned && outcome.end == db::TxnEnd::kCommitted && status == 0) {
    const bool is_market = row.Bool(0, kRequestIsMarket);
    protocol::MarketTradeRequest& request = to_market.emplace_back();
    request.trade_id = out.trade_id;
    request.symbol.assign(row.Text(0, kRequestSymbol));
    request.trade_qty = in.trade_qty;
    request.price = row.Cents(0, kRequestPrice);
    request.trade_type_id = in.trade_type_id;
    request.action = is_market ? protocol::MarketAction::kProcessOrder
                               : protocol::MarketAction::kSetLimitTrigger;
  }
  return out;
}

protocol::TradeOrderOutput FrameRunner::Run(const protocol::TradeOrderInput& in,
                                            std::vector<protocol::MarketTradeRequest>& to_market) {
  if (on_server()) {
    return frames::RunServerCall(session_, options_.max_retries, in, to_market);
  }
  protocol::TradeOrderOutput out;
  int32_t status = 0;
  protocol::MarketTradeRequest request;  // what frame 6 would send, once committed
  const db::TxnOutcome outcome =
      session_.Run(db::Isolation::kRepeatableRead, options_.max_retries, [&](db::Transaction& tx) {
        out = {};
        status = 0;

        // Frame 1.
        const db::QueryResult account = tx.Exec(kAccount.name, {in.acct_id});
        if (account.size() != 1) {
          status = kAccountNotFound;
          return db::Finish::kRollback;
        }
        const int64_t broker_id = account.Int(0, 1);
        const int64_t cust_id = account.Int(0, 2);
        const int64_t tax_status = account.Int(0, 3);
        const int64_t tier = account.Int(0, 6);

        // Frame 2: only when someone other than the owner places the order.
        if (in.exec_f_name != account.Text(0, 4) || in.exec_l_name != account.Text(0, 5) ||
            in.exec_tax_id != account.Text(0, 7)) {
          const db::QueryResult acl = tx.Exec(
              kPermission.name, {in.acct_id, in.exec_f_name, in.exec_l_name, in.exec_tax_id});
          if (acl.empty()) {
            status = kExecutorNotAuthorized;
            return db::Finish::kRollback;
          }
        }

        // Frame 3. A security that does not exist has no commission rate (-732 below).
        const db::QueryResult security =
            in.symbol.empty() ? tx.Exec(kSecurityByName.name, {in.co_name, in.issue, in.acct_id})
                              : tx.Exec(kSecurityBySymbol.name, {in.symbol, in.acct_id});
        const bool found = security.size() == 1;
        std::string_view exchange = found ? security.Text(0, 1) : std::string_view();
        request.symbol.assign(found ? security.Text(0, 3) : std::string_view(in.symbol));
        const protocol::Cents market_price = found ? security.Cents(0, 5) : 0;
        const int64_t hs_qty = found ? security.Int(0, 6) : 0;  // NULL reads as 0

        const db::QueryResult type =
            tx.Exec(kTradeType.name, {in.trade_type_id, tier, exchange, in.trade_qty});
        const bool type_found = type.size() == 1;
        const bool is_market = type_found && type.Bool(0, 0);
        const bool is_sell = type_found && type.Bool(0, 1);
        const protocol::Cents charge = type_found ? type.Cents(0, 2) : 0;
        const int64_t comm_rate = type_found ? type.Int(0, 3) : 0;  // hundredths of a percent
        const protocol::Cents price = is_market ? market_price : in.requested_price;

        // The values Trade-Result would compute if the order filled at `price` now: a sell
        // closes long lots, a buy closes short ones (clause 3.3.8, frame 2).
        int64_t buy_value = 0;
        int64_t sell_value = 0;
        if (found && ((is_sell && hs_qty > 0) || (!is_sell && hs_qty < 0))) {
          const db::QueryResult lots =
              tx.Exec(in.is_lifo ? kLotsLifo.name : kLotsFifo.name, {in.acct_id, request.symbol});
          int64_t needed = in.trade_qty;
          for (std::size_t i = 0; i < lots.size() && needed > 0; ++i) {
            const int64_t held = is_sell ? lots.Int(i, 0) : -lots.Int(i, 0);
            const int64_t closed = std::min(held, needed);
            const int64_t open_value = closed * lots.Cents(i, 1);
            const int64_t close_value = closed * price;
            buy_value += is_sell ? open_value : close_value;
            sell_value += is_sell ? close_value : open_value;
            needed -= closed;
          }
        }
        // The tax on the gain, in 1e-5 cents. The harness after frame 3 (clause 3.3.7) checks
        // the amount as computed, -731 when it is not positive; tax_amount is it rounded to cents.
        int64_t tax_e5 = 0;
        const bool taxable_gain = sell_value > buy_value && (tax_status == 1 || tax_status == 2);
        if (taxable_gain) {
          const int64_t rate_e5 = tx.Exec(kTaxRate.name, {cust_id}).Int(0, 0);
          tax_e5 = (sell_value - buy_value) * rate_e5;
        }
        if (in.type_is_margin) tx.Exec(kAssets.name, {in.acct_id});
        out.buy_value = buy_value;
        out.sell_value = sell_value;
        out.tax_amount = (tax_e5 + 50'000) / 100'000;
        if (taxable_gain && tax_e5 <= 0) {
          status = kNoTaxOnGain;
        } else if (comm_rate <= 0) {
          status = kNoCommissionRate;
        } else if (charge == 0) {
          status = kNoCharge;
        }
        if (status != 0) {
          // As the server-side frames, which roll back by raising the status: only the status.
          out = {};
          return db::Finish::kRollback;
        }

        // Between frames 3 and 4: the commission on the requested value, rounded to cents.
        const int64_t comm_amount = (int64_t{in.trade_qty} * price * comm_rate + 5'000) / 10'000;
        std::string exec_name;
        exec_name.reserve(in.exec_f_name.size() + 1 + in.exec_l_name.size());
        exec_name.append(in.exec_f_name).append(" ").append(in.exec_l_name);

        // Frame 4.
        const std::string& status_id = is_market ? in.st_submitted_id : in.st_pending_id;
        const db::Param now = db::Param::Timestamp(Now());
        const std::array<db::Param, 13> trade = {now,
                                                 status_id,
                                                 in.trade_type_id,
                                                 !in.type_is_margin,
                                                 request.symbol,
                                                 in.trade_qty,
                                                 db::Param::Cents(price),
                                                 in.acct_id,
                                                 exec_name,
                                                 db::Param::Cents(charge),
                                                 db::Param::Cents(comm_amount),
                                                 in.is_lifo,
                                                 broker_id};
        const db::QueryResult inserted =
            tx.Exec(is_market ? kInsertMarketTrade.name : kInsertLimitTrade.name,
                    std::span<const db::Param>(trade.data(), is_market ? 12 : 13));
        out.trade_id = inserted.Int(0, 0);
        request.trade_id = out.trade_id;
        request.trade_qty = in.trade_qty;
        request.price = price;
        request.trade_type_id = in.trade_type_id;
        request.action = is_market ? protocol::MarketAction::kProcessOrder
                                   : protocol::MarketAction::kSetLimitTrigger;

        // Frame 5 (roll back as the driver asked) or frame 6 (commit).
        return in.roll_it_back ? db::Finish::kRollback : db::Finish::kCommit;
      });
  const bool intended_rollback =
      outcome.end == db::TxnEnd::kRolledBack && status == 0 && in.roll_it_back;
  out.status = MakeReplyStatus(outcome, status, intended_rollback);
  if (outcome.end == db::TxnEnd::kCommitted && status == 0) {
    to_market.push_back(std::move(request));
  }
  return out;
}

}  // namespace bb::bh
