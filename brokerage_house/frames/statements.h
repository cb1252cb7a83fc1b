// The prepared statements of each transaction, one group per file in brokerage_house/frames/.
// Statement names start with the transaction's code (e.g. "to_f3_...") so they never clash.
#pragma once

#include <array>
#include <span>

#include "common/db/session.h"

namespace bb::bh::frames {

std::span<const db::PreparedStatement> BrokerVolumeStatements();
std::span<const db::PreparedStatement> CustomerPositionStatements();
std::span<const db::PreparedStatement> MarketFeedStatements();
std::span<const db::PreparedStatement> MarketWatchStatements();
std::span<const db::PreparedStatement> SecurityDetailStatements();
std::span<const db::PreparedStatement> TradeLookupStatements();
std::span<const db::PreparedStatement> TradeOrderStatements();
std::span<const db::PreparedStatement> TradeResultStatements();
std::span<const db::PreparedStatement> TradeStatusStatements();
std::span<const db::PreparedStatement> TradeUpdateStatements();
std::span<const db::PreparedStatement> DataMaintenanceStatements();
std::span<const db::PreparedStatement> TradeCleanupStatements();

inline std::array<std::span<const db::PreparedStatement>, 12> AllStatementGroups() {
  return {BrokerVolumeStatements(),     CustomerPositionStatements(), MarketFeedStatements(),
          MarketWatchStatements(),      SecurityDetailStatements(),   TradeLookupStatements(),
          TradeOrderStatements(),       TradeResultStatements(),      TradeStatusStatements(),
          TradeUpdateStatements(),      DataMaintenanceStatements(),  TradeCleanupStatements()};
}

}  // namespace bb::bh::frames
