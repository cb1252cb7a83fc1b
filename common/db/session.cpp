#include "common/db/session.h"

#include <array>
#include <charconv>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <libpq-fe.h>

#include "common/db/conninfo.h"
#include "common/db/session_internal.h"

namespace bb::db {

namespace {

// Notices (e.g. "there is no transaction in progress") are not errors; libpq would print them.
// They go to the session's notice sink when it has one (SetNoticeSink), else nowhere.
void ForwardNotice(void* sink, const PGresult* notice) {
  const auto& to = *static_cast<const std::function<void(std::string_view)>*>(sink);
  if (to) to(PQresultErrorMessage(notice));
}

}  // namespace

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

void Session::SetClock(std::function<int64_t()> clock) { impl_->clock = std::move(clock); }

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
}  // namespace bb::db
