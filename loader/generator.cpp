#include "loader/generator.h"

#include <fmt/format.h>

#include "loader/row_output.h"
#include "loader/table_generators.h"

namespace bb::loader {

std::vector<WorkUnit> WorkUnits(const workload::Sizing& sizing) {
  std::vector<WorkUnit> units;
  units.push_back({UnitPart::kFixed, -1});
  for (int lu = 0; lu < static_cast<int>(sizing.LoadUnits()); ++lu) {
    units.push_back({UnitPart::kCustomers, lu});
    units.push_back({UnitPart::kMarket, lu});
    units.push_back({UnitPart::kTrades, lu});
  }
  return units;
}

std::string WorkUnitName(const WorkUnit& unit) {
  switch (unit.part) {
    case UnitPart::kFixed:
      return "fixed tables";
    case UnitPart::kCustomers:
      return fmt::format("customers of load unit {}", unit.load_unit);
    case UnitPart::kMarket:
      return fmt::format("market of load unit {}", unit.load_unit);
    case UnitPart::kTrades:
      return fmt::format("trades of load unit {}", unit.load_unit);
  }
  return "unknown unit";
}

std::vector<Table> TablesOfPart(UnitPart part) {
  switch (part) {
    case UnitPart::kFixed:
      return {Table::kStatusType, Table::kTradeType, Table::kExchange,       Table::kSector,
              Table::kIndustry,   Table::kCharge,    Table::kCommissionRate, Table::kTaxrate,
              Table::kZipCode,    Table::kAddress};
    case UnitPart::kCustomers:
      return {Table::kCustomer,        Table::kAddress,           Table::kCustomerTaxrate,
              Table::kCustomerAccount, Table::kAccountPermission, Table::kWatchList,
              Table::kWatchItem};
    case UnitPart::kMarket:
      return {Table::kCompany,   Table::kAddress,     Table::kCompanyCompetitor,
              Table::kFinancial, Table::kNewsItem,    Table::kNewsXref,
              Table::kSecurity,  Table::kDailyMarket, Table::kLastTrade};
    case UnitPart::kTrades:
      return {Table::kTrade,           Table::kTradeHistory, Table::kSettlement,
              Table::kCashTransaction, Table::kHolding,      Table::kHoldingHistory,
              Table::kHoldingSummary,  Table::kBroker};
  }
  return {};
}

Status Generate(const workload::Sizing& sizing, const WorkUnit& unit, TableSink& sink,
                std::atomic<int64_t>* rows_done) {
  if (Status s = sizing.Validate(); !s.ok()) return s;
  const bool fixed = unit.part == UnitPart::kFixed;
  if (fixed && unit.load_unit != -1) {
    return Status::InvalidArgument(
        fmt::format("work unit: the fixed tables have load unit -1, not {}", unit.load_unit));
  }
  if (!fixed && (unit.load_unit < 0 || unit.load_unit >= sizing.LoadUnits())) {
    return Status::InvalidArgument(fmt::format("work unit: load unit {} is not in 0..{}",
                                               unit.load_unit, sizing.LoadUnits() - 1));
  }
  UnitOutput out(sink, rows_done);
  switch (unit.part) {
    case UnitPart::kFixed:
      GenerateFixedTables(sizing, out);
      break;
    case UnitPart::kCustomers:
      GenerateCustomerTables(sizing, unit.load_unit, out);
      break;
    case UnitPart::kMarket:
      GenerateMarketTables(sizing, unit.load_unit, out);
      break;
    case UnitPart::kTrades:
      GenerateTradeTables(sizing, unit.load_unit, out);
      break;
  }
  return out.Finish();
}

}  // namespace bb::loader
