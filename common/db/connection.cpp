#include "common/db/connection.h"

#include <fmt/format.h>
#include <pqxx/pqxx>

#include "common/db/conninfo.h"

namespace bb::db {

struct Connection::Impl {
  explicit Impl(const std::string& conninfo) : conn(conninfo) {}
  pqxx::connection conn;
};

namespace {

// libpqxx's messages end with a newline and may span lines; keep them on one line.
std::string OneLine(std::string_view text) {
  std::string out(text);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  for (char& c : out) {
    if (c == '\n') c = ' ';
  }
  return out;
}

Status FromSqlError(const pqxx::sql_error& e) {
  return Status::DbError(fmt::format("{}: {}", e.sqlstate(), OneLine(e.what())));
}

}  // namespace

Connection::Connection(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Connection::~Connection() = default;

Result<std::unique_ptr<Connection>> Connection::Open(const std::string& conninfo) {
  // Checked first, so that no message below quotes libpq's parser, and shown redacted.
  if (Status s = CheckConninfo(conninfo); !s.ok()) return s;
  try {
    return std::unique_ptr<Connection>(new Connection(std::make_unique<Impl>(conninfo)));
  } catch (const std::exception& e) {
    return Status::Unavailable(fmt::format(
        "cannot connect to the database ({}): {}",
        conninfo.empty() ? "PG* defaults" : RedactConninfo(conninfo), OneLine(e.what())));
  }
}

Status Connection::Execute(std::string_view sql) {
  try {
    pqxx::nontransaction tx(impl_->conn);
    tx.exec(std::string(sql));
    return Status::Ok();
  } catch (const pqxx::sql_error& e) {
    return FromSqlError(e);
  } catch (const pqxx::broken_connection& e) {
    return Status::Unavailable(fmt::format("database connection lost: {}", OneLine(e.what())));
  }
}

Result<Rows> Connection::Query(std::string_view sql) {
  try {
    pqxx::nontransaction tx(impl_->conn);
    pqxx::result result = tx.exec(std::string(sql));
    Rows rows;
    for (pqxx::row::size_type c = 0; c < result.columns(); ++c) {
      rows.columns.emplace_back(result.column_name(c));
    }
    rows.values.reserve(result.size());
    for (const auto& row : result) {
      auto& out = rows.values.emplace_back();
      out.reserve(row.size());
      for (const auto& field : row) {
        out.push_back(field.is_null() ? std::nullopt : std::optional<std::string>(field.c_str()));
      }
    }
    return rows;
  } catch (const pqxx::sql_error& e) {
    return FromSqlError(e);
  } catch (const pqxx::broken_connection& e) {
    return Status::Unavailable(fmt::format("database connection lost: {}", OneLine(e.what())));
  }
}

int Connection::ServerVersion() const { return impl_->conn.server_version(); }

}  // namespace bb::db
