// Shared by the read-write frames' tests (frames_rw_db_test.cpp,
// frames_rw_maintenance_db_test.cpp): a loaded database of 1000 customers, the fixture that opens a
// session and a frame runner per test (server-side or client-side frames), and the SQL look-ups the
// tests pick inputs with. Inputs are picked from the loaded database (a test may read it; the
// driver may not).
#pragma once

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

namespace bb::frames_rw_test {

using protocol::MarketAction;
using protocol::MarketTradeRequest;
using protocol::Outcome;
using ::testing::HasSubstr;

inline constexpr workload::Sizing kSizing{
    .customers = 1000, .scale_factor = 500, .initial_trade_days = 2};

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

}  // namespace bb::frames_rw_test
