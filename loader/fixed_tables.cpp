// The fixed tables (clause 2.6): STATUS_TYPE, TRADE_TYPE, EXCHANGE, SECTOR,
// INDUSTRY, CHARGE, COMMISSION_RATE, TAXRATE, ZIP_CODE, and the exchanges' ADDRESS rows.
#include <fmt/format.h>

#include "common/workload/address.h"
#include "common/workload/ids.h"
#include "common/workload/industries.h"
#include "common/workload/market.h"
#include "common/workload/tax_rates.h"
#include "common/workload/zip_codes.h"
#include "loader/table_generators.h"
#include "loader/trade_rules.h"

namespace bb::loader {

namespace {

constexpr int kExchangeOpen = 930;    // EX_OPEN, hhmm
constexpr int kExchangeClose = 1600;  // EX_CLOSE

void WriteAddress(TableWriter& w, const workload::Address& a) {
  w.text().Int(a.id).Text(a.line1).Text(a.line2).Text(a.zip().code).Text(a.country());
  w.EndRow();
}

}  // namespace

void GenerateFixedTables(const workload::Sizing& sizing, UnitOutput& out) {
  TableWriter& status_type = out.Writer(Table::kStatusType);
  for (const StatusType& st : kStatusTypes) {
    status_type.text().Text(st.id).Text(st.name);
    status_type.EndRow();
  }

  TableWriter& trade_type = out.Writer(Table::kTradeType);
  for (const TradeTypeRow& tt : kTradeTypes) {
    trade_type.text().Text(tt.id).Text(tt.name).Bool(tt.is_sell).Bool(tt.is_market);
    trade_type.EndRow();
  }

  // EX_NUM_SYMB counts every configured security (not EGen 1.14's per-instance count).
  const workload::Market market(sizing);
  const auto counts = market.ExchangeSecurityCounts();
  const auto exchanges = workload::Exchanges();
  TableWriter& exchange = out.Writer(Table::kExchange);
  TableWriter& address = out.Writer(Table::kAddress);
  for (size_t i = 0; i < exchanges.size(); ++i) {
    const int64_t ad_id = workload::ExchangeAddressId(static_cast<int>(i));
    exchange.text()
        .Text(exchanges[i].id)
        .Text(exchanges[i].name)
        .Int(counts[i])
        .Int(kExchangeOpen)
        .Int(kExchangeClose)
        .Text(fmt::format("Simulates the {}", exchanges[i].name))
        .Int(ad_id);
    exchange.EndRow();
    WriteAddress(address, workload::MakeAddress(ad_id, false));
  }

  TableWriter& sector = out.Writer(Table::kSector);
  for (const workload::Sector& sc : workload::Sectors()) {
    sector.text().Text(sc.id).Text(sc.name);
    sector.EndRow();
  }
  TableWriter& industry = out.Writer(Table::kIndustry);
  for (const workload::Industry& in : workload::Industries()) {
    industry.text().Text(in.id).Text(in.name).Text(in.sector_id);
    industry.EndRow();
  }

  TableWriter& charge = out.Writer(Table::kCharge);
  for (int type = 0; type < kTradeTypeCount; ++type) {
    for (int tier = 1; tier <= kTierCount; ++tier) {
      charge.text()
          .Text(kTradeTypes[static_cast<size_t>(type)].id)
          .Int(tier)
          .Fixed(kChargeCents[static_cast<size_t>(type)][static_cast<size_t>(tier - 1)], 2);
      charge.EndRow();
    }
  }

  TableWriter& commission = out.Writer(Table::kCommissionRate);
  for (int tier = 1; tier <= kTierCount; ++tier) {
    for (const TradeTypeRow& tt : kTradeTypes) {
      for (size_t ex = 0; ex < exchanges.size(); ++ex) {
        for (const QuantityBand& band : kQuantityBands) {
          commission.text()
              .Int(tier)
              .Text(tt.id)
              .Text(exchanges[ex].id)
              .Int(band.from)
              .Int(band.to)
              .Fixed(CommissionRateHundredths(tier, static_cast<int>(ex), band.from), 2);
          commission.EndRow();
        }
      }
    }
  }

  TableWriter& taxrate = out.Writer(Table::kTaxrate);
  for (const workload::TaxRate& tx : workload::TaxRates().rows()) {
    taxrate.text().Text(tx.id).Text(tx.name).Fixed(tx.rate_e5, 5);
    taxrate.EndRow();
  }

  TableWriter& zip = out.Writer(Table::kZipCode);
  for (const workload::ZipCode& zc : workload::ZipCodes().rows()) {
    zip.text().Text(zc.code).Text(zc.town).Text(zc.division_code());
    zip.EndRow();
  }
}

}  // namespace bb::loader
