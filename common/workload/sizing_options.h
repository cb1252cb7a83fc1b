// The database sizing options every program takes (--customers, --scale-factor,
// --initial-trade-days): one wording and one set of bounds, sizing.h's, so that a value one
// program accepts no other refuses. Each program says in `purpose` what the sizing is for in it.
// Included by the mains only: it compiles CLI11, as common/util/cli_app.h does.
#pragma once

#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "common/util/cli_app.h"
#include "common/workload/sizing.h"

namespace bb::workload {

struct SizingOptions {
  CLI::Option* customers;
  CLI::Option* scale_factor;
  CLI::Option* initial_trade_days;

  // Whether the command line gave any of the three.
  bool given() const {
    return customers->count() + scale_factor->count() + initial_trade_days->count() > 0;
  }
};

// Adds the three options into the given targets (whole numbers of any width: sizing.h's bounds
// fit 32 bits). The help shows each target's value before parsing as its default.
template <typename Customers, typename ScaleFactor, typename TradeDays>
SizingOptions AddSizingOptions(CLI::App& app, Customers& customers, ScaleFactor& scale_factor,
                               TradeDays& initial_trade_days, const std::string& purpose) {
  static_assert(kMaxScaleFactor <= INT32_MAX && kMaxInitialTradeDays <= INT32_MAX);
  SizingOptions o;
  o.customers = app.add_option("--customers", customers,
                               fmt::format("customers, a multiple of {} (default {});\n{}",
                                           kCustomersPerLoadUnit, customers, purpose))
                    ->check(cli::Range(1, kMaxCustomers));
  o.scale_factor = app.add_option("--scale-factor", scale_factor,
                                  fmt::format("customers per tpsE (default {})", scale_factor))
                       ->check(cli::Range(1, kMaxScaleFactor));
  o.initial_trade_days = app.add_option("--initial-trade-days", initial_trade_days,
                                        fmt::format("business days of initial trades (default {})",
                                                    initial_trade_days))
                             ->check(cli::Range(1, kMaxInitialTradeDays));
  return o;
}

}  // namespace bb::workload
