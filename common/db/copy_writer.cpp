#include "common/db/copy_writer.h"

#include <climits>

#include <fmt/format.h>
#include <libpq-fe.h>

#include "common/db/conninfo.h"

namespace bb::db {

struct CopyWriter::Impl {
  PGconn* conn = nullptr;
  std::string table;
  bool open = false;  // a COPY is in progress

  ~Impl() {
    if (conn == nullptr) return;
    if (open) {
      PQputCopyEnd(conn, "aborted by the loader");
      while (PGresult* r = PQgetResult(conn)) PQclear(r);
    }
    PQfinish(conn);
  }
};

namespace {

std::string ErrorText(PGconn* conn) {
  std::string text = PQerrorMessage(conn);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  for (char& c : text) {
    if (c == '\n') c = ' ';
  }
  return text;
}

Status ResultStatus(PGresult* result, std::string_view table) {
  const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
  std::string message = PQresultErrorMessage(result);
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) {
    message.pop_back();
  }
  for (char& c : message) {
    if (c == '\n') c = ' ';
  }
  return Status::DbError(
      fmt::format("{}: COPY {}: {}", state != nullptr ? state : "?????", table, message));
}

}  // namespace

CopyWriter::CopyWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CopyWriter::~CopyWriter() = default;

Result<std::unique_ptr<CopyWriter>> CopyWriter::Open(const std::string& conninfo,
                                                     std::string_view table) {
  auto impl = std::make_unique<Impl>();
  impl->table = std::string(table);
  if (Status s = CheckConninfo(conninfo); !s.ok()) return s;
  impl->conn = PQconnectdb(conninfo.c_str());
  if (PQstatus(impl->conn) != CONNECTION_OK) {
    return Status::Unavailable(fmt::format(
        "cannot connect to the database ({}): {}",
        conninfo.empty() ? "PG* defaults" : RedactConninfo(conninfo), ErrorText(impl->conn)));
  }
  std::string sql = fmt::format("COPY {} FROM STDIN", table);
  PGresult* result = PQexec(impl->conn, sql.c_str());
  if (PQresultStatus(result) != PGRES_COPY_IN) {
    Status s = ResultStatus(result, table);
    PQclear(result);
    return s;
  }
  PQclear(result);
  impl->open = true;
  return std::unique_ptr<CopyWriter>(new CopyWriter(std::move(impl)));
}

Status CopyWriter::Write(std::string_view rows) {
  if (!impl_->open)
    return Status::InvalidArgument(fmt::format("COPY {}: already finished", impl_->table));
  while (!rows.empty()) {
    int n = rows.size() > INT_MAX / 2 ? INT_MAX / 2 : static_cast<int>(rows.size());
    if (PQputCopyData(impl_->conn, rows.data(), n) != 1) {
      return Status::Unavailable(
          fmt::format("COPY {}: sending rows failed: {}", impl_->table, ErrorText(impl_->conn)));
    }
    rows.remove_prefix(n);
    bytes_ += n;
  }
  return Status::Ok();
}

Status CopyWriter::Finish() {
  if (!impl_->open)
    return Status::InvalidArgument(fmt::format("COPY {}: already finished", impl_->table));
  impl_->open = false;
  if (PQputCopyEnd(impl_->conn, nullptr) != 1) {
    return Status::Unavailable(
        fmt::format("COPY {}: ending failed: {}", impl_->table, ErrorText(impl_->conn)));
  }
  Status status = Status::Ok();
  while (PGresult* result = PQgetResult(impl_->conn)) {
    if (PQresultStatus(result) != PGRES_COMMAND_OK && status.ok()) {
      status = ResultStatus(result, impl_->table);
    }
    PQclear(result);
  }
  return status;
}

}  // namespace bb::db
