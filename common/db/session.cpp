#include "common/db/session.h"

#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <pqxx/pqxx>

namespace bb::db {

namespace {

std::string OneLine(std::string_view text) {
  std::string out(text);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  for (char& c : out) {
    if (c == '\n') c = ' ';
  }
  return out;
}

constexpr int64_t kMicrosPerDay = 86'400'000'000LL;

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void CivilFromDays(int64_t z, int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp + (mp < 10 ? 3 : -9);
  y += m <= 2;
}

int64_t ParseInt(std::string_view s) {
  int64_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

}  // namespace

// ---- Param -----------------------------------------------------------------------------------

Param::Param(int64_t v) : text_(fmt::format("{}", v)) {}
Param::Param(double v) : text_(fmt::format("{}", v)) {}
Param::Param(bool v) : text_(v ? "t" : "f") {}
Param::Param(std::string_view v) : text_(v) {}

Param Param::Null() {
  Param p;
  p.null_ = true;
  return p;
}

Param Param::Cents(int64_t cents) {
  Param p;
  uint64_t magnitude = cents < 0 ? 0 - static_cast<uint64_t>(cents) : cents;
  p.text_ = fmt::format("{}{}.{:02}", cents < 0 ? "-" : "", magnitude / 100, magnitude % 100);
  return p;
}

Param Param::Timestamp(int64_t micros) {
  int64_t days =
      micros >= 0 ? micros / kMicrosPerDay : -((-micros + kMicrosPerDay - 1) / kMicrosPerDay);
  int64_t rest = micros - days * kMicrosPerDay;
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, y, m, d);
  Param p;
  p.text_ =
      fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:06}", y, m, d, rest / 3'600'000'000LL,
                  rest / 60'000'000 % 60, rest / 1'000'000 % 60, rest % 1'000'000);
  return p;
}

Param Param::Date(int32_t days) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, y, m, d);
  Param p;
  p.text_ = fmt::format("{:04}-{:02}-{:02}", y, m, d);
  return p;
}

// ---- QueryResult -----------------------------------------------------------------------------

struct QueryResult::Impl {
  pqxx::result result;
};

std::size_t QueryResult::size() const { return impl_->result.size(); }
int64_t QueryResult::affected_rows() const { return impl_->result.affected_rows(); }

bool QueryResult::IsNull(std::size_t row, int col) const {
  return impl_->result[static_cast<pqxx::result::size_type>(row)][col].is_null();
}

std::string_view QueryResult::Text(std::size_t row, int col) const {
  const auto& field = impl_->result[static_cast<pqxx::result::size_type>(row)][col];
  return std::string_view(field.c_str(), field.size());
}

int64_t QueryResult::Int(std::size_t row, int col) const { return ParseInt(Text(row, col)); }

double QueryResult::Double(std::size_t row, int col) const {
  std::string_view s = Text(row, col);
  double v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

bool QueryResult::Bool(std::size_t row, int col) const {
  std::string_view s = Text(row, col);
  return !s.empty() && (s[0] == 't' || s[0] == '1');
}

int64_t QueryResult::Cents(std::size_t row, int col) const {
  // numeric text: [-]digits[.digits]; exact to the cent, half away from zero beyond.
  std::string_view s = Text(row, col);
  bool negative = !s.empty() && s[0] == '-';
  if (negative) s.remove_prefix(1);
  auto dot = s.find('.');
  int64_t whole = ParseInt(s.substr(0, dot));
  int64_t cents = 0;
  if (dot != std::string_view::npos) {
    std::string_view frac = s.substr(dot + 1);
    for (int i = 0; i < 2; ++i)
      cents = cents * 10 + (i < static_cast<int>(frac.size()) ? frac[i] - '0' : 0);
    if (frac.size() > 2 && frac[2] >= '5') ++cents;
  }
  int64_t v = whole * 100 + cents;
  return negative ? -v : v;
}

int64_t QueryResult::TimestampMicros(std::size_t row, int col) const {
  // 'YYYY-MM-DD HH:MM:SS[.ffffff]'
  std::string_view s = Text(row, col);
  if (s.size() < 19) return 0;
  int64_t days =
      DaysFromCivil(ParseInt(s.substr(0, 4)), static_cast<unsigned>(ParseInt(s.substr(5, 2))),
                    static_cast<unsigned>(ParseInt(s.substr(8, 2))));
  int64_t micros = days * kMicrosPerDay + ParseInt(s.substr(11, 2)) * 3'600'000'000LL +
                   ParseInt(s.substr(14, 2)) * 60'000'000 + ParseInt(s.substr(17, 2)) * 1'000'000;
  if (s.size() > 20 && s[19] == '.') {
    std::string_view frac = s.substr(20, 6);
    int64_t f = ParseInt(frac);
    for (std::size_t i = frac.size(); i < 6; ++i) f *= 10;
    micros += f;
  }
  return micros;
}

int32_t QueryResult::DateDays(std::size_t row, int col) const {
  std::string_view s = Text(row, col);
  if (s.size() < 10) return 0;
  return static_cast<int32_t>(DaysFromCivil(ParseInt(s.substr(0, 4)),
                                            static_cast<unsigned>(ParseInt(s.substr(5, 2))),
                                            static_cast<unsigned>(ParseInt(s.substr(8, 2)))));
}

// ---- Transaction -----------------------------------------------------------------------------

struct Transaction::Impl {
  pqxx::nontransaction& tx;
};

QueryResult Transaction::Exec(std::string_view statement, std::initializer_list<Param> params) {
  return Exec(statement, std::span<const Param>(params.begin(), params.size()));
}

QueryResult Transaction::Exec(std::string_view statement, std::span<const Param> params) {
  ++statements_;
  // libpqxx sends a null const char* as SQL NULL.
  constexpr std::size_t kMaxParams = 64;
  std::array<const char*, kMaxParams> values{};
  if (params.size() > kMaxParams) {
    throw std::invalid_argument(
        fmt::format("statement {}: more than {} parameters", statement, kMaxParams));
  }
  for (std::size_t i = 0; i < params.size(); ++i) {
    values[i] = params[i].is_null() ? nullptr : params[i].text().c_str();
  }
  auto impl = std::make_shared<QueryResult::Impl>();
  impl->result = impl_.tx.exec_prepared(
      std::string(statement),
      pqxx::prepare::make_dynamic_params(values.begin(), values.begin() + params.size()));
  return QueryResult(std::move(impl));
}

// ---- Session ---------------------------------------------------------------------------------

struct Session::Impl {
  std::string conninfo;
  std::vector<PreparedStatement> statements;
  std::unique_ptr<pqxx::connection> conn;
  Counters counters;
};

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;

Result<std::unique_ptr<Session>> Session::Open(const std::string& conninfo,
                                               std::span<const PreparedStatement> statements) {
  auto impl = std::make_unique<Impl>();
  impl->conninfo = conninfo;
  impl->statements.assign(statements.begin(), statements.end());
  auto session = std::unique_ptr<Session>(new Session(std::move(impl)));
  Status s = session->Reconnect();
  if (!s.ok()) return s;
  return session;
}

Status Session::Reconnect() {
  impl_->conn.reset();
  try {
    impl_->conn = std::make_unique<pqxx::connection>(impl_->conninfo);
  } catch (const pqxx::broken_connection& e) {
    return Status::Unavailable(
        fmt::format("cannot connect to the database ({}): {}",
                    impl_->conninfo.empty() ? "PG* defaults" : impl_->conninfo, OneLine(e.what())));
  } catch (const std::exception& e) {
    return Status::InvalidArgument(
        fmt::format("database connection string '{}': {}", impl_->conninfo, OneLine(e.what())));
  }
  for (const auto& statement : impl_->statements) {
    try {
      std::string name(statement.name);
      impl_->conn->prepare(name, std::string(statement.sql));
      impl_->conn->prepare_now(name);
    } catch (const pqxx::sql_error& e) {
      return Status::DbError(fmt::format("preparing statement '{}': {}: {}", statement.name,
                                         e.sqlstate(), OneLine(e.what())));
    } catch (const pqxx::broken_connection& e) {
      return Status::Unavailable(fmt::format("preparing statement '{}': connection lost: {}",
                                             statement.name, OneLine(e.what())));
    }
  }
  return Status::Ok();
}

Session::Counters Session::counters() const { return impl_->counters; }

bool Session::connected() const { return impl_->conn != nullptr && impl_->conn->is_open(); }

TxnOutcome Session::Run(Isolation isolation, int max_retries,
                        const std::function<Finish(Transaction&)>& body) {
  static constexpr const char* kBegin[] = {
      "BEGIN ISOLATION LEVEL READ COMMITTED",
      "BEGIN ISOLATION LEVEL REPEATABLE READ",
      "BEGIN ISOLATION LEVEL SERIALIZABLE",
  };
  TxnOutcome outcome;
  if (impl_->conn == nullptr || !impl_->conn->is_open()) {
    outcome.end = TxnEnd::kConnectionLost;
    outcome.message = "not connected to the database";
    return outcome;
  }
  for (int attempt = 0;; ++attempt) {
    pqxx::nontransaction tx(*impl_->conn);
    Transaction::Impl txn_impl{tx};
    Transaction txn(txn_impl);
    bool in_block = false;
    bool lost = false;
    std::string state;  // SQLSTATE of the failure; libpqxx 6 knows it only for sql_error
    std::string what;
    try {
      ++impl_->counters.round_trips;
      tx.exec(kBegin[static_cast<int>(isolation)]);
      in_block = true;
      Finish finish = body(txn);
      outcome.statements += txn.statements();
      impl_->counters.statements += txn.statements();
      impl_->counters.round_trips += txn.statements() + 1;
      tx.exec(finish == Finish::kCommit ? "COMMIT" : "ROLLBACK");
      outcome.end = finish == Finish::kCommit ? TxnEnd::kCommitted : TxnEnd::kRolledBack;
      return outcome;
    } catch (const pqxx::broken_connection& e) {
      lost = true, what = e.what();
    } catch (const pqxx::in_doubt_error& e) {  // COMMIT sent, connection gone: outcome unknown
      lost = true, what = e.what();
    } catch (const pqxx::serialization_failure& e) {
      state = "40001", what = e.what();
    } catch (const pqxx::deadlock_detected& e) {
      state = "40P01", what = e.what();
    } catch (const pqxx::statement_completion_unknown& e) {
      state = "40003", what = e.what();
    } catch (const pqxx::transaction_rollback& e) {
      state = "40000", what = e.what();
    } catch (const pqxx::sql_error& e) {
      state = e.sqlstate(), what = e.what();
    } catch (const std::exception& e) {  // a bug or bad data in the body, not an SQL error
      what = e.what();
    }
    outcome.statements += txn.statements();
    impl_->counters.statements += txn.statements();
    impl_->counters.round_trips += txn.statements();
    outcome.message = OneLine(what);
    if (!lost && in_block) {
      try {
        ++impl_->counters.round_trips;
        tx.exec("ROLLBACK");
      } catch (const std::exception&) {
        lost = !impl_->conn->is_open();
      }
    }
    if (lost) {
      outcome.end = TxnEnd::kConnectionLost;
      impl_->conn.reset();
      return outcome;
    }
    const bool retryable = state == "40001" || state == "40P01";
    if (retryable && attempt < max_retries) {
      ++outcome.retries;
      continue;
    }
    outcome.end = retryable ? TxnEnd::kRetryExhausted : TxnEnd::kDbError;
    outcome.sqlstate = state;
    return outcome;
  }
}

}  // namespace bb::db
