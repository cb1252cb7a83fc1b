#include "brokerage_house/frame_runner.h"

#include <algorithm>
#include <array>
#include <variant>

#include <fmt/format.h>

#include "brokerage_house/frames/statements.h"
#include "common/util/clock.h"

namespace bb::bh {

protocol::ReplyStatus MakeReplyStatus(const db::TxnOutcome& outcome, int32_t spec_status,
                                      bool intended_rollback) {
  using protocol::Outcome;
  protocol::ReplyStatus status;
  status.spec_status = spec_status;
  status.retries = static_cast<uint32_t>(outcome.retries);
  switch (outcome.end) {
    case db::TxnEnd::kCommitted:
      status.outcome = spec_status > 0   ? Outcome::kWarning
                       : spec_status < 0 ? Outcome::kInvalid
                                         : Outcome::kOk;
      break;
    case db::TxnEnd::kRolledBack:
      status.outcome = intended_rollback ? Outcome::kRollback
                       : spec_status > 0 ? Outcome::kWarning
                                         : Outcome::kInvalid;
      break;
    case db::TxnEnd::kRetryExhausted:
      status.outcome = Outcome::kRetryExhausted;
      break;
    case db::TxnEnd::kDbError:
    case db::TxnEnd::kConnectionLost:
      status.outcome = Outcome::kDbError;
      break;
  }
  if (outcome.end == db::TxnEnd::kRetryExhausted || outcome.end == db::TxnEnd::kDbError ||
      outcome.end == db::TxnEnd::kConnectionLost) {
    std::string detail =
        outcome.end == db::TxnEnd::kConnectionLost
            ? fmt::format("connection lost: {}", outcome.message)
            : fmt::format("{} {}", outcome.sqlstate.empty() ? "-----" : outcome.sqlstate,
                          outcome.message);
    status.detail = detail.substr(0, protocol::width::kDetail);
  }
  return status;
}

Result<FrameMode> ParseFrameMode(std::string_view text) {
  if (text == "server") return FrameMode::kServer;
  if (text == "client") return FrameMode::kClient;
  return Status::InvalidArgument(fmt::format("--frames: '{}' is not 'server' or 'client'", text));
}

std::string_view FrameModeName(FrameMode mode) {
  return mode == FrameMode::kServer ? "server" : "client";
}

std::span<const db::PreparedStatement> FrameRunner::Statements(FrameMode mode) {
  auto collect = [](FrameMode m) {
    std::vector<db::PreparedStatement> v;
    for (auto group : frames::AllStatementGroups(m)) v.insert(v.end(), group.begin(), group.end());
    return v;
  };
  static const std::vector<db::PreparedStatement> server = collect(FrameMode::kServer);
  static const std::vector<db::PreparedStatement> client = collect(FrameMode::kClient);
  return mode == FrameMode::kServer ? server : client;
}

Result<std::unique_ptr<db::Session>> FrameRunner::OpenSession(const std::string& conninfo,
                                                              FrameMode mode) {
  // The SET clause of every function in frames/sql/*.sql, for the same statements sent one by
  // one: index lookups at every size (frame_functions.cpp says why).
  constexpr std::string_view kClientSetup =
      "SET enable_seqscan = off; SET enable_hashjoin = off; SET enable_mergejoin = off";
  return db::Session::Open(conninfo, Statements(mode),
                           mode == FrameMode::kClient ? kClientSetup : std::string_view());
}

bool PrepareServerCall(const protocol::Message& request, ServerCall& call,
                       protocol::Message& reply) {
  call.params.clear();
  call.guard = {};
  call.now_param = -1;
  return std::visit(
      [&](const auto& in) -> bool {
        std::vector<protocol::MarketTradeRequest> none;
        if constexpr (requires { frames::Read(in, db::TxnOutcome(), db::QueryResult(), none); }) {
          decltype(frames::Read(in, db::TxnOutcome(), db::QueryResult(), none)) refused;
          if (frames::Prepare(in, call, refused)) return true;
          reply = std::move(refused);
        } else {
          reply.emplace<protocol::ErrorReply>(protocol::ErrorCode::kUnexpectedMessage,
                                              "not a transaction request");
        }
        return false;
      },
      request);
}

void ReadServerCall(const protocol::Message& request, const db::TxnOutcome& outcome,
                    const db::QueryResult& rows, protocol::Message& reply,
                    std::vector<protocol::MarketTradeRequest>& to_market) {
  std::visit(
      [&](const auto& in) {
        if constexpr (requires { frames::Read(in, outcome, rows, to_market); }) {
          reply = frames::Read(in, outcome, rows, to_market);
        } else {
          reply.emplace<protocol::ErrorReply>(protocol::ErrorCode::kUnexpectedMessage,
                                              "not a transaction request");
        }
      },
      request);
}

int64_t FrameRunner::Now() const { return options_.clock ? options_.clock() : WallMicros(); }

}  // namespace bb::bh
