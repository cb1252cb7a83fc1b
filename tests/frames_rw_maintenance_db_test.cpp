// Data-Maintenance and Trade-Cleanup against a loaded database (tests/frames_rw_fixture.h), the
// audit of loader::RunChecks after a batch of trades, and Trade-Results that collide on one
// account.
#include "common/util/clock.h"
#include "tests/frames_rw_fixture.h"

namespace bb::frames_rw_test {

// Clause 3.3.11.3, ACCOUNT_PERMISSION: the pseudo-code takes the account's first AP_ACL in
// descending order and updates the account's rows that hold it, to "1111", or to "0011" when it
// already is "1111". Accounts of two and three rows of different ACLs, where the highest is not
// on the lowest AP_TAX_ID (the row the kit changed before), and one whose highest ACL two rows
// hold.
TEST_P(FramesRw, DataMaintenanceChangesTheRowsOfTheAccountsHighestAcl) {
  // Accounts of their own for each frame mode: the database is the suite's.
  const int mode = static_cast<int>(GetParam());
  const auto account = [&](int k) {
    return Int(fmt::format("SELECT ca_id FROM customer_account ORDER BY ca_id OFFSET {} LIMIT 1",
                           900 + 10 * mode + k));
  };
  // Replaces the account's permission rows by `rows` (tax id, ACL).
  const auto set_rows = [&](int64_t acct,
                            const std::vector<std::pair<std::string, std::string>>& rows) {
    std::string sql = fmt::format("DELETE FROM account_permission WHERE ap_ca_id = {};", acct);
    for (const auto& [tax, acl] : rows) {
      sql += fmt::format(
          "INSERT INTO account_permission (ap_ca_id, ap_acl, ap_tax_id, ap_l_name, ap_f_name) "
          "VALUES ({}, '{}', '{}', 'Lee', 'Ann');",
          acct, acl, tax);
    }
    ASSERT_TRUE(conn_->Execute(sql).ok()) << sql;
  };
  // The account's rows as "TAX:ACL,..." in tax id order.
  const auto rows_of = [&](int64_t acct) {
    return Text(
        fmt::format("SELECT string_agg(ap_tax_id || ':' || ap_acl, ',' ORDER BY ap_tax_id) FROM "
                    "account_permission WHERE ap_ca_id = {}",
                    acct));
  };
  const auto maintain = [&](int64_t acct) {
    protocol::DataMaintenanceInput in;
    in.table = protocol::MaintenanceTable::kAccountPermission;
    in.acct_id = acct;
    const protocol::DataMaintenanceOutput out = runner_->Run(in);
    EXPECT_EQ(out.status.outcome, Outcome::kOk) << out.status.detail;
    return rows_of(acct);
  };

  const int64_t two = account(0), three = account(1), shared = account(2);
  ASSERT_GT(two, 0);
  // The example of issue 40: the owner's 0000 on the lower tax id, the extra person's 0001.
  set_rows(two, {{"091IC9522HC483", "0000"}, {"685ZD8459UW461", "0001"}});
  EXPECT_EQ(maintain(two), "091IC9522HC483:0000,685ZD8459UW461:1111");
  EXPECT_EQ(maintain(two), "091IC9522HC483:0000,685ZD8459UW461:0011");
  EXPECT_EQ(maintain(two), "091IC9522HC483:0000,685ZD8459UW461:1111");

  set_rows(three, {{"A1", "0000"}, {"B2", "0011"}, {"C3", "0001"}});
  EXPECT_EQ(maintain(three), "A1:0000,B2:1111,C3:0001");
  EXPECT_EQ(maintain(three), "A1:0000,B2:0011,C3:0001");

  // Two rows hold the highest ACL: both change, and then both again.
  set_rows(shared, {{"A1", "0000"}, {"B2", "1111"}, {"C3", "1111"}});
  EXPECT_EQ(maintain(shared), "A1:0000,B2:0011,C3:0011");
  EXPECT_EQ(maintain(shared), "A1:0000,B2:1111,C3:1111");
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
      // Which rows change is DataMaintenanceChangesTheRowsOfTheAccountsHighestAcl's.
      {MaintenanceTable::kAccountPermission,
       fmt::format("SELECT string_agg(ap_acl, ',' ORDER BY ap_tax_id) FROM account_permission "
                   "WHERE ap_ca_id = {}",
                   acct),
       [&](auto& in) { in.acct_id = acct; },
       {}},
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

// Clause 7.3.2 and loader/check.cpp's invariants after a batch of market and limit orders, all
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

// Clause 3.3.8: frame 2 takes trade_dts as the current time, and frames 2, 5 and 6 write it
// (the new lot's H_DTS, T_DTS, the CMPT row's TH_DTS, CT_DTS). A retried Trade-Result writes the
// time of the attempt that commits. A concurrent writer holds the holding summary row: the first
// attempt waits for it and fails to serialize when it commits; the retry begins after that
// commit, so every time the trade writes is at or after it.
TEST_P(FramesRw, RetriedTradeResultWritesTheTimeOfTheAttemptThatCommits) {
  db::Rows pick = Query(
      "SELECT hs_ca_id, hs_s_symb FROM holding_summary WHERE hs_qty > 0 AND hs_s_symb NOT IN "
      "(SELECT tr_s_symb FROM trade_request) ORDER BY md5(hs_ca_id || '/' || hs_s_symb) LIMIT 1");
  ASSERT_EQ(pick.values.size(), 1u);
  const int64_t acct = std::stoll(*pick.values[0][0]);
  const std::string symbol = *pick.values[0][1];
  std::vector<MarketTradeRequest> sent;
  const int64_t t_id = PlaceOrder(Order(acct, symbol, "TMB", 100), sent);

  auto blocker = db::Connection::Open(conninfo_);
  ASSERT_TRUE(blocker.ok());
  ASSERT_TRUE((*blocker)->Execute("BEGIN").ok());
  ASSERT_TRUE((*blocker)
                  ->Execute(fmt::format("UPDATE holding_summary SET hs_qty = hs_qty WHERE "
                                        "hs_ca_id = {} AND hs_s_symb = '{}'",
                                        acct, symbol))
                  .ok());
  const int64_t started = WallMicros();
  protocol::TradeResultOutput result;
  std::thread waiter([&] { result = runner_->Run(protocol::TradeResultInput{t_id, 2500}); });
  bool waiting = false;
  for (int i = 0; i < 200 && !waiting; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    waiting = Int("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                  "AND wait_event_type = 'Lock'") > 0;
  }
  const int64_t released = WallMicros();
  ASSERT_TRUE((*blocker)->Execute("COMMIT").ok());
  waiter.join();
  ASSERT_TRUE(waiting) << "the Trade-Result never waited for the row lock";
  ASSERT_EQ(result.status.outcome, Outcome::kOk) << result.status.detail;
  ASSERT_GE(result.status.retries, 1u) << "the first attempt committed: nothing was retried";

  // µs since the epoch of each time the trade wrote.
  auto micros = [&](const std::string& select) {
    return Int(fmt::format("SELECT (extract(epoch FROM {}) * 1000000)::bigint", select));
  };
  const int64_t t_dts = micros(fmt::format("(SELECT t_dts FROM trade WHERE t_id = {})", t_id));
  EXPECT_GE(t_dts, released) << "T_DTS is " << (released - t_dts)
                             << " µs before the retry could begin (the Trade-Result started "
                             << (released - started) << " µs before it)";
  EXPECT_EQ(
      micros(fmt::format(
          "(SELECT th_dts FROM trade_history WHERE th_t_id = {} AND th_st_id = 'CMPT')", t_id)),
      t_dts);
  EXPECT_EQ(micros(fmt::format("(SELECT h_dts FROM holding WHERE h_t_id = {})", t_id)), t_dts);
  EXPECT_EQ(micros(fmt::format("(SELECT ct_dts FROM cash_transaction WHERE ct_t_id = {})", t_id)),
            t_dts);
}

}  // namespace bb::frames_rw_test
