// TradingFloor: the market's rules (EGen's: the spec leaves them to it), as pure logic with time
// passed in, so the unit tests drive it without sockets or clocks.
//
//  * Market orders and triggered limit orders (MarketAction::kProcessOrder) complete after a
//    processing delay min(NegExp(mean 1 s) rounded to 1 ms, 5 s). At completion the trade
//    price is the current curve price (price_curve.h), except TLB with limit < current (the limit)
//    and TLS with limit > current (the limit); market and stop-loss orders take the curve
//    price (TradePriceCents). The completion yields a Trade-Result delivery and one real
//    ticker entry (symbol, qty, the *curve* price even when the trade used the limit).
//  * Limit orders (kSetLimitTrigger) never complete here. As in EGen they become "trigger
//    entries" (symbol, qty 375, price) in the ticker: at once with the current price when
//    already in the money (TLB/TSL: current <= limit; TLS: current >= limit), otherwise when
//    the curve next reaches the limit (PriceCurve::NextTimeAtPrice, always within 900 s) with
//    price = limit. The BH's Market-Feed frame then sees that price, triggers the pending
//    TRADE_REQUEST and sends it back as kProcessOrder, which completes as above (clause 3.3.3).
//  * Ticker padding: after each real entry exactly one more entry is added
//    (max_feed_len/10 - 1 = 1): the oldest queued trigger entry if any, else an artificial
//    entry for a uniformly drawn security at its curve price with qty 325 or 425 (50/50). So a
//    20-entry batch holds 10 real and 10 trigger/artificial entries, and each full batch goes
//    out as one Market-Feed (unique_symbols = distinct symbols in it): MF = TR/10.
//
// Timers: one binary min-heap of (due time, sequence) for completions and limit triggers
// alike: O(log n) per order (20 levels at a million), exact due order, FIFO among equal due
// times, and the caller arms a single steady_timer for NextDueUs(). A hashed wheel would make
// insertion O(1) but rounds due times to its slot; at our rates the heap is not the cost.
//
// Bounded memory: pending() counts everything the floor holds for an order (armed timers,
// queued trigger entries, due-but-unsent deliveries); Submit refuses once it reaches
// max_pending, and the caller logs the refusal as a failure (never a silent drop). A pending
// order costs about 64 bytes, so the default cap of one million is about 64 MB.
//
// Times are microseconds on the caller's monotonic clock since the floor's base time (the
// MEE's start: the curve's t = 0).
//
// Ownership and thread-safety: owns its state; not thread-safe (the MEE's one I/O thread).
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/protocol/transactions.h"
#include "common/workload/market.h"
#include "common/workload/random.h"
#include "common/workload/sizing.h"

namespace bb::mee {

inline constexpr int64_t kMeanProcessingDelayUs = 1'000'000;
inline constexpr int64_t kMaxProcessingDelayUs = 5'000'000;
inline constexpr int32_t kTriggerEntryQty = 375;
inline constexpr size_t kFeedEntries = protocol::kMaxFeedEntries;                     // 20
inline constexpr int kPaddingPerRealEntry = static_cast<int>(kFeedEntries / 10) - 1;  // 1

// The price a completed order trades at: the curve price, or the limit for a TLB whose
// limit is below it and for a TLS whose limit is above it.
protocol::Cents TradePriceCents(std::string_view trade_type_id, protocol::Cents limit,
                                protocol::Cents current);

// Whether a limit order is in the money at `current`: TLB and TSL when current <=
// limit, TLS when current >= limit.
bool LimitInTheMoney(std::string_view trade_type_id, protocol::Cents limit,
                     protocol::Cents current);

// Something due to go to the Brokerage House: a Trade-Result or a Market-Feed.
struct Delivery {
  int64_t due_us = 0;
  int32_t resends = 0;  // times the BH gave up on it (retry_exhausted) and it went again
  std::variant<protocol::TradeResultInput, protocol::MarketFeedInput> message;
};

struct FloorOptions {
  workload::Sizing sizing;
  uint64_t seed = workload::seeds::kDefault;
  size_t max_pending = 1'000'000;
};

enum class SubmitOutcome { kQueued, kRefusedFull, kRefusedInvalid };
struct SubmitResult {
  SubmitOutcome outcome = SubmitOutcome::kQueued;
  std::string reason;  // names the field and value, or the cap, when refused
};

// Where an order the floor still holds stands when the MEE stops. The first two are pending:
// the market has not finished with them yet, as a real exchange at its close would not have (a
// limit order waits for its price; a market order is within its processing delay). The
// third failed: its Trade-Result was due and was not delivered.
enum class Unfinished { kLimitTriggerArmed, kInCompletionDelay, kTradeResultNotSent };
inline bool IsPending(Unfinished u) { return u != Unfinished::kTradeResultNotSent; }
// The word for it in pending-trades.csv and failed-trades.csv.
std::string_view UnfinishedName(Unfinished u);

struct UnfinishedOrder {
  int64_t trade_id = 0;
  Unfinished state = Unfinished::kInCompletionDelay;
};

class TradingFloor {
 public:
  explicit TradingFloor(const FloorOptions& options);

  // Takes one request from the BH at `now_us`.
  SubmitResult Submit(const protocol::MarketTradeRequest& request, int64_t now_us);

  // Fires every timer due at or before now_us, in due order: completions add Trade-Results
  // (and, each full ticker batch, a Market-Feed) to the due queue; limit timers queue trigger
  // entries.
  void Advance(int64_t now_us);
  // The earliest armed timer, if any.
  std::optional<int64_t> NextDueUs() const;

  // The due queue, oldest first, for the delivery client.
  bool HasDue() const { return !due_.empty(); }
  Delivery PopDue();
  // Puts back a delivery that could not be sent (e.g. the BH was busy) at the front.
  void PushFrontDue(Delivery delivery);
  size_t due_count() const { return due_.size(); }

  size_t armed_count() const { return timers_.size(); }
  size_t trigger_count() const { return triggers_.size(); }
  size_t pending() const { return timers_.size() + triggers_.size() + due_.size(); }
  int64_t trade_results_made() const { return trade_results_made_; }
  // Limit orders whose limit the curve reached: their end here is a trigger entry in the
  // ticker, and the BH sends each back as an order to process (a second order, same trade id).
  int64_t limits_triggered() const { return limits_triggered_; }
  int64_t market_feeds_made() const { return market_feeds_made_; }

  // The curve price of a security at now_us.
  protocol::Cents CurrentPrice(int64_t security_index, int64_t now_us) const;
  const workload::Market& market() const { return market_; }

  // Empties the floor; returns one entry per order it still held (armed timers, due
  // Trade-Results) so the caller can log each as pending or failed. Queued trigger entries and
  // Market-Feeds are ticker data, not orders, and are counted separately by the caller.
  std::vector<UnfinishedOrder> TakeUnfinished();

 private:
  enum class TimerKind : uint8_t { kCompletion, kLimitTrigger };
  struct Timer {
    int64_t due_us;
    uint64_t sequence;  // FIFO among equal due times
    int64_t trade_id;
    int64_t security_index;
    protocol::Cents price;  // the request's (limit) price
    int32_t qty;
    char type[4];  // trade type id, NUL-terminated
    TimerKind kind;
    bool operator>(const Timer& o) const {
      return due_us != o.due_us ? due_us > o.due_us : sequence > o.sequence;
    }
  };

  void Complete(const Timer& timer);
  void AddTickerEntry(protocol::TickerEntry entry, int64_t now_us);
  void AddToBatch(protocol::TickerEntry entry, int64_t now_us);

  workload::Market market_;
  workload::Random random_;
  size_t max_pending_;
  uint64_t next_sequence_ = 0;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> timers_;
  std::deque<protocol::TickerEntry> triggers_;  // in-the-money limit orders, oldest first
  std::vector<protocol::TickerEntry> batch_;    // the Market-Feed being filled
  std::deque<Delivery> due_;
  int64_t trade_results_made_ = 0;
  int64_t market_feeds_made_ = 0;
  int64_t limits_triggered_ = 0;
};

}  // namespace bb::mee
