// Shared by the read-only frames' tests (frames_ro_db_test.cpp, frames_ro_trades_db_test.cpp):
// the loaded database of 1000 customers and 2 initial trade days, the trades read back from it by
// independent SQL, and the fixture that runs each test with the server-side and the client-side
// frames.
//
// With BB_TEST_LOADED_DB set (tests/support/frames_database.h) the tests run on that database
// instead, at its size. There the fixture reads the loaded trades (not a run's) of a sample of
// the accounts and of the securities, each account's and each symbol's complete (all of them are
// 17 million at 1000 customers and 300 days); Trade-Update's tests compare the rows of the
// trades within their reach rather than whole tables; and nothing expects a fresh load's state
// (runs have added trades and toggled names). What a test changes, it changes back, as on its
// own database; the hundred Trade-Updates of EveryTransactionRunsAHundredTimes stay, as a run's
// would.
#pragma once

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
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

namespace bb::frames_ro_test {

using protocol::Outcome;
using protocol::OutcomeName;

// The database's size when the test loads its own; the tests use FramesReadOnly::sizing_.
inline constexpr workload::Sizing kSizing{
    .customers = 1000, .scale_factor = 500, .initial_trade_days = 2};

// On a loaded database: the fixture reads the trades of every kCustomerSample-th customer's
// accounts and of every kSecuritySample-th security.
inline constexpr std::size_t kCustomerSample = 47;
inline constexpr std::size_t kSecuritySample = 97;

// SQL fragments that turn a column into the protocol's units.
inline std::string Micros(const std::string& col) {
  return fmt::format("(extract(epoch from {}) * 1000000)::bigint", col);
}
inline std::string CentsOf(const std::string& col) {
  return fmt::format("({} * 100)::bigint", col);
}
inline std::string DaysOf(const std::string& col) {
  return fmt::format("({} - date '1970-01-01')", col);
}
inline std::string Quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') quoted += '\'';
    quoted += c;
  }
  return quoted + "'";
}
inline std::string DateLiteral(protocol::EpochDays days) {
  return Quote(workload::FormatDate(workload::Date{days}));
}
inline std::string TimestampLiteral(protocol::TimestampMicros micros) {
  return Quote(workload::FormatTimestamp(workload::Timestamp{micros}));
}

inline std::string Describe(const protocol::ReplyStatus& status) {
  return fmt::format("status {} outcome {} detail '{}'", status.spec_status,
                     OutcomeName(status.outcome), status.detail);
}

// The frame 1 executor-name toggle of Trade-Update, written independently of the frame's SQL.
inline std::string ToggledExecName(std::string name) {
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
inline std::set<int64_t> ChangedRows(
    const std::map<int64_t, std::pair<std::string, std::string>>& before,
    const std::map<int64_t, std::pair<std::string, std::string>>& after, const char* table) {
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
    auto opened = testing::OpenFramesDatabase("frames_ro", kSizing);
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    sizing_ = opened->sizing;
    loaded_ = opened->loaded_by_kit;
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
    auto session = db::Session::Open(opened->conninfo, statements);
    ASSERT_TRUE(session.ok()) << session.status().message();
    session_ = std::move(session).value();
    auto conn = db::Connection::Open(opened->conninfo);
    ASSERT_TRUE(conn.ok()) << conn.status().message();
    conn_ = std::move(conn).value();

    for (const auto& r : Query("SELECT ca_c_id, ca_id FROM customer_account ORDER BY ca_id")) {
      accounts_of_[std::stoll(r[0])].push_back(std::stoll(r[1]));
    }
    auto read_trades = [](const std::string& where) {
      std::vector<LoadedTrade> trades;
      for (const auto& r : Query(fmt::format(
               "SELECT t_id, t_ca_id, t_s_symb, {}, t_is_cash FROM trade{} ORDER BY t_id",
               Micros("t_dts"), where))) {
        trades.push_back({std::stoll(r[0]), std::stoll(r[1]), r[2], std::stoll(r[3]), r[4] == "t"});
      }
      return trades;
    };
    if (!loaded_) {
      trades_ = read_trades("");
      for (const auto& t : trades_) {
        by_account_[t.acct_id].push_back(t);
        by_symbol_[t.symbol].push_back(t);
      }
      customers_read_ = accounts_of_.size();
    } else {
      std::vector<int64_t> accounts;
      std::size_t k = 0;
      for (const auto& [c_id, list] : accounts_of_) {
        if (k++ % kCustomerSample != 0) continue;
        accounts.insert(accounts.end(), list.begin(), list.end());
        ++customers_read_;
      }
      std::vector<std::string> symbols;
      k = 0;
      for (const auto& r : Query("SELECT s_symb FROM security ORDER BY s_symb")) {
        if (k++ % kSecuritySample == 0) symbols.push_back(Quote(r[0]));
      }
      const std::string loaded = fmt::format(" AND t_id <= {}", LastLoadedTradeId());
      for (const auto& t :
           read_trades(fmt::format(" WHERE t_ca_id IN ({}){}", fmt::join(accounts, ","), loaded))) {
        trades_.push_back(t);
        by_account_[t.acct_id].push_back(t);
      }
      for (const auto& t :
           read_trades(fmt::format(" WHERE t_s_symb IN ({}){}", fmt::join(symbols, ","), loaded))) {
        trades_.push_back(t);
        by_symbol_[t.symbol].push_back(t);
      }
    }
    auto by_time = [](const LoadedTrade& a, const LoadedTrade& b) {
      return a.dts != b.dts ? a.dts < b.dts : a.t_id < b.t_id;
    };
    for (auto& [acct, list] : by_account_) std::sort(list.begin(), list.end(), by_time);
    for (auto& [symbol, list] : by_symbol_) std::sort(list.begin(), list.end(), by_time);
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

  // The highest id a loaded trade can have; a run's trades come after it.
  static int64_t LastLoadedTradeId() {
    return workload::TradeIdFromOrdinal(workload::MaxInitialTradeOrdinal(sizing_));
  }

  // Customers whose every account has at least `min_trades` trades (of those read).
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

  // Every row of the tables Trade-Update may change, on the test's own database. On a loaded
  // one (where each whole copy would take minutes) the rows of the trades that `scope` (a query
  // of trade ids) selects, in the tables keyed by trade id, and the other tables whole.
  static Snapshot TakeSnapshot(const std::string& scope) {
    std::string ids;
    if (loaded_) {
      ids = Query(fmt::format("SELECT coalesce(array_agg(t_id), '{{}}')::text FROM ({}) AS s(t_id)",
                              scope))[0][0];
    }
    auto within = [&](const char* column) {
      return loaded_ ? fmt::format(" WHERE {} = ANY('{}'::bigint[])", column, ids) : std::string();
    };
    Snapshot s;
    for (const auto& r :
         Query("SELECT t_id, t_exec_name, md5(row(t_id, t_dts, t_st_id, t_tt_id, t_is_cash, "
               "t_s_symb, t_qty, t_bid_price, t_ca_id, t_trade_price, t_chrg, t_comm, t_tax, "
               "t_lifo)::text) FROM trade" +
               within("t_id"))) {
      s.trade[std::stoll(r[0])] = {r[1], r[2]};
    }
    for (const auto& r :
         Query("SELECT se_t_id, se_cash_type, md5(row(se_t_id, se_cash_due_date, se_amt)::text) "
               "FROM settlement" +
               within("se_t_id"))) {
      s.settlement[std::stoll(r[0])] = {r[1], r[2]};
    }
    for (const auto& r :
         Query("SELECT ct_t_id, ct_name, md5(row(ct_t_id, ct_dts, ct_amt)::text) FROM "
               "cash_transaction" +
               within("ct_t_id"))) {
      s.cash[std::stoll(r[0])] = {r[1], r[2]};
    }
    const std::pair<const char*, const char*> tables[] = {
        {"trade_history", "th_t_id"}, {"trade_request", nullptr},
        {"holding", "h_t_id"},        {"holding_history", "hh_h_t_id"},
        {"holding_summary", nullptr}, {"customer_account", nullptr},
        {"broker", nullptr},          {"last_trade", nullptr},
        {"security", nullptr},        {"customer", nullptr}};
    for (const auto& [table, trade_id] : tables) {
      s.tables[table] =
          Query(fmt::format("SELECT md5(string_agg(x::text, ',' ORDER BY x::text)) FROM {} AS x{}",
                            table, trade_id != nullptr ? within(trade_id) : std::string()))[0][0];
    }
    return s;
  }
  static void ExpectOtherTablesUnchanged(const Snapshot& before, const Snapshot& after) {
    for (const auto& [table, hash] : before.tables) {
      EXPECT_EQ(hash, after.tables.at(table)) << table << " changed";
    }
  }

  static inline workload::Sizing sizing_ = kSizing;
  static inline bool loaded_ = false;             // BB_TEST_LOADED_DB's database
  static inline std::size_t customers_read_ = 0;  // whose accounts' trades by_account_ holds
  static inline std::unique_ptr<db::Session> session_;
  static inline std::unique_ptr<db::Connection> conn_;
  static inline std::vector<LoadedTrade> trades_;
  static inline std::map<int64_t, std::vector<LoadedTrade>> by_account_;  // by dts, t_id
  static inline std::map<std::string, std::vector<LoadedTrade>> by_symbol_;
  static inline std::map<int64_t, std::vector<int64_t>> accounts_of_;  // customer -> accounts
  static inline std::map<int64_t, std::string> tax_id_of_;
  static inline std::vector<std::string> broker_names_;
};

}  // namespace bb::frames_ro_test
