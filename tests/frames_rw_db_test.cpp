// The read-write transactions (Trade-Order, Trade-Result, Market-Feed, Data-Maintenance,
// Trade-Cleanup) against a loaded database of 1000 customers: the rows each frame writes, the
// requests for the market exchange, the spec's status codes and outcomes, the audit of
// loader::RunChecks after a batch of trades, and Trade-Results that collide on one account.
// Inputs are picked from the loaded database (a test may read it; the driver may not).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "brokerage_house/frame_runner.h"
#include "common/db/connection.h"
#include "common/db/session.h"
#include "common/workload/ids.h"
#include "loader/check.h"
#include "tests/support/frames_database.h"

namespace bb {
namespace {

using protocol::MarketAction;
using protocol::MarketTradeRequest;
using protocol::Outcome;
using ::testing::HasSubstr;

constexpr workload::Sizing kSizing{.customers = 1000, .scale_factor = 500, .initial_trade_days = 2};

struct Owner {
  std::string f_name;
  std::string l_name;
  std::string tax_id;
};

class FramesRw : public ::testing::TestWithParam<bh::FrameMode> {
 protected:
  static void SetUpTestSuite() {
    auto conninfo = testing::CreateFramesDatabase("frames_rw", kSizing);
    ASSERT_TRUE(conninfo.ok()) << conninfo.status().message();
    conninfo_ = *conninfo;
  }

  void SetUp() override {
    ASSERT_FALSE(conninfo_.empty());
    auto conn = db::Connection::Open(conninfo_);
    ASSERT_TRUE(conn.ok()) << conn.status().message();
    conn_ = std::move(conn).value();
    session_ = OpenSession();
    ASSERT_NE(session_, nullptr);
    runner_ = std::make_unique<bh::FrameRunner>(*session_, Options());
  }

  static bh::FrameOptions Options() {
    bh::FrameOptions options;
    options.mode = GetParam();
    return options;
  }

  static std::unique_ptr<db::Session> OpenSession() {
    auto session = bh::FrameRunner::OpenSession(conninfo_, GetParam());
    EXPECT_TRUE(session.ok()) << session.status().message();
    return session.ok() ? std::move(session).value() : nullptr;
  }

  db::Rows Query(const std::string& sql) {
    auto rows = conn_->Query(sql);
    EXPECT_TRUE(rows.ok()) << rows.status().message() << " in " << sql;
    return rows.ok() ? std::move(rows).value() : db::Rows{};
  }
  // The first value of the first row; "" for no row or NULL.
  std::string Text(const std::string& sql) {
    db::Rows rows = Query(sql);
    if (rows.values.empty() || !rows.values[0][0]) return "";
    return *rows.values[0][0];
  }
  int64_t Int(const std::string& sql) {
    std::string v = Text(sql);
    return v.empty() ? -1 : std::stoll(v);
  }
  // A NUMERIC(…,2) value in cents.
  int64_t Cents(const std::string& sql) {
    std::string v = Text(sql);
    if (v.empty()) return -1;
    return std::llround(std::stod(v) * 100);
  }

  Owner OwnerOf(int64_t acct_id) {
    db::Rows rows = Query(fmt::format(
        "SELECT c_f_name, c_l_name, c_tax_id FROM customer JOIN customer_account ON ca_c_id = "
        "c_id WHERE ca_id = {}",
        acct_id));
    if (rows.values.empty()) return {};
    return {*rows.values[0][0], *rows.values[0][1], *rows.values[0][2]};
  }

  protocol::TradeOrderInput Order(int64_t acct_id, const std::string& symbol,
                                  const std::string& type, int32_t qty,
                                  protocol::Cents requested_price = 2500) {
    Owner owner = OwnerOf(acct_id);
    protocol::TradeOrderInput in;
    in.acct_id = acct_id;
    in.exec_f_name = owner.f_name;
    in.exec_l_name = owner.l_name;
    in.exec_tax_id = owner.tax_id;
    in.symbol = symbol;
    in.trade_type_id = type;
    in.trade_qty = qty;
    in.requested_price = requested_price;
    in.st_pending_id = "PNDG";
    in.st_submitted_id = "SBMT";
    return in;
  }

  static protocol::MarketFeedInput Feed(const std::vector<protocol::TickerEntry>& entries) {
    protocol::MarketFeedInput in;
    in.entries = entries;
    in.status_submitted = "SBMT";
    in.type_limit_buy = "TLB";
    in.type_limit_sell = "TLS";
    in.type_stop_loss = "TSL";
    std::set<std::string> symbols;
    for (const auto& e : entries) symbols.insert(e.symbol);
    in.unique_symbols = static_cast<int32_t>(symbols.size());
    return in;
  }

  // The trade's history statuses, sorted and comma-separated.
  std::string History(int64_t t_id) {
    return Text(fmt::format(
        "SELECT string_agg(th_st_id, ',' ORDER BY th_st_id) FROM trade_history WHERE th_t_id = "
        "{}",
        t_id));
  }

  // Places an order that must commit; returns its trade id.
  int64_t PlaceOrder(const protocol::TradeOrderInput& in, std::vector<MarketTradeRequest>& sent) {
    protocol::TradeOrderOutput out = runner_->Run(in, sent);
    EXPECT_EQ(out.status.outcome, Outcome::kOk)
        << out.status.spec_status << " " << out.status.detail;
    EXPECT_EQ(out.status.spec_status, 0);
    return out.trade_id;
  }

  void CompleteTrade(int64_t t_id, protocol::Cents price) {
    protocol::TradeResultOutput out = runner_->Run(protocol::TradeResultInput{t_id, price});
    EXPECT_EQ(out.status.outcome, Outcome::kOk)
        << out.status.spec_status << " " << out.status.detail;
    EXPECT_EQ(out.status.spec_status, 0);
  }

  // A symbol no pending limit order names, that the account holds no position in.
  std::string FreshSymbol(int64_t acct_id) {
    return Text(fmt::format(
        "SELECT s_symb FROM security WHERE s_symb NOT IN (SELECT tr_s_symb FROM trade_request) "
        "AND s_symb NOT IN (SELECT hs_s_symb FROM holding_summary WHERE hs_ca_id = {}) ORDER BY "
        "md5(s_symb) LIMIT 1",
        acct_id));
  }

  static inline std::string conninfo_;
  std::unique_ptr<db::Connection> conn_;
  std::unique_ptr<db::Session> session_;
  std::unique_ptr<bh::FrameRunner> runner_;
};

// Clause 3.3.7 and clause 3.3.8: a market buy is submitted with its history and one request for the
// market; its Trade-Result completes it with a settlement, a cash transaction, a new lot and
// holding summary, the broker's totals and the account's balance.
TEST_P(FramesRw, MarketBuyIsSubmittedThenCompletedByTradeResult) {
  const int64_t acct = Int("SELECT min(ca_id) FROM customer_account WHERE ca_tax_st = 1");
  const std::string symbol = FreshSymbol(acct);
  ASSERT_FALSE(symbol.empty());
  const int64_t market_price =
      Cents(fmt::format("SELECT lt_price FROM last_trade WHERE lt_s_symb = '{}'", symbol));

  std::vector<MarketTradeRequest> sent;
  protocol::TradeOrderInput order = Order(acct, symbol, "TMB", 200, 1);
  const int64_t t_id = PlaceOrder(order, sent);
  ASSERT_GE(t_id, workload::TradeCleanupStartId(kSizing));
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].trade_id, t_id);
  EXPECT_EQ(sent[0].symbol, symbol);
  EXPECT_EQ(sent[0].trade_qty, 200);
  EXPECT_EQ(sent[0].price, market_price);  // market orders ignore the requested price
  EXPECT_EQ(sent[0].trade_type_id, "TMB");
  EXPECT_EQ(sent[0].action, MarketAction::kProcessOrder);
  const std::string trade_sql = fmt::format("FROM trade WHERE t_id = {}", t_id);
  EXPECT_EQ(Text("SELECT t_st_id " + trade_sql), "SBMT");
  EXPECT_EQ(Cents("SELECT t_bid_price " + trade_sql), market_price);
  EXPECT_EQ(Text("SELECT t_trade_price " + trade_sql), "");
  EXPECT_EQ(Text("SELECT t_is_cash " + trade_sql), "t");
  EXPECT_EQ(Text("SELECT t_exec_name " + trade_sql), order.exec_f_name + " " + order.exec_l_name);
  EXPECT_EQ(History(t_id), "SBMT");
  EXPECT_EQ(Int(fmt::format("SELECT count(*) FROM trade_request WHERE tr_t_id = {}", t_id)), 0);

  const std::string broker_sql = fmt::format(
      "FROM broker WHERE b_id = (SELECT ca_b_id FROM customer_account WHERE ca_id = {})", acct);
  const int64_t trades_before = Int("SELECT b_num_trades " + broker_sql);
  const int64_t comm_before = Cents("SELECT b_comm_total " + broker_sql);
  const std::string balance_sql =
      fmt::format("SELECT ca_bal FROM customer_account WHERE ca_id = {}", acct);
  const int64_t balance_before = Cents(balance_sql);

  protocol::TradeResultOutput result = runner_->Run(protocol::TradeResultInput{t_id, 2512});
  ASSERT_EQ(result.status.outcome, Outcome::kOk) << result.status.detail;
  EXPECT_EQ(result.acct_id, acct);
  EXPECT_EQ(result.load_unit, 0);
  EXPECT_EQ(Text("SELECT t_st_id " + trade_sql), "CMPT");
  EXPECT_EQ(Cents("SELECT t_trade_price " + trade_sql), 2512);
  EXPECT_EQ(History(t_id), "CMPT,SBMT");
  const int64_t charge = Cents("SELECT t_chrg " + trade_sql);
  const int64_t comm = Cents("SELECT t_comm " + trade_sql);
  EXPECT_GT(comm, 0);
  EXPECT_EQ(Cents("SELECT t_tax " + trade_sql), 0);  // a buy realises no gain
  const int64_t amount = -(200 * 2512 + charge + comm);
  EXPECT_EQ(Cents(fmt::format("SELECT se_amt FROM settlement WHERE se_t_id = {}", t_id)), amount);
  EXPECT_EQ(Text(fmt::format("SELECT se_cash_type = 'Cash Account' AND se_cash_due_date = "
                             "t_dts::date + 2 FROM settlement JOIN trade ON t_id = se_t_id "
                             "WHERE se_t_id = {}",
                             t_id)),
            "t");
  EXPECT_EQ(Cents(fmt::format("SELECT ct_amt FROM cash_transaction WHERE ct_t_id = {}", t_id)),
            amount);
  EXPECT_EQ(Text(fmt::format("SELECT ct_name FROM cash_transaction WHERE ct_t_id = {}", t_id)),
            Text(fmt::format("SELECT 'Market-Buy 200 shares of ' || s_name FROM security WHERE "
                             "s_symb = '{}'",
                             symbol)));
  EXPECT_EQ(Int(fmt::format("SELECT hs_qty FROM holding_summary WHERE hs_ca_id = {} AND "
                            "hs_s_symb = '{}'",
                            acct, symbol)),
            200);
  EXPECT_EQ(Text(fmt::format("SELECT h_qty || ' ' || h_price || ' ' || (h_dts = t_dts) FROM "
                             "holding JOIN trade ON t_id = h_t_id WHERE h_t_id = {}",
                             t_id)),
            "200 25.12 true");
  EXPECT_EQ(Text(fmt::format("SELECT hh_before_qty || ' ' || hh_after_qty FROM holding_history "
                             "WHERE hh_h_t_id = {0} AND hh_t_id = {0}",
                             t_id)),
            "0 200");
  EXPECT_EQ(Int("SELECT b_num_trades " + broker_sql), trades_before + 1);
  EXPECT_EQ(Cents("SELECT b_comm_total " + broker_sql), comm_before + comm);
  EXPECT_EQ(Cents(balance_sql), balance_before + amount);
  EXPECT_EQ(result.acct_bal, balance_before + amount);
}

// Clause 3.3.8 frame 2 and clause 3.3.7 frame 3: a sell larger than the long position closes every
// lot, opens a short lot for the rest, and on a taxable account (status 1) pays and withholds
// the tax on the gain; Trade-Order's estimate saw the same lots.
TEST_P(FramesRw, SellBeyondThePositionClosesEveryLotAndPaysTax) {
  db::Rows pick = Query(
      "SELECT hs_ca_id, hs_s_symb, hs_qty FROM holding_summary JOIN customer_account ON ca_id = "
      "hs_ca_id WHERE ca_tax_st = 1 AND hs_qty BETWEEN 200 AND 700 AND (SELECT count(*) FROM "
      "holding WHERE h_ca_id = hs_ca_id AND h_s_symb = hs_s_symb) >= 2 AND (SELECT sum(h_qty * "
      "h_price) FROM holding WHERE h_ca_id = hs_ca_id AND h_s_symb = hs_s_symb) < hs_qty * 29 "
      "AND hs_s_symb NOT IN (SELECT tr_s_symb FROM trade_request) ORDER BY hs_ca_id LIMIT 1");
  ASSERT_EQ(pick.values.size(), 1u);
  const int64_t acct = std::stoll(*pick.values[0][0]);
  const std::string symbol = *pick.values[0][1];
  const int32_t held = std::stoi(*pick.values[0][2]);
  const std::string lots_sql =
      fmt::format("FROM holding WHERE h_ca_id = {} AND h_s_symb = '{}'", acct, symbol);
  const int64_t cost = Cents("SELECT sum(h_qty * h_price) " + lots_sql);
  db::Rows lot_ids = Query("SELECT h_t_id, h_qty " + lots_sql);
  const int64_t rate_e5 = Int(fmt::format(
      "SELECT round(sum(tx_rate) * 100000) FROM customer_taxrate JOIN taxrate ON tx_id = "
      "cx_tx_id WHERE cx_c_id = (SELECT ca_c_id FROM customer_account WHERE ca_id = {})",
      acct));
  const int64_t market_price =
      Cents(fmt::format("SELECT lt_price FROM last_trade WHERE lt_s_symb = '{}'", symbol));

  std::vector<MarketTradeRequest> sent;
  protocol::TradeOrderInput order = Order(acct, symbol, "TMS", 800);
  protocol::TradeOrderOutput placed = runner_->Run(order, sent);
  ASSERT_EQ(placed.status.outcome, Outcome::kOk) << placed.status.detail;
  EXPECT_EQ(placed.buy_value, cost);
  EXPECT_EQ(placed.sell_value, int64_t{held} * market_price);
  if (placed.sell_value > placed.buy_value) {
    EXPECT_EQ(placed.tax_amount, ((placed.sell_value - cost) * rate_e5 + 50'000) / 100'000);
  }
  const int64_t t_id = placed.trade_id;
  CompleteTrade(t_id, 3000);

  EXPECT_EQ(Int(fmt::format("SELECT hs_qty FROM holding_summary WHERE hs_ca_id = {} AND "
                            "hs_s_symb = '{}'",
                            acct, symbol)),
            held - 800);
  EXPECT_EQ(Text("SELECT string_agg(h_t_id || ':' || h_qty, ',') " + lots_sql),
            fmt::format("{}:{}", t_id, held - 800));
  for (const auto& lot : lot_ids.values) {
    EXPECT_EQ(Text(fmt::format("SELECT hh_before_qty || ' ' || hh_after_qty FROM "
                               "holding_history WHERE hh_h_t_id = {} AND hh_t_id = {}",
                               *lot[0], t_id)),
              *lot[1] + " 0");
  }
  const int64_t tax = ((int64_t{held} * 3000 - cost) * rate_e5 + 50'000) / 100'000;
  ASSERT_GT(tax, 0);
  const std::string trade_sql = fmt::format("FROM trade WHERE t_id = {}", t_id);
  EXPECT_EQ(Cents("SELECT t_tax " + trade_sql), tax);
  const int64_t amount =
      800 * 3000 - Cents("SELECT t_chrg " + trade_sql) - Cents("SELECT t_comm " + trade_sql) - tax;
  EXPECT_EQ(Cents(fmt::format("SELECT se_amt FROM settlement WHERE se_t_id = {}", t_id)), amount);
}

// Clause 3.3.8 frame 2: a sell smaller than the newest lot reduces that lot under LIFO and
// the oldest under FIFO; the others stay as they were.
TEST_P(FramesRw, PartialSellReducesTheNewestLotUnderLifoAndTheOldestUnderFifo) {
  for (bool lifo : {true, false}) {
    SCOPED_TRACE(lifo ? "LIFO" : "FIFO");
    const char* order_by = lifo ? "h_dts DESC, h_t_id DESC" : "h_dts, h_t_id";
    db::Rows pick = Query(fmt::format(
        "SELECT hs_ca_id, hs_s_symb FROM holding_summary WHERE hs_qty > 0 AND (SELECT count(*) "
        "FROM holding "
        "WHERE h_ca_id = hs_ca_id AND h_s_symb = hs_s_symb) >= 2 AND (SELECT h_qty FROM holding "
        "WHERE h_ca_id = hs_ca_id AND h_s_symb = hs_s_symb ORDER BY {} LIMIT 1) > 100 AND "
        "hs_s_symb NOT IN (SELECT tr_s_symb FROM trade_request) ORDER BY hs_ca_id {} LIMIT 1",
        order_by, lifo ? "ASC" : "DESC"));
    ASSERT_EQ(pick.values.size(), 1u);
    const int64_t acct = std::stoll(*pick.values[0][0]);
    const std::string symbol = *pick.values[0][1];
    const std::string lots_sql = fmt::format(
        "SELECT string_agg(h_t_id || ':' || h_qty, ',' ORDER BY {}) FROM holding WHERE h_ca_id "
        "= {} AND h_s_symb = '{}'",
        order_by, acct, symbol);
    db::Rows first = Query(fmt::format(
        "SELECT h_t_id, h_qty FROM holding WHERE h_ca_id = {} AND h_s_symb = '{}' ORDER BY {} "
        "LIMIT 1",
        acct, symbol, order_by));
    const std::string lots_before = Text(lots_sql);
    const std::string first_lot = *first.values[0][0] + ":" + *first.values[0][1];
    const int32_t first_qty = std::stoi(*first.values[0][1]);

    std::vector<MarketTradeRequest> sent;
    protocol::TradeOrderInput order = Order(acct, symbol, "TMS", 100);
    order.is_lifo = lifo;
    const int64_t t_id = PlaceOrder(order, sent);
    CompleteTrade(t_id, 2400);
    std::string expected = lots_before;
    expected.replace(0, first_lot.size(),
                     fmt::format("{}:{}", *first.values[0][0], first_qty - 100));
    EXPECT_EQ(Text(lots_sql), expected);
    EXPECT_EQ(Text(fmt::format("SELECT hh_before_qty || ' ' || hh_after_qty FROM "
                               "holding_history WHERE hh_h_t_id = {} AND hh_t_id = {}",
                               *first.values[0][0], t_id)),
              fmt::format("{} {}", first_qty, first_qty - 100));
  }
}

// Clause 3.3.7 frame 4 and clause 3.3.3: limit orders wait as PNDG with a TRADE_REQUEST; a feed
// whose price crosses a limit submits exactly the orders it triggers (limit-buy and
// stop-loss at or below their limit, limit-sell at or above), and each goes back to market.
TEST_P(FramesRw, LimitOrdersPendUntilAMarketFeedTriggersThem) {
  const int64_t acct = Int("SELECT ca_id FROM customer_account ORDER BY ca_id OFFSET 7 LIMIT 1");
  const std::string symbol = FreshSymbol(acct);
  ASSERT_FALSE(symbol.empty());
  std::vector<MarketTradeRequest> sent;
  const int64_t buy = PlaceOrder(Order(acct, symbol, "TLB", 100, 2500), sent);
  const int64_t sell = PlaceOrder(Order(acct, symbol, "TLS", 200, 2800), sent);
  const int64_t stop = PlaceOrder(Order(acct, symbol, "TSL", 400, 2200), sent);
  ASSERT_EQ(sent.size(), 3u);
  for (const auto& r : sent) EXPECT_EQ(r.action, MarketAction::kSetLimitTrigger);
  EXPECT_EQ(sent[0].price, 2500);
  for (int64_t t_id : {buy, sell, stop}) {
    EXPECT_EQ(Text(fmt::format("SELECT t_st_id FROM trade WHERE t_id = {}", t_id)), "PNDG");
    EXPECT_EQ(History(t_id), "PNDG");
  }
  EXPECT_EQ(Text(fmt::format("SELECT tr_tt_id || ' ' || tr_s_symb || ' ' || tr_qty || ' ' || "
                             "tr_bid_price || ' ' || (tr_b_id = ca_b_id) FROM trade_request "
                             "JOIN customer_account ON ca_id = {} WHERE tr_t_id = {}",
                             acct, buy)),
            fmt::format("TLB {} 100 25.00 true", symbol));

  const std::string lt_sql = fmt::format("FROM last_trade WHERE lt_s_symb = '{}'", symbol);
  const int64_t volume = Int("SELECT lt_vol " + lt_sql);
  std::vector<MarketTradeRequest> triggered;
  auto feed = [&](protocol::Cents price) {
    triggered.clear();
    protocol::MarketFeedOutput out = runner_->Run(Feed({{symbol, price, 325}}), triggered);
    EXPECT_EQ(out.status.outcome, Outcome::kOk) << out.status.detail;
    EXPECT_EQ(out.num_updated, 1);
    EXPECT_EQ(out.send_len, static_cast<int32_t>(triggered.size()));
    std::set<int64_t> ids;
    for (const auto& r : triggered) {
      EXPECT_EQ(r.action, MarketAction::kProcessOrder);
      EXPECT_EQ(r.symbol, symbol);
      ids.insert(r.trade_id);
    }
    return ids;
  };
  EXPECT_EQ(feed(2600), std::set<int64_t>{});
  EXPECT_EQ(Cents("SELECT lt_price " + lt_sql), 2600);
  EXPECT_EQ(Int("SELECT lt_vol " + lt_sql), volume + 325);
  EXPECT_EQ(Int(fmt::format("SELECT count(*) FROM trade_request WHERE tr_s_symb = '{}'", symbol)),
            3);

  EXPECT_EQ(feed(2850), std::set<int64_t>{sell});
  ASSERT_EQ(triggered.size(), 1u);
  EXPECT_EQ(triggered[0].price, 2800);
  EXPECT_EQ(triggered[0].trade_qty, 200);
  EXPECT_EQ(triggered[0].trade_type_id, "TLS");
  EXPECT_EQ(Text(fmt::format("SELECT t_st_id FROM trade WHERE t_id = {}", sell)), "SBMT");
  EXPECT_EQ(History(sell), "PNDG,SBMT");

  EXPECT_EQ(feed(2100), (std::set<int64_t>{buy, stop}));
  EXPECT_EQ(Int(fmt::format("SELECT count(*) FROM trade_request WHERE tr_s_symb = '{}'", symbol)),
            0);
  EXPECT_EQ(Int("SELECT lt_vol " + lt_sql), volume + 3 * 325);

  // The triggered limit buy completes like any other trade.
  CompleteTrade(buy, 2100);
  EXPECT_EQ(History(buy), "CMPT,PNDG,SBMT");
  EXPECT_EQ(Int(fmt::format("SELECT count(*) FROM settlement WHERE se_t_id = {}", buy)), 1);
}

// Clause 3.3.3: every entry updates LAST_TRADE in turn, so each adds its volume and the last
// entry of a symbol in the feed sets its price, whatever the order of the symbols.
TEST_P(FramesRw, MarketFeedAppliesEveryEntryAndTheLastPriceOfASymbolWins) {
  db::Rows pick = Query(
      "SELECT lt_s_symb, lt_vol FROM last_trade WHERE lt_s_symb NOT IN (SELECT tr_s_symb FROM "
      "trade_request) ORDER BY md5(lt_s_symb) DESC LIMIT 2");
  ASSERT_EQ(pick.values.size(), 2u);
  const std::string a = std::min(*pick.values[0][0], *pick.values[1][0]);
  const std::string b = std::max(*pick.values[0][0], *pick.values[1][0]);
  const std::string lt_sql = "SELECT lt_price || ' ' || lt_vol FROM last_trade WHERE lt_s_symb = ";
  const int64_t a_vol = Int(fmt::format("SELECT lt_vol FROM last_trade WHERE lt_s_symb = '{}'", a));
  const int64_t b_vol = Int(fmt::format("SELECT lt_vol FROM last_trade WHERE lt_s_symb = '{}'", b));

  std::vector<MarketTradeRequest> sent;
  protocol::MarketFeedOutput out =
      runner_->Run(Feed({{b, 2600, 100}, {a, 2500, 100}, {b, 2700, 200}, {a, 2400, 300}}), sent);
  ASSERT_EQ(out.status.outcome, Outcome::kOk) << out.status.detail;
  EXPECT_EQ(out.num_updated, 4);
  EXPECT_EQ(out.send_len, 0);
  EXPECT_TRUE(sent.empty());
  EXPECT_EQ(Text(fmt::format("{}'{}'", lt_sql, a)), fmt::format("24.00 {}", a_vol + 400));
  EXPECT_EQ(Text(fmt::format("{}'{}'", lt_sql, b)), fmt::format("27.00 {}", b_vol + 300));
}

// Clause 7.2.2 (atomicity): an order rolled back on purpose leaves no rows and sends nothing.
TEST_P(FramesRw, RollItBackLeavesNoRows) {
  const int64_t acct = Int("SELECT ca_id FROM customer_account ORDER BY ca_id OFFSET 3 LIMIT 1");
  const std::string symbol = FreshSymbol(acct);
  for (const char* type : {"TMB", "TLB"}) {
    std::vector<MarketTradeRequest> sent;
    protocol::TradeOrderInput order = Order(acct, symbol, type, 400);
    order.roll_it_back = true;
    protocol::TradeOrderOutput out = runner_->Run(order, sent);
    EXPECT_EQ(out.status.outcome, Outcome::kRollback) << type << " " << out.status.detail;
    EXPECT_EQ(out.status.spec_status, 0);
    EXPECT_GT(out.trade_id, 0);
    EXPECT_TRUE(sent.empty());
    EXPECT_EQ(Int(fmt::format("SELECT (SELECT count(*) FROM trade WHERE t_id = {0}) + (SELECT "
                              "count(*) FROM trade_history WHERE th_t_id = {0}) + (SELECT "
                              "count(*) FROM trade_request WHERE tr_t_id = {0})",
                              out.trade_id)),
              0);
  }
}

// Clause 3.3.7 harness: unknown account -711, unauthorized executor -721; an authorized
// third party and a security named by company and issue are accepted.
TEST_P(FramesRw, TradeOrderChecksTheAccountAndTheExecutor) {
  const int64_t acct = Int("SELECT min(ca_id) FROM customer_account");
  const std::string symbol = FreshSymbol(acct);
  std::vector<MarketTradeRequest> sent;

  protocol::TradeOrderInput unknown = Order(acct, symbol, "TMB", 100);
  unknown.acct_id = 1;
  protocol::TradeOrderOutput out = runner_->Run(unknown, sent);
  EXPECT_EQ(out.status.spec_status, -711);
  EXPECT_EQ(out.status.outcome, Outcome::kInvalid);

  protocol::TradeOrderInput stranger = Order(acct, symbol, "TMB", 100);
  stranger.exec_f_name = "Nobody";
  stranger.exec_tax_id = "000000000";
  out = runner_->Run(stranger, sent);
  EXPECT_EQ(out.status.spec_status, -721);
  EXPECT_EQ(out.status.outcome, Outcome::kInvalid);
  EXPECT_TRUE(sent.empty());

  // A security that does not exist has no commission rate: -732, rolled back, only the status.
  const int64_t next_id = Int("SELECT last_value FROM seq_trade_id");
  out = runner_->Run(Order(acct, "NOSUCH", "TMB", 100), sent);
  EXPECT_EQ(out.status.spec_status, -732);
  EXPECT_EQ(out.status.outcome, Outcome::kInvalid);
  protocol::TradeOrderOutput only_status;
  only_status.status = out.status;
  EXPECT_EQ(out, only_status);
  EXPECT_TRUE(sent.empty());
  EXPECT_EQ(Int("SELECT last_value FROM seq_trade_id"), next_id);  // frame 4 never ran

  db::Rows third = Query(
      "SELECT ap_ca_id, ap_f_name, ap_l_name, ap_tax_id FROM account_permission JOIN "
      "customer_account ON ca_id = ap_ca_id JOIN customer ON c_id = ca_c_id WHERE ap_tax_id <> "
      "c_tax_id ORDER BY ap_ca_id LIMIT 1");
  ASSERT_EQ(third.values.size(), 1u);
  const int64_t third_acct = std::stoll(*third.values[0][0]);
  protocol::TradeOrderInput delegated = Order(third_acct, FreshSymbol(third_acct), "TMB", 100);
  delegated.exec_f_name = *third.values[0][1];
  delegated.exec_l_name = *third.values[0][2];
  delegated.exec_tax_id = *third.values[0][3];
  const int64_t t_id = PlaceOrder(delegated, sent);
  EXPECT_EQ(Text(fmt::format("SELECT t_exec_name FROM trade WHERE t_id = {}", t_id)),
            delegated.exec_f_name + " " + delegated.exec_l_name);

  db::Rows security = Query(
      "SELECT co_name, s_issue, s_symb FROM security JOIN company ON co_id = s_co_id WHERE "
      "s_issue <> 'COMMON' ORDER BY s_symb LIMIT 1");
  ASSERT_EQ(security.values.size(), 1u);
  protocol::TradeOrderInput by_name = Order(acct, "", "TMB", 100);
  by_name.co_name = *security.values[0][0];
  by_name.issue = *security.values[0][1];
  sent.clear();
  const int64_t named = PlaceOrder(by_name, sent);
  EXPECT_EQ(Text(fmt::format("SELECT t_s_symb FROM trade WHERE t_id = {}", named)),
            *security.values[0][2]);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].symbol, *security.values[0][2]);
}

// Clause 3.3.8 and clause 3.3.3 harnesses: an unknown trade is -811; a feed that updates fewer
// symbols than it names is -311 and changes nothing.
TEST_P(FramesRw, TradeResultAndMarketFeedRefuseWhatTheyCannotFind) {
  protocol::TradeResultOutput result = runner_->Run(protocol::TradeResultInput{42, 2500});
  EXPECT_EQ(result.status.spec_status, -811);
  EXPECT_EQ(result.status.outcome, Outcome::kInvalid);

  const std::string symbol = Text("SELECT min(s_symb) FROM security");
  const std::string lt_sql = fmt::format(
      "SELECT lt_price || ' ' || lt_vol FROM last_trade WHERE lt_s_symb = '{}'", symbol);
  const std::string before = Text(lt_sql);
  std::vector<MarketTradeRequest> sent;
  protocol::MarketFeedOutput out =
      runner_->Run(Feed({{symbol, 2345, 100}, {"NOSUCH", 2500, 100}}), sent);
  EXPECT_EQ(out.status.spec_status, -311);
  EXPECT_EQ(out.status.outcome, Outcome::kInvalid);
  EXPECT_EQ(out.num_updated, 0);  // a rolled-back feed reports only its status
  EXPECT_EQ(out.send_len, 0);
  EXPECT_TRUE(sent.empty());
  EXPECT_EQ(Text(lt_sql), before);
}

// Clause 3.3.11: each call changes the one table it names, as a toggle or a cycle.
TEST_P(FramesRw, DataMaintenanceUpdatesEachTable) {
  using protocol::MaintenanceTable;
  const int64_t c_id = Int("SELECT min(c_id) + 17 FROM customer");
  const int64_t co_id = Int("SELECT min(co_id) + 5 FROM company");
  const int64_t acct =
      Int(fmt::format("SELECT min(ca_id) FROM customer_account WHERE ca_c_id = {}", c_id));
  const std::string symbol = Text("SELECT min(s_symb) FROM security");
  const std::string tx_id = Text(
      "SELECT min(tx_id) FROM taxrate WHERE tx_name LIKE '% Tax %' "
      "AND tx_id NOT LIKE 'US%' AND tx_id NOT LIKE 'CN%'");
  auto run = [&](MaintenanceTable table, auto&& set) {
    protocol::DataMaintenanceInput in;
    in.table = table;
    set(in);
    protocol::DataMaintenanceOutput out = runner_->Run(in);
    EXPECT_EQ(out.status.outcome, Outcome::kOk)
        << protocol::MaintenanceTableName(table) << ": " << out.status.detail;
  };
  struct Case {
    MaintenanceTable table;
    std::string observe;  // a query whose value the call changes
    std::function<void(protocol::DataMaintenanceInput&)> set;
    std::vector<std::string> toggle;  // {a, b}: the first call gives a, or b if it was a
  };
  const std::vector<Case> cases = {
      {MaintenanceTable::kAccountPermission,
       fmt::format("SELECT ap_acl FROM account_permission WHERE ap_ca_id = {0} AND ap_tax_id = "
                   "(SELECT min(ap_tax_id) FROM account_permission WHERE ap_ca_id = {0})",
                   acct),
       [&](auto& in) { in.acct_id = acct; },
       {"1111", "0011"}},
      {MaintenanceTable::kAddress,
       fmt::format("SELECT coalesce(nullif(ad_line2, ''), '-') FROM address JOIN customer ON "
                   "c_ad_id = ad_id WHERE c_id = {}",
                   c_id),
       [&](auto& in) { in.c_id = c_id; },
       {"Apt. 10C", "Apt. 22"}},
      {MaintenanceTable::kAddress,
       fmt::format("SELECT coalesce(nullif(ad_line2, ''), '-') FROM address JOIN company ON "
                   "co_ad_id = ad_id WHERE co_id = {}",
                   co_id),
       [&](auto& in) { in.co_id = co_id; },
       {"Apt. 10C", "Apt. 22"}},
      {MaintenanceTable::kCompany,
       fmt::format("SELECT co_sp_rate FROM company WHERE co_id = {}", co_id),
       [&](auto& in) { in.co_id = co_id; },
       {"ABA", "AAA"}},
      {MaintenanceTable::kCustomer,
       fmt::format("SELECT split_part(c_email_2, '@', 2) FROM customer WHERE c_id = {}", c_id),
       [&](auto& in) { in.c_id = c_id; },
       {"mindspring.com", "earthlink.com"}},
      {MaintenanceTable::kCustomerTaxrate,
       fmt::format("SELECT cx_tx_id FROM customer_taxrate WHERE cx_c_id = {} AND (cx_tx_id LIKE "
                   "'US_' OR cx_tx_id LIKE 'CN_')",
                   c_id),
       [&](auto& in) { in.c_id = c_id; },
       {}},
      {MaintenanceTable::kDailyMarket,
       fmt::format("SELECT sum(dm_vol) FROM daily_market WHERE dm_s_symb = '{}' AND "
                   "extract(day FROM dm_date) = 3",
                   symbol),
       [&](auto& in) {
         in.symbol = symbol;
         in.day_of_month = 3;
         in.vol_incr = -2;
       },
       {}},
      {MaintenanceTable::kExchange,
       "SELECT string_agg(ex_desc, '|' ORDER BY ex_id) FROM exchange",
       [](auto&) {},
       {}},
      {MaintenanceTable::kFinancial,
       fmt::format("SELECT string_agg(extract(day FROM fi_qtr_start_date)::text, ',') FROM "
                   "financial WHERE fi_co_id = {}",
                   co_id),
       [&](auto& in) { in.co_id = co_id; },
       {}},
      {MaintenanceTable::kNewsItem,
       fmt::format("SELECT min(ni_dts) FROM news_item JOIN news_xref ON nx_ni_id = ni_id WHERE "
                   "nx_co_id = {}",
                   co_id),
       [&](auto& in) { in.co_id = co_id; },
       {}},
      {MaintenanceTable::kSecurity,
       fmt::format("SELECT s_exch_date FROM security WHERE s_symb = '{}'", symbol),
       [&](auto& in) { in.symbol = symbol; },
       {}},
      {MaintenanceTable::kTaxrate,
       fmt::format("SELECT tx_name LIKE '% tax %' FROM taxrate WHERE tx_id = '{}'", tx_id),
       [&](auto& in) { in.tx_id = tx_id; },
       {"t", "f"}},
      {MaintenanceTable::kWatchItem,
       fmt::format("SELECT string_agg(wi_s_symb, ',' ORDER BY wi_s_symb) FROM watch_item JOIN "
                   "watch_list ON wl_id = wi_wl_id WHERE wl_c_id = {}",
                   c_id),
       [&](auto& in) { in.c_id = c_id; },
       {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(protocol::MaintenanceTableName(c.table));
    const std::string before = Text(c.observe);
    ASSERT_FALSE(before.empty());
    std::vector<std::string> seen;
    for (int i = 0; i < 3; ++i) {
      run(c.table, c.set);
      seen.push_back(Text(c.observe));
      EXPECT_NE(seen.back(), i == 0 ? before : seen[seen.size() - 2]);
    }
    if (!c.toggle.empty()) {
      const std::string& a = before == c.toggle[0] ? c.toggle[1] : c.toggle[0];
      const std::string& b = before == c.toggle[0] ? c.toggle[0] : c.toggle[1];
      EXPECT_EQ(seen, (std::vector<std::string>{a, b, a})) << "from " << before;
    }
    if (c.table == MaintenanceTable::kCustomerTaxrate) {
      // US1..US5 and CN1..CN4 cyclically.
      auto next = [](std::string id) {
        const int last = id[0] == 'U' ? 5 : 4;
        id[2] = id[2] - '0' == last ? '1' : static_cast<char>(id[2] + 1);
        return id;
      };
      EXPECT_EQ(seen, (std::vector<std::string>{next(before), next(next(before)),
                                                next(next(next(before)))}));
    }
    if (c.table == MaintenanceTable::kDailyMarket) {
      const int64_t days =
          Int(fmt::format("SELECT count(*) FROM daily_market WHERE dm_s_symb = "
                          "'{}' AND extract(day FROM dm_date) = 3",
                          symbol));
      ASSERT_GT(days, 0);
      EXPECT_EQ(std::stoll(seen[2]), std::stoll(before) - 3 * 2 * days);
    }
  }

  EXPECT_THAT(Text("SELECT string_agg(ex_desc, '|') FROM exchange"), HasSubstr(" LAST UPDATED "));
  EXPECT_EQ(Int("SELECT count(*) FROM exchange WHERE ex_desc LIKE '% LAST UPDATED % LAST "
                "UPDATED %'"),
            0);
  EXPECT_EQ(Int(fmt::format("SELECT count(*) FROM financial WHERE fi_co_id = {} AND extract(day "
                            "FROM fi_qtr_start_date) NOT IN (1, 2)",
                            co_id)),
            0);
  EXPECT_EQ(Int("SELECT count(*) FROM (SELECT wi_wl_id FROM watch_item GROUP BY wi_wl_id HAVING "
                "count(*) NOT BETWEEN 50 AND 150) x"),
            0);
}

// Clause 3.3.12: pending limit orders and submitted trades of the run-time range are
// canceled with their history; completed trades stay as they are.
TEST_P(FramesRw, TradeCleanupCancelsPendingAndSubmittedTrades) {
  const int64_t acct = Int("SELECT ca_id FROM customer_account ORDER BY ca_id OFFSET 11 LIMIT 1");
  const std::string symbol = FreshSymbol(acct);
  std::vector<MarketTradeRequest> sent;
  const int64_t pending = PlaceOrder(Order(acct, symbol, "TLS", 100, 2999), sent);
  const int64_t submitted = PlaceOrder(Order(acct, symbol, "TMB", 200), sent);
  const int64_t completed = PlaceOrder(Order(acct, symbol, "TMB", 100), sent);
  CompleteTrade(completed, 2222);
  const int64_t load_trade = Int("SELECT min(t_id) FROM trade");

  protocol::TradeCleanupInput in{"CNCL", "PNDG", "SBMT", workload::TradeCleanupStartId(kSizing)};
  protocol::TradeCleanupOutput out = runner_->Run(in);
  ASSERT_EQ(out.status.outcome, Outcome::kOk) << out.status.detail;
  EXPECT_EQ(Text(fmt::format("SELECT t_st_id FROM trade WHERE t_id = {}", pending)), "CNCL");
  EXPECT_EQ(History(pending), "CNCL,PNDG,SBMT");
  EXPECT_EQ(Text(fmt::format("SELECT t_st_id FROM trade WHERE t_id = {}", submitted)), "CNCL");
  EXPECT_EQ(History(submitted), "CNCL,SBMT");
  EXPECT_EQ(Text(fmt::format("SELECT t_st_id FROM trade WHERE t_id = {}", completed)), "CMPT");
  EXPECT_EQ(History(completed), "CMPT,SBMT");
  EXPECT_EQ(Text(fmt::format("SELECT t_st_id FROM trade WHERE t_id = {}", load_trade)), "CMPT");
  EXPECT_EQ(Int("SELECT count(*) FROM trade_request"), 0);
  EXPECT_EQ(Int("SELECT count(*) FROM trade WHERE t_st_id IN ('PNDG', 'SBMT')"), 0);
  // A second run finds nothing left to do.
  EXPECT_EQ(runner_->Run(in).status.outcome, Outcome::kOk);
  EXPECT_EQ(History(pending), "CNCL,PNDG,SBMT");
}

// Clause 7.3.2 and the invariants of loader/check.cpp after a batch of market and limit orders, all
// filled: the audit's conditions that concern completed trades, holdings and brokers still hold,
// and the run-time ones (status ⇔ rows) too.
TEST_P(FramesRw, AuditHoldsAfterABatchOfOrdersAndResults) {
  db::Rows pairs = Query(
      "SELECT hs_ca_id, hs_s_symb FROM holding_summary WHERE hs_s_symb NOT IN (SELECT tr_s_symb "
      "FROM trade_request) ORDER BY md5(hs_ca_id || hs_s_symb) LIMIT 12");
  ASSERT_EQ(pairs.values.size(), 12u);
  std::mt19937 rng(20240611);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  constexpr int32_t kQuantities[] = {100, 200, 400, 800};
  const char* kMarketTypes[] = {"TMB", "TMS"};
  std::vector<MarketTradeRequest> sent;
  for (int i = 0; i < 48; ++i) {
    const auto& pair = pairs.values[static_cast<size_t>(pick(12))];
    const bool limit = i % 4 == 3;
    const std::string type = limit ? (i % 8 == 3 ? "TLB" : "TSL") : kMarketTypes[pick(2)];
    // Limits every price in 20.00-30.00 triggers: buy and stop-loss at 30.00.
    protocol::TradeOrderInput order =
        Order(std::stoll(*pair[0]), *pair[1], type, kQuantities[pick(4)], 3000);
    order.is_lifo = pick(100) < 35;
    order.type_is_margin = (type == "TMB" || type == "TLB") && pick(100) < 16;
    PlaceOrder(order, sent);
  }
  ASSERT_EQ(sent.size(), 48u);
  std::vector<protocol::TickerEntry> entries;
  for (const auto& r : sent) {
    if (r.action != MarketAction::kSetLimitTrigger) continue;
    if (std::none_of(entries.begin(), entries.end(),
                     [&](const auto& e) { return e.symbol == r.symbol; })) {
      entries.push_back({r.symbol, 2000 + pick(1001), 100});
    }
  }
  std::vector<MarketTradeRequest> triggered;
  protocol::MarketFeedOutput feed = runner_->Run(Feed(entries), triggered);
  ASSERT_EQ(feed.status.outcome, Outcome::kOk) << feed.status.detail;
  EXPECT_EQ(feed.send_len, 12);
  for (const auto& r : sent) {
    if (r.action == MarketAction::kProcessOrder) CompleteTrade(r.trade_id, 2000 + pick(1001));
  }
  for (const auto& r : triggered) CompleteTrade(r.trade_id, 2000 + pick(1001));

  auto results = loader::RunChecks(*conn_, kSizing);
  ASSERT_TRUE(results.ok()) << results.status().message();
  // After a run the audit skips the rules of a fresh load only (row counts of the growing
  // tables, every trade completed, an empty TRADE_REQUEST, LT_VOL 0) and every other rule,
  // the run-time forms of the invariants among them, holds.
  const std::vector<std::string> load_only = {
      "rows: trade =",
      "rows: trade_history",
      "rows: trade_request",
      "rows: settlement",
      "rows: cash_transaction",
      "after a load every trade is completed",
      "TRADE_REQUEST is empty after a load",
      "LAST_TRADE volumes are 0 after a load",
  };
  int applied = 0;
  for (const auto& r : *results) {
    bool expected_skip = std::any_of(load_only.begin(), load_only.end(), [&](const std::string& s) {
      return r.name.find(s) != std::string::npos;
    });
    EXPECT_EQ(r.skipped, expected_skip) << r.name;
    if (r.skipped) continue;
    ++applied;
    EXPECT_TRUE(r.passed) << r.name << ": " << r.detail;
  }
  EXPECT_GE(applied, 45);
  EXPECT_EQ(static_cast<size_t>(applied) + load_only.size(), results->size());

  // Run-time forms of the invariants: completed ⇔ trade price ⇔ one settlement; PNDG ⇔ request; the
  // history of each status; no tax, settlement or cash before completion.
  EXPECT_EQ(Int("SELECT count(*) FROM trade LEFT JOIN settlement ON se_t_id = t_id WHERE "
                "(t_st_id = 'CMPT') <> (t_trade_price IS NOT NULL) OR (t_st_id = 'CMPT') <> "
                "(se_t_id IS NOT NULL)"),
            0);
  EXPECT_EQ(Int("SELECT count(*) FROM trade LEFT JOIN trade_request ON tr_t_id = t_id WHERE "
                "(t_st_id = 'PNDG') <> (tr_t_id IS NOT NULL)"),
            0);
  EXPECT_EQ(Int("SELECT count(*) FROM trade JOIN trade_type ON tt_id = t_tt_id JOIN (SELECT "
                "th_t_id, string_agg(th_st_id, ',' ORDER BY th_st_id) AS s FROM trade_history "
                "GROUP BY th_t_id) h ON th_t_id = t_id WHERE h.s <> CASE t_st_id WHEN 'CMPT' "
                "THEN 'CMPT,' ELSE '' END || CASE t_st_id WHEN 'CNCL' THEN 'CNCL,' ELSE '' END || "
                "CASE WHEN tt_is_mrkt THEN '' ELSE 'PNDG' END || CASE WHEN t_st_id = 'PNDG' "
                "THEN '' WHEN tt_is_mrkt THEN 'SBMT' ELSE ',SBMT' END"),
            0);
  EXPECT_EQ(Int("SELECT count(*) FROM trade WHERE t_st_id <> 'CMPT' AND (t_tax <> 0 OR EXISTS "
                "(SELECT 1 FROM cash_transaction WHERE ct_t_id = t_id))"),
            0);
  EXPECT_EQ(Int("SELECT count(*) FROM last_trade WHERE lt_price NOT BETWEEN 20 AND 30"), 0);
}

// Clauses 7.4.1.3 and 7.4.2: Trade-Result is serializable. A Trade-Result that finds its holding
// summary changed under it by a concurrent transaction retries and then completes; two
// sessions completing trades of one account and symbol at once both finish, and the holdings
// add up.
TEST_P(FramesRw, TradeResultsOnOneAccountRetryAndBothComplete) {
  db::Rows pick = Query(
      "SELECT hs_ca_id, hs_s_symb, hs_qty FROM holding_summary WHERE hs_qty > 0 AND hs_s_symb "
      "NOT IN (SELECT tr_s_symb FROM trade_request) ORDER BY md5(hs_s_symb || hs_ca_id) "
      "LIMIT 1");
  ASSERT_EQ(pick.values.size(), 1u);
  const int64_t acct = std::stoll(*pick.values[0][0]);
  const std::string symbol = *pick.values[0][1];
  const int64_t held = std::stoll(*pick.values[0][2]);
  const std::string hs_sql = fmt::format(
      "SELECT hs_qty FROM holding_summary WHERE hs_ca_id = {} AND hs_s_symb = '{}'", acct, symbol);

  std::vector<MarketTradeRequest> sent;
  std::vector<int64_t> ids;
  for (int i = 0; i < 9; ++i) ids.push_back(PlaceOrder(Order(acct, symbol, "TMB", 100), sent));

  // 1. A concurrent writer holds the summary row: the Trade-Result waits, fails to serialize
  //    when the writer commits, and succeeds on its retry.
  auto blocker = db::Connection::Open(conninfo_);
  ASSERT_TRUE(blocker.ok());
  ASSERT_TRUE((*blocker)->Execute("BEGIN").ok());
  ASSERT_TRUE((*blocker)
                  ->Execute(fmt::format("UPDATE holding_summary SET hs_qty = hs_qty WHERE "
                                        "hs_ca_id = {} AND hs_s_symb = '{}'",
                                        acct, symbol))
                  .ok());
  protocol::TradeResultOutput first;
  std::thread waiter([&] { first = runner_->Run(protocol::TradeResultInput{ids[0], 2500}); });
  bool waiting = false;
  for (int i = 0; i < 200 && !waiting; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    waiting = Int("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                  "AND wait_event_type = 'Lock'") > 0;
  }
  EXPECT_TRUE(waiting) << "the Trade-Result never waited for the row lock";
  ASSERT_TRUE((*blocker)->Execute("COMMIT").ok());
  waiter.join();
  EXPECT_EQ(first.status.outcome, Outcome::kOk) << first.status.detail;
  EXPECT_GE(first.status.retries, 1u);
  EXPECT_EQ(Int(hs_sql), held + 100);

  // 2. Two sessions complete the other eight trades at the same time.
  std::atomic<int> ready{0};
  std::vector<protocol::TradeResultOutput> outputs(ids.size());
  auto complete = [&](size_t first_index) {
    auto session = OpenSession();
    if (session == nullptr) return;
    bh::FrameOptions options = Options();
    options.max_retries = 50;
    bh::FrameRunner runner(*session, options);
    ++ready;
    while (ready.load() < 2) std::this_thread::yield();
    for (size_t i = first_index; i < ids.size(); i += 2) {
      outputs[i] = runner.Run(protocol::TradeResultInput{ids[i], 2400 + static_cast<int>(i)});
    }
  };
  std::thread a(complete, 1);
  std::thread b(complete, 2);
  a.join();
  b.join();
  uint32_t retries = 0;
  for (size_t i = 1; i < ids.size(); ++i) {
    EXPECT_EQ(outputs[i].status.outcome, Outcome::kOk) << i << ": " << outputs[i].status.detail;
    retries += outputs[i].status.retries;
  }
  EXPECT_EQ(Int(hs_sql), held + 900);
  EXPECT_EQ(Int(fmt::format("SELECT sum(h_qty) FROM holding WHERE h_ca_id = {} AND h_s_symb = "
                            "'{}'",
                            acct, symbol)),
            held + 900);
  EXPECT_EQ(Int(fmt::format("SELECT count(*) FROM trade WHERE t_st_id = 'CMPT' AND t_id IN ({})",
                            fmt::join(ids, ","))),
            9);
  EXPECT_EQ(Int(fmt::format("SELECT count(*) FROM cash_transaction WHERE ct_t_id IN ({})",
                            fmt::join(ids, ","))),
            9);
  RecordProperty("concurrent_retries", static_cast<int>(retries));
}

// Each test once with the server-side frames and once with the client-side ones, on the same
// database (FramesRw/server, FramesRw/client).
INSTANTIATE_TEST_SUITE_P(Frames, FramesRw,
                         ::testing::Values(bh::FrameMode::kServer, bh::FrameMode::kClient),
                         [](const auto& info) {
                           return std::string(bh::FrameModeName(info.param));
                         });

}  // namespace
}  // namespace bb
