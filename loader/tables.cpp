#include "loader/tables.h"

namespace bb::loader {

namespace {
constexpr std::array<std::string_view, kTableCount> kNames = {
    "account_permission",
    "address",
    "broker",
    "cash_transaction",
    "charge",
    "commission_rate",
    "company",
    "company_competitor",
    "customer",
    "customer_account",
    "customer_taxrate",
    "daily_market",
    "exchange",
    "financial",
    "holding",
    "holding_history",
    "holding_summary",
    "industry",
    "last_trade",
    "news_item",
    "news_xref",
    "sector",
    "security",
    "settlement",
    "status_type",
    "taxrate",
    "trade",
    "trade_history",
    "trade_request",
    "trade_type",
    "watch_item",
    "watch_list",
    "zip_code",
};
}  // namespace

std::string_view TableName(Table table) { return kNames[static_cast<std::size_t>(table)]; }

bool IsFixedSize(Table table) {
  switch (table) {
    case Table::kCharge:
    case Table::kCommissionRate:
    case Table::kExchange:
    case Table::kIndustry:
    case Table::kSector:
    case Table::kStatusType:
    case Table::kTaxrate:
    case Table::kTradeType:
    case Table::kZipCode:
      return true;
    default:
      return false;
  }
}

bool GrowsWithTrades(Table table) {
  switch (table) {
    case Table::kCashTransaction:
    case Table::kHolding:
    case Table::kHoldingHistory:
    case Table::kHoldingSummary:
    case Table::kSettlement:
    case Table::kTrade:
    case Table::kTradeHistory:
    case Table::kTradeRequest:
      return true;
    default:
      return false;
  }
}

std::array<Table, kTableCount> AllTables() {
  std::array<Table, kTableCount> all{};
  for (int i = 0; i < kTableCount; ++i) all[i] = static_cast<Table>(i);
  return all;
}

}  // namespace bb::loader
