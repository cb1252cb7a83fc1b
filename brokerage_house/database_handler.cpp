#include <chrono>

#include <spdlog/spdlog.h>

#include "brokerage_house/frame_runner.h"
#include "brokerage_house/handler.h"
#include "common/db/session.h"

namespace bb::bh {

namespace pr = protocol;

namespace {

// Runs the frames; reconnects a lost session before the next request, at most once a second,
// so a database restart costs errors (counted) and not a crash or a stuck worker.
class DatabaseHandler : public Handler {
 public:
  DatabaseHandler(std::unique_ptr<db::Session> session, FrameOptions options)
      : session_(std::move(session)), runner_(*session_, std::move(options)) {}

  void Handle(const pr::Message& request, HandlerResult& out) override {
    out.to_market.clear();
    const db::Session::Counters before = session_->counters();
    if (!session_->connected()) {
      auto now = std::chrono::steady_clock::now();
      if (now - last_reconnect_ >= std::chrono::seconds(1)) {
        last_reconnect_ = now;
        // On failure, Run below reports the lost connection (db_error, counted).
        Status s = session_->Reconnect();
        if (s.ok()) {
          spdlog::info("DB worker reconnected to the database");
        } else {
          spdlog::warn("DB worker: {}", s.message());
        }
      }
    }
    std::visit(
        [&](const auto& in) {
          if constexpr (requires { runner_.Run(in, out.to_market); }) {
            out.reply = runner_.Run(in, out.to_market);
          } else if constexpr (requires { runner_.Run(in); }) {
            out.reply = runner_.Run(in);
          } else {
            out.reply.emplace<pr::ErrorReply>(pr::ErrorCode::kUnexpectedMessage,
                                              "not a transaction request");
          }
        },
        request);
    const db::Session::Counters after = session_->counters();
    out.db_round_trips = after.round_trips - before.round_trips;
    out.db_statements = after.statements - before.statements;
  }

 private:
  std::unique_ptr<db::Session> session_;
  FrameRunner runner_;
  std::chrono::steady_clock::time_point last_reconnect_{};
};

}  // namespace

Result<std::unique_ptr<Handler>> MakeDatabaseHandler(const std::string& conninfo,
                                                     const FrameOptions& options) {
  auto session = FrameRunner::OpenSession(conninfo, options.mode);
  if (!session.ok()) return session.status();
  return std::unique_ptr<Handler>(
      std::make_unique<DatabaseHandler>(std::move(session).value(), options));
}

}  // namespace bb::bh
