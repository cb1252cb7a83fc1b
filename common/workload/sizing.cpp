#include "common/workload/sizing.h"

#include <fmt/format.h>

#include "common/workload/ids.h"

namespace bb::workload {

Status Sizing::Validate() const {
  if (customers <= 0) {
    return Status::InvalidArgument(fmt::format("--customers: '{}' is not a positive multiple of {}",
                                               customers, kCustomersPerLoadUnit));
  }
  if (customers % kCustomersPerLoadUnit != 0) {
    return Status::InvalidArgument(
        fmt::format("--customers: '{}' is not a multiple of {}", customers, kCustomersPerLoadUnit));
  }
  if (customers > kMaxCustomers) {
    return Status::InvalidArgument(
        fmt::format("--customers: '{}' is more than the maximum {}", customers, kMaxCustomers));
  }
  if (scale_factor <= 0 || scale_factor > kMaxScaleFactor) {
    return Status::InvalidArgument(fmt::format("--scale-factor: '{}' is not in the range 1 to {}",
                                               scale_factor, kMaxScaleFactor));
  }
  if (initial_trade_days <= 0 || initial_trade_days > kMaxInitialTradeDays) {
    return Status::InvalidArgument(
        fmt::format("--initial-trade-days: '{}' is not in the range 1 to {}", initial_trade_days,
                    kMaxInitialTradeDays));
  }
  if (TradesPerLoadUnit() < 1) {
    return Status::InvalidArgument(
        fmt::format("--scale-factor: '{}' leaves no initial trades with {} initial trade days",
                    scale_factor, initial_trade_days));
  }
  // TRADE_T is NUM(15): the last load id and the run-time ids after it must fit.
  if (kTradeIdShift + InitiatedTrades() > kMaxTradeId / 2) {
    return Status::InvalidArgument(fmt::format(
        "--initial-trade-days: '{}' with --customers '{}' and --scale-factor '{}' needs more "
        "trade ids than a 15-digit TRADE_T holds",
        initial_trade_days, customers, scale_factor));
  }
  return Status::Ok();
}

}  // namespace bb::workload
