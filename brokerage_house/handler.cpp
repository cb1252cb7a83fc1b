#include "brokerage_house/handler.h"

#include <type_traits>

namespace bb::bh {

namespace pr = protocol;

bool IsTransactionRequest(pr::MessageType type) {
  switch (type) {
    case pr::MessageType::kBrokerVolumeInput:
    case pr::MessageType::kCustomerPositionInput:
    case pr::MessageType::kMarketFeedInput:
    case pr::MessageType::kMarketWatchInput:
    case pr::MessageType::kSecurityDetailInput:
    case pr::MessageType::kTradeLookupInput:
    case pr::MessageType::kTradeOrderInput:
    case pr::MessageType::kTradeResultInput:
    case pr::MessageType::kTradeStatusInput:
    case pr::MessageType::kTradeUpdateInput:
    case pr::MessageType::kDataMaintenanceInput:
    case pr::MessageType::kTradeCleanupInput:
      return true;
    default:
      return false;
  }
}

namespace {

// Valid fixed replies, no database: an empty, ok reply of the request's type. Trade-Order still
// produces its market request, so the whole pipeline (customer emulator -> BH -> market
// emulator -> BH) runs without a database.
void Canned(const pr::BrokerVolumeInput&, HandlerResult& out) {
  out.reply.emplace<pr::BrokerVolumeOutput>();
}
void Canned(const pr::CustomerPositionInput&, HandlerResult& out) {
  out.reply.emplace<pr::CustomerPositionOutput>();
}
void Canned(const pr::MarketFeedInput&, HandlerResult& out) {
  out.reply.emplace<pr::MarketFeedOutput>();
}
void Canned(const pr::MarketWatchInput&, HandlerResult& out) {
  out.reply.emplace<pr::MarketWatchOutput>();
}
void Canned(const pr::SecurityDetailInput&, HandlerResult& out) {
  out.reply.emplace<pr::SecurityDetailOutput>();
}
void Canned(const pr::TradeLookupInput&, HandlerResult& out) {
  out.reply.emplace<pr::TradeLookupOutput>();
}
void Canned(const pr::TradeResultInput&, HandlerResult& out) {
  out.reply.emplace<pr::TradeResultOutput>();
}
void Canned(const pr::TradeStatusInput&, HandlerResult& out) {
  out.reply.emplace<pr::TradeStatusOutput>();
}
void Canned(const pr::TradeUpdateInput&, HandlerResult& out) {
  out.reply.emplace<pr::TradeUpdateOutput>();
}
void Canned(const pr::DataMaintenanceInput&, HandlerResult& out) {
  out.reply.emplace<pr::DataMaintenanceOutput>();
}
void Canned(const pr::TradeCleanupInput&, HandlerResult& out) {
  out.reply.emplace<pr::TradeCleanupOutput>();
}

class CannedHandler : public Handler {
 public:
  void Handle(const pr::Message& request, HandlerResult& out) override {
    out.to_market.clear();
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
  void TradeOrder(const pr::TradeOrderInput& in, HandlerResult& out) {
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

std::unique_ptr<Handler> MakeCannedHandler() { return std::make_unique<CannedHandler>(); }

}  // namespace bb::bh
