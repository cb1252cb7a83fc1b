// Isolation tests after spec clause 7.4.2, in both frame modes: two
// Trade-Results (L3, SERIALIZABLE) interleaved at the boundary the clause names, after frame
// 1 has read the holding summary and before frame 2 writes it; a read at L1 beside a
// Trade-Result that has written but not committed; and a Trade-Order (L2, REPEATABLE READ)
// beside a Trade-Result that commits between Trade-Order's two reads of the account's holdings.
//
// The pause: a third session holds HOLDING_SUMMARY (or CUSTOMER_ACCOUNT) in EXCLUSIVE mode,
// which lets every read through and stops the first write. Each Trade-Result runs on its own
// thread and session; the test waits (on pg_stat_activity, bounded) until both are stopped
// at that write, so both have read before either writes, then lets them go. Whatever order
// they then take, the anomaly must not happen: both trades are in the holding summary, the
// account's balance has both settlements, no update is lost. The Brokerage House retries a
// serialization failure (FrameOptions::max_retries), as a run does.
//
// Trade-Result has a guard (frames/trade_result.cpp): two of the same broker wait for each
// other before they begin. With it the second stops at the guard and begins after the first
// commits (no retry); the "server_unguarded" variant calls the same function without the guard,
// so that both read before either writes and SERIALIZABLE alone must keep the anomaly out (one
// of them fails and is retried).
//
// Trade-Order (7.4.1.3: L2, no dirty read and no non-repeatable read) writes only new rows
// (TRADE, TRADE_HISTORY, TRADE_REQUEST), never a holding or a balance: no update of its can be
// lost, and a dirty read cannot be provoked on PostgreSQL at any level (READ UNCOMMITTED reads
// committed data). What applies is the non-repeatable read of the account's holdings within
// frame 3, which reads the holding summary (HS_QTY, which decides whether lots are walked) and
// then the lots it sums, whose prices give the buy value: a Trade-Result that commits between
// the two must not show in the second (else the estimate mixes two states of the holdings, the
// summary's and the lots'). Between the two, frame 3 reads CHARGE, which Trade-Result never
// reads: a third session holding CHARGE in ACCESS EXCLUSIVE mode stops the Trade-Order there, a
// Trade-Result of the same account and symbol changes the lots and commits, then the
// Trade-Order goes on. Its estimate must be the one from the holdings before the Trade-Result;
// run at READ COMMITTED, it is the one from after (checked by hand when the test was written).
#include <chrono>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "brokerage_house/frame_runner.h"
#include "common/db/connection.h"
#include "tests/support/frames_database.h"

namespace bb {
namespace {

constexpr workload::Sizing kSizing{.customers = 1000, .scale_factor = 500, .initial_trade_days = 1};

std::string One(db::Connection& conn, const std::string& sql) {
  auto rows = conn.Query(sql);
  EXPECT_TRUE(rows.ok()) << rows.status().message() << " in " << sql;
  if (!rows.ok() || rows->values.empty() || !rows->values[0][0]) return "";
  return *rows->values[0][0];
}

struct Variant {
  bh::FrameMode mode;
  bool guard;
  int index;  // picks rows no other variant's tests use (Rows)
  const char* name;
};

class Isolation : public ::testing::TestWithParam<Variant> {
 protected:
  static void SetUpTestSuite() {
    auto created = testing::CreateFramesDatabase("isolation", kSizing);
    ASSERT_TRUE(created.ok()) << created.status().message();
    conninfo_ = *created;
  }

  void SetUp() override {
    ASSERT_FALSE(conninfo_.empty()) << "the database was not set up";
    auto conn = db::Connection::Open(conninfo_);
    ASSERT_TRUE(conn.ok()) << conn.status().message();
    admin_ = std::move(conn).value();
    auto blocker = db::Connection::Open(conninfo_);
    ASSERT_TRUE(blocker.ok()) << blocker.status().message();
    blocker_ = std::move(blocker).value();
  }

  // The condition that picks the rows of test `k` (0..4) of this variant by `account_column`:
  // no two tests of the database read or write the same account.
  std::string Rows(std::string_view account_column, int k) const {
    return fmt::format("{} % 15 = {}", account_column, 5 * GetParam().index + k);
  }

  // A submitted market order of `qty` shares of `symbol` for `account`, as Trade-Order leaves
  // it for the market; its id. `type` is TMB (buy) or TMS (sell, LIFO: it closes the newest
  // lots first).
  int64_t SubmitMarketOrder(int64_t account, const std::string& symbol, std::string_view type,
                            int qty) {
    return std::stoll(
        One(*admin_,
            fmt::format(
                "INSERT INTO trade (t_id, t_dts, t_st_id, t_tt_id, t_is_cash, t_s_symb, t_qty, "
                "t_bid_price, t_ca_id, t_exec_name, t_trade_price, t_chrg, t_comm, t_tax, t_lifo) "
                "VALUES (nextval('seq_trade_id'), now(), 'SBMT', '{}', true, '{}', {}, 25.00, {}, "
                "'isolation test', NULL, 5.00, 0, 0, true) RETURNING t_id",
                type, symbol, qty, account)));
  }
  int64_t SubmitBuy(int64_t account, const std::string& symbol, int qty) {
    return SubmitMarketOrder(account, symbol, "TMB", qty);
  }

  // The pids of this database's sessions waiting for a lock, once `count` of them are (at most
  // 30 s); false if they never were.
  bool WaitForLockWaiters(int count) {
    for (int i = 0; i < 3000; ++i) {
      const std::string waiting =
          One(*admin_,
              "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND "
              "wait_event_type = 'Lock' AND pid <> pg_backend_pid()");
      if (waiting == std::to_string(count)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  // A Trade-Result of `trade` at 25.00 on its own session and thread; its reply once joined.
  // The session opens before the blocker locks anything: preparing the client-side frames'
  // statements takes the locks their writes need.
  struct Running {
    std::unique_ptr<db::Session> session;
    protocol::TradeResultOutput out;   // of a Trade-Result
    protocol::TradeOrderOutput order;  // of a Trade-Order (OrderBesideTradeResult)
    std::thread thread;
  };
  void Open(Running& r) {
    auto session = bh::FrameRunner::OpenSession(conninfo_, GetParam().mode);
    ASSERT_TRUE(session.ok()) << session.status().message();
    r.session = std::move(session).value();
  }
  void Start(Running& r, int64_t trade) {
    r.thread = std::thread([&r, trade, variant = GetParam()] {
      protocol::TradeResultInput in;
      in.trade_id = trade;
      in.trade_price = 2500;
      bh::FrameOptions options;
      options.mode = variant.mode;
      if (variant.guard) {
        bh::FrameRunner runner(*r.session, options);
        r.out = runner.Run(in);
        return;
      }
      bh::ServerCall call;
      protocol::Message reply;
      ASSERT_TRUE(bh::PrepareServerCall(in, call, reply));
      db::QueryResult rows;
      const db::TxnOutcome outcome =
          r.session->Call(call.isolation, options.max_retries, call.statement, call.params,
                          call.finish, rows, {}, call.now_param);
      std::vector<protocol::MarketTradeRequest> none;
      bh::ReadServerCall(in, outcome, rows, reply, none);
      r.out = std::get<protocol::TradeResultOutput>(reply);
    });
  }

  // Two Trade-Results of the same account and symbol (100 and 200 shares), both stopped at
  // their first write to `table` until both have read; then both must commit and count.
  void TwoTradeResults(int64_t account, const std::string& symbol, const std::string& table) {
    const std::string qty_before =
        One(*admin_, fmt::format("SELECT coalesce((SELECT hs_qty FROM holding_summary WHERE "
                                 "hs_ca_id = {} AND hs_s_symb = '{}'), 0)",
                                 account, symbol));
    const std::string bal_before =
        One(*admin_, fmt::format("SELECT ca_bal FROM customer_account WHERE ca_id = {}", account));
    const int64_t first = SubmitBuy(account, symbol, 100);
    const int64_t second = SubmitBuy(account, symbol, 200);

    Running a, b;
    Open(a);
    Open(b);
    ASSERT_TRUE(
        blocker_->Execute(fmt::format("BEGIN; LOCK TABLE {} IN EXCLUSIVE MODE", table)).ok());
    Start(a, first);
    const bool a_waits = WaitForLockWaiters(1);
    Start(b, second);
    const bool b_waits = WaitForLockWaiters(2);
    ASSERT_TRUE(blocker_->Execute("COMMIT").ok());
    a.thread.join();
    b.thread.join();
    ASSERT_TRUE(a_waits && b_waits) << "the Trade-Results did not both stop at the write to "
                                    << table << " (waiting: " << a_waits << ", " << b_waits << ")";

    for (const Running* r : {&a, &b}) {
      EXPECT_EQ(r->out.status.outcome, protocol::Outcome::kOk) << r->out.status.detail;
      EXPECT_EQ(r->out.status.spec_status, 0);
      // Guarded, the second waited for the first (same broker) and began after it had
      // committed: nothing to retry.
      if (GetParam().guard) {
        EXPECT_EQ(r->out.status.retries, 0u);
      }
    }
    if (!GetParam().guard) {
      EXPECT_GE(a.out.status.retries + b.out.status.retries, 1u)
          << "both read before either wrote: SERIALIZABLE must have failed one";
    }
    // No lost update: the summary has both quantities, the balance both settlements.
    EXPECT_EQ(One(*admin_, fmt::format("SELECT hs_qty FROM holding_summary WHERE hs_ca_id = {} "
                                       "AND hs_s_symb = '{}'",
                                       account, symbol)),
              std::to_string(std::stoll(qty_before) + 300));
    EXPECT_EQ(One(*admin_, fmt::format("SELECT count(*) FROM holding WHERE h_t_id IN ({}, {})",
                                       first, second)),
              "2");
    EXPECT_EQ(One(*admin_, fmt::format("SELECT {} + sum(se_amt) = (SELECT ca_bal FROM "
                                       "customer_account WHERE ca_id = {}) FROM settlement "
                                       "WHERE se_t_id IN ({}, {})",
                                       bal_before, account, first, second)),
              "t");
  }

  // Trade-Order of a LIFO market sell of `qty` shares of `symbol` by the owner of `account`,
  // stopped in frame 3 after it has read the holding summary and before it walks the lots, while
  // the submitted market order `trade` (Trade-Result at 25.00, same account and symbol) changes
  // the lots and commits. The order's buy and sell values must be those of the holdings before
  // the Trade-Result; the test first checks that the holdings after it would give other ones.
  void OrderBesideTradeResult(int64_t account, const std::string& symbol, int qty, int64_t trade) {
    protocol::TradeOrderInput in;
    in.acct_id = account;
    auto owner = admin_->Query(fmt::format(
        "SELECT c_f_name, c_l_name, c_tax_id FROM customer_account JOIN customer ON c_id = "
        "ca_c_id WHERE ca_id = {}",
        account));
    ASSERT_TRUE(owner.ok() && owner->values.size() == 1);
    in.exec_f_name = *owner->values[0][0];
    in.exec_l_name = *owner->values[0][1];
    in.exec_tax_id = *owner->values[0][2];
    in.symbol = symbol;
    in.trade_type_id = "TMS";
    in.trade_qty = qty;
    in.is_lifo = true;
    in.st_pending_id = "PNDG";
    in.st_submitted_id = "SBMT";
    const std::string before = LifoValues(account, symbol, qty);

    Running order, result;
    Open(order);
    Open(result);
    ASSERT_TRUE(blocker_->Execute("BEGIN; LOCK TABLE charge IN ACCESS EXCLUSIVE MODE").ok());
    order.thread = std::thread([&order, in, mode = GetParam().mode] {
      bh::FrameOptions options;
      options.mode = mode;
      bh::FrameRunner runner(*order.session, options);
      std::vector<protocol::MarketTradeRequest> to_market;
      order.order = runner.Run(in, to_market);
    });
    const bool order_waits = WaitForLockWaiters(1);
    Start(result, trade);
    result.thread.join();
    const std::string after = LifoValues(account, symbol, qty);
    ASSERT_TRUE(blocker_->Execute("COMMIT").ok());
    order.thread.join();
    ASSERT_TRUE(order_waits) << "the Trade-Order did not stop at its read of CHARGE";
    ASSERT_EQ(result.out.status.outcome, protocol::Outcome::kOk) << result.out.status.detail;
    ASSERT_NE(before, after) << "the Trade-Result left the lots' values as they were: this "
                                "test could not tell the two states apart";

    EXPECT_EQ(order.order.status.outcome, protocol::Outcome::kOk) << order.order.status.detail;
    EXPECT_EQ(order.order.status.spec_status, 0);
    EXPECT_EQ(fmt::format("{} {}", order.order.buy_value, order.order.sell_value), before)
        << "frame 3 walked lots committed after it read the holding summary (buy and sell "
           "values from the lots at that point: "
        << after << ")";
  }

  // "buy sell", in cents: what closing `qty` shares of the account's long lots of `symbol`,
  // newest first, at the symbol's last price would give (clause 3.3.7 frame 3), from the
  // holdings as they are now. Written apart from the frames, as a window over the lots.
  std::string LifoValues(int64_t account, const std::string& symbol, int qty) {
    return One(
        *admin_,
        fmt::format(
            "SELECT coalesce(sum(closed * h_price * 100), 0)::bigint || ' ' || "
            "coalesce(sum(closed * lt_price * 100), 0)::bigint FROM (SELECT h_price, "
            "least(h_qty, {2} - (sum(h_qty) OVER w - h_qty)) AS closed FROM holding WHERE "
            "h_ca_id = {0} AND h_s_symb = '{1}' WINDOW w AS (ORDER BY h_dts DESC, h_t_id DESC)) "
            "lots, last_trade WHERE lt_s_symb = '{1}' AND closed > 0",
            account, symbol, qty));
  }

  static inline std::string conninfo_;
  std::unique_ptr<db::Connection> admin_, blocker_;
};

// P3 (phantom) in read-write: both read that the account holds none of the symbol, both would
// insert the summary row.
TEST_P(Isolation, TwoTradeResultsCreatingOneHoldingSummaryBothCount) {
  auto pick = admin_->Query(
      "SELECT ca_id, s_symb FROM customer_account, security WHERE NOT EXISTS (SELECT 1 FROM "
      "holding_summary WHERE hs_ca_id = ca_id AND hs_s_symb = s_symb) AND " +
      Rows("ca_id", 0) + " ORDER BY ca_id LIMIT 1");
  ASSERT_TRUE(pick.ok() && !pick->values.empty());
  TwoTradeResults(std::stoll(*pick->values[0][0]), *pick->values[0][1], "holding_summary");
}

// P2 (non-repeatable read) in read-write: both read the same summary row, both update it.
TEST_P(Isolation, TwoTradeResultsUpdatingOneHoldingSummaryBothCount) {
  auto pick =
      admin_->Query("SELECT hs_ca_id, hs_s_symb FROM holding_summary WHERE hs_qty > 0 AND " +
                    Rows("hs_ca_id", 1) + " ORDER BY hs_ca_id LIMIT 1");
  ASSERT_TRUE(pick.ok() && !pick->values.empty());
  TwoTradeResults(std::stoll(*pick->values[0][0]), *pick->values[0][1], "holding_summary");
}

// P1 (dirty read): a Trade-Result that has completed its trade but not committed (stopped at
// frame 6's balance update); Trade-Status (L1) of the account still sees the trade submitted,
// and sees it completed once the Trade-Result commits.
TEST_P(Isolation, NoReadSeesAnUncommittedTradeResult) {
  auto pick = admin_->Query(
      "SELECT ca_id, (SELECT s_symb FROM security ORDER BY s_symb LIMIT 1) FROM customer_account "
      "WHERE " +
      Rows("ca_id", 2) + " ORDER BY ca_id LIMIT 1");
  ASSERT_TRUE(pick.ok() && !pick->values.empty());
  const int64_t account = std::stoll(*pick->values[0][0]);
  const int64_t trade = SubmitBuy(account, *pick->values[0][1], 100);
  const std::string status_sql = fmt::format("SELECT t_st_id FROM trade WHERE t_id = {}", trade);

  Running r;
  Open(r);
  ASSERT_TRUE(blocker_->Execute("BEGIN; LOCK TABLE customer_account IN EXCLUSIVE MODE").ok());
  Start(r, trade);
  const bool waits = WaitForLockWaiters(1);
  const std::string while_running = One(*admin_, status_sql);
  ASSERT_TRUE(blocker_->Execute("COMMIT").ok());
  r.thread.join();
  ASSERT_TRUE(waits) << "the Trade-Result did not stop at the balance update";
  EXPECT_EQ(while_running, "SBMT") << "a read saw the uncommitted completion";
  EXPECT_EQ(r.out.status.outcome, protocol::Outcome::kOk) << r.out.status.detail;
  EXPECT_EQ(One(*admin_, status_sql), "CMPT");
}

// Non-repeatable read of the holdings in Trade-Order's frame 3 (see the top): a Trade-Result
// buys 100 shares at 25.00 while the Trade-Order (a LIFO sell of 100) is between its two reads;
// read after it, the newest lot would be the new one. Picked: an account whose newest lot of the
// symbol is long, holds at least 100 shares and cost other than 25.00.
TEST_P(Isolation, TradeOrderDoesNotSeeALotATradeResultAddsMeanwhile) {
  auto pick = admin_->Query(
      "SELECT h_ca_id, h_s_symb FROM (SELECT DISTINCT ON (h_ca_id, h_s_symb) h_ca_id, h_s_symb, "
      "h_qty, h_price FROM holding WHERE " +
      Rows("h_ca_id", 3) +
      " ORDER BY h_ca_id, h_s_symb, h_dts DESC, h_t_id DESC) newest WHERE h_qty >= 100 AND "
      "h_price <> 25.00 ORDER BY h_ca_id, h_s_symb LIMIT 1");
  ASSERT_TRUE(pick.ok() && !pick->values.empty());
  const int64_t account = std::stoll(*pick->values[0][0]);
  const std::string symbol = *pick->values[0][1];
  OrderBesideTradeResult(account, symbol, 100, SubmitBuy(account, symbol, 100));
}

// The same with lots taken away: a Trade-Result sells 100 shares (LIFO) while the Trade-Order
// sells the whole holding; read after it, the lots would cover 100 shares less than the summary
// the order read.
TEST_P(Isolation, TradeOrderStillSeesTheLotsATradeResultSellsMeanwhile) {
  auto pick = admin_->Query(
      "SELECT hs_ca_id, hs_s_symb, hs_qty FROM holding_summary WHERE hs_qty >= 200 AND " +
      Rows("hs_ca_id", 4) + " ORDER BY hs_ca_id, hs_s_symb LIMIT 1");
  ASSERT_TRUE(pick.ok() && !pick->values.empty());
  const int64_t account = std::stoll(*pick->values[0][0]);
  const std::string symbol = *pick->values[0][1];
  OrderBesideTradeResult(account, symbol, std::stoi(*pick->values[0][2]),
                         SubmitMarketOrder(account, symbol, "TMS", 100));
}

INSTANTIATE_TEST_SUITE_P(Modes, Isolation,
                         ::testing::Values(Variant{bh::FrameMode::kServer, true, 0, "server"},
                                           Variant{bh::FrameMode::kClient, true, 1, "client"},
                                           Variant{bh::FrameMode::kServer, false, 2,
                                                   "server_unguarded"}),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace bb
