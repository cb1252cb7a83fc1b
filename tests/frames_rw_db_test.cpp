// The trading transactions (Trade-Order, Trade-Result, Market-Feed) against a loaded database
// (tests/frames_rw_fixture.h): the rows each frame writes, the requests for the market exchange,
// the spec's status codes and outcomes.
#include "tests/frames_rw_fixture.h"

namespace bb::frames_rw_test {

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

// Each test once with the server-side frames and once with the client-side ones, on the same
// database (FramesRw/server, FramesRw/client).
INSTANTIATE_TEST_SUITE_P(Frames, FramesRw,
                         ::testing::Values(bh::FrameMode::kServer, bh::FrameMode::kClient),
                         [](const auto& info) {
                           return std::string(bh::FrameModeName(info.param));
                         });

// Inputs the spec's data never produce, on a database of their own (FramesRw's shared one must
// pass the audit of AuditHoldsAfterABatchOfOrdersAndResults, where every quantity is 100, 200,
// 400 or 800). Each suite sets the fixture's connection string when it starts.
class FramesRwOffSpec : public FramesRw {
 protected:
  static void SetUpTestSuite() {
    auto conninfo = testing::CreateFramesDatabase(
        "frames_rw_off_spec",
        workload::Sizing{.customers = 1000, .scale_factor = 500, .initial_trade_days = 1});
    ASSERT_TRUE(conninfo.ok()) << conninfo.status().message();
    conninfo_ = *conninfo;
  }

  // An account that withholds tax (status 1), whose customer's rates sum to less than 50 %, and
  // a symbol it holds long: a gain of 1 cent is taxed less than half a cent. Its oldest lot's
  // price (the first a FIFO sell closes), in cents.
  struct TaxedLot {
    int64_t acct = 0;
    std::string symbol;
    int64_t price = 0;
  };
  TaxedLot PickTaxedLot() {
    db::Rows pick = Query(
        "SELECT hs_ca_id, hs_s_symb FROM holding_summary JOIN customer_account ON ca_id = "
        "hs_ca_id WHERE ca_tax_st = 1 AND hs_qty > 0 AND (SELECT sum(tx_rate) FROM "
        "customer_taxrate JOIN taxrate ON tx_id = cx_tx_id WHERE cx_c_id = ca_c_id) < 0.5 ORDER "
        "BY hs_ca_id, hs_s_symb LIMIT 1");
    EXPECT_EQ(pick.values.size(), 1u);
    if (pick.values.size() != 1) return {};
    TaxedLot lot{std::stoll(*pick.values[0][0]), *pick.values[0][1], 0};
    lot.price = Cents(fmt::format(
        "SELECT h_price FROM holding WHERE h_ca_id = {} AND h_s_symb = '{}' ORDER BY h_dts, "
        "h_t_id LIMIT 1",
        lot.acct, lot.symbol));
    return lot;
  }
};

// Clause 3.3.8, frame 3 and the harness after it: tax_amount = (sell_value - buy_value) x the
// sum of the customer's rates, -831 when tax_amount <= 0. The check is on that amount, and
// T_TAX, whole cents, holds it rounded. A 1-share sell at 1 cent above the lot it closes: the
// tax is positive but under half a cent, so the trade completes with T_TAX 0.00 and nothing
// withheld. (Spec quantities, multiples of 100 shares at whole cents, never gain less than 1.00.)
TEST_P(FramesRwOffSpec, TradeResultTaxUnderHalfACentIsStillATax) {
  const TaxedLot lot = PickTaxedLot();
  ASSERT_GT(lot.price, 0);
  const int64_t t_id = Int(fmt::format(
      "WITH t AS (INSERT INTO trade (t_id, t_dts, t_st_id, t_tt_id, t_is_cash, t_s_symb, t_qty, "
      "t_bid_price, t_ca_id, t_exec_name, t_trade_price, t_chrg, t_comm, t_tax, t_lifo) VALUES "
      "(nextval('seq_trade_id'), now(), 'SBMT', 'TMS', true, '{}', 1, 25.00, {}, 'off-spec test', "
      "NULL, 5.00, 0, 0, false) RETURNING t_id, t_dts) INSERT INTO trade_history (th_t_id, "
      "th_dts, th_st_id) SELECT t_id, t_dts, 'SBMT' FROM t RETURNING th_t_id",
      lot.symbol, lot.acct));
  ASSERT_GT(t_id, 0);

  protocol::TradeResultOutput out = runner_->Run(protocol::TradeResultInput{t_id, lot.price + 1});
  EXPECT_EQ(out.status.spec_status, 0);
  ASSERT_EQ(out.status.outcome, Outcome::kOk) << out.status.spec_status << " " << out.status.detail;
  const std::string trade_sql = fmt::format("FROM trade WHERE t_id = {}", t_id);
  EXPECT_EQ(Text("SELECT t_st_id " + trade_sql), "CMPT");
  EXPECT_EQ(Text("SELECT t_tax " + trade_sql), "0.00");
  EXPECT_EQ(Cents(fmt::format("SELECT se_amt FROM settlement WHERE se_t_id = {}", t_id)),
            lot.price + 1 - 500 - Cents("SELECT t_comm " + trade_sql));
}

// Clause 3.3.7, frame 3 and the harness after it: Trade-Order estimates the same tax, -731
// when it is <= 0; the same rule. A limit sell of 1 share at 1 cent above the lot it would close.
TEST_P(FramesRwOffSpec, TradeOrderTaxUnderHalfACentIsStillATax) {
  const TaxedLot lot = PickTaxedLot();
  ASSERT_GT(lot.price, 0);
  std::vector<MarketTradeRequest> sent;
  protocol::TradeOrderInput order = Order(lot.acct, lot.symbol, "TLS", 1, lot.price + 1);
  protocol::TradeOrderOutput out = runner_->Run(order, sent);
  EXPECT_EQ(out.status.spec_status, 0);
  ASSERT_EQ(out.status.outcome, Outcome::kOk) << out.status.spec_status << " " << out.status.detail;
  EXPECT_EQ(out.sell_value - out.buy_value, 1);
  EXPECT_EQ(out.tax_amount, 0);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].action, MarketAction::kSetLimitTrigger);
}

INSTANTIATE_TEST_SUITE_P(Frames, FramesRwOffSpec,
                         ::testing::Values(bh::FrameMode::kServer, bh::FrameMode::kClient),
                         [](const auto& info) {
                           return std::string(bh::FrameModeName(info.param));
                         });

}  // namespace bb::frames_rw_test
