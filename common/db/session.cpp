#include "common/db/session.h"

#include <array>
#include <charconv>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <libpq-fe.h>
#include <poll.h>

#include "common/db/conninfo.h"

namespace bb::db {

namespace {

std::string OneLine(std::string_view text) {
  std::string out(text);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  for (char& c : out) {
    if (c == '\n' || c == '\t') c = ' ';
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

double ParseDouble(std::string_view s) {
  double v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

bool ParseBool(std::string_view s) { return !s.empty() && (s[0] == 't' || s[0] == '1'); }

// numeric text: [-]digits[.digits]; exact to the cent, half away from zero beyond.
int64_t ParseCents(std::string_view s) {
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

// 'YYYY-MM-DD HH:MM:SS[.ffffff]' -> µs since the epoch.
int64_t ParseTimestamp(std::string_view s) {
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

// 'YYYY-MM-DD' -> days since the epoch.
int32_t ParseDate(std::string_view s) {
  if (s.size() < 10) return 0;
  return static_cast<int32_t>(DaysFromCivil(ParseInt(s.substr(0, 4)),
                                            static_cast<unsigned>(ParseInt(s.substr(5, 2))),
                                            static_cast<unsigned>(ParseInt(s.substr(8, 2)))));
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
constexpr PreparedStatement kBegin[] = {
    {"bb_session_begin_rc", "BEGIN ISOLATION LEVEL READ COMMITTED"},
    {"bb_session_begin_rr", "BEGIN ISOLATION LEVEL REPEATABLE READ"},
    {"bb_session_begin_ser", "BEGIN ISOLATION LEVEL SERIALIZABLE"},
};
constexpr PreparedStatement kCommit{"bb_session_commit", "COMMIT"};
constexpr PreparedStatement kRollback{"bb_session_rollback", "ROLLBACK"};
// Ends a call's guard (Session::StartCall): the guard's session-level advisory locks go, however
// many times the attempts took them.
constexpr PreparedStatement kUnlock{"bb_session_unlock", "SELECT pg_advisory_unlock_all()"};

// Notices (e.g. "there is no transaction in progress") are not errors; libpq would print them.
// They go to the session's notice sink when it has one (SetNoticeSink), else nowhere.
void ForwardNotice(void* sink, const PGresult* notice) {
  const auto& to = *static_cast<const std::function<void(std::string_view)>*>(sink);
  if (to) to(PQresultErrorMessage(notice));
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
  ResultPtr result;
};

std::size_t QueryResult::size() const {
  return impl_ ? static_cast<std::size_t>(PQntuples(impl_->result.get())) : 0;
}

int64_t QueryResult::affected_rows() const {
  return impl_ ? ParseInt(PQcmdTuples(impl_->result.get())) : 0;
}

bool QueryResult::IsNull(std::size_t row, int col) const {
  return PQgetisnull(impl_->result.get(), static_cast<int>(row), col) != 0;
}

std::string_view QueryResult::Text(std::size_t row, int col) const {
  const PGresult* r = impl_->result.get();
  return std::string_view(PQgetvalue(r, static_cast<int>(row), col),
                          static_cast<std::size_t>(PQgetlength(r, static_cast<int>(row), col)));
}

int64_t QueryResult::Int(std::size_t row, int col) const { return ParseInt(Text(row, col)); }
double QueryResult::Double(std::size_t row, int col) const { return ParseDouble(Text(row, col)); }
bool QueryResult::Bool(std::size_t row, int col) const { return ParseBool(Text(row, col)); }
int64_t QueryResult::Cents(std::size_t row, int col) const { return ParseCents(Text(row, col)); }
int64_t QueryResult::TimestampMicros(std::size_t row, int col) const {
  return ParseTimestamp(Text(row, col));
}
int32_t QueryResult::DateDays(std::size_t row, int col) const { return ParseDate(Text(row, col)); }

// ---- ArrayReader -----------------------------------------------------------------------------

ArrayReader::ArrayReader(std::string_view text) {
  // "{...}"; a NULL array reads as "" (no elements); so does "{}".
  if (text.size() >= 2 && text.front() == '{' && text.back() == '}') {
    rest_ = text.substr(1, text.size() - 2);
  }
}

bool ArrayReader::Next() {
  null_ = false;
  value_ = {};
  if (rest_.empty()) return false;
  if (rest_.front() == '"') {
    // Quoted: up to the closing quote; \" and \\ stand for " and \.
    std::size_t i = 1;
    bool escaped = false;
    while (i < rest_.size() && rest_[i] != '"') {
      if (rest_[i] == '\\') {
        escaped = true;
        ++i;
      }
      ++i;
    }
    std::string_view inner = rest_.substr(1, std::min(i, rest_.size()) - 1);
    if (escaped) {
      unescaped_.clear();
      for (std::size_t k = 0; k < inner.size(); ++k) {
        if (inner[k] == '\\' && k + 1 < inner.size()) ++k;
        unescaped_.push_back(inner[k]);
      }
      value_ = unescaped_;
    } else {
      value_ = inner;
    }
    rest_.remove_prefix(std::min(i + 1, rest_.size()));
  } else {
    std::size_t comma = rest_.find(',');
    value_ = rest_.substr(0, comma);
    null_ = value_ == "NULL";
    if (null_) value_ = {};
    rest_.remove_prefix(comma == std::string_view::npos ? rest_.size() : comma);
  }
  if (!rest_.empty() && rest_.front() == ',') {
    rest_.remove_prefix(1);
    if (rest_.empty()) rest_ = "\"\"";  // "{a,}" cannot come from the server; read as ""
  }
  return true;
}

int64_t ArrayReader::Int() const { return ParseInt(value_); }
double ArrayReader::Double() const { return ParseDouble(value_); }
bool ArrayReader::Bool() const { return ParseBool(value_); }
int64_t ArrayReader::Cents() const { return ParseCents(value_); }
int64_t ArrayReader::TimestampMicros() const { return ParseTimestamp(value_); }
int32_t ArrayReader::DateDays() const { return ParseDate(value_); }

// ---- Session internals -----------------------------------------------------------------------

struct Session::Impl {
  std::string conninfo;
  std::vector<PreparedStatement> statements;
  PGconn* conn = nullptr;
  Counters counters;
  std::function<void(std::string_view)> notice_sink;
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

  void QueueGroup(Group group, std::initializer_list<Step> steps) {
    Queue(steps);
    call.groups[call.group_count++] = InFlight{group, steps.size()};
  }

  // Sends the groups queued since the last flight, and reads from the first of them.
  void Launch() {
    call.group = 0;
    call.step = 0;
    call.after_result = false;
    Flush();
  }

  void SendCall() {
    call.reply = Reply();
    call.rolled_back = false;
    call.group_count = 0;
    ++call.outcome.statements;
    ++counters.statements;
    const Param* key = call.params.empty() ? nullptr : call.params.data();
    if (!call.guard.empty()) QueueGroup(Group::kGuard, {{call.guard, {key, key ? 1u : 0u}}});
    if (call.implicit) {
      QueueGroup(Group::kCall, {{call.statement, call.params}});
    } else {
      QueueGroup(Group::kCall,
                 {{kBegin[static_cast<int>(call.isolation)].name, {}},
                  {call.statement, call.params},
                  {call.finish == Finish::kCommit ? kCommit.name : kRollback.name, {}}});
    }
    if (!call.guard.empty()) QueueGroup(Group::kGuard, {{kUnlock.name, {}}});
    Launch();
  }

  // Reads what has arrived; true once the call has ended (call.outcome says how).
  bool Advance() {
    if (PQconsumeInput(conn) != 1) throw ConnectionLost(OneLine(PQerrorMessage(conn)));
    if (PQflush(conn) < 0) throw ConnectionLost(OneLine(PQerrorMessage(conn)));
    while (!PQisBusy(conn)) {
      ResultPtr r(PQgetResult(conn));
      const InFlight& in = call.groups[call.group];
      if (call.step < in.steps) {
        if (!call.after_result) {
          if (!r) throw ConnectionLost(OneLine(PQerrorMessage(conn)));
          if (in.group != Group::kGuard) {
            Take(std::move(r), call.step, call.reply);
          } else if (PQresultStatus(r.get()) == PGRES_FATAL_ERROR && broken()) {
            throw ConnectionLost(OneLine(PQresultErrorMessage(r.get())));
          }
          call.after_result = true;
        } else if (!r) {  // the null that ends the step
          call.after_result = false;
          ++call.step;
        }
        continue;
      }
      if (!r || PQresultStatus(r.get()) != PGRES_PIPELINE_SYNC) {
        throw ConnectionLost(r ? OneLine(PQresultErrorMessage(r.get()))
                               : OneLine(PQerrorMessage(conn)));
      }
      if (in.group == Group::kRollback) call.rolled_back = true;
      call.step = 0;
      if (++call.group < call.group_count) continue;
      if (PipelineDone()) return true;
    }
    return false;
  }

  // Everything in flight has been read to its last Sync: ends the call, or sends what follows.
  bool PipelineDone() {
    TxnOutcome& outcome = call.outcome;
    if (!call.reply.failed) {
      outcome.end = call.finish == Finish::kCommit ? TxnEnd::kCommitted : TxnEnd::kRolledBack;
      return true;
    }
    if (!call.rolled_back && PQtransactionStatus(conn) == PQTRANS_INERROR) {
      // The failed block is still open (the guard's unlock, behind it, failed too): close it,
      // then unlock. The ROLLBACK's own reply is not the failure: keep the call's.
      Reply failure = std::move(call.reply);
      call.reply = Reply();
      call.group_count = 0;
      QueueGroup(Group::kRollback, {{kRollback.name, {}}});
      if (!call.guard.empty()) QueueGroup(Group::kGuard, {{kUnlock.name, {}}});
      Launch();
      call.reply.failed = failure.failed;
      call.reply.sqlstate = std::move(failure.sqlstate);
      call.reply.message = std::move(failure.message);
      return false;
    }
    outcome.message = call.reply.message;
    if (call.reply.sqlstate == kFrameRollbackSqlstate) {
      // "ERROR:  spec status -831 ..." from the frame function.
      outcome.end = TxnEnd::kRolledBack;
      const std::size_t at = call.reply.message.find("spec status ");
      if (at != std::string::npos) {
        outcome.rollback_status =
            static_cast<int32_t>(ParseInt(std::string_view(call.reply.message).substr(at + 12)));
      }
      return true;
    }
    const bool retryable = call.reply.sqlstate == "40001" || call.reply.sqlstate == "40P01";
    if (retryable && outcome.retries < call.max_retries) {
      ++outcome.retries;
      SendCall();
      return false;
    }
    outcome.end = retryable ? TxnEnd::kRetryExhausted : TxnEnd::kDbError;
    outcome.sqlstate = call.reply.sqlstate;
    return true;
  }
};

// ---- Transaction -----------------------------------------------------------------------------

struct Transaction::Impl {
  Session::Impl& session;
  std::string_view begin;  // sent with the first statement, then emptied
  bool in_block = false;   // BEGIN has been sent
};

QueryResult Transaction::Exec(std::string_view statement, std::initializer_list<Param> params) {
  return Exec(statement, std::span<const Param>(params.begin(), params.size()));
}

QueryResult Transaction::Exec(std::string_view statement, std::span<const Param> params) {
  ++statements_;
  Session::Impl::Reply reply;
  std::size_t index = 0;
  if (!impl_.begin.empty()) {
    const std::string_view begin = impl_.begin;
    impl_.begin = {};
    impl_.in_block = true;
    impl_.session.Pipeline({{begin, {}}, {statement, params}}, reply);
    index = 1;
  } else {
    impl_.session.Pipeline({{statement, params}}, reply);
  }
  if (reply.failed) throw SqlError(reply.sqlstate, reply.message);
  auto result = std::make_shared<QueryResult::Impl>();
  result->result = std::move(reply.results[index]);
  return QueryResult(std::move(result));
}

// ---- Session ---------------------------------------------------------------------------------

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;

Result<std::unique_ptr<Session>> Session::Open(const std::string& conninfo,
                                               std::span<const PreparedStatement> statements,
                                               std::string_view setup) {
  auto impl = std::make_unique<Impl>();
  impl->conninfo = conninfo;
  impl->setup = setup;
  impl->statements.assign(statements.begin(), statements.end());
  auto session = std::unique_ptr<Session>(new Session(std::move(impl)));
  Status s = session->Reconnect();
  if (!s.ok()) return s;
  return session;
}

void Session::SetNoticeSink(std::function<void(std::string_view message)> sink) {
  impl_->notice_sink = std::move(sink);
}

Status Session::Reconnect() {
  impl_->Close();
  // Messages show the string only through RedactConninfo: it may hold a password.
  if (Status s = CheckConninfo(impl_->conninfo); !s.ok()) return s;
  impl_->conn = PQconnectdb(impl_->conninfo.c_str());
  if (impl_->broken()) {
    std::string why = impl_->conn != nullptr ? OneLine(PQerrorMessage(impl_->conn)) : "no memory";
    impl_->Close();
    return Status::Unavailable(
        fmt::format("cannot connect to the database ({}): {}",
                    impl_->conninfo.empty() ? "PG* defaults" : RedactConninfo(impl_->conninfo),
                    why));
  }
  PQsetNoticeReceiver(impl_->conn, ForwardNotice, &impl_->notice_sink);
  if (!impl_->setup.empty()) {
    ResultPtr r(PQexec(impl_->conn, impl_->setup.c_str()));
    if (!r || PQresultStatus(r.get()) != PGRES_COMMAND_OK) {
      std::string message = fmt::format("session setup '{}': {}", impl_->setup,
                                        r ? OneLine(PQresultErrorMessage(r.get()))
                                          : OneLine(PQerrorMessage(impl_->conn)));
      const bool lost = impl_->broken();
      impl_->Close();
      return lost ? Status::Unavailable(std::move(message)) : Status::DbError(std::move(message));
    }
  }
  auto prepare = [&](const PreparedStatement& statement) -> Status {
    const std::string name(statement.name);
    const std::string sql(statement.sql);
    ResultPtr r(PQprepare(impl_->conn, name.c_str(), sql.c_str(), 0, nullptr));
    if (r && PQresultStatus(r.get()) == PGRES_COMMAND_OK) return Status::Ok();
    if (!r || impl_->broken()) {
      std::string why = OneLine(PQerrorMessage(impl_->conn));
      impl_->Close();
      return Status::Unavailable(
          fmt::format("preparing statement '{}': connection lost: {}", statement.name, why));
    }
    const char* state = PQresultErrorField(r.get(), PG_DIAG_SQLSTATE);
    std::string message =
        fmt::format("preparing statement '{}': {}: {}", statement.name,
                    state != nullptr ? state : "-----", OneLine(PQresultErrorMessage(r.get())));
    impl_->Close();
    return Status::DbError(std::move(message));
  };
  for (const auto& statement : kBegin) {
    if (Status s = prepare(statement); !s.ok()) return s;
  }
  for (const auto& statement : {kCommit, kRollback, kUnlock}) {
    if (Status s = prepare(statement); !s.ok()) return s;
  }
  for (const auto& statement : impl_->statements) {
    if (Status s = prepare(statement); !s.ok()) return s;
  }
  if (PQenterPipelineMode(impl_->conn) != 1) {
    std::string why = OneLine(PQerrorMessage(impl_->conn));
    impl_->Close();
    return Status::Unavailable(fmt::format("cannot enter libpq pipeline mode: {}", why));
  }
  return Status::Ok();
}

Session::Counters Session::counters() const { return impl_->counters; }

bool Session::connected() const { return !impl_->broken(); }

namespace {

// Sorts a failure into the outcome; true when the transaction should run again.
bool Classify(const std::string& state, int attempt, int max_retries, TxnOutcome& outcome) {
  const bool retryable = state == "40001" || state == "40P01";
  if (retryable && attempt < max_retries) {
    ++outcome.retries;
    return true;
  }
  outcome.end = retryable ? TxnEnd::kRetryExhausted : TxnEnd::kDbError;
  outcome.sqlstate = state;
  return false;
}

}  // namespace

TxnOutcome Session::Run(Isolation isolation, int max_retries,
                        const std::function<Finish(Transaction&)>& body, std::string_view guard,
                        std::span<const Param> guard_params) {
  TxnOutcome outcome;
  if (impl_->broken()) {
    outcome.end = TxnEnd::kConnectionLost;
    outcome.message = "not connected to the database";
    return outcome;
  }
  for (int attempt = 0;; ++attempt) {
    Transaction::Impl txn_impl{*impl_, kBegin[static_cast<int>(isolation)].name};
    Transaction txn(txn_impl);
    std::string state;  // SQLSTATE of the failure; empty for a failure that is not SQL
    bool done = false;
    bool lost = false;
    try {
      if (!guard.empty()) {
        Impl::Reply locked;  // a failed guard is ignored (Call says why)
        impl_->Pipeline({{guard, guard_params}}, locked);
      }
      const Finish finish = body(txn);
      if (txn_impl.in_block) {
        Impl::Reply reply;
        impl_->Pipeline({{finish == Finish::kCommit ? kCommit.name : kRollback.name, {}}}, reply);
        if (reply.failed) throw SqlError(reply.sqlstate, reply.message);  // e.g. 40001 at COMMIT
      }
      outcome.end = finish == Finish::kCommit ? TxnEnd::kCommitted : TxnEnd::kRolledBack;
      done = true;
    } catch (const ConnectionLost& e) {
      lost = true, outcome.message = e.what();
    } catch (const SqlError& e) {
      state = e.sqlstate(), outcome.message = e.what();
    } catch (const std::exception& e) {  // a bug or bad data in the body, not an SQL error
      outcome.message = OneLine(e.what());
    }
    outcome.statements += txn.statements();
    impl_->counters.statements += txn.statements();
    if (!lost) {
      try {
        if (!done) impl_->EndFailedBlock();
        if (!guard.empty()) {
          Impl::Reply unlocked;
          impl_->Pipeline({{kUnlock.name, {}}}, unlocked);
        }
      } catch (const ConnectionLost&) {
        lost = true;
      }
    }
    if (done) return outcome;  // committed, even if the connection broke at the unlock
    if (lost) {
      outcome.end = TxnEnd::kConnectionLost;
      impl_->Close();
      return outcome;
    }
    if (!Classify(state, attempt, max_retries, outcome)) return outcome;
  }
}

Status Session::SetNonBlocking() {
  if (impl_->broken() || PQsetnonblocking(impl_->conn, 1) != 0) {
    return Status::Unavailable(
        fmt::format("cannot make the database connection non-blocking: {}",
                    impl_->conn ? OneLine(PQerrorMessage(impl_->conn)) : "not connected"));
  }
  return Status::Ok();
}

int Session::socket() const { return impl_->broken() ? -1 : PQsocket(impl_->conn); }

bool Session::WantsWrite() const {
  return !impl_->broken() && PQisnonblocking(impl_->conn) && PQflush(impl_->conn) == 1;
}

void Session::StartCall(Isolation isolation, int max_retries, std::string_view statement,
                        std::span<const Param> params, Finish finish, std::string_view guard) {
  Impl::CallState& c = impl_->call;
  c.guard = guard;
  c.isolation = isolation;
  c.max_retries = max_retries;
  c.statement = statement;
  c.params.assign(params.begin(), params.end());
  c.finish = finish;
  c.implicit = isolation == Isolation::kReadCommitted && finish == Finish::kCommit;
  c.outcome = TxnOutcome();
  c.active = true;
  try {
    impl_->SendCall();
  } catch (const ConnectionLost& e) {
    c.outcome.end = TxnEnd::kConnectionLost;
    c.outcome.message = e.what();
  }
}

bool Session::Progress(TxnOutcome& outcome, QueryResult& rows) {
  Impl::CallState& c = impl_->call;
  if (!c.active) return false;
  bool done = c.outcome.end == TxnEnd::kConnectionLost;  // StartCall could not send
  if (!done) {
    try {
      done = impl_->Advance();
    } catch (const ConnectionLost& e) {
      c.outcome.end = TxnEnd::kConnectionLost;
      c.outcome.message = e.what();
      done = true;
    }
  }
  if (!done) return false;
  c.active = false;
  if (c.outcome.end == TxnEnd::kConnectionLost) impl_->Close();
  outcome = std::move(c.outcome);
  const bool has_rows = (outcome.end == TxnEnd::kCommitted || outcome.end == TxnEnd::kRolledBack) &&
                        outcome.rollback_status == 0;
  if (has_rows) {
    auto result = std::make_shared<QueryResult::Impl>();
    result->result = std::move(c.reply.results[c.implicit ? 0 : 1]);
    rows = QueryResult(std::move(result));
  } else {
    rows = QueryResult();
  }
  return true;
}

TxnOutcome Session::Call(Isolation isolation, int max_retries, std::string_view statement,
                         std::span<const Param> params, Finish finish, QueryResult& rows,
                         std::string_view guard) {
  TxnOutcome outcome;
  if (impl_->broken()) {
    outcome.end = TxnEnd::kConnectionLost;
    outcome.message = "not connected to the database";
    return outcome;
  }
  StartCall(isolation, max_retries, statement, params, finish, guard);
  while (!Progress(outcome, rows)) {
    pollfd p{socket(), static_cast<short>(POLLIN | (WantsWrite() ? POLLOUT : 0)), 0};
    if (p.fd < 0) continue;  // broken: Progress says so next
    ::poll(&p, 1, -1);
  }
  return outcome;
}

}  // namespace bb::db
