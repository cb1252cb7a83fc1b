// The small fixed tables that the initial trades depend on (clause 2.6): status types,
// trade types, charges and commission rates, as constants shared by the fixed-table
// generator (which writes them) and the trade generator (which applies them).
//
// Thread-safety: immutable constant data.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace bb::loader {

struct StatusType {
  std::string_view id;
  std::string_view name;
};
inline constexpr std::array<StatusType, 5> kStatusTypes = {{{"ACTV", "Active"},
                                                            {"CMPT", "Completed"},
                                                            {"CNCL", "Canceled"},
                                                            {"PNDG", "Pending"},
                                                            {"SBMT", "Submitted"}}};

// In EGen's enumeration order (clause 2.6), which indexes kChargeCents.
enum class TradeType : uint8_t { kMarketBuy, kMarketSell, kStopLoss, kLimitSell, kLimitBuy };
inline constexpr int kTradeTypeCount = 5;

struct TradeTypeRow {
  std::string_view id;
  std::string_view name;
  bool is_sell;
  bool is_market;
};
inline constexpr std::array<TradeTypeRow, kTradeTypeCount> kTradeTypes = {{
    {"TMB", "Market-Buy", false, true},
    {"TMS", "Market-Sell", true, true},
    {"TSL", "Stop-Loss", true, false},
    {"TLS", "Limit-Sell", true, false},
    {"TLB", "Limit-Buy", false, false},
}};
inline const TradeTypeRow& TradeTypeOf(TradeType type) {
  return kTradeTypes[static_cast<size_t>(type)];
}

inline constexpr int kTierCount = 3;

// CHARGE in cents by trade type (rows) and tier 1..3 (columns) (clause 2.6).
inline constexpr std::array<std::array<int64_t, kTierCount>, kTradeTypeCount> kChargeCents = {{
    {500, 450, 250},  // TMB
    {500, 450, 250},  // TMS
    {650, 550, 350},  // TSL
    {600, 500, 300},  // TLS
    {600, 500, 300},  // TLB
}};

// COMMISSION_RATE quantity bands and rates in hundredths of a percent, by tier, by exchange
// group (NYSE/NASDAQ/AMEX, then PCX) and by band (clause 2.6). Rates do not depend on trade type.
struct QuantityBand {
  int32_t from;
  int32_t to;
};
inline constexpr int kQuantityBandCount = 4;
inline constexpr std::array<QuantityBand, kQuantityBandCount> kQuantityBands = {
    {{1, 200}, {201, 500}, {501, 2000}, {2001, 999999}}};
inline constexpr std::array<std::array<std::array<int64_t, kQuantityBandCount>, 2>, kTierCount>
    kCommissionRateHundredths = {{
        {{{40, 36, 32, 20}, {48, 44, 40, 28}}},  // tier 1
        {{{36, 32, 28, 16}, {44, 40, 36, 24}}},  // tier 2
        {{{32, 28, 24, 12}, {40, 36, 32, 20}}},  // tier 3
    }};
inline constexpr int kPacificExchangeIndex = 3;  // "PCX" in workload::Exchanges()

inline int QuantityBandOf(int64_t qty) {
  int band = 0;
  while (band + 1 < kQuantityBandCount && qty > kQuantityBands[static_cast<size_t>(band)].to) {
    ++band;
  }
  return band;
}

// CR_RATE in hundredths of a percent for a tier (1..3), exchange index and quantity.
inline int64_t CommissionRateHundredths(int tier, int exchange, int64_t qty) {
  return kCommissionRateHundredths[static_cast<size_t>(tier - 1)]
                                  [exchange == kPacificExchangeIndex ? 1 : 0]
                                  [static_cast<size_t>(QuantityBandOf(qty))];
}

}  // namespace bb::loader
