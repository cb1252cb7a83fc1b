// Private to bb_db's session (session.cpp, values.cpp, pipelined_call.cpp): what the three
// share of libpq, the errors Transaction::Exec throws, the statements the session prepares for
// itself, and Session::Impl. Not a public header: only those files include it.
#pragma once

#include <array>
#include <charconv>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <libpq-fe.h>

#include "common/db/session.h"

namespace bb::db {

inline std::string OneLine(std::string_view text) {
  std::string out(text);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  for (char& c : out) {
    if (c == '\n' || c == '\t') c = ' ';
  }
  return out;
}

inline int64_t ParseInt(std::string_view s) {
  int64_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using ResultPtr = std::unique_ptr<PGresult, ResultDeleter>;

// A statement the server refused; thrown by Transaction::Exec, caught by Session::Run.
class SqlError : public std::runtime_error {
 public:
  SqlError(std::string sqlstate, const std::string& message)
      : std::runtime_error(message), sqlstate_(std::move(sqlstate)) {}
  const std::string& sqlstate() const { return sqlstate_; }

 private:
  std::string sqlstate_;
};

// The connection broke; thrown by Transaction::Exec, caught by Session::Run.
class ConnectionLost : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Statements the session prepares for itself; frame statements never start with "bb_session_".
inline constexpr PreparedStatement kBegin[] = {
    {"bb_session_begin_rc", "BEGIN ISOLATION LEVEL READ COMMITTED"},
    {"bb_session_begin_rr", "BEGIN ISOLATION LEVEL REPEATABLE READ"},
    {"bb_session_begin_ser", "BEGIN ISOLATION LEVEL SERIALIZABLE"},
};
inline constexpr PreparedStatement kCommit{"bb_session_commit", "COMMIT"};
inline constexpr PreparedStatement kRollback{"bb_session_rollback", "ROLLBACK"};
// Ends a call's guard (Session::StartCall): the guard's session-level advisory locks go, however
// many times the attempts took them.
inline constexpr PreparedStatement kUnlock{"bb_session_unlock", "SELECT pg_advisory_unlock_all()"};

// ---- QueryResult -----------------------------------------------------------------------------

struct QueryResult::Impl {
  ResultPtr result;
};

// ---- Session internals -----------------------------------------------------------------------

struct Session::Impl {
  std::string conninfo;
  std::vector<PreparedStatement> statements;
  PGconn* conn = nullptr;
  Counters counters;
  std::function<void(std::string_view)> notice_sink;
  // What a call's now_param is set from (SetClock); empty: the wall clock.
  std::function<int64_t()> clock;
  std::string setup;  // run on every new connection (Open, Reconnect)

  ~Impl() { Close(); }
  void Close() {
    if (conn != nullptr) PQfinish(conn);
    conn = nullptr;
  }
  bool broken() const { return conn == nullptr || PQstatus(conn) != CONNECTION_OK; }

  // One step of a pipeline: a prepared statement and its parameters.
  struct Step {
    std::string_view name;
    std::span<const Param> params;
  };

  // The outcome of one pipeline: the result of each step (null after the first failure), and
  // the failure if any.
  static constexpr std::size_t kMaxSteps = 4;
  struct Reply {
    std::array<ResultPtr, kMaxSteps> results;
    bool failed = false;
    std::string sqlstate;
    std::string message;
  };

  // Queues the steps and a Sync, and flushes what the socket takes (all of it, unless the
  // connection is non-blocking). Throws ConnectionLost when the connection breaks.
  void Send(std::initializer_list<Step> steps) {
    Queue(steps);
    Flush();
  }

  // Queues the steps and a Sync without sending them: several groups, each ended by its own
  // Sync, then go out in one write (Flush) and are answered in one round trip.
  void Queue(std::initializer_list<Step> steps) {
    if (broken()) throw ConnectionLost("not connected to the database");
    constexpr std::size_t kMaxParams = 64;
    std::array<const char*, kMaxParams> values{};
    std::string name;
    for (const Step& step : steps) {
      if (step.params.size() > kMaxParams) {
        throw std::invalid_argument(
            fmt::format("statement {}: more than {} parameters", step.name, kMaxParams));
      }
      for (std::size_t i = 0; i < step.params.size(); ++i) {
        // A null pointer is SQL NULL.
        values[i] = step.params[i].is_null() ? nullptr : step.params[i].text().c_str();
      }
      name.assign(step.name);
      if (PQsendQueryPrepared(conn, name.c_str(), static_cast<int>(step.params.size()),
                              values.data(), nullptr, nullptr, 0) != 1) {
        throw ConnectionLost(OneLine(PQerrorMessage(conn)));
      }
    }
    if (PQpipelineSync(conn) != 1) throw ConnectionLost(OneLine(PQerrorMessage(conn)));
  }

  void Flush() {
    ++counters.round_trips;
    if (PQflush(conn) < 0) throw ConnectionLost(OneLine(PQerrorMessage(conn)));
  }

  // Takes one step's first result into the reply (the step's later results and the null that
  // ends them are the caller's to skip).
  void Take(ResultPtr first, std::size_t i, Reply& reply) {
    const ExecStatusType status = PQresultStatus(first.get());
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
      reply.results[i] = std::move(first);
    } else if (status == PGRES_PIPELINE_ABORTED) {
      // Skipped after an earlier failure.
    } else if (!reply.failed) {
      reply.failed = true;
      const char* state = PQresultErrorField(first.get(), PG_DIAG_SQLSTATE);
      reply.sqlstate = state != nullptr ? state : "";
      reply.message = OneLine(PQresultErrorMessage(first.get()));
      if (reply.sqlstate.empty() && broken()) throw ConnectionLost(reply.message);
    }
  }

  // Sends the steps and a Sync in one write, then waits for every result up to the Sync.
  // Throws ConnectionLost when the connection breaks; an SQL error is returned in the Reply.
  void Pipeline(std::initializer_list<Step> steps, Reply& reply) {
    Send(steps);
    for (std::size_t i = 0; i < steps.size(); ++i) {
      // Each step's results end with a null; the first is the one that counts.
      ResultPtr first(PQgetResult(conn));
      if (!first) throw ConnectionLost(OneLine(PQerrorMessage(conn)));
      while (PGresult* more = PQgetResult(conn)) PQclear(more);
      Take(std::move(first), i, reply);
    }
    ResultPtr sync(PQgetResult(conn));
    if (!sync || PQresultStatus(sync.get()) != PGRES_PIPELINE_SYNC) {
      throw ConnectionLost(sync ? OneLine(PQresultErrorMessage(sync.get()))
                                : OneLine(PQerrorMessage(conn)));
    }
  }

  // After a failure: ends a transaction block the failure left open (aborted).
  void EndFailedBlock() {
    if (broken() || PQtransactionStatus(conn) != PQTRANS_INERROR) return;
    Reply reply;
    Pipeline({{kRollback.name, {}}}, reply);
  }

  // ---- the call in progress (StartCall, Progress) ----
  // What is in flight is one to three groups, each ended by a Sync and answered in order: the
  // guard's lock, the call's transaction (or the ROLLBACK of its failed block) and the guard's
  // unlock. Only the transaction's results count; the guard's are read and dropped.
  enum class Group : std::uint8_t { kGuard, kCall, kRollback };
  struct InFlight {
    Group group = Group::kCall;
    std::size_t steps = 0;
  };
  struct CallState {
    Isolation isolation = Isolation::kReadCommitted;
    int max_retries = 0;
    std::string_view statement;
    std::vector<Param> params;
    // The parameter set to the clock's time before each attempt; -1: none.
    int now_param = -1;
    Finish finish = Finish::kCommit;
    std::string_view guard;     // empty: none
    bool implicit = false;      // READ COMMITTED with kCommit: no BEGIN, no COMMIT
    std::array<InFlight, 3> groups;
    std::size_t group_count = 0;
    std::size_t group = 0;      // whose results come next
    std::size_t step = 0;       // of that group, whose result comes next
    bool after_result = false;  // the step's result is in; its closing null comes next
    bool rolled_back = false;   // the call's failed block has been closed
    Reply reply;
    TxnOutcome outcome;
    bool active = false;
  };
  CallState call;

  // The call's steps (pipelined_call.cpp).
  void QueueGroup(Group group, std::initializer_list<Step> steps);
  void Launch();
  void SendCall();
  bool Advance();
  bool PipelineDone();
};

}  // namespace bb::db
