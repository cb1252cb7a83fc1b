// Handlers turn one decoded request into its reply, on a DB worker thread. DatabaseHandler runs
// the transaction's frames (FrameRunner) on the worker's own session; CannedHandler answers
// with a valid fixed reply and touches no database (--no-db: the harness's own ceiling, the
// "remove all data calls and see what remains" baseline).
//
// Ownership: each worker owns one handler. Thread-safety: none; one handler per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/protocol/codec.h"
#include "common/util/status.h"

namespace bb::bh {

struct HandlerResult {
  protocol::Message reply;
  std::vector<protocol::MarketTradeRequest> to_market;  // send after the reply
  int64_t db_round_trips = 0;  // the database work the request took (0 without one)
  int64_t db_statements = 0;
};

class Handler {
 public:
  virtual ~Handler() = default;
  // `request` is one of the twelve transaction inputs (the caller checked the type).
  virtual void Handle(const protocol::Message& request, HandlerResult& out) = 0;
};

// Opens a session with every frame statement of options.mode prepared; fails fast on bad SQL.
// (Server-side frames need InstallFrameFunctions first.)
struct FrameOptions;
Result<std::unique_ptr<Handler>> MakeDatabaseHandler(const std::string& conninfo,
                                                     const FrameOptions& options);
std::unique_ptr<Handler> MakeCannedHandler();

// Whether a message type is one of the twelve transaction requests.
bool IsTransactionRequest(protocol::MessageType type);

}  // namespace bb::bh
