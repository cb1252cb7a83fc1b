#include "brokerage_house/txn_driver.h"

#include "common/util/clock.h"
#include "common/workload/price_curve.h"

namespace bb::bh {

namespace pr = protocol;
using workload::TransactionType;

TxnDriver::TxnDriver(db::Session& session, const workload::Sizing& sizing, uint64_t seed,
                     FrameOptions options)
    : session_(session),
      runner_(session, options),
      sizing_(sizing),
      inputs_(sizing, seed),
      market_(sizing),
      random_(workload::StreamSeed(seed, 1'000'003)),
      clock_(options.clock ? options.clock : [] { return WallMicros(); }),
      started_us_(clock_()) {}

template <typename In>
pr::Message TxnDriver::Call(TransactionType type, const In& input, std::vector<TxnSample>& samples,
                            const ShowFn& show) {
  const auto before = session_.counters();
  const int64_t start = MonotonicMicros();
  pr::Message output;
  if constexpr (requires { runner_.Run(input, to_market_); }) {
    output = runner_.Run(input, to_market_);
  } else {
    output = runner_.Run(input);
  }
  TxnSample sample;
  sample.type = type;
  sample.micros = MonotonicMicros() - start;
  const auto after = session_.counters();
  sample.statements = after.statements - before.statements;
  sample.round_trips = after.round_trips - before.round_trips;
  std::visit(
      [&](const auto& out) {
        if constexpr (requires { out.status.outcome; }) sample.status = out.status;
      },
      output);
  samples.push_back(sample);
  if (show) show(pr::Message(input), output);
  return output;
}

void TxnDriver::CompleteTrades(std::vector<TxnSample>& samples, const ShowFn& show) {
  // Limit orders wait for their trigger (a later Market-Feed, or Trade-Cleanup).
  std::vector<pr::MarketTradeRequest> requests;
  requests.swap(to_market_);
  for (const auto& r : requests) {
    if (r.action != pr::MarketAction::kProcessOrder) continue;
    Call(TransactionType::kTradeResult, pr::TradeResultInput{r.trade_id, r.price}, samples, show);
  }
}

pr::MarketFeedInput TxnDriver::Ticker() {
  pr::MarketFeedInput feed;
  feed.status_submitted = "SBMT";
  feed.type_limit_buy = "TLB";
  feed.type_limit_sell = "TLS";
  feed.type_stop_loss = "TSL";
  const int64_t now_ms = (clock_() - started_us_) / 1000;
  const int64_t securities = sizing_.Securities();
  for (int i = 0; i < 20; ++i) {
    const int64_t s = random_.Int64Range(0, securities - 1);
    pr::TickerEntry& e = feed.entries.emplace_back();
    e.symbol = market_.Symbol(s);
    e.price_quote = workload::PriceCurve(s).PriceCentsAt(now_ms + random_.Int64Range(0, 900'000));
    e.trade_qty = random_.Percent(50) ? 325 : 425;
  }
  std::vector<std::string> symbols;
  for (const auto& e : feed.entries) symbols.push_back(e.symbol);
  std::sort(symbols.begin(), symbols.end());
  feed.unique_symbols =
      static_cast<int32_t>(std::unique(symbols.begin(), symbols.end()) - symbols.begin());
  return feed;
}

void TxnDriver::Run(TransactionType type, std::vector<TxnSample>& samples, const ShowFn& show) {
  switch (type) {
    case TransactionType::kBrokerVolume:
      Call(type, inputs_.BrokerVolume(), samples, show);
      break;
    case TransactionType::kCustomerPosition:
      Call(type, inputs_.CustomerPosition(), samples, show);
      break;
    case TransactionType::kMarketFeed:
      Call(type, Ticker(), samples, show);
      break;
    case TransactionType::kMarketWatch:
      Call(type, inputs_.MarketWatch(), samples, show);
      break;
    case TransactionType::kSecurityDetail:
      Call(type, inputs_.SecurityDetail(), samples, show);
      break;
    case TransactionType::kTradeLookup:
      Call(type, inputs_.TradeLookup(), samples, show);
      break;
    case TransactionType::kTradeOrder:
      Call(type, inputs_.TradeOrder(), samples, show);
      break;
    case TransactionType::kTradeResult: {
      // A market order to complete: draw orders until one is a market order.
      for (int tries = 0; tries < 100; ++tries) {
        pr::TradeOrderInput order = inputs_.TradeOrder();
        if (order.roll_it_back || (order.trade_type_id != "TMB" && order.trade_type_id != "TMS")) {
          continue;
        }
        std::vector<TxnSample> ignored;
        Call(TransactionType::kTradeOrder, order, ignored, nullptr);
        break;
      }
      break;
    }
    case TransactionType::kTradeStatus:
      Call(type, inputs_.TradeStatus(), samples, show);
      break;
    case TransactionType::kTradeUpdate:
      Call(type, inputs_.TradeUpdate(), samples, show);
      break;
    case TransactionType::kDataMaintenance:
      Call(type, inputs_.DataMaintenance(static_cast<pr::MaintenanceTable>(next_dm_table_)),
           samples, show);
      next_dm_table_ = (next_dm_table_ + 1) % (pr::kMaxMaintenanceTable + 1);
      break;
    case TransactionType::kTradeCleanup:
      Call(type, inputs_.TradeCleanup(), samples, show);
      break;
  }
  CompleteTrades(samples, show);
}

}  // namespace bb::bh
