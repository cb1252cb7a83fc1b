// The frames of Broker-Volume, Customer-Position, Market-Watch, Security-Detail, Trade-Lookup,
// Trade-Status and Trade-Update against a loaded database (1000 customers, 2 initial trade
// days): valid inputs give outcome ok and outputs that agree with independent SQL over the same
// data, within the spec's limits and in the spec's order; invalid inputs give the spec's negative
// status and outcome invalid; Trade-Update changes exactly the column its frame toggles and
// nothing else; and every transaction runs a hundred times and more with varied valid inputs
// without a single non-ok outcome.
#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "brokerage_house/frame_runner.h"
#include "common/db/connection.h"
#include "common/db/session.h"
#include "common/protocol/transactions.h"
#include "common/workload/calendar.h"
#include "common/workload/ids.h"
#include "common/workload/industries.h"
#include "common/workload/market.h"
#include "tests/support/frames_database.h"

namespace bb {
namespace {

using protocol::Outcome;
using protocol::OutcomeName;

constexpr workload::Sizing kSizing{.customers = 1000, .scale_factor = 500, .initial_trade_days = 2};

// SQL fragments that turn a column into the protocol's units.
std::string Micros(const std::string& col) {
  return fmt::format("(extract(epoch from {}) * 1000000)::bigint", col);
}
std::string CentsOf(const std::string& col) { return fmt::format("({} * 100)::bigint", col); }
std::string DaysOf(const std::string& col) { return fmt::format("({} - date '1970-01-01')", col); }
std::string Quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') quoted += '\'';
    quoted += c;
  }
  return quoted + "'";
}
std::string DateLiteral(protocol::EpochDays days) {
  return Quote(workload::FormatDate(workload::Date{days}));
}
std::string TimestampLiteral(protocol::TimestampMicros micros) {
  return Quote(workload::FormatTimestamp(workload::Timestamp{micros}));
}

std::string Describe(const protocol::ReplyStatus& status) {
  return fmt::format("status {} outcome {} detail '{}'", status.spec_status,
                     OutcomeName(status.outcome), status.detail);
}

// The frame 1 executor-name toggle of Trade-Update, written independently of the frame's SQL.
std::string ToggledExecName(std::string name) {
  auto replace_all = [&name](const std::string& from, const std::string& to) {
    std::string result;
    std::size_t pos = 0;
    for (std::size_t hit; (hit = name.find(from, pos)) != std::string::npos;
         pos = hit + from.size()) {
      result += name.substr(pos, hit - pos) + to;
    }
    name = result + name.substr(pos);
  };
  if (name.find(" X ") != std::string::npos) {
    replace_all(" X ", " ");
  } else {
    replace_all(" ", " X ");
  }
  return name;
}

// A loaded trade, as the tests pick inputs from it.
struct LoadedTrade {
  int64_t t_id = 0;
  int64_t acct_id = 0;
  std::string symbol;
  int64_t dts = 0;
  bool is_cash = false;
};

// Per-row state of the tables Trade-Update may touch: for each row the value of the column a
// frame toggles and a hash of every other column; and one hash per other growing table.
struct Snapshot {
  std::map<int64_t, std::pair<std::string, std::string>> trade;       // exec name, rest
  std::map<int64_t, std::pair<std::string, std::string>> settlement;  // cash type, rest
  std::map<int64_t, std::pair<std::string, std::string>> cash;        // ct_name, rest
  std::map<std::string, std::string> tables;                          // table -> hash
};

// Ids whose toggled column differs; every other column must be equal (checked here).
std::set<int64_t> ChangedRows(const std::map<int64_t, std::pair<std::string, std::string>>& before,
                              const std::map<int64_t, std::pair<std::string, std::string>>& after,
                              const char* table) {
  std::set<int64_t> changed;
  EXPECT_EQ(before.size(), after.size()) << table;
  for (const auto& [id, row] : before) {
    auto it = after.find(id);
    if (it == after.end()) {
      ADD_FAILURE() << table << " row " << id << " disappeared";
      continue;
    }
    EXPECT_EQ(row.second, it->second.second) << table << " row " << id << " changed elsewhere";
    if (row.first != it->second.first) changed.insert(id);
  }
  return changed;
}

class FramesReadOnly : public ::testing::TestWithParam<bh::FrameMode> {
 protected:
  static void SetUpTestSuite() {
    auto conninfo = testing::CreateFramesDatabase("frames_ro", kSizing);
    ASSERT_TRUE(conninfo.ok()) << conninfo.status().message();
    // One session for both modes: each test runs once with each (FramesReadOnly/server, /client).
    // A statement both modes use (Trade-Result's guard) is prepared once.
    std::vector<db::PreparedStatement> statements;
    for (auto mode : {bh::FrameMode::kServer, bh::FrameMode::kClient}) {
      for (const db::PreparedStatement& s : bh::FrameRunner::Statements(mode)) {
        if (std::none_of(statements.begin(), statements.end(),
                         [&](const db::PreparedStatement& t) { return t.name == s.name; })) {
          statements.push_back(s);
        }
      }
    }
    auto session = db::Session::Open(*conninfo, statements);
    ASSERT_TRUE(session.ok()) << session.status().message();
    session_ = std::move(session).value();
    auto conn = db::Connection::Open(*conninfo);
    ASSERT_TRUE(conn.ok()) << conn.status().message();
    conn_ = std::move(conn).value();

    for (const auto& r :
         Query(fmt::format("SELECT t_id, t_ca_id, t_s_symb, {}, t_is_cash FROM trade ORDER BY t_id",
                           Micros("t_dts")))) {
      trades_.push_back({std::stoll(r[0]), std::stoll(r[1]), r[2], std::stoll(r[3]), r[4] == "t"});
    }
    for (const auto& t : trades_) {
      by_account_[t.acct_id].push_back(t);
      by_symbol_[t.symbol].push_back(t);
    }
    auto by_time = [](const LoadedTrade& a, const LoadedTrade& b) {
      return a.dts != b.dts ? a.dts < b.dts : a.t_id < b.t_id;
    };
    for (auto& [acct, list] : by_account_) std::sort(list.begin(), list.end(), by_time);
    for (auto& [symbol, list] : by_symbol_) std::sort(list.begin(), list.end(), by_time);
    for (const auto& r : Query("SELECT ca_c_id, ca_id FROM customer_account ORDER BY ca_id")) {
      accounts_of_[std::stoll(r[0])].push_back(std::stoll(r[1]));
    }
    for (const auto& r : Query("SELECT c_id, c_tax_id FROM customer")) {
      tax_id_of_[std::stoll(r[0])] = r[1];
    }
    for (const auto& r : Query("SELECT b_name FROM broker ORDER BY b_id")) {
      broker_names_.push_back(r[0]);
    }
  }

  static void TearDownTestSuite() {
    session_.reset();
    conn_.reset();
  }

  void SetUp() override {
    ASSERT_NE(session_, nullptr) << "the database was not loaded";
    ASSERT_NE(conn_, nullptr);
    ASSERT_FALSE(trades_.empty());
  }

  static std::vector<std::vector<std::string>> Query(const std::string& sql) {
    std::vector<std::vector<std::string>> out;
    auto rows = conn_->Query(sql);
    EXPECT_TRUE(rows.ok()) << rows.status().message() << "\n" << sql;
    if (!rows.ok()) return out;
    for (const auto& r : rows->values) {
      auto& row = out.emplace_back();
      for (const auto& v : r) row.push_back(v.value_or("NULL"));
    }
    return out;
  }
  static int64_t Number(const std::string& sql) {
    auto rows = Query(sql);
    EXPECT_EQ(rows.size(), 1u) << sql;
    return rows.empty() || rows[0][0] == "NULL" ? -1 : std::stoll(rows[0][0]);
  }
  static void Execute(const std::string& sql) {
    Status s = conn_->Execute(sql);
    ASSERT_TRUE(s.ok()) << s.message() << "\n" << sql;
  }

  bh::FrameRunner Runner() {
    bh::FrameOptions options;
    options.mode = GetParam();
    return bh::FrameRunner(*session_, options);
  }

  // Customers whose every account has at least `min_trades` trades.
  static std::vector<int64_t> CustomersWithTrades(std::size_t min_trades) {
    std::vector<int64_t> customers;
    for (const auto& [c_id, accounts] : accounts_of_) {
      bool all = std::all_of(accounts.begin(), accounts.end(), [&](int64_t a) {
        auto it = by_account_.find(a);
        return it != by_account_.end() && it->second.size() >= min_trades;
      });
      if (all) customers.push_back(c_id);
    }
    return customers;
  }
  static std::vector<int64_t> AccountsWithTrades(std::size_t min_trades, std::size_t max_trades) {
    std::vector<int64_t> accounts;
    for (const auto& [acct, list] : by_account_) {
      if (list.size() >= min_trades && list.size() <= max_trades) accounts.push_back(acct);
    }
    return accounts;
  }

  // What the database says about one trade, in the units of TradeInfo; checks the fields
  // `frame` returns (1-3; 13 for Trade-Update frame 3, which adds S_NAME and TT_NAME).
  static void ExpectTradeInfo(const protocol::TradeInfo& got, int frame) {
    SCOPED_TRACE(fmt::format("trade {} frame {}", got.trade_id, frame));
    auto rows = Query(fmt::format(
        "SELECT t_exec_name, t_is_cash, tt_is_mrkt, {}, {}, t_ca_id, t_qty, {}, t_tt_id, s_name, "
        "tt_name, {}, {}, se_cash_type, {}, {}, ct_name "
        "FROM trade JOIN trade_type ON tt_id = t_tt_id JOIN security ON s_symb = t_s_symb "
        "LEFT JOIN settlement ON se_t_id = t_id LEFT JOIN cash_transaction ON ct_t_id = t_id "
        "WHERE t_id = {}",
        CentsOf("t_bid_price"), CentsOf("t_trade_price"), Micros("t_dts"), CentsOf("se_amt"),
        DaysOf("se_cash_due_date"), CentsOf("ct_amt"), Micros("ct_dts"), got.trade_id));
    ASSERT_EQ(rows.size(), 1u);
    const auto& r = rows[0];
    EXPECT_EQ(got.exec_name, r[0]);
    EXPECT_EQ(got.is_cash, r[1] == "t");
    ASSERT_TRUE(got.trade_price.has_value());  // every loaded trade is completed
    EXPECT_EQ(*got.trade_price, std::stoll(r[4]));
    EXPECT_GE(*got.trade_price, 2000);
    EXPECT_LE(*got.trade_price, 3000);
    if (frame == 1) {
      EXPECT_EQ(got.is_market, r[2] == "t");
      EXPECT_EQ(got.bid_price, std::stoll(r[3]));
    }
    if (frame == 2) {
      EXPECT_EQ(got.bid_price, std::stoll(r[3]));
      EXPECT_EQ(got.trade_dts, std::stoll(r[7]));
    }
    if (frame == 3 || frame == 13) {
      EXPECT_EQ(got.acct_id, std::stoll(r[5]));
      EXPECT_EQ(got.quantity, std::stoi(r[6]));
      EXPECT_EQ(got.trade_dts, std::stoll(r[7]));
      EXPECT_EQ(got.trade_type, r[8]);
    }
    if (frame == 13) {
      EXPECT_EQ(got.s_name, r[9]);
      EXPECT_EQ(got.type_name, r[10]);
    } else {
      EXPECT_EQ(got.s_name, "");
    }
    EXPECT_EQ(got.settlement_amount, std::stoll(r[11]));
    EXPECT_EQ(got.settlement_cash_due_date, std::stoi(r[12]));
    EXPECT_EQ(got.settlement_cash_type, r[13]);
    if (r[1] == "t") {
      EXPECT_EQ(got.cash_transaction_amount, std::stoll(r[14]));
      EXPECT_EQ(got.cash_transaction_dts, std::stoll(r[15]));
      EXPECT_EQ(got.cash_transaction_name, r[16]);
    } else {
      EXPECT_EQ(got.cash_transaction_name, "");
    }
    auto history = Query(fmt::format(
        "SELECT {}, th_st_id FROM trade_history WHERE th_t_id = {} ORDER BY th_dts LIMIT 3",
        Micros("th_dts"), got.trade_id));
    ASSERT_EQ(got.history.size(), history.size());
    EXPECT_GE(got.history.size(), 2u);  // SBMT and CMPT at least
    for (std::size_t i = 0; i < history.size(); ++i) {
      EXPECT_EQ(got.history[i].dts, std::stoll(history[i][0]));
      EXPECT_EQ(got.history[i].status_id, history[i][1]);
    }
  }

  static Snapshot TakeSnapshot() {
    Snapshot s;
    for (const auto& r :
         Query("SELECT t_id, t_exec_name, md5(row(t_id, t_dts, t_st_id, t_tt_id, t_is_cash, "
               "t_s_symb, t_qty, t_bid_price, t_ca_id, t_trade_price, t_chrg, t_comm, t_tax, "
               "t_lifo)::text) FROM trade")) {
      s.trade[std::stoll(r[0])] = {r[1], r[2]};
    }
    for (const auto& r :
         Query("SELECT se_t_id, se_cash_type, md5(row(se_t_id, se_cash_due_date, se_amt)::text) "
               "FROM settlement")) {
      s.settlement[std::stoll(r[0])] = {r[1], r[2]};
    }
    for (const auto& r :
         Query("SELECT ct_t_id, ct_name, md5(row(ct_t_id, ct_dts, ct_amt)::text) FROM "
               "cash_transaction")) {
      s.cash[std::stoll(r[0])] = {r[1], r[2]};
    }
    for (const char* table :
         {"trade_history", "trade_request", "holding", "holding_history", "holding_summary",
          "customer_account", "broker", "last_trade", "security", "customer"}) {
      s.tables[table] = Query(fmt::format(
          "SELECT md5(string_agg(x::text, ',' ORDER BY x::text)) FROM {} AS x", table))[0][0];
    }
    return s;
  }
  static void ExpectOtherTablesUnchanged(const Snapshot& before, const Snapshot& after) {
    for (const auto& [table, hash] : before.tables) {
      EXPECT_EQ(hash, after.tables.at(table)) << table << " changed";
    }
  }

  static inline std::unique_ptr<db::Session> session_;
  static inline std::unique_ptr<db::Connection> conn_;
  static inline std::vector<LoadedTrade> trades_;
  static inline std::map<int64_t, std::vector<LoadedTrade>> by_account_;  // by dts, t_id
  static inline std::map<std::string, std::vector<LoadedTrade>> by_symbol_;
  static inline std::map<int64_t, std::vector<int64_t>> accounts_of_;  // customer -> accounts
  static inline std::map<int64_t, std::string> tax_id_of_;
  static inline std::vector<std::string> broker_names_;
};

// ---- Broker-Volume ---------------------------------------------------------------------------

TEST_P(FramesReadOnly, BrokerVolumeSumsPendingRequestsPerBrokerOfTheSector) {
  // TRADE_REQUEST is empty after a load; queue some limit orders as Trade-Order would.
  Execute(
      "INSERT INTO trade_request SELECT t_id, 'TLB', t_s_symb, t_qty, t_bid_price, ca_b_id "
      "FROM trade JOIN customer_account ON ca_id = t_ca_id WHERE t_id % 29 = 0");
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
  Execute("DELETE FROM trade_request");
}

// ---- Customer-Position -----------------------------------------------------------------------

TEST_P(FramesReadOnly, CustomerPositionMatchesTheDatabase) {
  auto customers = CustomersWithTrades(5);
  ASSERT_GT(customers.size(), 900u);
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
    const auto& list = by_account_.at(acct);
    std::set<int64_t> recent;
    for (std::size_t i = list.size() >= 10 ? list.size() - 10 : 0; i < list.size(); ++i) {
      recent.insert(list[i].t_id);
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
      auto t = std::find_if(list.begin(), list.end(),
                            [&](const LoadedTrade& lt) { return lt.t_id == h.trade_id; });
      ASSERT_NE(t, list.end());
      EXPECT_EQ(h.symbol, t->symbol);
    }
    EXPECT_EQ(got_rows, want_rows);
  }
}

TEST_P(FramesReadOnly, CustomerPositionRejectsUnknownCustomersAndShortHistories) {
  auto runner = Runner();
  protocol::CustomerPositionInput unknown_id;
  unknown_id.cust_id = workload::CustomerIdFromOrdinal(kSizing.customers + 1);
  auto out = runner.Run(unknown_id);
  EXPECT_EQ(out.status.spec_status, -211);
  EXPECT_EQ(out.status.outcome, Outcome::kInvalid);

  protocol::CustomerPositionInput unknown_tax_id;
  unknown_tax_id.tax_id = "NO-SUCH-TAX-ID";
  out = runner.Run(unknown_tax_id);
  EXPECT_EQ(out.status.spec_status, -211);
  EXPECT_EQ(out.status.outcome, Outcome::kInvalid);

  // An account with fewer than 5 trades has fewer than 10 history rows: -221.
  auto few = AccountsWithTrades(1, 4);
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
        workload::CustomerIdFromOrdinal(1 + static_cast<int64_t>(rng() % kSizing.customers));
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
  const workload::Market market(kSizing);
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
  const workload::Market market(kSizing);
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

// ---- Trade-Lookup ----------------------------------------------------------------------------

std::vector<int64_t> RandomTradeIds(std::mt19937_64& rng, std::size_t count) {
  std::vector<int64_t> ids;
  const auto max = static_cast<uint64_t>(workload::MaxInitialTradeOrdinal(kSizing));
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
  in.trade_ids = RandomTradeIds(rng, 20);
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
  auto accounts = AccountsWithTrades(30, 1000);
  ASSERT_FALSE(accounts.empty());
  const auto end = workload::EndOfInitialTradesForInputs(kSizing).micros;
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
  const auto end = workload::EndOfInitialTradesForInputs(kSizing).micros;
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
    in.max_acct_id = workload::AccountId(workload::CustomerIdFromOrdinal(kSizing.customers), 9);
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
  empty.start_trade_dts = workload::MakeTimestamp(2006, 1, 1).micros;
  empty.end_trade_dts = workload::MakeTimestamp(2006, 2, 1).micros;
  auto out = runner.Run(empty);
  EXPECT_EQ(out.status.spec_status, 631);
  EXPECT_EQ(out.status.outcome, Outcome::kWarning);
}

TEST_P(FramesReadOnly, TradeLookupFrame4ReturnsTheHoldingHistoryOfTheFirstTrade) {
  auto runner = Runner();
  auto accounts = AccountsWithTrades(10, 1000);
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
  // No trade at or after the start: the warning +641.
  protocol::TradeLookupInput late;
  late.frame = 4;
  late.acct_id = accounts[0];
  late.start_trade_dts = workload::MakeTimestamp(2006, 1, 1).micros;
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
  // Fewer than 50 trades: -911.
  auto out = runner.Run(protocol::TradeStatusInput{AccountsWithTrades(1, 49).front()});
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
  in.trade_ids = RandomTradeIds(rng, 20);
  auto runner = Runner();
  const Snapshot before = TakeSnapshot();
  auto out = runner.Run(in);
  ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
  EXPECT_EQ(out.num_updated, 20);
  ASSERT_EQ(out.trades.size(), 20u);
  const Snapshot after = TakeSnapshot();
  auto changed = ChangedRows(before.trade, after.trade, "trade");
  EXPECT_EQ(changed, std::set<int64_t>(in.trade_ids.begin(), in.trade_ids.end()));
  for (std::size_t i = 0; i < in.trade_ids.size(); ++i) {
    const int64_t id = in.trade_ids[i];
    const std::string want = ToggledExecName(before.trade.at(id).first);
    EXPECT_THAT(want, ::testing::HasSubstr(" X "));  // loaded names have none
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
  const Snapshot again = TakeSnapshot();
  EXPECT_TRUE(ChangedRows(before.trade, again.trade, "trade").empty());

  // max_updates 7 of 20: only the first 7 listed trades change.
  in.max_updates = 7;
  out = runner.Run(in);
  ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
  EXPECT_EQ(out.num_updated, 7);
  const Snapshot seven = TakeSnapshot();
  EXPECT_EQ(ChangedRows(before.trade, seven.trade, "trade"),
            std::set<int64_t>(in.trade_ids.begin(), in.trade_ids.begin() + 7));
  out = runner.Run(in);
  ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
  EXPECT_TRUE(ChangedRows(before.trade, TakeSnapshot().trade, "trade").empty());

  // A missing trade: num_found 19 ≠ 20 is -1011, and the whole frame rolls back.
  in.max_updates = 20;
  in.trade_ids[3] = workload::TradeIdFromOrdinal(workload::kAbortedTradeResidue);
  out = runner.Run(in);
  EXPECT_EQ(out.status.spec_status, -1011);
  EXPECT_EQ(out.status.outcome, Outcome::kInvalid);
  EXPECT_TRUE(ChangedRows(before.trade, TakeSnapshot().trade, "trade").empty());
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
  in.end_trade_dts = workload::EndOfInitialTradesForInputs(kSizing).micros;
  auto runner = Runner();
  const Snapshot before = TakeSnapshot();
  auto out = runner.Run(in);
  ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
  EXPECT_EQ(out.num_updated, 20);
  ASSERT_EQ(out.trades.size(), 20u);
  const Snapshot after = TakeSnapshot();
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
  EXPECT_TRUE(ChangedRows(before.settlement, TakeSnapshot().settlement, "settlement").empty());

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
  in.end_trade_dts = workload::EndOfInitialTradesForInputs(kSizing).micros;
  auto runner = Runner();
  const Snapshot before = TakeSnapshot();
  auto out = runner.Run(in);
  ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
  ASSERT_EQ(out.trades.size(), 20u);
  std::set<int64_t> cash_trades;
  for (const auto& t : out.trades) {
    if (t.is_cash) cash_trades.insert(t.trade_id);
  }
  EXPECT_EQ(out.num_updated, static_cast<int32_t>(cash_trades.size()));
  EXPECT_LE(cash_trades.size(), 18u);
  const Snapshot after = TakeSnapshot();
  EXPECT_EQ(ChangedRows(before.cash, after.cash, "cash_transaction"), cash_trades);
  for (const auto& t : out.trades) {
    ExpectTradeInfo(t, 13);
    if (!t.is_cash) continue;
    auto r = Query(fmt::format(
        "SELECT tt_name || ' ' || t_qty || ' Shares of ' || s_name FROM trade JOIN trade_type "
        "ON tt_id = t_tt_id JOIN security ON s_symb = t_s_symb WHERE t_id = {}",
        t.trade_id));
    EXPECT_THAT(before.cash.at(t.trade_id).first, ::testing::HasSubstr(" shares of "));
    EXPECT_EQ(after.cash.at(t.trade_id).first, r[0][0]);
    EXPECT_EQ(t.cash_transaction_name, r[0][0]);
  }
  EXPECT_TRUE(ChangedRows(before.trade, after.trade, "trade").empty());
  EXPECT_TRUE(ChangedRows(before.settlement, after.settlement, "settlement").empty());
  ExpectOtherTablesUnchanged(before, after);
  out = runner.Run(in);
  ASSERT_EQ(out.status.outcome, Outcome::kOk) << Describe(out.status);
  EXPECT_TRUE(ChangedRows(before.cash, TakeSnapshot().cash, "cash_transaction").empty());

  // Nothing in the window: num_updated 0 is the warning +1032 (clause 3.3.10.5; the table of clause
  // 3.2.1.8 says +1031).
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
  const workload::Market market(kSizing);
  auto pick = [&rng](const auto& v) -> const auto& { return v[rng() % v.size()]; };
  const auto customers = CustomersWithTrades(5);
  const auto busy_accounts = AccountsWithTrades(51, 100000);
  const auto accounts = AccountsWithTrades(1, 100000);
  std::vector<std::string> symbols;
  for (const auto& [s, list] : by_symbol_) symbols.push_back(s);
  const auto end = workload::EndOfInitialTradesForInputs(kSizing).micros;
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
      tl.trade_ids = RandomTradeIds(rng, 20);
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
      tu.trade_ids = RandomTradeIds(rng, 20);
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

INSTANTIATE_TEST_SUITE_P(Frames, FramesReadOnly,
                         ::testing::Values(bh::FrameMode::kServer, bh::FrameMode::kClient),
                         [](const auto& info) {
                           return std::string(bh::FrameModeName(info.param));
                         });

}  // namespace
}  // namespace bb
