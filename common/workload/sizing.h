// Sizing: the three numbers that fix the size of the generated world (clause 2.6.1) and
// the counts derived from them (clause 2.6). Every component of a run must use the
// same Sizing; the protocol's hello compares it.
//
// Ownership and thread-safety: a plain value; copy freely.
#pragma once

#include <cstdint>

#include "common/util/status.h"

namespace bb::workload {

inline constexpr int64_t kCustomersPerLoadUnit = 1000;       // clause 2.6.1.2
inline constexpr int64_t kCompaniesPerLoadUnit = 500;        // clause 2.6
inline constexpr int64_t kSecuritiesPerLoadUnit = 685;       // clause 2.6
inline constexpr int64_t kBrokersPerLoadUnit = 10;           // clause 2.6: customers / 100
inline constexpr int64_t kAccountsPerLoadUnit = 5000;        // exactly 5 per customer per LU
inline constexpr int64_t kSecondsPerBusinessDay = 8 * 3600;
// Upper bound on --customers: far beyond any machine we know, small enough that every id
// stays within its column (IDENT_T has 11 digits, TRADE_T 15).
inline constexpr int64_t kMaxCustomers = 100'000'000;
inline constexpr int64_t kMaxInitialTradeDays = 3650;
inline constexpr int64_t kMaxScaleFactor = 1'000'000;

struct Sizing {
  int64_t customers = 5000;          // configured customers, a multiple of 1000 (clause 2.6.1)
  int64_t scale_factor = 500;        // customers per tpsE (clause 2.6.1)
  int64_t initial_trade_days = 300;  // ITD, business days of initial trades (clause 2.6.1)

  // Ok, or InvalidArgument naming the option and value at fault, e.g.
  // "--customers: '1500' is not a multiple of 1000".
  Status Validate() const;

  int64_t LoadUnits() const { return customers / kCustomersPerLoadUnit; }
  int64_t Companies() const { return LoadUnits() * kCompaniesPerLoadUnit; }
  int64_t Securities() const { return LoadUnits() * kSecuritiesPerLoadUnit; }
  int64_t Brokers() const { return LoadUnits() * kBrokersPerLoadUnit; }
  int64_t Accounts() const { return LoadUnits() * kAccountsPerLoadUnit; }

  // Completed initial trades per LU: ITD·8·3600·1000/SF (clause 2.6; 17 280 000 at defaults).
  int64_t TradesPerLoadUnit() const {
    return initial_trade_days * kSecondsPerBusinessDay * kCustomersPerLoadUnit / scale_factor;
  }
  // T_IDs reserved per LU: the initiated trades, 1.01 × completed (EGen's initial trades: one
  // in 101 is aborted), rounded up (17 452 800 at defaults, a multiple of 101).
  int64_t TradeIdBlockSize() const { return (TradesPerLoadUnit() * 101 + 99) / 100; }
  int64_t InitiatedTrades() const { return LoadUnits() * TradeIdBlockSize(); }
  // Nominal throughput in tpsE × 1000 (e.g. 10 000 = 10.000 tpsE for 5 000 customers).
  int64_t NominalMilliTpsE() const { return customers * 1000 / scale_factor; }

  friend bool operator==(const Sizing&, const Sizing&) = default;
};

}  // namespace bb::workload
