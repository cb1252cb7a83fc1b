#include "common/workload/price_curve.h"

namespace bb::workload {
namespace {

constexpr int64_t kPhaseMultiplier = 556'237;
constexpr int64_t kPhaseOffset = 253'791;

int64_t Mod(int64_t a, int64_t m) {
  const int64_t r = a % m;
  return r < 0 ? r + m : r;
}

// Half-up rounding of a non-negative ratio.
int64_t RoundDiv(int64_t num, int64_t den) { return (num + den / 2) / den; }

}  // namespace

PriceCurve::PriceCurve(int64_t security_index, int64_t trading_time_so_far_s)
    : phase_offset_ms_(Mod(Mod(security_index, kPricePeriodMs) * kPhaseMultiplier + kPhaseOffset +
                               Mod(trading_time_so_far_s, kPricePeriodMs) * 1000,
                           kPricePeriodMs)) {}

int64_t PriceCurve::PhaseAt(int64_t ms) const {
  return Mod(phase_offset_ms_ + Mod(ms, kPricePeriodMs), kPricePeriodMs);
}

bool PriceCurve::RisingAt(int64_t ms) const { return PhaseAt(ms) < kPriceHalfPeriodMs; }

int64_t PriceCurve::PriceCentsAt(int64_t ms) const {
  const int64_t phase = PhaseAt(ms);
  if (phase < kPriceHalfPeriodMs) return kPriceLowCents + RoundDiv(phase, kMsPerCent);
  return kPriceHighCents - RoundDiv(phase - kPriceHalfPeriodMs, kMsPerCent);
}

std::optional<int64_t> PriceCurve::NextTimeAtPrice(int64_t from_ms, int64_t price_cents) const {
  if (price_cents < kPriceLowCents || price_cents > kPriceHighCents) return std::nullopt;
  // The curve passes through the price once going up and once going down each period (at
  // the extremes both are the same instant).
  const int64_t up = (price_cents - kPriceLowCents) * kMsPerCent;
  const int64_t down = kPriceHalfPeriodMs + (kPriceHighCents - price_cents) * kMsPerCent;
  const int64_t now = PhaseAt(from_ms);
  const int64_t wait_up = Mod(up - now, kPricePeriodMs);
  const int64_t wait_down = Mod(down - now, kPricePeriodMs);
  return from_ms + (wait_up < wait_down ? wait_up : wait_down);
}

}  // namespace bb::workload
