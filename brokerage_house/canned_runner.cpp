#include <variant>

#include "brokerage_house/blocking_runner.h"
#include "common/protocol/reply.h"

namespace bb::bh {

namespace pr = protocol;

namespace {

class CannedRunner : public BlockingRunner {
 public:
  void Run(const pr::Message& request, Completion& out) override {
    out.to_market.clear();
    out.db_round_trips = out.db_statements = 0;
    if (const auto* order = std::get_if<pr::TradeOrderInput>(&request)) {
      TradeOrder(*order, out);
      return;
    }
    // An empty, ok reply of the request's type.
    if (!pr::MakeEmptyReply(request, pr::ReplyStatus{}, out.reply)) {
      out.reply.emplace<pr::ErrorReply>(pr::ErrorCode::kUnexpectedMessage,
                                        "not a transaction request");
    }
  }

 private:
  void TradeOrder(const pr::TradeOrderInput& in, Completion& out) {
    auto& reply = out.reply.emplace<pr::TradeOrderOutput>();
    reply.trade_id = ++next_trade_id_;
    if (in.roll_it_back) {
      reply.status.outcome = pr::Outcome::kRollback;
      return;
    }
    pr::MarketTradeRequest& m = out.to_market.emplace_back();
    m.trade_id = reply.trade_id;
    m.symbol = in.symbol.empty() ? "NODB" : in.symbol;
    m.trade_qty = in.trade_qty;
    m.price = in.requested_price;
    m.trade_type_id = in.trade_type_id;
    m.action = in.trade_type_id == "TMB" || in.trade_type_id == "TMS"
                   ? pr::MarketAction::kProcessOrder
                   : pr::MarketAction::kSetLimitTrigger;
  }

  int64_t next_trade_id_ = 900'000'000'000'000;  // far from any loaded id
};

}  // namespace

std::unique_ptr<BlockingRunner> MakeCannedRunner() { return std::make_unique<CannedRunner>(); }

}  // namespace bb::bh
