// PriceCurve: the triangular price of one security over time (EGen's curve), used by the
// loader for initial trades and LAST_TRADE and by the market emulator for its price board and
// limit-order triggers (market_emulator/trading_floor.h).
//
// Every security moves between $20.00 and $30.00 with a period of 900 s: up linearly for
// 450 s, down linearly for 450 s ($10 per 450 s, i.e. 1 cent per 450 ms). Security i starts
// at phase ((i·556 237 + 253 791) + trading_time_so_far_s·1000) mod 900 000 ms. Times are in
// milliseconds after the caller's base time (the start of initial trading for the loader,
// the MEE's start for the MEE). Prices are whole cents.
//
// Ownership and thread-safety: a small immutable value.
#pragma once

#include <cstdint>
#include <optional>

namespace bb::workload {

inline constexpr int64_t kPriceLowCents = 2000;
inline constexpr int64_t kPriceHighCents = 3000;
inline constexpr int64_t kPricePeriodMs = 900'000;
inline constexpr int64_t kPriceHalfPeriodMs = kPricePeriodMs / 2;
// Milliseconds per cent of movement: 450 000 ms / 1 000 cents.
inline constexpr int64_t kMsPerCent = kPriceHalfPeriodMs / (kPriceHighCents - kPriceLowCents);

class PriceCurve {
 public:
  // `trading_time_so_far_s` shifts the phase: the loader's LAST_TRADE uses ITD·8·3600 with
  // t = 0; the loader's initial trades and the MEE use 0.
  explicit PriceCurve(int64_t security_index, int64_t trading_time_so_far_s = 0);

  // The price in cents at `ms` after the base time (ms may be negative).
  int64_t PriceCentsAt(int64_t ms) const;

  // The earliest time t >= from_ms at which the curve passes exactly through `price_cents`,
  // so PriceCentsAt(t) == price_cents; at most one period later. Nothing if the price is
  // outside [20.00, 30.00]. A limit order's trigger time (the loader's limit orders, the market
  // emulator's triggers).
  std::optional<int64_t> NextTimeAtPrice(int64_t from_ms, int64_t price_cents) const;

  // True while the curve is rising at `ms`.
  bool RisingAt(int64_t ms) const;

 private:
  int64_t PhaseAt(int64_t ms) const;  // position in the period, 0..899 999

  int64_t phase_offset_ms_;
};

}  // namespace bb::workload
