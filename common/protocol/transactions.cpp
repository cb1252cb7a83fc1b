#include "common/protocol/transactions.h"

namespace bb::protocol {

const char* OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kOk:
      return "ok";
    case Outcome::kRollback:
      return "rollback";
    case Outcome::kWarning:
      return "warning";
    case Outcome::kInvalid:
      return "invalid";
    case Outcome::kRetryExhausted:
      return "retry_exhausted";
    case Outcome::kDbError:
      return "db_error";
    case Outcome::kNetError:
      return "net_error";
    case Outcome::kTimeout:
      return "timeout";
  }
  return "unknown";
}

const char* MaintenanceTableName(MaintenanceTable table) {
  switch (table) {
    case MaintenanceTable::kAccountPermission:
      return "ACCOUNT_PERMISSION";
    case MaintenanceTable::kAddress:
      return "ADDRESS";
    case MaintenanceTable::kCompany:
      return "COMPANY";
    case MaintenanceTable::kCustomer:
      return "CUSTOMER";
    case MaintenanceTable::kCustomerTaxrate:
      return "CUSTOMER_TAXRATE";
    case MaintenanceTable::kDailyMarket:
      return "DAILY_MARKET";
    case MaintenanceTable::kExchange:
      return "EXCHANGE";
    case MaintenanceTable::kFinancial:
      return "FINANCIAL";
    case MaintenanceTable::kNewsItem:
      return "NEWS_ITEM";
    case MaintenanceTable::kSecurity:
      return "SECURITY";
    case MaintenanceTable::kTaxrate:
      return "TAXRATE";
    case MaintenanceTable::kWatchItem:
      return "WATCH_ITEM";
  }
  return "unknown";
}

}  // namespace bb::protocol
