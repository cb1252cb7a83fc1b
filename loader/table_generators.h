// The four groups of table generators behind Generate() (loader/generator.h): fixed tables,
// and the customers, market and trades parts of one load unit. Internal to the loader.
//
// Each function writes its rows into the UnitOutput and returns early (without error) when the
// output has failed; Generate() then reports the output's status.
//
// Thread-safety: reentrant; every random stream is local and seeded from the unit's keys.
#pragma once

#include <cstdint>

#include "common/workload/random.h"
#include "common/workload/sizing.h"
#include "loader/row_output.h"

namespace bb::loader {

// Base seeds of the loader-only attributes (values of our own; workload/random.h holds the
// seeds that the drivers share). Changing one changes the generated data.
namespace seeds {
inline constexpr workload::RngSeed kWatchItems = 0x8e79dcb0603a180eULL;
inline constexpr workload::RngSeed kCompany = 0x6c9e0e8bb01e8a3eULL;
inline constexpr workload::RngSeed kCompetitors = 0xd71577c1bd314b27ULL;
inline constexpr workload::RngSeed kFinancial = 0x78af2fda55605c60ULL;
inline constexpr workload::RngSeed kNews = 0xe65525f3aa55ab94ULL;
inline constexpr workload::RngSeed kSecurity = 0x5748986263e81440ULL;
inline constexpr workload::RngSeed kDailyMarket = 0x55ca396a2aab10b6ULL;
inline constexpr workload::RngSeed kTrades = 0xb4cc5c341141e8ceULL;
}  // namespace seeds

// NI_ITEM length in characters (EGen's: words until 100 000 characters).
inline constexpr int kNewsItemChars = 100'000;

void GenerateFixedTables(const workload::Sizing& sizing, UnitOutput& out);
void GenerateCustomerTables(const workload::Sizing& sizing, int64_t load_unit, UnitOutput& out);
void GenerateMarketTables(const workload::Sizing& sizing, int64_t load_unit, UnitOutput& out);
void GenerateTradeTables(const workload::Sizing& sizing, int64_t load_unit, UnitOutput& out);

}  // namespace bb::loader
