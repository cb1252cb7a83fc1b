// Session: a database connection for a worker that runs transaction frames (the Brokerage
// House's DB workers, bb-txn). Every statement is prepared once, when the session opens, so bad
// SQL fails at start and not in the middle of a run (docs/STYLE.md: prepare_now). Run() executes
// one TPC-E transaction as one database transaction at the isolation level the spec asks for
// (clause 7.4.1.3), retries the whole body on serialization failure (40001) or deadlock
// (40P01) a bounded number of times, and reports how it ended without conflating anything.
// Call() does the same for a transaction that is one server-side function: BEGIN, the call and
// COMMIT travel together in one round trip.
//
// libpq directly, in pipeline mode (libpq 14+): statements queue on the connection and a whole
// group goes out in one write, which libpqxx 6 cannot do. BEGIN goes out with the first
// statement of a transaction, so no transaction pays a round trip for it.
//
// Ownership: owns one libpq connection. Thread-safety: none; one session per thread.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "common/util/status.h"

namespace bb::db {

enum class Isolation { kReadCommitted, kRepeatableRead, kSerializable };

struct PreparedStatement {
  std::string_view name;
  std::string_view sql;  // $1, $2 ... for parameters
};

// One statement parameter, sent as text. Money is in cents and times in microseconds since
// the epoch, as on the wire (common/protocol).
class Param {
 public:
  Param(int64_t v);  // NOLINT: implicit by design, like a literal
  Param(int32_t v) : Param(static_cast<int64_t>(v)) {}         // NOLINT
  Param(double v);                                             // NOLINT
  Param(bool v);                                               // NOLINT
  Param(std::string_view v);                                   // NOLINT
  Param(const char* v) : Param(std::string_view(v)) {}         // NOLINT
  Param(const std::string& v) : Param(std::string_view(v)) {}  // NOLINT
  static Param Null();
  static Param Cents(int64_t cents);       // numeric with 2 decimals
  static Param Timestamp(int64_t micros);  // timestamp without time zone (UTC)
  static Param Date(int32_t days);         // days since 1970-01-01

  bool is_null() const { return null_; }
  const std::string& text() const { return text_; }

 private:
  Param() = default;
  std::string text_;
  bool null_ = false;
};

// The rows of one statement, read as typed values. Reading a NULL as a number is 0; check
// IsNull where NULL is possible. An empty QueryResult has no rows.
class QueryResult {
 public:
  QueryResult() = default;
  std::size_t size() const;
  bool empty() const { return size() == 0; }
  int64_t affected_rows() const;

  bool IsNull(std::size_t row, int col) const;
  int64_t Int(std::size_t row, int col) const;
  double Double(std::size_t row, int col) const;
  bool Bool(std::size_t row, int col) const;
  std::string_view Text(std::size_t row, int col) const;
  int64_t Cents(std::size_t row, int col) const;            // numeric -> hundredths, rounded
  int64_t TimestampMicros(std::size_t row, int col) const;  // timestamp -> µs since epoch
  int32_t DateDays(std::size_t row, int col) const;         // date -> days since epoch

  struct Impl;
  explicit QueryResult(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<const Impl> impl_;
};

// One one-dimensional array column in PostgreSQL's text form ({1,2}, {"a b",NULL,c}), read
// element by element: server-side frames return their lists as parallel arrays. value() and
// the typed readers see the current element; a NULL element reads as 0 or "".
class ArrayReader {
 public:
  explicit ArrayReader(std::string_view text);
  // Moves to the next element; false at the end (or on text that is not an array).
  bool Next();
  bool is_null() const { return null_; }
  std::string_view value() const { return value_; }  // valid until the next Next()
  int64_t Int() const;
  double Double() const;
  bool Bool() const;
  int64_t Cents() const;
  int64_t TimestampMicros() const;
  int32_t DateDays() const;

 private:
  std::string_view rest_;
  std::string_view value_;
  std::string unescaped_;  // the element, when it had backslash escapes
  bool null_ = false;
};

// The statements of one attempt of a transaction. Exec throws on an SQL error; Session::Run
// catches it, so frame code reads straight through.
class Transaction {
 public:
  QueryResult Exec(std::string_view statement, std::initializer_list<Param> params = {});
  QueryResult Exec(std::string_view statement, std::span<const Param> params);
  int statements() const { return statements_; }

  struct Impl;
  explicit Transaction(Impl& impl) : impl_(impl) {}

 private:
  Impl& impl_;
  int statements_ = 0;
};

enum class Finish { kCommit, kRollback };

enum class TxnEnd {
  kCommitted,
  kRolledBack,      // the body asked for it (e.g. Trade-Order's roll_it_back)
  kRetryExhausted,  // 40001/40P01 more often than allowed
  kDbError,         // any other SQL error; sqlstate and message say which
  kConnectionLost,  // the connection broke (the outcome of a COMMIT in flight is unknown)
};

struct TxnOutcome {
  TxnEnd end = TxnEnd::kCommitted;
  int retries = 0;              // attempts repeated after 40001/40P01
  int statements = 0;           // statements executed over all attempts, BEGIN/COMMIT excluded
  int32_t rollback_status = 0;  // kRolledBack by a server-side frame: the spec status it gave
  std::string sqlstate;         // for kDbError, kRetryExhausted
  std::string message;          // one line
};

// A server-side frame that must undo its writes raises this SQLSTATE with the message
// "spec status N" (N < 0); Call() reports kRolledBack with rollback_status N.
inline constexpr std::string_view kFrameRollbackSqlstate = "BB001";

class Session {
 public:
  // Connects, runs `setup` (SQL such as SET commands; empty: none) and prepares every
  // statement; an error names the statement that failed. Reconnect does the same.
  static Result<std::unique_ptr<Session>> Open(const std::string& conninfo,
                                               std::span<const PreparedStatement> statements,
                                               std::string_view setup = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Runs body in one transaction: BEGIN ISOLATION LEVEL ..., the body's statements, COMMIT
  // (or ROLLBACK when the body returns kRollback). The body may run again after a retryable
  // failure, so it must set its outputs afresh on each call. `guard` (with `guard_params`) is
  // as for Call, in round trips of its own before and after each attempt.
  TxnOutcome Run(Isolation isolation, int max_retries,
                 const std::function<Finish(Transaction&)>& body, std::string_view guard = {},
                 std::span<const Param> guard_params = {});

  // Runs one prepared statement (a call of a server-side frame function) as one transaction in
  // one round trip: BEGIN ISOLATION LEVEL ..., the statement, and COMMIT or ROLLBACK as
  // `finish` says, pipelined. READ COMMITTED with kCommit needs no BEGIN: the statement is its
  // own transaction. Retried like Run; `rows` gets the statement's rows of the last attempt.
  // A failure costs one more round trip (the ROLLBACK of the failed block).
  //
  // `guard`, when set, is a prepared statement that takes session-level advisory locks
  // (pg_advisory_lock) from the call's first parameter. It runs in a transaction of its own
  // before each attempt, so that the attempt's snapshot is taken only once the locks are held,
  // and the session releases every advisory lock it holds after the attempt (in the same round
  // trip). Calls that would surely conflict (a serialization failure, 40001) then wait for each
  // other instead; their isolation level is unchanged. A guard that fails is ignored: the call
  // runs unguarded, as safely as ever.
  //
  // `now_param`, when not negative, is the index in `params` of the call's "current time" (a
  // timestamp): the session sets it from its clock (SetClock) before each attempt, so that the
  // attempt that commits writes the time it ran at, not the time of an attempt that failed.
  TxnOutcome Call(Isolation isolation, int max_retries, std::string_view statement,
                  std::span<const Param> params, Finish finish, QueryResult& rows,
                  std::string_view guard = {}, int now_param = -1);

  // Call in steps, for an event loop that serves many sessions on one thread: StartCall sends
  // the call without waiting (the parameters are copied; `statement` and `guard` must outlive the
  // call); then, whenever socket() is readable (or writable, while WantsWrite()), Progress() reads
  // what has come, sends what follows (a ROLLBACK, a retry) and returns true once the call has
  // ended, with `outcome` and `rows` set as Call sets them. One call at a time, and no Run or
  // Call while one is in progress. SetNonBlocking first, so that no send ever waits.
  Status SetNonBlocking();
  void StartCall(Isolation isolation, int max_retries, std::string_view statement,
                 std::span<const Param> params, Finish finish, std::string_view guard = {},
                 int now_param = -1);
  bool Progress(TxnOutcome& outcome, QueryResult& rows);
  bool WantsWrite() const;
  int socket() const;  // -1 when not connected

  // The clock a call's `now_param` reads, in µs since the epoch; empty (the default): the wall
  // clock. Tests set one to compare runs row for row.
  void SetClock(std::function<int64_t()> clock);

  // Notices and log messages the server sends (auto_explain's plans with
  // client_min_messages = log, say), one message each, to `sink` instead of nowhere.
  void SetNoticeSink(std::function<void(std::string_view message)> sink);

  // Opens a new connection and prepares the statements again, after kConnectionLost.
  Status Reconnect();
  // False after a lost connection, until Reconnect succeeds.
  bool connected() const;

  // Work done since the session opened, over every attempt: statements of the bodies (a Call
  // is one), and round trips to the server (each a group of statements sent together and
  // answered before the next is sent).
  struct Counters {
    int64_t statements = 0;
    int64_t round_trips = 0;
  };
  Counters counters() const;

  struct Impl;

 private:
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace bb::db
