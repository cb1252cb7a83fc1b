#include <type_traits>

#include "brokerage_house/blocking_runner.h"

namespace bb::bh {

namespace pr = protocol;

namespace {

// An empty, ok reply of the request's type.
void Canned(const pr::BrokerVolumeInput&, Completion& out) {
  out.reply.emplace<pr::BrokerVolumeOutput>();
}
void Canned(const pr::CustomerPositionInput&, Completion& out) {
  out.reply.emplace<pr::CustomerPositionOutput>();
}
void Canned(const pr::MarketFeedInput&, Completion& out) {
  out.reply.emplace<pr::MarketFeedOutput>();
}
void Canned(const pr::MarketWatchInput&, Completion& out) {
  out.reply.emplace<pr::MarketWatchOutput>();
}
void Canned(const pr::SecurityDetailInput&, Completion& out) {
  out.reply.emplace<pr::SecurityDetailOutput>();
}
void Canned(const pr::TradeLookupInput&, Completion& out) {
  out.reply.emplace<pr::TradeLookupOutput>();
}
void Canned(const pr::TradeResultInput&, Completion& out) {
  out.reply.emplace<pr::TradeResultOutput>();
}
void Canned(const pr::TradeStatusInput&, Completion& out) {
  out.reply.emplace<pr::TradeStatusOutput>();
}
void Canned(const pr::TradeUpdateInput&, Completion& out) {
  out.reply.emplace<pr::TradeUpdateOutput>();
}
void Canned(const pr::DataMaintenanceInput&, Completion& out) {
  out.reply.emplace<pr::DataMaintenanceOutput>();
}
void Canned(const pr::TradeCleanupInput&, Completion& out) {
  out.reply.emplace<pr::TradeCleanupOutput>();
}

class CannedRunner : public BlockingRunner {
 public:
  void Run(const pr::Message& request, Completion& out) override {
    out.to_market.clear();
    out.db_round_trips = out.db_statements = 0;
    if (const auto* order = std::get_if<pr::TradeOrderInput>(&request)) {
      TradeOrder(*order, out);
      return;
    }
    std::visit(
        [&](const auto& in) {
          if constexpr (requires { Canned(in, out); }) {
            Canned(in, out);
          } else {
            out.reply.emplace<pr::ErrorReply>(pr::ErrorCode::kUnexpectedMessage,
                                              "not a transaction request");
          }
        },
        request);
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
