// The frames of Broker-Volume, Customer-Position, Market-Watch and Security-Detail against a
// loaded database (tests/frames_ro_fixture.h): valid inputs give outcome ok and outputs that
// agree with independent SQL over the same data, within the spec's limits and in the spec's
// order; invalid inputs give the spec's negative status and outcome invalid.
#include "tests/frames_ro_fixture.h"

namespace bb::frames_ro_test {

// ---- Broker-Volume ---------------------------------------------------------------------------

TEST_P(FramesReadOnly, BrokerVolumeSumsPendingRequestsPerBrokerOfTheSector) {
  // TRADE_REQUEST is empty after a load; queue some limit orders as Trade-Order would, for
  // the trades of a load of kSizing: all of the test's own database, the first few days of a
  // larger one (whose TRADE_REQUEST may hold a run's requests, for a run's trades).
  const int64_t last_queued =
      workload::TradeIdFromOrdinal(workload::MaxInitialTradeOrdinal(kSizing));
  Execute(fmt::format(
      "INSERT INTO trade_request SELECT t_id, 'TLB', t_s_symb, t_qty, t_bid_price, ca_b_id "
      "FROM trade JOIN customer_account ON ca_id = t_ca_id WHERE t_id % 29 = 0 AND t_id <= {}",
      last_queued));
  ASSERT_GT(Number("SELECT count(*) FROM trade_request"), 3000);
  auto runner = Runner();
  int sectors_with_several = 0;
  for (const auto& sector : workload::Sectors()) {
    SCOPED_TRACE(sector.name);
    protocol::BrokerVolumeInput in{broker_names_, std::string(sector.name)};
    auto out = runner.Run(in);
    ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
    std::map<std::string, int64_t> expected;
    for (const auto& r : Query(fmt::format(
             "SELECT b.b_name, (sum(r.tr_qty * r.tr_bid_price) * 100)::bigint "
             "FROM trade_request r, broker b WHERE b.b_id = r.tr_b_id AND r.tr_s_symb IN ("
             "  SELECT s_symb FROM security WHERE s_co_id IN ("
             "    SELECT co_id FROM company WHERE co_in_id IN ("
             "      SELECT in_id FROM industry WHERE in_sc_id = ("
             "        SELECT sc_id FROM sector WHERE sc_name = {})))) "
             "GROUP BY b.b_name",
             Quote(std::string(sector.name))))) {
      expected[r[0]] = std::stoll(r[1]);
    }
    ASSERT_EQ(out.brokers.size(), expected.size());
    EXPECT_LE(out.brokers.size(), protocol::kMaxBrokerList);
    for (std::size_t i = 0; i < out.brokers.size(); ++i) {
      EXPECT_EQ(out.brokers[i].volume, expected[out.brokers[i].broker_name])
          << out.brokers[i].broker_name;
      if (i > 0) {
        EXPECT_GE(out.brokers[i - 1].volume, out.brokers[i].volume);
      }  // descending
    }
    if (out.brokers.size() >= 2) ++sectors_with_several;
  }
  EXPECT_GE(sectors_with_several, 6);

  // Only the listed brokers count, and the list ends at its first empty name.
  const std::string sector(workload::Sectors()[0].name);
  auto some = runner.Run(protocol::BrokerVolumeInput{
      {broker_names_[0], broker_names_[1], "", broker_names_[2]}, sector});
  ASSERT_EQ(some.status.outcome, Outcome::kOk) << Describe(some.status);
  ASSERT_FALSE(some.brokers.empty());
  for (const auto& row : some.brokers) {
    EXPECT_THAT(row.broker_name, ::testing::AnyOf(broker_names_[0], broker_names_[1]));
  }
  // An unknown sector has no volume.
  auto none = runner.Run(protocol::BrokerVolumeInput{broker_names_, "No Such Sector"});
  EXPECT_EQ(none.status.outcome, Outcome::kOk) << Describe(none.status);
  EXPECT_TRUE(none.brokers.empty());
  Execute(fmt::format("DELETE FROM trade_request WHERE tr_t_id <= {}", last_queued));
}

// ---- Customer-Position -----------------------------------------------------------------------

TEST_P(FramesReadOnly, CustomerPositionMatchesTheDatabase) {
  auto customers = CustomersWithTrades(5);
  ASSERT_GT(customers.size(), customers_read_ * 9 / 10);
  auto runner = Runner();
  std::mt19937_64 rng(11);
  for (int k = 0; k < 16; ++k) {
    const int64_t c_id = customers[rng() % customers.size()];
    const auto& accounts = accounts_of_.at(c_id);
    protocol::CustomerPositionInput in;
    if (k % 2 == 0) {
      in.cust_id = c_id;
    } else {
      in.tax_id = tax_id_of_.at(c_id);
    }
    in.get_history = k % 4 < 2;
    in.acct_id_idx = static_cast<int32_t>(rng() % accounts.size());
    SCOPED_TRACE(
        fmt::format("customer {} by {} history {}", c_id, k % 2 ? "tax id" : "id", in.get_history));
    auto out = runner.Run(in);
    ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
    EXPECT_EQ(out.status.spec_status, 0);
    EXPECT_EQ(out.cust_id, c_id);
    auto c = Query(fmt::format(
        "SELECT c_l_name, c_f_name, c_tier, {}, c_ad_id, c_email_1, c_local_1 FROM customer "
        "WHERE c_id = {}",
        DaysOf("c_dob"), c_id));
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(out.l_name, c[0][0]);
    EXPECT_EQ(out.f_name, c[0][1]);
    EXPECT_EQ(out.tier, std::stoi(c[0][2]));
    EXPECT_EQ(out.dob, std::stoi(c[0][3]));
    EXPECT_EQ(out.ad_id, std::stoll(c[0][4]));
    EXPECT_EQ(out.email_1, c[0][5] == "NULL" ? "" : c[0][5]);
    EXPECT_EQ(out.phones[0].local, c[0][6] == "NULL" ? "" : c[0][6]);

    // Accounts: every one of the customer's (at most 10), assets = Σ HS_QTY × LT_PRICE,
    // ascending.
    std::map<int64_t, std::pair<int64_t, int64_t>> expected;
    for (const auto& r : Query(fmt::format(
             "SELECT ca_id, (ca_bal * 100)::bigint, (coalesce((SELECT sum(hs_qty * lt_price) "
             "FROM holding_summary, last_trade WHERE hs_ca_id = ca_id AND lt_s_symb = hs_s_symb), "
             "0) * 100)::bigint FROM customer_account WHERE ca_c_id = {}",
             c_id))) {
      expected[std::stoll(r[0])] = {std::stoll(r[1]), std::stoll(r[2])};
    }
    ASSERT_EQ(out.accounts.size(), std::min<std::size_t>(expected.size(), 10));
    for (std::size_t i = 0; i < out.accounts.size(); ++i) {
      const auto& a = out.accounts[i];
      ASSERT_TRUE(expected.count(a.acct_id)) << a.acct_id;
      EXPECT_EQ(a.cash_bal, expected[a.acct_id].first);
      EXPECT_EQ(a.asset_total, expected[a.acct_id].second);
      if (i > 0) {
        EXPECT_LE(out.accounts[i - 1].asset_total, a.asset_total);
      }
    }

    if (!in.get_history) {
      EXPECT_TRUE(out.history.empty());
      continue;
    }
    // History: the TRADE_HISTORY rows of the account's 10 most recent trades, newest first.
    const int64_t acct = out.accounts[static_cast<std::size_t>(in.acct_id_idx)].acct_id;
    std::map<int64_t, std::string> recent;  // trade -> symbol
    for (const auto& r : Query(fmt::format("SELECT t_id, t_s_symb FROM trade WHERE t_ca_id = {} "
                                           "ORDER BY t_dts DESC, t_id DESC LIMIT 10",
                                           acct))) {
      recent[std::stoll(r[0])] = r[1];
    }
    auto hist = Query(fmt::format(
        "SELECT th_t_id, {}, st_name FROM trade_history JOIN status_type ON st_id = th_st_id "
        "WHERE th_t_id IN (SELECT t_id FROM trade WHERE t_ca_id = {} ORDER BY t_dts DESC, t_id "
        "DESC LIMIT 10) ORDER BY th_dts DESC LIMIT 30",
        Micros("th_dts"), acct));
    ASSERT_EQ(out.history.size(), hist.size());
    EXPECT_GE(out.history.size(), 10u);
    EXPECT_LE(out.history.size(), protocol::kMaxPositionHistory);
    std::multiset<std::string> got_rows, want_rows;
    for (std::size_t i = 0; i < out.history.size(); ++i) {
      const auto& h = out.history[i];
      EXPECT_TRUE(recent.count(h.trade_id)) << h.trade_id;
      if (i > 0) {
        EXPECT_GE(out.history[i - 1].hist_dts, h.hist_dts);
      }
      got_rows.insert(fmt::format("{} {} {}", h.trade_id, h.hist_dts, h.trade_status));
      want_rows.insert(fmt::format("{} {} {}", hist[i][0], hist[i][1], hist[i][2]));
      auto t = recent.find(h.trade_id);
      ASSERT_NE(t, recent.end());
      EXPECT_EQ(h.symbol, t->second);
    }
    EXPECT_EQ(got_rows, want_rows);
  }
}

TEST_P(FramesReadOnly, CustomerPositionRejectsUnknownCustomersAndShortHistories) {
  auto few = AccountsWithTrades(1, 4);
  if (loaded_ && few.empty()) {
    GTEST_SKIP() << testing::kNeedsOwnDatabase
                 << ": no account read has fewer than 5 trades (at 300 trade days none has)";
  }
  auto runner = Runner();
  protocol::CustomerPositionInput unknown_id;
  unknown_id.cust_id = workload::CustomerIdFromOrdinal(sizing_.customers + 1);
  auto out = runner.Run(unknown_id);
  EXPECT_EQ(out.status.spec_status, -211);
  EXPECT_EQ(out.status.outcome, Outcome::kInvalid);

  protocol::CustomerPositionInput unknown_tax_id;
  unknown_tax_id.tax_id = "NO-SUCH-TAX-ID";
  out = runner.Run(unknown_tax_id);
  EXPECT_EQ(out.status.spec_status, -211);
  EXPECT_EQ(out.status.outcome, Outcome::kInvalid);

  // An account with fewer than 5 trades has fewer than 10 history rows: -221.
  ASSERT_FALSE(few.empty());
  const int64_t acct = few[0];
  const int64_t owner =
      Number(fmt::format("SELECT ca_c_id FROM customer_account WHERE ca_id = {}", acct));
  protocol::CustomerPositionInput in;
  in.cust_id = owner;
  out = runner.Run(in);
  ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
  auto pos = std::find_if(out.accounts.begin(), out.accounts.end(),
                          [&](const auto& a) { return a.acct_id == acct; });
  ASSERT_NE(pos, out.accounts.end());
  in.get_history = true;
  in.acct_id_idx = static_cast<int32_t>(pos - out.accounts.begin());
  out = runner.Run(in);
  EXPECT_EQ(out.status.spec_status, -221);
  EXPECT_EQ(out.status.outcome, Outcome::kInvalid);
  // An index past the account list names no account: no history, -221.
  in.acct_id_idx = static_cast<int32_t>(accounts_of_.at(owner).size());
  out = runner.Run(in);
  EXPECT_EQ(out.status.spec_status, -221);
  EXPECT_EQ(out.status.outcome, Outcome::kInvalid);
}

// Our reading of the spec's join in Customer-Position frame 1: an account without holdings is
// listed, with assets 0.
TEST_P(FramesReadOnly, CustomerPositionListsAnAccountWithoutHoldings) {
  int64_t c_id = 0;
  for (const auto& [c, accounts] : accounts_of_) {
    if (accounts.size() < 10) {
      c_id = c;
      break;
    }
  }
  ASSERT_NE(c_id, 0);
  const auto& accounts = accounts_of_.at(c_id);
  const int64_t new_acct = workload::AccountId(c_id, static_cast<int>(accounts.size()));
  ASSERT_EQ(Number(fmt::format("SELECT count(*) FROM customer_account WHERE ca_id = {}", new_acct)),
            0);
  Execute(fmt::format(
      "INSERT INTO customer_account SELECT {}, ca_b_id, ca_c_id, 'no holdings', 0, 123.45 FROM "
      "customer_account WHERE ca_id = {}",
      new_acct, accounts[0]));
  protocol::CustomerPositionInput in;
  in.cust_id = c_id;
  auto out = Runner().Run(in);
  Execute(fmt::format("DELETE FROM customer_account WHERE ca_id = {}", new_acct));
  ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
  ASSERT_EQ(out.accounts.size(), accounts.size() + 1);
  auto pos = std::find_if(out.accounts.begin(), out.accounts.end(),
                          [&](const auto& a) { return a.acct_id == new_acct; });
  ASSERT_NE(pos, out.accounts.end());
  EXPECT_EQ(pos->cash_bal, 12345);
  EXPECT_EQ(pos->asset_total, 0);
}

// ---- Market-Watch ----------------------------------------------------------------------------

// 100 × (new_cap / old_cap − 1) from rows of (S_NUM_OUT, DM_CLOSE, LT_PRICE) in cents.
double ExpectedPctChange(const std::vector<std::vector<std::string>>& rows) {
  int64_t old_cap = 0;
  int64_t new_cap = 0;
  for (const auto& r : rows) {
    old_cap += std::stoll(r[0]) * std::stoll(r[1]);
    new_cap += std::stoll(r[0]) * std::stoll(r[2]);
  }
  if (old_cap == 0) return 0;
  return 100.0 * (static_cast<long double>(new_cap) / static_cast<long double>(old_cap) - 1);
}

TEST_P(FramesReadOnly, MarketWatchMatchesTheCapitalisationChange) {
  auto runner = Runner();
  std::mt19937_64 rng(21);
  auto caps = [&](const std::string& symbols_sql, protocol::EpochDays date) {
    return Query(
        fmt::format("SELECT s.s_num_out, (d.dm_close * 100)::bigint, (l.lt_price * 100)::bigint "
                    "FROM ({}) AS w(symb) JOIN security s ON s.s_symb = w.symb "
                    "JOIN last_trade l ON l.lt_s_symb = w.symb "
                    "JOIN daily_market d ON d.dm_s_symb = w.symb AND d.dm_date = {}",
                    symbols_sql, DateLiteral(date)));
  };
  auto start_date = [&] {
    return workload::DailyMarketBaseDate().days + static_cast<int32_t>(7 * (5 + rng() % 256)) +
           static_cast<int32_t>(rng() % 5);
  };
  int nonzero = 0;
  for (int k = 0; k < 10; ++k) {
    // By watch list.
    protocol::MarketWatchInput by_customer;
    by_customer.cust_id =
        workload::CustomerIdFromOrdinal(1 + static_cast<int64_t>(rng() % sizing_.customers));
    by_customer.start_date = start_date();
    auto out = runner.Run(by_customer);
    ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
    auto rows = caps(fmt::format("SELECT wi_s_symb FROM watch_item WHERE wi_wl_id IN (SELECT "
                                 "wl_id FROM watch_list WHERE wl_c_id = {})",
                                 by_customer.cust_id),
                     by_customer.start_date);
    EXPECT_GE(rows.size(), 50u);
    EXPECT_NEAR(out.pct_change, ExpectedPctChange(rows), 1e-9) << by_customer.cust_id;
    if (out.pct_change != 0) ++nonzero;

    // By account holdings.
    protocol::MarketWatchInput by_account;
    const auto& accounts = accounts_of_.at(by_customer.cust_id);
    by_account.acct_id = accounts[rng() % accounts.size()];
    by_account.start_date = start_date();
    out = runner.Run(by_account);
    ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
    rows = caps(fmt::format("SELECT hs_s_symb FROM holding_summary WHERE hs_ca_id = {}",
                            by_account.acct_id),
                by_account.start_date);
    EXPECT_NEAR(out.pct_change, ExpectedPctChange(rows), 1e-9) << by_account.acct_id;

    // By industry, within a company-id window.
    protocol::MarketWatchInput by_industry;
    const auto& industry = workload::Industries()[rng() % workload::kIndustryCount];
    by_industry.industry_name = industry.name;
    by_industry.starting_co_id = workload::CompanyId(static_cast<int64_t>(rng() % 100));
    by_industry.ending_co_id = by_industry.starting_co_id + 4999;
    if (k % 2 == 1) by_industry.ending_co_id = by_industry.starting_co_id + 250;
    by_industry.start_date = start_date();
    out = runner.Run(by_industry);
    ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
    rows = caps(fmt::format("SELECT s_symb FROM security WHERE s_co_id IN (SELECT co_id FROM "
                            "company WHERE co_in_id = {} AND co_id BETWEEN {} AND {})",
                            Quote(std::string(industry.id)), by_industry.starting_co_id,
                            by_industry.ending_co_id),
                by_industry.start_date);
    EXPECT_NEAR(out.pct_change, ExpectedPctChange(rows), 1e-9) << industry.name;
  }
  EXPECT_GE(nonzero, 8);
}

TEST_P(FramesReadOnly, MarketWatchRejectsAnEmptySelection) {
  protocol::MarketWatchInput in;
  in.start_date = workload::DailyMarketBaseDate().days + 7;
  auto out = Runner().Run(in);
  EXPECT_EQ(out.status.spec_status, -411);
  EXPECT_EQ(out.status.outcome, Outcome::kInvalid);
}

// ---- Security-Detail -------------------------------------------------------------------------

TEST_P(FramesReadOnly, SecurityDetailMatchesTheDatabase) {
  const workload::Market market(sizing_);
  auto runner = Runner();
  std::mt19937_64 rng(31);
  for (int k = 0; k < 12; ++k) {
    protocol::SecurityDetailInput in;
    in.symbol = market.Symbol(static_cast<int64_t>(rng() % market.securities()));
    in.max_rows_to_return = 5 + static_cast<int32_t>(rng() % 16);
    in.start_day = workload::DailyMarketBaseDate().days +
                   static_cast<int32_t>(rng() % (workload::kDailyMarketDays -
                                                 static_cast<uint64_t>(in.max_rows_to_return)));
    in.access_lob_flag = k % 3 == 0;
    SCOPED_TRACE(fmt::format("{} rows {} from {} lob {}", in.symbol, in.max_rows_to_return,
                             in.start_day, in.access_lob_flag));
    auto out = runner.Run(in);
    ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
    auto s = Query(fmt::format(
        "SELECT s_name, co_id, co_name, ex_name, s_num_out, (s_pe * 100)::bigint, ex_num_symb, "
        "zc_town FROM security JOIN company ON co_id = s_co_id JOIN exchange ON ex_id = s_ex_id "
        "JOIN address ON ad_id = co_ad_id JOIN zip_code ON zc_code = ad_zc_code "
        "WHERE s_symb = {}",
        Quote(in.symbol)));
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(out.s_name, s[0][0]);
    const std::string co_id = s[0][1];
    EXPECT_EQ(out.co_name, s[0][2]);
    EXPECT_EQ(out.ex_name, s[0][3]);
    EXPECT_EQ(out.num_out, std::stoll(s[0][4]));
    EXPECT_EQ(out.pe_ratio, std::stoll(s[0][5]));
    EXPECT_EQ(out.ex_num_symb, std::stoi(s[0][6]));
    EXPECT_EQ(out.co_address.town, s[0][7]);
    EXPECT_FALSE(out.ex_address.zip.empty());

    EXPECT_EQ(out.competitors.size(),
              static_cast<std::size_t>(std::min<int64_t>(
                  3, Number("SELECT count(*) FROM company_competitor WHERE cp_co_id = " + co_id))));
    for (const auto& c : out.competitors) EXPECT_FALSE(c.co_name.empty());

    ASSERT_EQ(out.financials.size(), protocol::kMaxFinancials);
    for (std::size_t i = 1; i < out.financials.size(); ++i) {
      const auto& a = out.financials[i - 1];
      const auto& b = out.financials[i];
      EXPECT_LT(a.year * 10 + a.qtr, b.year * 10 + b.qtr);
    }
    EXPECT_EQ(out.financials[0].revenue,
              Number(fmt::format("SELECT (fi_revenue * 100)::bigint FROM financial WHERE "
                                 "fi_co_id = {} ORDER BY fi_year, fi_qtr LIMIT 1",
                                 co_id)));

    auto days = Query(fmt::format(
        "SELECT {}, (dm_close * 100)::bigint, dm_vol FROM daily_market WHERE dm_s_symb = {} AND "
        "dm_date >= {} ORDER BY dm_date LIMIT {}",
        DaysOf("dm_date"), Quote(in.symbol), DateLiteral(in.start_day), in.max_rows_to_return));
    ASSERT_EQ(out.days.size(), static_cast<std::size_t>(in.max_rows_to_return));
    ASSERT_EQ(out.days.size(), days.size());
    for (std::size_t i = 0; i < out.days.size(); ++i) {
      const auto& d = out.days[i];
      EXPECT_EQ(d.date, std::stoi(days[i][0]));
      EXPECT_EQ(d.close, std::stoll(days[i][1]));
      EXPECT_EQ(d.vol, std::stoll(days[i][2]));
      EXPECT_GE(d.date, in.start_day);
      if (i > 0) {
        EXPECT_LT(out.days[i - 1].date, d.date);
      }
      EXPECT_GE(d.close, 2000);
      EXPECT_LE(d.close, 3000);
      EXPECT_LE(d.low, d.close);
      EXPECT_GE(d.high, d.close);
    }

    EXPECT_EQ(out.last_price,
              Number(fmt::format("SELECT (lt_price * 100)::bigint FROM last_trade WHERE "
                                 "lt_s_symb = {}",
                                 Quote(in.symbol))));
    EXPECT_GE(out.last_price, 2000);
    EXPECT_LE(out.last_price, 3000);

    ASSERT_EQ(out.news.size(), protocol::kMaxNews);
    std::map<int64_t, std::vector<std::string>> news;  // by dts
    for (const auto& r : Query(fmt::format(
             "SELECT {}, ni_headline, ni_summary, ni_source, {} FROM news_item JOIN news_xref ON "
             "nx_ni_id = ni_id WHERE nx_co_id = {}",
             Micros("ni_dts"), in.access_lob_flag ? "convert_from(ni_item, 'UTF8')" : "''::text",
             co_id))) {
      news[std::stoll(r[0])] = r;
    }
    for (const auto& n : out.news) {
      ASSERT_TRUE(news.count(n.dts)) << n.dts;
      const auto& want = news[n.dts];
      EXPECT_EQ(n.src, want[3]);
      if (in.access_lob_flag) {
        EXPECT_EQ(n.item.size(), want[4].size());
        EXPECT_TRUE(n.item == want[4]);
        EXPECT_TRUE(n.headline.empty());
        EXPECT_TRUE(n.summary.empty());
      } else {
        EXPECT_TRUE(n.item.empty());
        EXPECT_EQ(n.headline, want[1]);
        EXPECT_EQ(n.summary, want[2]);
      }
    }
  }
}

TEST_P(FramesReadOnly, SecurityDetailRejectsShortDaysFinancialsAndNews) {
  const workload::Market market(sizing_);
  const std::string symbol = market.Symbol(7);
  const std::string co_id =
      Query(fmt::format("SELECT s_co_id FROM security WHERE s_symb = {}", Quote(symbol)))[0][0];
  auto runner = Runner();
  protocol::SecurityDetailInput in{symbol, 10, workload::DailyMarketBaseDate().days + 100, false};
  auto expect = [&](const protocol::SecurityDetailInput& input, int32_t status) {
    auto out = runner.Run(input);
    EXPECT_EQ(out.status.spec_status, status) << Describe(out.status);
    EXPECT_EQ(out.status.outcome, status == 0 ? Outcome::kOk : Outcome::kInvalid);
  };
  expect(in, 0);
  auto short_rows = in;
  short_rows.max_rows_to_return = 3;  // day_len 3 < 5
  expect(short_rows, -511);
  auto late = in;
  late.start_day = workload::MakeDate(2004, 12, 29).days;  // only 29, 30, 31 December remain
  expect(late, -511);
  auto unknown = in;
  unknown.symbol = "NOSUCHSYMBOL";
  expect(unknown, -511);

  // fin_len 19: -512; news_len 1: -513. Each row comes back afterwards.
  Execute("CREATE TABLE saved_financial AS SELECT * FROM financial WHERE fi_co_id = " + co_id +
          " AND fi_year = 2004 AND fi_qtr = 4");
  Execute("DELETE FROM financial WHERE fi_co_id = " + co_id + " AND fi_year = 2004 AND fi_qtr = 4");
  expect(in, -512);
  Execute("INSERT INTO financial SELECT * FROM saved_financial; DROP TABLE saved_financial");
  Execute("CREATE TABLE saved_xref AS SELECT * FROM news_xref WHERE nx_co_id = " + co_id +
          " ORDER BY nx_ni_id LIMIT 1");
  Execute("DELETE FROM news_xref WHERE (nx_ni_id, nx_co_id) IN (SELECT * FROM saved_xref)");
  expect(in, -513);
  Execute("INSERT INTO news_xref SELECT * FROM saved_xref; DROP TABLE saved_xref");
  expect(in, 0);
}

INSTANTIATE_TEST_SUITE_P(Frames, FramesReadOnly,
                         ::testing::Values(bh::FrameMode::kServer, bh::FrameMode::kClient),
                         [](const auto& info) {
                           return std::string(bh::FrameModeName(info.param));
                         });

}  // namespace bb::frames_ro_test
