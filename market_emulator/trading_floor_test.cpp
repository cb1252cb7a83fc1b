// The market's rules (trading_floor.h) with time passed in: trade prices at completion, timer
// order with many orders, limit triggers in and out of the money, ticker padding and the
// 20-entry Market-Feed, the pending cap, and what is pending or failed at the end.
#include "market_emulator/trading_floor.h"

#include <map>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/workload/price_curve.h"

namespace bb::mee {
namespace {

namespace pr = protocol;
using ::testing::HasSubstr;

const workload::Sizing kSizing{.customers = 1000, .scale_factor = 500, .initial_trade_days = 10};

pr::MarketTradeRequest Order(int64_t id, const std::string& symbol, std::string type,
                             pr::Cents price, int32_t qty = 100) {
  pr::MarketTradeRequest r;
  r.trade_id = id;
  r.symbol = symbol;
  r.trade_qty = qty;
  r.price = price;
  r.trade_type_id = std::move(type);
  r.action = (r.trade_type_id == "TMB" || r.trade_type_id == "TMS")
                 ? pr::MarketAction::kProcessOrder
                 : pr::MarketAction::kSetLimitTrigger;
  return r;
}

pr::MarketTradeRequest Process(pr::MarketTradeRequest r) {
  r.action = pr::MarketAction::kProcessOrder;  // as Market-Feed sends triggered orders back
  return r;
}

std::vector<Delivery> DrainDue(TradingFloor& floor) {
  std::vector<Delivery> out;
  while (floor.HasDue()) out.push_back(floor.PopDue());
  return out;
}

TEST(TradePrice, MarketAndStopLossOrdersTakeTheCurvePrice) {
  EXPECT_EQ(TradePriceCents("TMB", 0, 2500), 2500);
  EXPECT_EQ(TradePriceCents("TMS", 0, 2500), 2500);
  EXPECT_EQ(TradePriceCents("TSL", 2600, 2500), 2500);
  EXPECT_EQ(TradePriceCents("TSL", 2400, 2500), 2500);
}

TEST(TradePrice, LimitBuyBelowTheCurveTradesAtTheLimitElseAtTheCurve) {
  EXPECT_EQ(TradePriceCents("TLB", 2400, 2500), 2400);  // limit < current: the limit
  EXPECT_EQ(TradePriceCents("TLB", 2600, 2500), 2500);  // in the money: the curve
  EXPECT_EQ(TradePriceCents("TLB", 2500, 2500), 2500);
}

TEST(TradePrice, LimitSellAboveTheCurveTradesAtTheLimitElseAtTheCurve) {
  EXPECT_EQ(TradePriceCents("TLS", 2600, 2500), 2600);  // limit > current: the limit
  EXPECT_EQ(TradePriceCents("TLS", 2400, 2500), 2500);
}

TEST(TradingFloor, CompletionUsesThePriceRulesAtTheDueTime) {
  TradingFloor floor({kSizing, 11, 1000});
  const std::string sym = floor.market().Symbol(3);
  ASSERT_EQ(floor.Submit(Order(1, sym, "TMB", 0), 0).outcome, SubmitOutcome::kQueued);
  ASSERT_EQ(floor.Submit(Process(Order(2, sym, "TLB", 1999)), 0).outcome, SubmitOutcome::kQueued);
  ASSERT_EQ(floor.Submit(Process(Order(3, sym, "TLB", 3001)), 0).outcome, SubmitOutcome::kQueued);
  ASSERT_EQ(floor.Submit(Process(Order(4, sym, "TLS", 3001)), 0).outcome, SubmitOutcome::kQueued);
  ASSERT_EQ(floor.Submit(Process(Order(5, sym, "TLS", 1999)), 0).outcome, SubmitOutcome::kQueued);
  ASSERT_EQ(floor.Submit(Process(Order(6, sym, "TSL", 3001)), 0).outcome, SubmitOutcome::kQueued);
  floor.Advance(kMaxProcessingDelayUs);
  std::map<int64_t, pr::Cents> price;
  for (const auto& d : DrainDue(floor)) {
    if (const auto* tr = std::get_if<pr::TradeResultInput>(&d.message)) {
      const pr::Cents current = floor.CurrentPrice(3, d.due_us);
      EXPECT_GE(current, workload::kPriceLowCents);
      price[tr->trade_id] = tr->trade_price;
      if (tr->trade_id == 1 || tr->trade_id == 3 || tr->trade_id == 5 || tr->trade_id == 6) {
        EXPECT_EQ(tr->trade_price, current) << "trade " << tr->trade_id;
      }
    }
  }
  ASSERT_EQ(price.size(), 6u);
  EXPECT_EQ(price[2], 1999);  // TLB, limit below the curve
  EXPECT_EQ(price[4], 3001);  // TLS, limit above the curve
}

TEST(TradingFloor, ManyOrdersFireInDueOrderWithinTheCappedDelay) {
  constexpr int kOrders = 20000;
  TradingFloor floor({kSizing, 5, 100000});
  for (int i = 0; i < kOrders; ++i) {
    ASSERT_EQ(floor.Submit(Order(i + 1, floor.market().Symbol(i % 685), "TMS", 0), 0).outcome,
              SubmitOutcome::kQueued);
  }
  EXPECT_EQ(floor.armed_count(), static_cast<size_t>(kOrders));
  std::vector<int64_t> dues;
  int64_t last_next = 0;
  for (int64_t now = 0; now < kMaxProcessingDelayUs + 7'000; now += 7'000) {
    auto next = floor.NextDueUs();
    if (next) {
      EXPECT_GE(*next, last_next);
      last_next = *next;
    }
    floor.Advance(now);
    for (const auto& d : DrainDue(floor)) {
      if (std::holds_alternative<pr::TradeResultInput>(d.message)) {
        EXPECT_LE(d.due_us, now);
        dues.push_back(d.due_us);
      }
    }
  }
  ASSERT_EQ(dues.size(), static_cast<size_t>(kOrders));
  EXPECT_TRUE(std::is_sorted(dues.begin(), dues.end()));
  EXPECT_LE(dues.back(), kMaxProcessingDelayUs);
  double mean = 0;
  for (int64_t d : dues) mean += static_cast<double>(d) / kOrders;
  // NegExp(1 s) capped at 5 s has mean 1 - e^-5 = 0.993 s.
  EXPECT_NEAR(mean, 993'000, 30'000);
  EXPECT_FALSE(floor.NextDueUs().has_value());
}

TEST(TradingFloor, LimitOrdersInTheMoneyBecomeTriggerEntriesAtOnceAtTheCurrentPrice) {
  TradingFloor floor({kSizing, 1, 1000});
  const int64_t now = 123'000'000;
  const pr::Cents p = floor.CurrentPrice(7, now);
  const std::string sym = floor.market().Symbol(7);
  ASSERT_EQ(floor.Submit(Order(1, sym, "TLB", p + 5), now).outcome, SubmitOutcome::kQueued);
  ASSERT_EQ(floor.Submit(Order(2, sym, "TSL", p), now).outcome, SubmitOutcome::kQueued);
  ASSERT_EQ(floor.Submit(Order(3, sym, "TLS", p - 5), now).outcome, SubmitOutcome::kQueued);
  EXPECT_EQ(floor.trigger_count(), 3u);
  EXPECT_EQ(floor.armed_count(), 0u);
  EXPECT_EQ(floor.limits_triggered(), 3);  // their end here: the MEE accounts for each
  // They pad the ticker after the next real entries, in order, with qty 375 and price = current.
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(floor.Submit(Order(10 + i, floor.market().Symbol(i), "TMB", 0), now).outcome,
              SubmitOutcome::kQueued);
  }
  floor.Advance(now + kMaxProcessingDelayUs);
  std::vector<pr::MarketFeedInput> feeds;
  for (auto& d : DrainDue(floor)) {
    if (auto* mf = std::get_if<pr::MarketFeedInput>(&d.message)) feeds.push_back(*mf);
  }
  ASSERT_EQ(feeds.size(), 1u);
  for (int i : {1, 3, 5}) {
    EXPECT_EQ(feeds[0].entries[i].symbol, sym);
    EXPECT_EQ(feeds[0].entries[i].trade_qty, kTriggerEntryQty);
    EXPECT_EQ(feeds[0].entries[i].price_quote, p);
  }
  EXPECT_EQ(floor.trigger_count(), 0u);
}

TEST(TradingFloor, LimitOrdersOutOfTheMoneyTriggerWhenTheCurveReachesTheLimit) {
  TradingFloor floor({kSizing, 1, 1000});
  const int64_t now = 0;
  const pr::Cents p = floor.CurrentPrice(9, now);
  const std::string sym = floor.market().Symbol(9);
  // A buy limit below the curve and a sell limit above it wait for the curve.
  const pr::Cents buy_limit = p > 2100 ? p - 100 : 2005;
  ASSERT_FALSE(LimitInTheMoney("TLB", buy_limit, p));
  ASSERT_EQ(floor.Submit(Order(1, sym, "TLB", buy_limit), now).outcome, SubmitOutcome::kQueued);
  EXPECT_EQ(floor.trigger_count(), 0u);
  ASSERT_EQ(floor.armed_count(), 1u);
  const int64_t due = *floor.NextDueUs();
  const int64_t expected_ms = *workload::PriceCurve(9).NextTimeAtPrice(0, buy_limit);
  EXPECT_EQ(due, expected_ms * 1000);
  EXPECT_LE(due, workload::kPricePeriodMs * 1000);
  EXPECT_EQ(floor.CurrentPrice(9, due), buy_limit);
  floor.Advance(due - 1);
  EXPECT_EQ(floor.trigger_count(), 0u);
  EXPECT_EQ(floor.limits_triggered(), 0);
  floor.Advance(due);
  EXPECT_EQ(floor.trigger_count(), 1u);
  EXPECT_EQ(floor.limits_triggered(), 1);
  EXPECT_FALSE(floor.HasDue());  // a limit order never yields a Trade-Result by itself
  // The trigger entry carries the limit price, after the next real entry.
  ASSERT_EQ(floor.Submit(Order(2, floor.market().Symbol(0), "TMB", 0), due).outcome,
            SubmitOutcome::kQueued);
  for (int i = 0; i < 9; ++i) {
    ASSERT_EQ(floor.Submit(Order(3 + i, floor.market().Symbol(1), "TMB", 0), due).outcome,
              SubmitOutcome::kQueued);
  }
  floor.Advance(due + kMaxProcessingDelayUs);
  auto due_list = DrainDue(floor);
  const auto& mf = std::get<pr::MarketFeedInput>(due_list.back().message);
  EXPECT_EQ(mf.entries[1].symbol, sym);
  EXPECT_EQ(mf.entries[1].price_quote, buy_limit);
  EXPECT_EQ(mf.entries[1].trade_qty, kTriggerEntryQty);
}

TEST(TradingFloor, TenTradeResultsMakeOneMarketFeedOfTwentyPaddedEntries) {
  TradingFloor floor({kSizing, 3, 10000});
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(floor.Submit(Order(i + 1, floor.market().Symbol(i), "TMB", 0, 200), 0).outcome,
              SubmitOutcome::kQueued);
  }
  floor.Advance(kMaxProcessingDelayUs);
  int trs = 0, mfs = 0, since_feed = 0;
  for (auto& d : DrainDue(floor)) {
    if (std::holds_alternative<pr::TradeResultInput>(d.message)) {
      ++trs;
      ++since_feed;
      continue;
    }
    ++mfs;
    EXPECT_EQ(since_feed, 10);  // the feed follows its tenth Trade-Result
    since_feed = 0;
    const auto& mf = std::get<pr::MarketFeedInput>(d.message);
    ASSERT_EQ(mf.entries.size(), 20u);
    std::set<std::string> symbols;
    for (size_t i = 0; i < mf.entries.size(); ++i) {
      symbols.insert(mf.entries[i].symbol);
      if (i % 2 == 0) {
        EXPECT_EQ(mf.entries[i].trade_qty, 200) << "real entry " << i;
      } else {
        EXPECT_THAT(mf.entries[i].trade_qty, ::testing::AnyOf(325, 425)) << "artificial " << i;
        auto s = floor.market().SecurityIndex(mf.entries[i].symbol);
        ASSERT_TRUE(s.has_value());
        // The last entry was added when the feed became due: its curve price then.
        if (i == 19) {
          EXPECT_EQ(mf.entries[i].price_quote, floor.CurrentPrice(*s, d.due_us));
        }
      }
    }
    EXPECT_EQ(mf.unique_symbols, static_cast<int32_t>(symbols.size()));
    EXPECT_EQ(mf.status_submitted, "SBMT");
    EXPECT_EQ(mf.type_limit_buy, "TLB");
    EXPECT_EQ(mf.type_limit_sell, "TLS");
    EXPECT_EQ(mf.type_stop_loss, "TSL");
  }
  EXPECT_EQ(trs, 100);
  EXPECT_EQ(mfs, 10);
  EXPECT_EQ(floor.market_feeds_made(), 10);
}

TEST(TradingFloor, RefusesOrdersBeyondThePendingCapNamingIt) {
  TradingFloor floor({kSizing, 1, 10});
  const std::string sym = floor.market().Symbol(0);
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(floor.Submit(Order(i + 1, sym, "TMB", 0), 0).outcome, SubmitOutcome::kQueued);
  }
  auto refused = floor.Submit(Order(11, sym, "TMB", 0), 0);
  EXPECT_EQ(refused.outcome, SubmitOutcome::kRefusedFull);
  EXPECT_THAT(refused.reason, HasSubstr("trade 11: 10 orders pending"));
  EXPECT_EQ(floor.pending(), 10u);
  // Completed but unsent Trade-Results still count; sent ones free their place.
  floor.Advance(kMaxProcessingDelayUs);
  EXPECT_EQ(floor.armed_count(), 0u);
  EXPECT_GE(floor.pending(), 10u);
  EXPECT_EQ(floor.Submit(Order(12, sym, "TMB", 0), 0).outcome, SubmitOutcome::kRefusedFull);
  DrainDue(floor);
  EXPECT_EQ(floor.Submit(Order(13, sym, "TMB", 0), 0).outcome, SubmitOutcome::kQueued);
}

TEST(TradingFloor, RefusesUnknownSymbolsAndTypesNamingTheValue) {
  TradingFloor floor({kSizing, 1, 10});
  EXPECT_THAT(floor.Submit(Order(1, "NOSUCH", "TMB", 0), 0).reason,
              HasSubstr("symbol 'NOSUCH' is not one of the 685 configured securities"));
  EXPECT_THAT(floor.Submit(Order(2, floor.market().Symbol(0), "XYZ", 0), 0).reason,
              HasSubstr("trade_type_id 'XYZ'"));
  EXPECT_EQ(floor.pending(), 0u);
}

TEST(TradingFloor, TakeUnfinishedTellsPendingOrdersFromTradeResultsNotSent) {
  TradingFloor floor({kSizing, 1, 100});
  const std::string sym = floor.market().Symbol(0);
  for (int64_t id : {1, 2}) {
    ASSERT_EQ(floor.Submit(Order(id, sym, "TMB", 0), 0).outcome, SubmitOutcome::kQueued);
  }
  const int64_t t = kMaxProcessingDelayUs;
  floor.Advance(t);  // 1 and 2 complete: their Trade-Results are due, never sent
  for (int64_t id : {3, 4}) {
    ASSERT_EQ(floor.Submit(Order(id, sym, "TMB", 0), t).outcome, SubmitOutcome::kQueued);
  }
  const pr::Cents p = floor.CurrentPrice(0, t);
  const pr::Cents far = p > 2500 ? 2010 : 2990;  // out of the money: the trigger is armed
  ASSERT_EQ(floor.Submit(Order(5, sym, far < p ? "TLB" : "TLS", far), t).outcome,
            SubmitOutcome::kQueued);
  std::map<int64_t, Unfinished> state;
  for (const auto& u : floor.TakeUnfinished()) state[u.trade_id] = u.state;
  EXPECT_EQ(state, (std::map<int64_t, Unfinished>{{1, Unfinished::kTradeResultNotSent},
                                                  {2, Unfinished::kTradeResultNotSent},
                                                  {3, Unfinished::kInCompletionDelay},
                                                  {4, Unfinished::kInCompletionDelay},
                                                  {5, Unfinished::kLimitTriggerArmed}}));
  EXPECT_EQ(floor.pending(), 0u);
  // Pending: the market has not finished with them; failed: the Trade-Result was due.
  EXPECT_TRUE(IsPending(Unfinished::kLimitTriggerArmed));
  EXPECT_TRUE(IsPending(Unfinished::kInCompletionDelay));
  EXPECT_FALSE(IsPending(Unfinished::kTradeResultNotSent));
  EXPECT_EQ(UnfinishedName(Unfinished::kLimitTriggerArmed), "limit trigger armed");
  EXPECT_EQ(UnfinishedName(Unfinished::kInCompletionDelay), "in its completion delay");
  EXPECT_EQ(UnfinishedName(Unfinished::kTradeResultNotSent), "Trade-Result due but not sent");
}

}  // namespace
}  // namespace bb::mee
