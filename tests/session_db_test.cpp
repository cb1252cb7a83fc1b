// common/db's Session against a real server: statements prepared at start (bad SQL fails at
// once, naming the statement), typed parameters and results, commit and intended rollback,
// serialization failures retried and counted, other SQL errors and lost connections reported
// as such, and reconnection.
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/db/connection.h"
#include "common/db/session.h"
#include "tests/support/test_cluster.h"

namespace bb::db {
namespace {

using ::testing::HasSubstr;

constexpr PreparedStatement kStatements[] = {
    {"insert", "INSERT INTO kv (k, v) VALUES ($1, $2)"},
    {"get", "SELECT v FROM kv WHERE k = $1"},
    {"add", "UPDATE kv SET v = v + $2 WHERE k = $1"},
    {"echo", "SELECT $1::numeric(12,2), $2::timestamp, $3::date, $4::text, $5::bigint, $6::bool"},
    {"pid", "SELECT pg_backend_pid()"},
};

class SessionTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto conninfo = testing::CreateDatabase("session");
    ASSERT_TRUE(conninfo.ok()) << conninfo.status().message();
    conninfo_ = *conninfo;
    auto conn = Connection::Open(conninfo_);
    ASSERT_TRUE(conn.ok());
    ASSERT_TRUE((*conn)->Execute("CREATE TABLE kv (k int PRIMARY KEY, v bigint NOT NULL)").ok());
  }

  std::unique_ptr<Session> Open() {
    auto s = Session::Open(conninfo_, kStatements);
    EXPECT_TRUE(s.ok()) << s.status().message();
    return s.ok() ? std::move(s).value() : nullptr;
  }

  static inline std::string conninfo_;
};

TEST_F(SessionTest, BadSqlFailsAtOpenNamingTheStatement) {
  constexpr PreparedStatement bad[] = {{"good", "SELECT 1"}, {"broken", "SELEC nothing"}};
  auto s = Session::Open(conninfo_, bad);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("preparing statement 'broken': 42601"));
}

TEST_F(SessionTest, ParametersAndResultsKeepTheirValues) {
  auto session = Open();
  ASSERT_NE(session, nullptr);
  const int64_t ts = 1'104'742'800'123'456;  // 2005-01-03 09:00:00.123456 UTC
  TxnOutcome o = session->Run(Isolation::kReadCommitted, 0, [&](Transaction& tx) {
    auto r = tx.Exec("echo", {Param::Cents(-123456), Param::Timestamp(ts), Param::Date(12786),
                              Param("it's"), Param(int64_t{-9}), Param(true)});
    EXPECT_EQ(r.size(), 1u);
    EXPECT_EQ(r.Cents(0, 0), -123456);
    EXPECT_EQ(r.Text(0, 1), "2005-01-03 09:00:00.123456");
    EXPECT_EQ(r.TimestampMicros(0, 1), ts);
    EXPECT_EQ(r.DateDays(0, 2), 12786);
    EXPECT_EQ(r.Text(0, 3), "it's");
    EXPECT_EQ(r.Int(0, 4), -9);
    EXPECT_TRUE(r.Bool(0, 5));
    auto nulls = tx.Exec("get", {Param::Null()});
    EXPECT_TRUE(nulls.empty());
    return Finish::kCommit;
  });
  EXPECT_EQ(o.end, TxnEnd::kCommitted) << o.message;
  EXPECT_EQ(o.statements, 2);
}

TEST_F(SessionTest, CommitsAndRollsBackAsAsked) {
  auto session = Open();
  ASSERT_NE(session, nullptr);
  auto o = session->Run(Isolation::kRepeatableRead, 0, [](Transaction& tx) {
    tx.Exec("insert", {1, int64_t{10}});
    return Finish::kCommit;
  });
  EXPECT_EQ(o.end, TxnEnd::kCommitted) << o.message;
  o = session->Run(Isolation::kReadCommitted, 0, [](Transaction& tx) {
    tx.Exec("insert", {2, int64_t{20}});
    return Finish::kRollback;
  });
  EXPECT_EQ(o.end, TxnEnd::kRolledBack);
  int64_t one = -1;
  size_t two = 99;
  session->Run(Isolation::kReadCommitted, 0, [&](Transaction& tx) {
    one = tx.Exec("get", {1}).Int(0, 0);
    two = tx.Exec("get", {2}).size();
    return Finish::kCommit;
  });
  EXPECT_EQ(one, 10);
  EXPECT_EQ(two, 0u);
}

TEST_F(SessionTest, OtherSqlErrorsAreDbErrorsWithTheirSqlstate) {
  auto session = Open();
  ASSERT_NE(session, nullptr);
  session->Run(Isolation::kReadCommitted, 0, [](Transaction& tx) {
    tx.Exec("insert", {3, int64_t{30}});
    return Finish::kCommit;
  });
  auto o = session->Run(Isolation::kReadCommitted, 3, [](Transaction& tx) {
    tx.Exec("insert", {3, int64_t{31}});  // duplicate key
    return Finish::kCommit;
  });
  EXPECT_EQ(o.end, TxnEnd::kDbError);
  EXPECT_EQ(o.sqlstate, "23505");
  EXPECT_EQ(o.retries, 0);
  // The session is usable afterwards.
  o = session->Run(Isolation::kReadCommitted, 0, [](Transaction& tx) {
    tx.Exec("get", {3});
    return Finish::kCommit;
  });
  EXPECT_EQ(o.end, TxnEnd::kCommitted);
}

// Two serializable transactions that each read then write the same row: one must fail with
// 40001 and run again; the retry is counted and both increments land.
TEST_F(SessionTest, SerializationFailuresAreRetriedAndCounted) {
  auto a = Open();
  auto b = Open();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  a->Run(Isolation::kReadCommitted, 0, [](Transaction& tx) {
    tx.Exec("insert", {4, int64_t{0}});
    return Finish::kCommit;
  });
  int b_attempts = 0;
  TxnOutcome a_outcome;
  auto o = b->Run(Isolation::kSerializable, 3, [&](Transaction& tx) {
    ++b_attempts;
    tx.Exec("get", {4});
    if (b_attempts == 1) {
      // While b holds its snapshot, a commits a change to the same row.
      a_outcome = a->Run(Isolation::kSerializable, 0, [](Transaction& tx2) {
        tx2.Exec("add", {4, int64_t{1}});
        return Finish::kCommit;
      });
    }
    tx.Exec("add", {4, int64_t{1}});
    return Finish::kCommit;
  });
  EXPECT_EQ(a_outcome.end, TxnEnd::kCommitted) << a_outcome.message;
  EXPECT_EQ(o.end, TxnEnd::kCommitted) << o.message;
  EXPECT_EQ(o.retries, 1);
  EXPECT_EQ(b_attempts, 2);
  int64_t v = -1;
  a->Run(Isolation::kReadCommitted, 0, [&](Transaction& tx) {
    v = tx.Exec("get", {4}).Int(0, 0);
    return Finish::kCommit;
  });
  EXPECT_EQ(v, 2);
}

TEST_F(SessionTest, RetriesAreBounded) {
  auto a = Open();
  auto b = Open();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  a->Run(Isolation::kReadCommitted, 0, [](Transaction& tx) {
    tx.Exec("insert", {5, int64_t{0}});
    return Finish::kCommit;
  });
  auto o = b->Run(Isolation::kSerializable, 2, [&](Transaction& tx) {
    tx.Exec("get", {5});
    a->Run(Isolation::kReadCommitted, 0, [](Transaction& tx2) {  // conflicts every time
      tx2.Exec("add", {5, int64_t{1}});
      return Finish::kCommit;
    });
    tx.Exec("add", {5, int64_t{1}});
    return Finish::kCommit;
  });
  EXPECT_EQ(o.end, TxnEnd::kRetryExhausted) << o.sqlstate << " " << o.message;
  EXPECT_EQ(o.sqlstate, "40001");
  EXPECT_EQ(o.retries, 2);
}

TEST_F(SessionTest, LostConnectionIsReportedAndReconnectRecovers) {
  auto session = Open();
  auto killer = Connection::Open(conninfo_);
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(killer.ok());
  int64_t pid = 0;
  session->Run(Isolation::kReadCommitted, 0, [&](Transaction& tx) {
    pid = tx.Exec("pid").Int(0, 0);
    return Finish::kCommit;
  });
  ASSERT_GT(pid, 0);
  ASSERT_TRUE((*killer)->Execute("SELECT pg_terminate_backend(" + std::to_string(pid) + ")").ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto o = session->Run(Isolation::kReadCommitted, 3, [](Transaction& tx) {
    tx.Exec("get", {1});
    return Finish::kCommit;
  });
  EXPECT_EQ(o.end, TxnEnd::kConnectionLost);
  o = session->Run(Isolation::kReadCommitted, 3, [](Transaction&) { return Finish::kCommit; });
  EXPECT_EQ(o.end, TxnEnd::kConnectionLost);  // until reconnected
  ASSERT_TRUE(session->Reconnect().ok());
  o = session->Run(Isolation::kReadCommitted, 0, [](Transaction& tx) {
    tx.Exec("get", {1});
    return Finish::kCommit;
  });
  EXPECT_EQ(o.end, TxnEnd::kCommitted) << o.message;
}

}  // namespace
}  // namespace bb::db
