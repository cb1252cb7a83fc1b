// common/db's Session against a real server: statements prepared at start (bad SQL fails at
// once, naming the statement), typed parameters and results, commit and intended rollback,
// serialization failures retried and counted, other SQL errors and lost connections reported
// as such, and reconnection; the same for Call (one server-side function per transaction, one
// round trip), guards (an advisory lock before the transaction's snapshot, released after it),
// and arrays in the server's own text form.
#include <algorithm>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>

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
    {"guard", "SELECT pg_advisory_lock($1::bigint)"},
    {"setting", "SELECT current_setting($1)"},
    {"call_put", "SELECT * FROM put_kv($1, $2)"},
    {"call_flaky", "SELECT flaky_add($1)"},
    {"call_flaky_at", "SELECT flaky_add($1), $2::timestamp"},
    {"arrays",
     "SELECT ARRAY['a b', NULL, 'q\"x', 'back\\slash', '', 'NULL', '{}', 'x,y']::text[], "
     "ARRAY[1, -2, 3]::bigint[], ARRAY[]::int[], NULL::int[], "
     "ARRAY['2005-01-03 09:00:00.5'::timestamp, '2005-01-04']::timestamp[], "
     "ARRAY[1.005, -2.5]::numeric[]"},
};

// Ends the backend `pid` and waits (at most 10 s) until it has exited: pg_terminate_backend's
// timeout (PostgreSQL 14+) returns true only once the process is gone, so its session's next
// statement meets a closed connection.
bool TerminateBackend(Connection& killer, int64_t pid) {
  auto gone = killer.Query("SELECT pg_terminate_backend(" + std::to_string(pid) + ", 10000)");
  return gone.ok() && gone->values[0][0] == std::optional<std::string>("t");
}

class SessionTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto conninfo = testing::CreateDatabase("session");
    ASSERT_TRUE(conninfo.ok()) << conninfo.status().message();
    conninfo_ = *conninfo;
    auto conn = Connection::Open(conninfo_);
    ASSERT_TRUE(conn.ok());
    ASSERT_TRUE((*conn)->Execute("CREATE TABLE kv (k int PRIMARY KEY, v bigint NOT NULL)").ok());
    // A frame-like function: writes, returns a row, and rolls back with a spec status (the
    // server-side frames' convention) when asked to store a negative value.
    ASSERT_TRUE((*conn)
                    ->Execute(R"sql(
CREATE FUNCTION put_kv(p_k int, p_v bigint, OUT status int, OUT total bigint)
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO kv (k, v) VALUES (p_k, p_v);
  IF p_v < 0 THEN
    RAISE EXCEPTION 'spec status -831 (negative value)' USING ERRCODE = 'BB001';
  END IF;
  SELECT sum(v) INTO total FROM kv;
  status := 0;
END $$)sql")
                    .ok());
    // Fails with a serialization failure while the sequence is below a limit: sequences are
    // not transactional, so each attempt counts.
    ASSERT_TRUE((*conn)
                    ->Execute(R"sql(
CREATE SEQUENCE flaky_attempts;
CREATE FUNCTION flaky_add(p_limit bigint) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint := nextval('flaky_attempts');
BEGIN
  UPDATE kv SET v = v + 1 WHERE k = 100;
  IF n <= p_limit THEN
    RAISE EXCEPTION 'attempt %', n USING ERRCODE = '40001';
  END IF;
  RETURN n;
END $$)sql")
                    .ok());
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
  ASSERT_TRUE(TerminateBackend(**killer, pid));
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

int64_t ValueOf(Session& session, int k) {
  int64_t v = -1;
  session.Run(Isolation::kReadCommitted, 0, [&](Transaction& tx) {
    auto r = tx.Exec("get", {k});
    v = r.empty() ? -1 : r.Int(0, 0);
    return Finish::kCommit;
  });
  return v;
}

TEST_F(SessionTest, CallIsOneRoundTripAndCommits) {
  auto session = Open();
  ASSERT_NE(session, nullptr);
  for (Isolation iso : {Isolation::kReadCommitted, Isolation::kSerializable}) {
    const int k = iso == Isolation::kReadCommitted ? 50 : 51;
    const auto before = session->counters();
    QueryResult rows;
    const Param params[] = {k, int64_t{7}};
    TxnOutcome o = session->Call(iso, 0, "call_put", params, Finish::kCommit, rows);
    EXPECT_EQ(o.end, TxnEnd::kCommitted) << o.message;
    EXPECT_EQ(session->counters().round_trips - before.round_trips, 1);
    EXPECT_EQ(o.statements, 1);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows.Int(0, 0), 0);
    EXPECT_GE(rows.Int(0, 1), 7);
    EXPECT_EQ(ValueOf(*session, k), 7);
  }
}

TEST_F(SessionTest, CallRollsBackAsAskedAndOnAFrameStatus) {
  auto session = Open();
  ASSERT_NE(session, nullptr);
  QueryResult rows;
  const Param asked[] = {52, int64_t{1}};
  TxnOutcome o =
      session->Call(Isolation::kRepeatableRead, 0, "call_put", asked, Finish::kRollback, rows);
  EXPECT_EQ(o.end, TxnEnd::kRolledBack) << o.message;
  EXPECT_EQ(o.rollback_status, 0);
  EXPECT_EQ(rows.size(), 1u);  // the outputs come back with the roll-back
  EXPECT_EQ(ValueOf(*session, 52), -1);
  // The function finds a reason to roll back: its status comes back, its writes are gone, in
  // an explicit block and in an implicit one.
  for (Isolation iso : {Isolation::kSerializable, Isolation::kReadCommitted}) {
    const Param negative[] = {53, int64_t{-5}};
    o = session->Call(iso, 3, "call_put", negative, Finish::kCommit, rows);
    EXPECT_EQ(o.end, TxnEnd::kRolledBack) << o.message;
    EXPECT_EQ(o.rollback_status, -831);
    EXPECT_EQ(o.retries, 0);
    EXPECT_EQ(ValueOf(*session, 53), -1);
  }
}

TEST_F(SessionTest, CallRetriesSerializationFailuresBoundedly) {
  auto session = Open();
  ASSERT_NE(session, nullptr);
  session->Run(Isolation::kReadCommitted, 0, [](Transaction& tx) {
    tx.Exec("insert", {100, int64_t{0}});
    return Finish::kCommit;
  });
  QueryResult rows;
  const Param two[] = {int64_t{2}};  // the first two attempts fail
  TxnOutcome o =
      session->Call(Isolation::kSerializable, 3, "call_flaky", two, Finish::kCommit, rows);
  EXPECT_EQ(o.end, TxnEnd::kCommitted) << o.message;
  EXPECT_EQ(o.retries, 2);
  EXPECT_EQ(rows.Int(0, 0), 3);
  EXPECT_EQ(ValueOf(*session, 100), 1);  // the failed attempts' updates were undone
  const Param always[] = {int64_t{1'000'000}};
  o = session->Call(Isolation::kSerializable, 2, "call_flaky", always, Finish::kCommit, rows);
  EXPECT_EQ(o.end, TxnEnd::kRetryExhausted);
  EXPECT_EQ(o.sqlstate, "40001");
  EXPECT_EQ(o.retries, 2);
  EXPECT_THAT(o.message, HasSubstr("attempt"));
  EXPECT_EQ(ValueOf(*session, 100), 1);
  // Other errors are db errors, and the session goes on.
  const Param duplicate[] = {100, int64_t{1}};
  o = session->Call(Isolation::kRepeatableRead, 3, "call_put", duplicate, Finish::kCommit, rows);
  EXPECT_EQ(o.end, TxnEnd::kDbError);
  EXPECT_EQ(o.sqlstate, "23505");
  EXPECT_EQ(ValueOf(*session, 100), 1);
}

// A call's current time (now_param) is read from the session's clock before each attempt: the
// attempt that commits gets the third reading, not the first.
TEST_F(SessionTest, CallSetsItsTimeBeforeEachAttempt) {
  auto session = Open();
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(
      Connection::Open(conninfo_).value()->Execute("SELECT setval('flaky_attempts', 3000)").ok());
  constexpr int64_t kBase = 1'104'742'800'000'000;  // 2005-01-03 09:00:00 UTC
  int readings = 0;
  session->SetClock([&readings] { return kBase + ++readings * 1'000'000; });
  const Param params[] = {int64_t{3002}, Param::Null()};  // fails twice, then commits
  QueryResult rows;
  TxnOutcome o = session->Call(Isolation::kSerializable, 3, "call_flaky_at", params,
                               Finish::kCommit, rows, {}, 1);
  ASSERT_EQ(o.end, TxnEnd::kCommitted) << o.message;
  EXPECT_EQ(o.retries, 2);
  EXPECT_EQ(readings, 3);
  EXPECT_EQ(rows.TimestampMicros(0, 1), kBase + 3'000'000);
}

TEST_F(SessionTest, CallOnALostConnectionSaysSo) {
  auto session = Open();
  auto killer = Connection::Open(conninfo_);
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(killer.ok());
  int64_t pid = 0;
  session->Run(Isolation::kReadCommitted, 0, [&](Transaction& tx) {
    pid = tx.Exec("pid").Int(0, 0);
    return Finish::kCommit;
  });
  ASSERT_TRUE(TerminateBackend(**killer, pid));
  QueryResult rows;
  const Param params[] = {60, int64_t{1}};
  TxnOutcome o =
      session->Call(Isolation::kSerializable, 3, "call_put", params, Finish::kCommit, rows);
  EXPECT_EQ(o.end, TxnEnd::kConnectionLost);
  EXPECT_FALSE(session->connected());
  ASSERT_TRUE(session->Reconnect().ok());
  o = session->Call(Isolation::kSerializable, 3, "call_put", params, Finish::kCommit, rows);
  EXPECT_EQ(o.end, TxnEnd::kCommitted) << o.message;
}

// Three non-blocking sessions driven by one poll loop, as the Brokerage House's event loop
// drives them: calls in flight side by side, a retried one among them.
TEST_F(SessionTest, CallsInStepsRunSideBySideOnOneThread) {
  std::vector<std::unique_ptr<Session>> sessions;
  for (int i = 0; i < 3; ++i) {
    sessions.push_back(Open());
    ASSERT_NE(sessions.back(), nullptr);
    ASSERT_TRUE(sessions.back()->SetNonBlocking().ok());
  }
  sessions[0]->Run(Isolation::kReadCommitted, 0, [](Transaction& tx) {
    tx.Exec("insert", {101, int64_t{0}});
    return Finish::kCommit;
  });
  ASSERT_TRUE(
      Connection::Open(conninfo_)
          .value()
          ->Execute("UPDATE kv SET v = 0 WHERE k = 100; SELECT setval('flaky_attempts', 1000)")
          .ok());
  const Param put_a[] = {70, int64_t{1}};
  const Param put_b[] = {71, int64_t{2}};
  const Param flaky[] = {int64_t{1001}};  // fails once (the sequence is at 1000)
  sessions[0]->StartCall(Isolation::kSerializable, 0, "call_put", put_a, Finish::kCommit);
  sessions[1]->StartCall(Isolation::kReadCommitted, 0, "call_put", put_b, Finish::kCommit);
  sessions[2]->StartCall(Isolation::kRepeatableRead, 3, "call_flaky", flaky, Finish::kCommit);
  std::vector<TxnOutcome> outcomes(3);
  std::vector<QueryResult> rows(3);
  std::vector<bool> done(3, false);
  for (int round = 0; round < 1000 && std::count(done.begin(), done.end(), false) > 0; ++round) {
    std::vector<pollfd> fds;
    for (auto& s : sessions) {
      fds.push_back({s->socket(), static_cast<short>(POLLIN | (s->WantsWrite() ? POLLOUT : 0)), 0});
    }
    ASSERT_GE(::poll(fds.data(), fds.size(), 5000), 1) << "no progress in 5 s";
    for (std::size_t i = 0; i < sessions.size(); ++i) {
      if (!done[i] && fds[i].revents != 0) done[i] = sessions[i]->Progress(outcomes[i], rows[i]);
    }
  }
  ASSERT_THAT(done, ::testing::Each(true));
  for (const auto& o : outcomes) EXPECT_EQ(o.end, TxnEnd::kCommitted) << o.message;
  EXPECT_EQ(rows[0].Int(0, 0), 0);
  EXPECT_EQ(outcomes[2].retries, 1);
  EXPECT_EQ(rows[2].Int(0, 0), 1002);
  EXPECT_EQ(ValueOf(*sessions[0], 70), 1);
  EXPECT_EQ(ValueOf(*sessions[0], 71), 2);
  EXPECT_EQ(ValueOf(*sessions[0], 100), 1);
}

// A session's setup runs on every connection it makes, before its statements are prepared; a
// bad one fails the open, quoting it and the server's reason.
TEST_F(SessionTest, SetupRunsOnEveryConnectionAndABadOneIsNamed) {
  auto session = Session::Open(conninfo_, kStatements,
                               "SET application_name = 'bb_setup'; SET enable_seqscan = off");
  ASSERT_TRUE(session.ok()) << session.status().message();
  auto setting = [&](std::string_view name) {
    QueryResult rows;
    const Param p[] = {name};
    EXPECT_EQ((*session)->Call(Isolation::kReadCommitted, 0, "setting", p, Finish::kCommit, rows).end,
              TxnEnd::kCommitted);
    return rows.size() == 1 ? std::string(rows.Text(0, 0)) : std::string("(no row)");
  };
  EXPECT_EQ(setting("application_name"), "bb_setup");
  EXPECT_EQ(setting("enable_seqscan"), "off");
  ASSERT_TRUE((*session)->Reconnect().ok());
  EXPECT_EQ(setting("enable_seqscan"), "off") << "after Reconnect";
  auto plain = Open();
  ASSERT_NE(plain, nullptr);
  QueryResult rows;
  const Param p[] = {"enable_seqscan"};
  plain->Call(Isolation::kReadCommitted, 0, "setting", p, Finish::kCommit, rows);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows.Text(0, 0), "on") << "without a setup";

  auto bad = Session::Open(conninfo_, kStatements, "SET no_such_setting_here = 1");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("session setup 'SET no_such_setting_here = 1'"));
  EXPECT_THAT(bad.status().message(), HasSubstr("no_such_setting_here"));
}

// Advisory locks held in this database by any session.
std::string AdvisoryLocks(Connection& conn) {
  return conn
      .Query("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND database = "
             "(SELECT oid FROM pg_database WHERE datname = current_database())")
      ->values[0][0]
      .value_or("?");
}

// Waits (at most 10 s) until one session of this database other than conn's waits for a lock.
bool OneWaitsForALock(Connection& conn) {
  for (int i = 0; i < 1000; ++i) {
    auto waiting = conn.Query(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND "
        "wait_event_type = 'Lock' AND pid <> pg_backend_pid()");
    if (waiting.ok() && waiting->values[0][0] == std::optional<std::string>("1")) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// A guarded SERIALIZABLE call that meets another transaction's lock takes its snapshot only
// once it has the lock, so it sees that transaction's commit and does not fail; the same
// interleaving without the guard costs a serialization failure and a retry.
TEST_F(SessionTest, AGuardedCallWaitsWhereAnUnguardedOneFailsAndRetries) {
  auto admin = Connection::Open(conninfo_).value();
  ASSERT_TRUE(admin->Execute("INSERT INTO kv VALUES (200, 0) ON CONFLICT (k) DO NOTHING").ok());
  for (const bool guarded : {true, false}) {
    SCOPED_TRACE(guarded ? "guarded" : "unguarded");
    ASSERT_TRUE(admin->Execute("UPDATE kv SET v = 0 WHERE k = 200").ok());
    auto other = Connection::Open(conninfo_).value();
    ASSERT_TRUE(
        other->Execute("SELECT pg_advisory_lock(200); BEGIN; UPDATE kv SET v = v + 1 WHERE k = 200")
            .ok());
    auto session = Open();
    ASSERT_NE(session, nullptr);
    ASSERT_TRUE(session->SetNonBlocking().ok());
    const Param add[] = {200, int64_t{10}};  // the guard's key is the first: 200
    session->StartCall(Isolation::kSerializable, 3, "add", add, Finish::kCommit,
                       guarded ? "guard" : "");
    const bool waited = OneWaitsForALock(*admin);
    ASSERT_TRUE(other->Execute("COMMIT; SELECT pg_advisory_unlock(200)").ok());
    TxnOutcome outcome;
    QueryResult rows;
    bool done = false;
    for (int round = 0; round < 1000 && !done; ++round) {
      pollfd p{session->socket(), static_cast<short>(POLLIN | (session->WantsWrite() ? POLLOUT : 0)),
               0};
      ASSERT_GE(::poll(&p, 1, 5000), 1) << "no progress in 5 s";
      done = session->Progress(outcome, rows);
    }
    ASSERT_TRUE(done);
    EXPECT_TRUE(waited) << "the call never waited for the other transaction";
    EXPECT_EQ(outcome.end, TxnEnd::kCommitted) << outcome.message;
    EXPECT_EQ(outcome.retries, guarded ? 0 : 1);
    EXPECT_EQ(ValueOf(*session, 200), 11);
    EXPECT_EQ(AdvisoryLocks(*admin), "0");
  }
}

// The guard's locks go however the transaction ends (committed, failed inside its block, failed
// and retried) and whichever way it runs (Call, Run); each call takes them again.
TEST_F(SessionTest, AGuardsLocksAreReleasedOnEveryEnd) {
  auto admin = Connection::Open(conninfo_).value();
  ASSERT_TRUE(admin->Execute("UPDATE kv SET v = 0 WHERE k = 100; "
                             "SELECT setval('flaky_attempts', 2000)")
                  .ok());
  auto session = Open();
  ASSERT_NE(session, nullptr);
  QueryResult rows;
  const Param put[] = {210, int64_t{1}};
  EXPECT_EQ(session->Call(Isolation::kSerializable, 0, "call_put", put, Finish::kCommit, rows,
                          "guard")
                .end,
            TxnEnd::kCommitted);
  EXPECT_EQ(AdvisoryLocks(*admin), "0") << "after a commit";
  const auto before = session->counters();
  TxnOutcome duplicate =
      session->Call(Isolation::kSerializable, 0, "call_put", put, Finish::kCommit, rows, "guard");
  EXPECT_EQ(duplicate.end, TxnEnd::kDbError);
  EXPECT_EQ(duplicate.sqlstate, "23505");
  EXPECT_EQ(session->counters().round_trips - before.round_trips, 2);  // + the ROLLBACK
  EXPECT_EQ(AdvisoryLocks(*admin), "0") << "after a failure inside the block";
  const Param flaky[] = {int64_t{2002}};  // fails twice, then commits
  TxnOutcome retried =
      session->Call(Isolation::kSerializable, 3, "call_flaky", flaky, Finish::kCommit, rows, "guard");
  EXPECT_EQ(retried.end, TxnEnd::kCommitted) << retried.message;
  EXPECT_EQ(retried.retries, 2);
  EXPECT_EQ(AdvisoryLocks(*admin), "0") << "after retries";
  const Param key[] = {int64_t{211}};
  TxnOutcome ran = session->Run(
      Isolation::kSerializable, 0,
      [](Transaction& tx) {
        tx.Exec("insert", {211, int64_t{1}});
        tx.Exec("insert", {211, int64_t{1}});  // fails: duplicate key
        return Finish::kCommit;
      },
      "guard", key);
  EXPECT_EQ(ran.end, TxnEnd::kDbError);
  EXPECT_EQ(AdvisoryLocks(*admin), "0") << "after a failed Run";
  EXPECT_EQ(session->Call(Isolation::kReadCommitted, 0, "call_put", put, Finish::kRollback, rows,
                          "guard")
                .end,
            TxnEnd::kDbError);  // still a duplicate; the session is usable throughout
  EXPECT_EQ(AdvisoryLocks(*admin), "0");
}

TEST_F(SessionTest, ArraysReadAsTheServerWritesThem) {
  auto session = Open();
  ASSERT_NE(session, nullptr);
  QueryResult r;
  session->Run(Isolation::kReadCommitted, 0, [&](Transaction& tx) {
    r = tx.Exec("arrays");
    return Finish::kCommit;
  });
  ASSERT_EQ(r.size(), 1u);
  std::vector<std::string> texts;
  std::vector<bool> nulls;
  for (ArrayReader a(r.Text(0, 0)); a.Next();) {
    texts.emplace_back(a.value());
    nulls.push_back(a.is_null());
  }
  EXPECT_THAT(texts,
              ::testing::ElementsAre("a b", "", "q\"x", "back\\slash", "", "NULL", "{}", "x,y"));
  EXPECT_THAT(nulls, ::testing::ElementsAre(false, true, false, false, false, false, false, false));
  std::vector<int64_t> ints;
  for (ArrayReader a(r.Text(0, 1)); a.Next();) ints.push_back(a.Int());
  EXPECT_THAT(ints, ::testing::ElementsAre(1, -2, 3));
  EXPECT_FALSE(ArrayReader(r.Text(0, 2)).Next());  // {}
  EXPECT_TRUE(r.IsNull(0, 3));
  EXPECT_FALSE(ArrayReader(r.Text(0, 3)).Next());  // NULL
  ArrayReader ts(r.Text(0, 4));
  ASSERT_TRUE(ts.Next());
  EXPECT_EQ(ts.TimestampMicros(), 1'104'742'800'500'000);
  ASSERT_TRUE(ts.Next());
  EXPECT_EQ(ts.TimestampMicros(), 1'104'796'800'000'000);
  EXPECT_FALSE(ts.Next());
  ArrayReader money(r.Text(0, 5));
  ASSERT_TRUE(money.Next());
  EXPECT_EQ(money.Cents(), 101);
  ASSERT_TRUE(money.Next());
  EXPECT_EQ(money.Cents(), -250);
}

}  // namespace
}  // namespace bb::db
