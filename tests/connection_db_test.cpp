// common/db's Connection against a real server: results as text, NULLs, errors that start
// with the SQLSTATE, and a clear error when the server cannot be reached.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/db/connection.h"
#include "tests/support/test_cluster.h"

namespace bb::db {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(Connection, QueriesReturnTextRowsAndNulls) {
  auto conn = Connection::Open(testing::ClusterConninfo());
  ASSERT_TRUE(conn.ok()) << conn.status().message();
  auto rows = (*conn)->Query("SELECT 1 AS one, NULL::text AS nothing, 'x' || 'y' AS xy");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  EXPECT_EQ(rows->columns, (std::vector<std::string>{"one", "nothing", "xy"}));
  ASSERT_EQ(rows->values.size(), 1u);
  EXPECT_EQ(rows->values[0][0], "1");
  EXPECT_EQ(rows->values[0][1], std::nullopt);
  EXPECT_EQ(rows->values[0][2], "xy");
  // The oldest version the kit supports is 14 (the suite's version matrix runs on it).
  EXPECT_GE((*conn)->ServerVersion(), 140000);
}

TEST(Connection, SqlErrorsStartWithTheSqlstate) {
  auto conn = Connection::Open(testing::ClusterConninfo());
  ASSERT_TRUE(conn.ok()) << conn.status().message();
  Status s = (*conn)->Execute("SELECT * FROM no_such_table");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kDbError);
  EXPECT_THAT(s.message(), StartsWith("42P01: "));
  EXPECT_THAT(s.message(), HasSubstr("no_such_table"));
  EXPECT_THAT(s.message(), ::testing::Not(HasSubstr("\n")));
  // The connection stays usable after an error.
  EXPECT_TRUE((*conn)->Execute("SELECT 1").ok());
}

TEST(Connection, UnreachableServerIsAClearError) {
  auto conn = Connection::Open("host=/nonexistent-bb-socket-dir port=1 dbname=x connect_timeout=2");
  ASSERT_FALSE(conn.ok());
  EXPECT_EQ(conn.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(conn.status().message(), HasSubstr("cannot connect to the database"));
  EXPECT_THAT(conn.status().message(), HasSubstr("/nonexistent-bb-socket-dir"));
}

TEST(Connection, MalformedConnectionStringIsAnErrorWithLibpqsReason) {
  auto bad = Connection::Open("this is not a conninfo");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("not one libpq can parse"));
  EXPECT_THAT(bad.status().message(), HasSubstr("missing \"=\" after \"this\""));
}

// Issue 16: the message that goes to every log names the database without its password.
TEST(Connection, AFailedConnectionHidesThePassword) {
  for (const char* conninfo : {"host=/nonexistent-bb-socket-dir port=1 password = secretZ",
                               "postgresql://u:secretZ@%2Fnonexistent-bb-socket-dir:1/x"}) {
    auto conn = Connection::Open(conninfo);
    ASSERT_FALSE(conn.ok());
    EXPECT_THAT(conn.status().message(), HasSubstr("/nonexistent-bb-socket-dir"));
    EXPECT_THAT(conn.status().message(), HasSubstr("password=***"));
    EXPECT_THAT(conn.status().message(), ::testing::Not(HasSubstr("secretZ")));
  }
}

}  // namespace
}  // namespace bb::db
