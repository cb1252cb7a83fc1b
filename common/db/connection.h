// A database connection: the one door to PostgreSQL for code outside common/db, which never
// includes libpqxx itself (docs/STYLE.md). Errors come back as a Status whose message starts with
// the SQLSTATE, e.g. "23514: new row for relation ... violates check constraint ...".
//
// Ownership: owns one libpq connection. Thread-safety: none; one Connection per thread
// (libpqxx's rule).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/util/status.h"

namespace bb::db {

// The text result of a query: column names and rows of nullable text values.
struct Rows {
  std::vector<std::string> columns;
  std::vector<std::vector<std::optional<std::string>>> values;
};

class Connection {
 public:
  // Connects with a libpq connection string ("host=... dbname=..." or a postgresql:// URI);
  // unset parameters come from the PG* environment variables, as in psql.
  static Result<std::unique_ptr<Connection>> Open(const std::string& conninfo);

  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Runs one or more statements in autocommit mode (each its own transaction, as psql does).
  Status Execute(std::string_view sql);

  // Runs one statement in autocommit mode and returns its rows as text.
  Result<Rows> Query(std::string_view sql);

  // The server's version number, e.g. 150018.
  int ServerVersion() const;

  struct Impl;  // defined in connection.cpp; other common/db files reach libpqxx through it

 private:
  explicit Connection(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace bb::db
