// The 33 tables as an enum, so generators and sinks name them without strings, and the
// units of work the loader splits generation into.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "common/util/status.h"

namespace bb::loader {

enum class Table : uint8_t {
  kAccountPermission,
  kAddress,
  kBroker,
  kCashTransaction,
  kCharge,
  kCommissionRate,
  kCompany,
  kCompanyCompetitor,
  kCustomer,
  kCustomerAccount,
  kCustomerTaxrate,
  kDailyMarket,
  kExchange,
  kFinancial,
  kHolding,
  kHoldingHistory,
  kHoldingSummary,
  kIndustry,
  kLastTrade,
  kNewsItem,
  kNewsXref,
  kSector,
  kSecurity,
  kSettlement,
  kStatusType,
  kTaxrate,
  kTrade,
  kTradeHistory,
  kTradeRequest,
  kTradeType,
  kWatchItem,
  kWatchList,
  kZipCode,
};
inline constexpr int kTableCount = 33;

// The SQL name, e.g. "account_permission".
std::string_view TableName(Table table);

// The nine fixed tables (clause 2.6, spec clause 2.6): the same rows at every size. Every
// other table scales with customers or grows with the trade days loaded and the run, so a
// frame that reads one of those whole gets slower as the database grows (the plan guard,
// tests/plan_guard_db_test.cpp, holds the frames to that).
bool IsFixedSize(Table table);

// The eight tables every trade adds rows to, at load and in a run: TRADE, TRADE_HISTORY,
// TRADE_REQUEST, SETTLEMENT, CASH_TRANSACTION, HOLDING, HOLDING_HISTORY, HOLDING_SUMMARY.
// The others change in a run only by updates in place and Data-Maintenance's few rows.
bool GrowsWithTrades(Table table);

// Every table, in enum (alphabetical) order.
std::array<Table, kTableCount> AllTables();

// Where generated rows go: COPY into a database, or flat files. Rows arrive in COPY text
// format (loader/copy_text.h), whole rows only, each chunk ending in '\n'. Append may be
// called from several threads for different tables or units at once; a sink says in its own
// comment what it serialises.
class TableSink {
 public:
  virtual ~TableSink() = default;
  virtual Status Append(Table table, std::string_view rows) = 0;
};

}  // namespace bb::loader
