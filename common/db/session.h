// Session: a database connection for a worker that runs transaction frames (the Brokerage
// House's DB workers, bb-txn). Every statement is prepared once, when the session opens, so bad
// SQL fails at start and not in the middle of a run (STYLE.md: prepare_now). Run() executes one
// TPC-E transaction as one database transaction at the isolation level the spec asks for
// (reference §4.0), retries the whole body on serialization failure (40001) or deadlock
// (40P01) a bounded number of times, and reports how it ended without conflating anything.
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
// IsNull where NULL is possible.
class QueryResult {
 public:
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
  int retries = 0;       // attempts repeated after 40001/40P01
  int statements = 0;    // statements executed over all attempts, BEGIN/COMMIT excluded
  std::string sqlstate;  // for kDbError, kRetryExhausted
  std::string message;   // one line
};

class Session {
 public:
  // Connects and prepares every statement; an error names the statement that failed.
  static Result<std::unique_ptr<Session>> Open(const std::string& conninfo,
                                               std::span<const PreparedStatement> statements);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Runs body in one transaction: BEGIN ISOLATION LEVEL ..., the body's statements, COMMIT
  // (or ROLLBACK when the body returns kRollback). The body may run again after a retryable
  // failure, so it must set its outputs afresh on each call.
  TxnOutcome Run(Isolation isolation, int max_retries,
                 const std::function<Finish(Transaction&)>& body);

  // Opens a new connection and prepares the statements again, after kConnectionLost.
  Status Reconnect();
  // False after a lost connection, until Reconnect succeeds.
  bool connected() const;

  // Work done since the session opened, over every attempt: statements of the bodies, and
  // round trips to the server (those statements plus BEGIN and COMMIT or ROLLBACK).
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
