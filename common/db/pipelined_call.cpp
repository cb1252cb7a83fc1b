// Session::Call and its steps (StartCall, Progress): one server-side frame call as one
// transaction, pipelined in one round trip, for a thread that waits or an event loop that does
// not (session.h).
#include <poll.h>

#include "common/db/session.h"
#include "common/db/session_internal.h"
#include "common/util/clock.h"

namespace bb::db {

// The call's steps are used only here; `inline` as when they were defined in Session::Impl's
// class body, so that GCC weighs inlining them as it did then.

inline void Session::Impl::QueueGroup(Group group, std::initializer_list<Step> steps) {
  Queue(steps);
  call.groups[call.group_count++] = InFlight{group, steps.size()};
}

// Sends the groups queued since the last flight, and reads from the first of them.
inline void Session::Impl::Launch() {
  call.group = 0;
  call.step = 0;
  call.after_result = false;
  Flush();
}

inline void Session::Impl::SendCall() {
  if (call.now_param >= 0) {
    call.params[static_cast<std::size_t>(call.now_param)] =
        Param::Timestamp(clock ? clock() : WallMicros());
  }
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
inline bool Session::Impl::Advance() {
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
inline bool Session::Impl::PipelineDone() {
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
                        std::span<const Param> params, Finish finish, std::string_view guard,
                        int now_param) {
  Impl::CallState& c = impl_->call;
  c.guard = guard;
  c.isolation = isolation;
  c.max_retries = max_retries;
  c.statement = statement;
  c.params.assign(params.begin(), params.end());
  c.now_param = now_param < static_cast<int>(c.params.size()) ? now_param : -1;
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
                         std::string_view guard, int now_param) {
  TxnOutcome outcome;
  if (impl_->broken()) {
    outcome.end = TxnEnd::kConnectionLost;
    outcome.message = "not connected to the database";
    return outcome;
  }
  StartCall(isolation, max_retries, statement, params, finish, guard, now_param);
  while (!Progress(outcome, rows)) {
    pollfd p{socket(), static_cast<short>(POLLIN | (WantsWrite() ? POLLOUT : 0)), 0};
    if (p.fd < 0) continue;  // broken: Progress says so next
    ::poll(&p, 1, -1);
  }
  return outcome;
}

}  // namespace bb::db
