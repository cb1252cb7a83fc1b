#include <type_traits>

#include "brokerage_house/blocking_runner.h"
#include "brokerage_house/frame_runner.h"
#include "common/db/session.h"

namespace bb::bh {

namespace pr = protocol;

namespace {

// The frames statement by statement (FrameRunner) on the lane's own session. A lost session
// reports db_error for its request; the worker lane then reconnects it (the Dispatcher's rule).
class ClientFramesRunner : public BlockingRunner {
 public:
  ClientFramesRunner(std::unique_ptr<db::Session> session, FrameOptions options)
      : session_(std::move(session)), runner_(*session_, std::move(options)) {}

  void Run(const pr::Message& request, Completion& out) override {
    out.to_market.clear();
    const db::Session::Counters before = session_->counters();
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

  bool connected() const override { return session_->connected(); }
  Status Reconnect() override { return session_->Reconnect(); }

 private:
  std::unique_ptr<db::Session> session_;
  FrameRunner runner_;
};

}  // namespace

Result<std::unique_ptr<BlockingRunner>> MakeClientFramesRunner(const std::string& conninfo,
                                                               const FrameOptions& options) {
  FrameOptions client = options;
  client.mode = FrameMode::kClient;
  auto session = FrameRunner::OpenSession(conninfo, FrameMode::kClient);
  if (!session.ok()) return session.status();
  return std::unique_ptr<BlockingRunner>(
      std::make_unique<ClientFramesRunner>(std::move(session).value(), std::move(client)));
}

}  // namespace bb::bh
