// The frames of Trade-Lookup, Trade-Status and Trade-Update against a loaded database
// (tests/frames_ro_fixture.h): outputs that agree with independent SQL; Trade-Update changes
// exactly the column its frame toggles and nothing else; out-of-range frames are refused; and
// every read-only transaction runs a hundred times and more with varied valid inputs without a
// single non-ok outcome.
#include "tests/frames_ro_fixture.h"

namespace bb::frames_ro_test {

// ---- Trade-Lookup ----------------------------------------------------------------------------

std::vector<int64_t> RandomTradeIds(const workload::Sizing& sizing, std::mt19937_64& rng,
                                    std::size_t count) {
  std::vector<int64_t> ids;
  const auto max = static_cast<uint64_t>(workload::MaxInitialTradeOrdinal(sizing));
  while (ids.size() < count) {
    const int64_t ordinal =
        workload::SkipAbortedTradeOrdinal(1 + static_cast<int64_t>(rng() % max));
    const int64_t id = workload::TradeIdFromOrdinal(ordinal);
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  return ids;
}

TEST_P(FramesReadOnly, TradeLookupFrame1ReturnsEveryListedTrade) {
  std::mt19937_64 rng(41);
  protocol::TradeLookupInput in;
  in.frame = 1;
  in.max_trades = 20;
  in.trade_ids = RandomTradeIds(sizing_, rng, 20);
  auto runner = Runner();
  auto out = runner.Run(in);
  ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
  EXPECT_EQ(out.frame, 1);
  ASSERT_EQ(out.trades.size(), 20u);
  for (std::size_t i = 0; i < out.trades.size(); ++i) {
    EXPECT_EQ(out.trades[i].trade_id, in.trade_ids[i]);  // in input order
    ExpectTradeInfo(out.trades[i], 1);
  }
  // A trade id that does not exist (an aborted load ordinal): num_found 19 ≠ 20.
  const int64_t aborted = workload::TradeIdFromOrdinal(workload::kAbortedTradeResidue);
  ASSERT_EQ(Number(fmt::format("SELECT count(*) FROM trade WHERE t_id = {}", aborted)), 0);
  in.trade_ids[5] = aborted;
  out = runner.Run(in);
  EXPECT_EQ(out.status.spec_status, -611);
  EXPECT_EQ(out.status.outcome, Outcome::kInvalid);
}

TEST_P(FramesReadOnly, TradeLookupFrame2ReturnsTheAccountsFirstTradesOfTheWindow) {
  auto runner = Runner();
  auto accounts = AccountsWithTrades(30, 100000);
  ASSERT_FALSE(accounts.empty());
  const auto end = workload::EndOfInitialTradesForInputs(sizing_).micros;
  for (std::size_t k = 0; k < 4; ++k) {
    const int64_t acct = accounts[k * accounts.size() / 4];
    const auto& list = by_account_.at(acct);
    protocol::TradeLookupInput in;
    in.frame = 2;
    in.max_trades = 20;
    in.acct_id = acct;
    in.start_trade_dts = list[3].dts;
    in.end_trade_dts = end;
    auto out = runner.Run(in);
    ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
    auto ids = Query(fmt::format(
        "SELECT t_id FROM trade WHERE t_ca_id = {} AND t_dts >= {} AND t_dts <= {} ORDER BY "
        "t_dts, t_id LIMIT 20",
        acct, TimestampLiteral(in.start_trade_dts), TimestampLiteral(end)));
    ASSERT_EQ(out.trades.size(), ids.size());
    EXPECT_EQ(out.trades.size(), 20u);
    for (std::size_t i = 0; i < out.trades.size(); ++i) {
      EXPECT_EQ(out.trades[i].trade_id, std::stoll(ids[i][0]));
      EXPECT_GE(out.trades[i].trade_dts, in.start_trade_dts);
      EXPECT_LE(out.trades[i].trade_dts, end);
      if (i > 0) {
        EXPECT_LE(out.trades[i - 1].trade_dts, out.trades[i].trade_dts);
      }
      ExpectTradeInfo(out.trades[i], 2);
    }
    // Both ends of the window are inclusive: trades 5..9 of the account.
    in.start_trade_dts = list[5].dts;
    in.end_trade_dts = list[9].dts;
    out = runner.Run(in);
    ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
    EXPECT_EQ(out.trades.size(),
              static_cast<std::size_t>(std::count_if(list.begin(), list.end(), [&](const auto& t) {
                return t.dts >= list[5].dts && t.dts <= list[9].dts;
              })));
    ASSERT_FALSE(out.trades.empty());
    EXPECT_EQ(out.trades.front().trade_dts, list[5].dts);
    EXPECT_EQ(out.trades.back().trade_dts, list[9].dts);
  }
  // An empty window: num_found 0 is the warning +621.
  protocol::TradeLookupInput empty;
  empty.frame = 2;
  empty.max_trades = 20;
  empty.acct_id = accounts[0];
  empty.start_trade_dts = workload::MakeTimestamp(2004, 1, 1).micros;
  empty.end_trade_dts = workload::MakeTimestamp(2004, 2, 1).micros;
  auto out = runner.Run(empty);
  EXPECT_EQ(out.status.spec_status, 621);
  EXPECT_EQ(out.status.outcome, Outcome::kWarning);
  EXPECT_TRUE(out.trades.empty());
}

TEST_P(FramesReadOnly, TradeLookupFrame3ReturnsTheSymbolsFirstTradesOfTheWindow) {
  auto runner = Runner();
  const auto end = workload::EndOfInitialTradesForInputs(sizing_).micros;
  int checked = 0;
  for (const auto& [symbol, list] : by_symbol_) {
    if (list.size() < 60 || checked == 4) continue;
    ++checked;
    protocol::TradeLookupInput in;
    in.frame = 3;
    in.max_trades = 20;
    in.symbol = symbol;
    in.start_trade_dts = list[list.size() / 3].dts;
    in.end_trade_dts = end;
    in.max_acct_id = workload::AccountId(workload::CustomerIdFromOrdinal(sizing_.customers), 9);
    auto out = runner.Run(in);
    ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
    auto ids = Query(fmt::format(
        "SELECT t_id FROM trade WHERE t_s_symb = {} AND t_dts BETWEEN {} AND {} ORDER BY t_dts, "
        "t_id LIMIT 20",
        Quote(symbol), TimestampLiteral(in.start_trade_dts), TimestampLiteral(end)));
    ASSERT_EQ(out.trades.size(), ids.size());
    EXPECT_EQ(out.trades.size(), 20u);
    for (std::size_t i = 0; i < out.trades.size(); ++i) {
      EXPECT_EQ(out.trades[i].trade_id, std::stoll(ids[i][0]));
      if (i > 0) {
        EXPECT_LE(out.trades[i - 1].trade_dts, out.trades[i].trade_dts);
      }
      ExpectTradeInfo(out.trades[i], 3);
    }
  }
  EXPECT_EQ(checked, 4);
  protocol::TradeLookupInput empty;
  empty.frame = 3;
  empty.max_trades = 20;
  empty.symbol = by_symbol_.begin()->first;
  empty.start_trade_dts = workload::MakeTimestamp(2004, 1, 1).micros;  // before every trade
  empty.end_trade_dts = workload::MakeTimestamp(2004, 2, 1).micros;
  auto out = runner.Run(empty);
  EXPECT_EQ(out.status.spec_status, 631);
  EXPECT_EQ(out.status.outcome, Outcome::kWarning);
}

TEST_P(FramesReadOnly, TradeLookupFrame4ReturnsTheHoldingHistoryOfTheFirstTrade) {
  auto runner = Runner();
  auto accounts = AccountsWithTrades(10, 100000);
  std::mt19937_64 rng(43);
  int with_several = 0;
  for (int k = 0; k < 10; ++k) {
    const int64_t acct = accounts[rng() % accounts.size()];
    const auto& list = by_account_.at(acct);
    const auto& first = list[rng() % list.size()];
    protocol::TradeLookupInput in;
    in.frame = 4;
    in.acct_id = acct;
    in.start_trade_dts = first.dts - 1;  // just before it: it is the first at or after
    auto out = runner.Run(in);
    ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
    EXPECT_EQ(out.num_trades_found, 1);
    const int64_t want_trade = Number(
        fmt::format("SELECT t_id FROM trade WHERE t_ca_id = {} AND t_dts >= {} ORDER BY t_dts, "
                    "t_id LIMIT 1",
                    acct, TimestampLiteral(in.start_trade_dts)));
    EXPECT_EQ(out.trade_id, want_trade);
    std::set<int64_t> lots;
    for (const auto& r : Query(
             fmt::format("SELECT hh_h_t_id FROM holding_history WHERE hh_t_id = {}", want_trade))) {
      lots.insert(std::stoll(r[0]));
    }
    const int64_t all_rows = Number(fmt::format(
        "SELECT count(*) FROM holding_history h WHERE EXISTS (SELECT 1 FROM holding_history x "
        "WHERE x.hh_t_id = {} AND x.hh_h_t_id = h.hh_h_t_id)",
        want_trade));
    ASSERT_EQ(out.holding_history.size(),
              static_cast<std::size_t>(std::min<int64_t>(all_rows, 20)));
    EXPECT_GE(out.holding_history.size(), 1u);
    bool touched_by_trade = false;
    for (const auto& hh : out.holding_history) {
      EXPECT_TRUE(lots.count(hh.holding_trade_id)) << hh.holding_trade_id;
      touched_by_trade |= hh.trade_id == want_trade;
    }
    EXPECT_TRUE(touched_by_trade);
    if (out.holding_history.size() > 1) ++with_several;
  }
  EXPECT_GT(with_several, 0);
  // No trade at or after the start (just after the account's last, a run's trades included):
  // the warning +641.
  protocol::TradeLookupInput late;
  late.frame = 4;
  late.acct_id = accounts[0];
  late.start_trade_dts = 1 + Number(fmt::format("SELECT max({}) FROM trade WHERE t_ca_id = {}",
                                                Micros("t_dts"), late.acct_id));
  auto out = runner.Run(late);
  EXPECT_EQ(out.status.spec_status, 641);
  EXPECT_EQ(out.status.outcome, Outcome::kWarning);
  EXPECT_EQ(out.num_trades_found, 0);
}

// ---- Trade-Status ----------------------------------------------------------------------------

TEST_P(FramesReadOnly, TradeStatusReturnsTheFiftyMostRecentTrades) {
  auto runner = Runner();
  auto accounts = AccountsWithTrades(51, 100000);
  ASSERT_GE(accounts.size(), 5u);
  for (std::size_t k = 0; k < 5; ++k) {
    const int64_t acct = accounts[k * accounts.size() / 5];
    auto out = runner.Run(protocol::TradeStatusInput{acct});
    ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
    auto want = Query(fmt::format(
        "SELECT t_id, st_name, tt_name, ex_name FROM trade JOIN status_type ON st_id = t_st_id "
        "JOIN trade_type ON tt_id = t_tt_id JOIN security ON s_symb = t_s_symb JOIN exchange ON "
        "ex_id = s_ex_id WHERE t_ca_id = {} ORDER BY t_dts DESC, t_id DESC LIMIT 50",
        acct));
    ASSERT_EQ(out.trades.size(), protocol::kMaxTradeStatus);
    ASSERT_EQ(want.size(), out.trades.size());
    for (std::size_t i = 0; i < out.trades.size(); ++i) {
      const auto& t = out.trades[i];
      EXPECT_EQ(t.trade_id, std::stoll(want[i][0]));
      EXPECT_EQ(t.status_name, want[i][1]);
      EXPECT_EQ(t.type_name, want[i][2]);
      EXPECT_EQ(t.ex_name, want[i][3]);
      if (i > 0) {
        EXPECT_GE(out.trades[i - 1].trade_dts, t.trade_dts);
      }
    }
    auto names = Query(fmt::format(
        "SELECT c_l_name, c_f_name, b_name FROM customer, customer_account, broker WHERE "
        "ca_id = {} AND c_id = ca_c_id AND b_id = ca_b_id",
        acct));
    EXPECT_EQ(out.cust_l_name, names[0][0]);
    EXPECT_EQ(out.cust_f_name, names[0][1]);
    EXPECT_EQ(out.broker_name, names[0][2]);
  }
  // Fewer than 50 trades: -911. (A loaded database of many trade days may have no such
  // account: at 300 days none has.)
  const auto few = AccountsWithTrades(1, 49);
  if (loaded_ && few.empty()) return;
  ASSERT_FALSE(few.empty());
  auto out = runner.Run(protocol::TradeStatusInput{few.front()});
  EXPECT_EQ(out.status.spec_status, -911);
  EXPECT_EQ(out.status.outcome, Outcome::kInvalid);
}

// ---- Trade-Update ----------------------------------------------------------------------------

TEST_P(FramesReadOnly, TradeUpdateFrame1TogglesExecutorNamesAndNothingElse) {
  std::mt19937_64 rng(51);
  protocol::TradeUpdateInput in;
  in.frame = 1;
  in.max_trades = 20;
  in.max_updates = 20;
  in.trade_ids = RandomTradeIds(sizing_, rng, 20);
  auto runner = Runner();
  // On a loaded database: the trades of the accounts that own them.
  const std::string scope = fmt::format(
      "SELECT t_id FROM trade WHERE t_ca_id IN (SELECT t_ca_id FROM trade WHERE t_id IN ({}))",
      fmt::join(in.trade_ids, ","));
  const Snapshot before = TakeSnapshot(scope);
  auto out = runner.Run(in);
  ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
  EXPECT_EQ(out.num_updated, 20);
  ASSERT_EQ(out.trades.size(), 20u);
  const Snapshot after = TakeSnapshot(scope);
  auto changed = ChangedRows(before.trade, after.trade, "trade");
  EXPECT_EQ(changed, std::set<int64_t>(in.trade_ids.begin(), in.trade_ids.end()));
  for (std::size_t i = 0; i < in.trade_ids.size(); ++i) {
    const int64_t id = in.trade_ids[i];
    const std::string want = ToggledExecName(before.trade.at(id).first);
    // Loaded names have none (a run's Trade-Updates may have toggled some since).
    if (!loaded_) {
      EXPECT_THAT(want, ::testing::HasSubstr(" X "));
    }
    EXPECT_EQ(after.trade.at(id).first, want);
    EXPECT_EQ(out.trades[i].exec_name, want);  // the info is read after the update
    ExpectTradeInfo(out.trades[i], 1);
  }
  EXPECT_TRUE(ChangedRows(before.settlement, after.settlement, "settlement").empty());
  EXPECT_TRUE(ChangedRows(before.cash, after.cash, "cash_transaction").empty());
  ExpectOtherTablesUnchanged(before, after);

  // Again: the names toggle back.
  out = runner.Run(in);
  ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
  const Snapshot again = TakeSnapshot(scope);
  EXPECT_TRUE(ChangedRows(before.trade, again.trade, "trade").empty());

  // max_updates 7 of 20: only the first 7 listed trades change.
  in.max_updates = 7;
  out = runner.Run(in);
  ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
  EXPECT_EQ(out.num_updated, 7);
  const Snapshot seven = TakeSnapshot(scope);
  EXPECT_EQ(ChangedRows(before.trade, seven.trade, "trade"),
            std::set<int64_t>(in.trade_ids.begin(), in.trade_ids.begin() + 7));
  out = runner.Run(in);
  ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
  EXPECT_TRUE(ChangedRows(before.trade, TakeSnapshot(scope).trade, "trade").empty());

  // A missing trade: num_found 19 ≠ 20 is -1011, and the whole frame rolls back.
  in.max_updates = 20;
  in.trade_ids[3] = workload::TradeIdFromOrdinal(workload::kAbortedTradeResidue);
  out = runner.Run(in);
  EXPECT_EQ(out.status.spec_status, -1011);
  EXPECT_EQ(out.status.outcome, Outcome::kInvalid);
  EXPECT_TRUE(ChangedRows(before.trade, TakeSnapshot(scope).trade, "trade").empty());
}

TEST_P(FramesReadOnly, TradeUpdateFrame2TogglesSettlementCashTypesAndNothingElse) {
  // An account with a margin trade among its first 20, so both toggles are exercised.
  int64_t acct = 0;
  for (const auto& [a, list] : by_account_) {
    if (list.size() < 25) continue;
    if (std::any_of(list.begin(), list.begin() + 20, [](const auto& t) { return !t.is_cash; })) {
      acct = a;
      break;
    }
  }
  ASSERT_NE(acct, 0);
  const auto& list = by_account_.at(acct);
  protocol::TradeUpdateInput in;
  in.frame = 2;
  in.max_trades = 20;
  in.max_updates = 20;
  in.acct_id = acct;
  in.start_trade_dts = list[0].dts;
  in.end_trade_dts = workload::EndOfInitialTradesForInputs(sizing_).micros;
  auto runner = Runner();
  // On a loaded database: the account's trades.
  const std::string scope = fmt::format("SELECT t_id FROM trade WHERE t_ca_id = {}", acct);
  const Snapshot before = TakeSnapshot(scope);
  auto out = runner.Run(in);
  ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
  EXPECT_EQ(out.num_updated, 20);
  ASSERT_EQ(out.trades.size(), 20u);
  const Snapshot after = TakeSnapshot(scope);
  std::set<int64_t> expected;
  for (std::size_t i = 0; i < 20; ++i) expected.insert(list[i].t_id);
  EXPECT_EQ(ChangedRows(before.settlement, after.settlement, "settlement"), expected);
  for (std::size_t i = 0; i < 20; ++i) {
    const auto& t = out.trades[i];
    EXPECT_EQ(t.trade_id, list[i].t_id);
    const std::string& old_type = before.settlement.at(t.trade_id).first;
    const std::string want = list[i].is_cash
                                 ? (old_type == "Cash Account" ? "Cash" : "Cash Account")
                                 : (old_type == "Margin Account" ? "Margin" : "Margin Account");
    EXPECT_EQ(after.settlement.at(t.trade_id).first, want);
    EXPECT_EQ(t.settlement_cash_type, want);
    ExpectTradeInfo(t, 2);
  }
  EXPECT_TRUE(ChangedRows(before.trade, after.trade, "trade").empty());
  EXPECT_TRUE(ChangedRows(before.cash, after.cash, "cash_transaction").empty());
  ExpectOtherTablesUnchanged(before, after);
  out = runner.Run(in);
  ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
  EXPECT_TRUE(ChangedRows(before.settlement, TakeSnapshot(scope).settlement, "settlement").empty());

  // Nothing in the window: num_updated 0 is the warning +1021.
  in.start_trade_dts = workload::MakeTimestamp(2004, 1, 1).micros;
  in.end_trade_dts = workload::MakeTimestamp(2004, 2, 1).micros;
  out = runner.Run(in);
  EXPECT_EQ(out.status.spec_status, 1021);
  EXPECT_EQ(out.status.outcome, Outcome::kWarning);
}

TEST_P(FramesReadOnly, TradeUpdateFrame3TogglesCashTransactionNamesAndNothingElse) {
  // A symbol with margin trades among the first 20 of the window: they are found, not updated.
  std::string symbol;
  std::size_t first = 0;
  for (const auto& [s, list] : by_symbol_) {
    for (std::size_t i = 0; i + 20 <= list.size() && symbol.empty(); i += 5) {
      const auto margin = std::count_if(list.begin() + static_cast<std::ptrdiff_t>(i),
                                        list.begin() + static_cast<std::ptrdiff_t>(i + 20),
                                        [](const auto& t) { return !t.is_cash; });
      if (margin >= 2) {
        symbol = s;
        first = i;
      }
    }
    if (!symbol.empty()) break;
  }
  ASSERT_FALSE(symbol.empty());
  const auto& list = by_symbol_.at(symbol);
  protocol::TradeUpdateInput in;
  in.frame = 3;
  in.max_trades = 20;
  in.max_updates = 20;
  in.symbol = symbol;
  in.start_trade_dts = list[first].dts;
  in.end_trade_dts = workload::EndOfInitialTradesForInputs(sizing_).micros;
  auto runner = Runner();
  // On a loaded database: the symbol's trades.
  const std::string scope =
      fmt::format("SELECT t_id FROM trade WHERE t_s_symb = {}", Quote(symbol));
  const Snapshot before = TakeSnapshot(scope);
  auto out = runner.Run(in);
  ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
  ASSERT_EQ(out.trades.size(), 20u);
  std::set<int64_t> cash_trades;
  for (const auto& t : out.trades) {
    if (t.is_cash) cash_trades.insert(t.trade_id);
  }
  EXPECT_EQ(out.num_updated, static_cast<int32_t>(cash_trades.size()));
  EXPECT_LE(cash_trades.size(), 18u);
  const Snapshot after = TakeSnapshot(scope);
  EXPECT_EQ(ChangedRows(before.cash, after.cash, "cash_transaction"), cash_trades);
  for (const auto& t : out.trades) {
    ExpectTradeInfo(t, 13);
    if (!t.is_cash) continue;
    auto r = Query(fmt::format(
        "SELECT tt_name || ' ' || t_qty || ' Shares of ' || s_name FROM trade JOIN trade_type "
        "ON tt_id = t_tt_id JOIN security ON s_symb = t_s_symb WHERE t_id = {}",
        t.trade_id));
    // Loaded names say "shares" (a run's Trade-Updates may have toggled some since).
    if (!loaded_) {
      EXPECT_THAT(before.cash.at(t.trade_id).first, ::testing::HasSubstr(" shares of "));
    }
    EXPECT_EQ(after.cash.at(t.trade_id).first, r[0][0]);
    EXPECT_EQ(t.cash_transaction_name, r[0][0]);
  }
  EXPECT_TRUE(ChangedRows(before.trade, after.trade, "trade").empty());
  EXPECT_TRUE(ChangedRows(before.settlement, after.settlement, "settlement").empty());
  ExpectOtherTablesUnchanged(before, after);
  out = runner.Run(in);
  ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
  EXPECT_TRUE(ChangedRows(before.cash, TakeSnapshot(scope).cash, "cash_transaction").empty());

  // Nothing in the window: num_updated 0 is the warning +1032.
  in.start_trade_dts = workload::MakeTimestamp(2004, 1, 1).micros;
  in.end_trade_dts = workload::MakeTimestamp(2004, 2, 1).micros;
  out = runner.Run(in);
  EXPECT_EQ(out.status.spec_status, 1032);
  EXPECT_EQ(out.status.outcome, Outcome::kWarning);
}

TEST_P(FramesReadOnly, OutOfRangeFramesAreRefused) {
  auto runner = Runner();
  protocol::TradeLookupInput tl;
  tl.frame = 5;
  auto tl_out = runner.Run(tl);
  EXPECT_EQ(tl_out.status.outcome, Outcome::kInvalid);
  EXPECT_THAT(tl_out.status.detail, ::testing::HasSubstr("frame 5"));
  protocol::TradeUpdateInput tu;
  tu.frame = 0;
  auto tu_out = runner.Run(tu);
  EXPECT_EQ(tu_out.status.outcome, Outcome::kInvalid);
  EXPECT_THAT(tu_out.status.detail, ::testing::HasSubstr("frame 0"));
}

// ---- Every transaction, many times -----------------------------------------------------------

TEST_P(FramesReadOnly, EveryTransactionRunsAHundredTimesWithoutANonOkOutcome) {
  auto runner = Runner();
  std::mt19937_64 rng(61);
  const workload::Market market(sizing_);
  auto pick = [&rng](const auto& v) -> const auto& { return v[rng() % v.size()]; };
  const auto customers = CustomersWithTrades(5);
  const auto busy_accounts = AccountsWithTrades(51, 100000);
  const auto accounts = AccountsWithTrades(1, 100000);
  std::vector<std::string> symbols;
  for (const auto& [s, list] : by_symbol_) symbols.push_back(s);
  const auto end = workload::EndOfInitialTradesForInputs(sizing_).micros;
  std::map<std::string, int> runs;
  auto check = [&](const char* txn, const protocol::ReplyStatus& status, const std::string& input) {
    ++runs[txn];
    EXPECT_EQ(status.outcome, Outcome::kOk) << txn << " " << input << ": " << Describe(status);
  };

  for (int i = 0; i < 120; ++i) {
    // Broker-Volume: a shuffled subset of the brokers, a sector.
    protocol::BrokerVolumeInput bv;
    bv.broker_list = broker_names_;
    std::shuffle(bv.broker_list.begin(), bv.broker_list.end(), rng);
    bv.broker_list.resize(5 + rng() % (broker_names_.size() - 4));
    bv.sector_name = pick(workload::Sectors()).name;
    auto bv_out = runner.Run(bv);
    check("BV", bv_out.status, bv.sector_name);
    EXPECT_LE(bv_out.brokers.size(), bv.broker_list.size());

    // Customer-Position: by id or tax id, with or without history.
    protocol::CustomerPositionInput cp;
    const int64_t c_id = pick(customers);
    if (rng() % 2) {
      cp.cust_id = c_id;
    } else {
      cp.tax_id = tax_id_of_.at(c_id);
    }
    cp.get_history = rng() % 2;
    cp.acct_id_idx = static_cast<int32_t>(rng() % accounts_of_.at(c_id).size());
    check("CP", runner.Run(cp).status, std::to_string(c_id));

    // Market-Watch: 5 % industry, 60 % watch list, 35 % account.
    protocol::MarketWatchInput mw;
    const auto mode = rng() % 100;
    if (mode < 5) {
      mw.industry_name = pick(workload::Industries()).name;
      mw.starting_co_id = workload::CompanyId(0);
      mw.ending_co_id = mw.starting_co_id + 4999;
    } else if (mode < 65) {
      mw.cust_id = pick(customers);
    } else {
      mw.acct_id = pick(accounts_of_.at(pick(customers)));
    }
    mw.start_date = workload::DailyMarketBaseDate().days +
                    static_cast<int32_t>(7 * (5 + rng() % 256) + rng() % 5);
    check("MW", runner.Run(mw).status, std::to_string(mode));

    // Security-Detail.
    protocol::SecurityDetailInput sd;
    sd.symbol = market.Symbol(static_cast<int64_t>(rng() % market.securities()));
    sd.max_rows_to_return = 5 + static_cast<int32_t>(rng() % 16);
    sd.start_day = workload::DailyMarketBaseDate().days +
                   static_cast<int32_t>(rng() % static_cast<uint64_t>(workload::kDailyMarketDays -
                                                                      sd.max_rows_to_return));
    sd.access_lob_flag = rng() % 10 == 0;
    check("SD", runner.Run(sd).status, sd.symbol);

    // Trade-Lookup: frames 30/30/30/10 %.
    protocol::TradeLookupInput tl;
    const auto tl_mode = rng() % 10;
    tl.max_trades = 20;
    if (tl_mode < 3) {
      tl.frame = 1;
      tl.trade_ids = RandomTradeIds(sizing_, rng, 20);
    } else if (tl_mode < 6) {
      tl.frame = 2;
      tl.acct_id = pick(accounts);
      tl.start_trade_dts = pick(by_account_.at(tl.acct_id)).dts;
      tl.end_trade_dts = end;
    } else if (tl_mode < 9) {
      tl.frame = 3;
      tl.symbol = pick(symbols);
      tl.start_trade_dts = pick(by_symbol_.at(tl.symbol)).dts;
      tl.end_trade_dts = end;
    } else {
      tl.frame = 4;
      tl.acct_id = pick(accounts);
      tl.start_trade_dts = pick(by_account_.at(tl.acct_id)).dts;
    }
    auto tl_out = runner.Run(tl);
    check("TL", tl_out.status, fmt::format("frame {}", tl.frame));
    EXPECT_LE(tl_out.trades.size(), 20u);

    // Trade-Status.
    check("TS", runner.Run(protocol::TradeStatusInput{pick(busy_accounts)}).status, "");

    // Trade-Update: frames 33/33/34 %; frame 3's window starts at a cash trade, so at least
    // one name is updated.
    protocol::TradeUpdateInput tu;
    tu.max_trades = 20;
    tu.max_updates = 20;
    tu.frame = 1 + static_cast<int32_t>(i % 3);
    if (tu.frame == 1) {
      tu.trade_ids = RandomTradeIds(sizing_, rng, 20);
    } else if (tu.frame == 2) {
      tu.acct_id = pick(accounts);
      tu.start_trade_dts = pick(by_account_.at(tu.acct_id)).dts;
      tu.end_trade_dts = end;
    } else {
      tu.symbol = pick(symbols);
      const auto& list = by_symbol_.at(tu.symbol);
      LoadedTrade start = pick(list);
      while (!start.is_cash) start = pick(list);
      tu.start_trade_dts = start.dts;
      tu.end_trade_dts = end;
    }
    auto tu_out = runner.Run(tu);
    check("TU", tu_out.status, fmt::format("frame {}", tu.frame));
    EXPECT_GT(tu_out.num_updated, 0);
  }
  for (const char* txn : {"BV", "CP", "MW", "SD", "TL", "TS", "TU"}) {
    EXPECT_GE(runs[txn], 100) << txn;
  }
}

}  // namespace bb::frames_ro_test
