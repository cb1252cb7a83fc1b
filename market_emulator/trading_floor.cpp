#include "market_emulator/trading_floor.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_set>

#include <fmt/format.h>

#include "common/workload/price_curve.h"

namespace bb::mee {

namespace pr = protocol;

pr::Cents TradePriceCents(std::string_view trade_type_id, pr::Cents limit, pr::Cents current) {
  if (trade_type_id == "TLB" && limit < current) return limit;
  if (trade_type_id == "TLS" && limit > current) return limit;
  return current;
}

bool LimitInTheMoney(std::string_view trade_type_id, pr::Cents limit, pr::Cents current) {
  if (trade_type_id == "TLS") return current >= limit;
  return current <= limit;  // TLB, TSL
}

TradingFloor::TradingFloor(const FloorOptions& options)
    : market_(options.sizing), random_(options.seed), max_pending_(options.max_pending) {
  batch_.reserve(kFeedEntries);
}

pr::Cents TradingFloor::CurrentPrice(int64_t security_index, int64_t now_us) const {
  // Curves are cheap to build (one phase offset); building per call keeps memory flat however
  // many securities the sizing configures.
  return workload::PriceCurve(security_index).PriceCentsAt(now_us / 1000);
}

SubmitResult TradingFloor::Submit(const pr::MarketTradeRequest& request, int64_t now_us) {
  if (pending() >= max_pending_) {
    return {SubmitOutcome::kRefusedFull,
            fmt::format("trade {}: {} orders pending (the cap, --max-pending)", request.trade_id,
                        pending())};
  }
  auto security = market_.SecurityIndex(request.symbol);
  if (!security) {
    return {SubmitOutcome::kRefusedInvalid,
            fmt::format("trade {}: symbol '{}' is not one of the {} configured securities",
                        request.trade_id, request.symbol, market_.securities())};
  }
  const std::string& type = request.trade_type_id;
  const bool limit_type = type == "TLB" || type == "TLS" || type == "TSL";
  if (!limit_type && type != "TMB" && type != "TMS") {
    return {SubmitOutcome::kRefusedInvalid,
            fmt::format("trade {}: trade_type_id '{}' is not TMB, TMS, TLB, TLS or TSL",
                        request.trade_id, type)};
  }
  if (request.trade_qty <= 0) {
    return {SubmitOutcome::kRefusedInvalid, fmt::format("trade {}: trade_qty {} is not positive",
                                                        request.trade_id, request.trade_qty)};
  }
  Timer timer{};
  timer.trade_id = request.trade_id;
  timer.security_index = *security;
  timer.price = request.price;
  timer.qty = request.trade_qty;
  std::memcpy(timer.type, type.c_str(), std::min<size_t>(type.size() + 1, sizeof timer.type));
  timer.sequence = next_sequence_++;

  if (request.action == pr::MarketAction::kProcessOrder) {
    // NegExp(mean 1 s), rounded to the millisecond, capped at 5 s.
    const double delay_ms = std::round(random_.NegExp(kMeanProcessingDelayUs / 1000.0));
    timer.due_us =
        now_us + std::min<int64_t>(static_cast<int64_t>(delay_ms) * 1000, kMaxProcessingDelayUs);
    timer.kind = TimerKind::kCompletion;
    timers_.push(timer);
    return {};
  }
  if (!limit_type) {
    return {SubmitOutcome::kRefusedInvalid,
            fmt::format("trade {}: a limit trigger for trade type '{}' (not TLB, TLS or TSL)",
                        request.trade_id, type)};
  }
  const pr::Cents current = CurrentPrice(*security, now_us);
  if (LimitInTheMoney(type, request.price, current)) {
    triggers_.push_back({request.symbol, current, kTriggerEntryQty});
    ++limits_triggered_;
    return {};
  }
  const int64_t now_ms = now_us / 1000;
  auto at = workload::PriceCurve(*security).NextTimeAtPrice(now_ms, request.price);
  if (!at) {
    return {SubmitOutcome::kRefusedInvalid,
            fmt::format("trade {}: limit price {} is outside the curve's range {}..{} cents",
                        request.trade_id, request.price, workload::kPriceLowCents,
                        workload::kPriceHighCents)};
  }
  timer.due_us = std::max(now_us, *at * 1000);
  timer.kind = TimerKind::kLimitTrigger;
  timers_.push(timer);
  return {};
}

std::optional<int64_t> TradingFloor::NextDueUs() const {
  if (timers_.empty()) return std::nullopt;
  return timers_.top().due_us;
}

void TradingFloor::Advance(int64_t now_us) {
  while (!timers_.empty() && timers_.top().due_us <= now_us) {
    Timer timer = timers_.top();
    timers_.pop();
    if (timer.kind == TimerKind::kCompletion) {
      Complete(timer);
    } else {
      // The curve has reached the limit: the trigger entry carries the limit price.
      triggers_.push_back({market_.Symbol(timer.security_index), timer.price, kTriggerEntryQty});
      ++limits_triggered_;
    }
  }
}

void TradingFloor::Complete(const Timer& timer) {
  const pr::Cents current = CurrentPrice(timer.security_index, timer.due_us);
  Delivery d;
  d.due_us = timer.due_us;
  d.message =
      pr::TradeResultInput{timer.trade_id, TradePriceCents(timer.type, timer.price, current)};
  due_.push_back(std::move(d));
  ++trade_results_made_;
  // The ticker gets the curve price even when the trade used the limit.
  AddTickerEntry({market_.Symbol(timer.security_index), current, timer.qty}, timer.due_us);
}

void TradingFloor::AddTickerEntry(pr::TickerEntry entry, int64_t now_us) {
  AddToBatch(std::move(entry), now_us);
  for (int i = 0; i < kPaddingPerRealEntry; ++i) {
    if (!triggers_.empty()) {
      AddToBatch(std::move(triggers_.front()), now_us);
      triggers_.pop_front();
    } else {
      const int64_t s = random_.Int64Range(0, market_.securities() - 1);
      const int32_t qty = random_.Percent(50) ? 325 : 425;
      AddToBatch({market_.Symbol(s), CurrentPrice(s, now_us), qty}, now_us);
    }
  }
}

void TradingFloor::AddToBatch(pr::TickerEntry entry, int64_t now_us) {
  batch_.push_back(std::move(entry));
  if (batch_.size() < kFeedEntries) return;
  pr::MarketFeedInput feed;
  feed.status_submitted = "SBMT";
  feed.type_limit_buy = "TLB";
  feed.type_limit_sell = "TLS";
  feed.type_stop_loss = "TSL";
  std::unordered_set<std::string_view> symbols;
  for (const auto& e : batch_) symbols.insert(e.symbol);
  feed.unique_symbols = static_cast<int32_t>(symbols.size());
  feed.entries = std::move(batch_);
  batch_ = {};
  batch_.reserve(kFeedEntries);
  due_.push_back({now_us, 0, std::move(feed)});
  ++market_feeds_made_;
}

Delivery TradingFloor::PopDue() {
  Delivery d = std::move(due_.front());
  due_.pop_front();
  return d;
}

void TradingFloor::PushFrontDue(Delivery delivery) { due_.push_front(std::move(delivery)); }

std::string_view UnfinishedName(Unfinished u) {
  switch (u) {
    case Unfinished::kLimitTriggerArmed:
      return "limit trigger armed";
    case Unfinished::kInCompletionDelay:
      return "in its completion delay";
    case Unfinished::kTradeResultNotSent:
      return "Trade-Result due but not sent";
  }
  return "unknown";
}

std::vector<UnfinishedOrder> TradingFloor::TakeUnfinished() {
  std::vector<UnfinishedOrder> out;
  out.reserve(timers_.size() + due_.size());
  for (const auto& d : due_) {
    if (const auto* tr = std::get_if<pr::TradeResultInput>(&d.message)) {
      out.push_back({tr->trade_id, Unfinished::kTradeResultNotSent});
    }
  }
  due_.clear();
  while (!timers_.empty()) {
    const Timer& t = timers_.top();
    out.push_back({t.trade_id, t.kind == TimerKind::kCompletion ? Unfinished::kInCompletionDelay
                                                                : Unfinished::kLimitTriggerArmed});
    timers_.pop();
  }
  triggers_.clear();
  batch_.clear();
  return out;
}

}  // namespace bb::mee
