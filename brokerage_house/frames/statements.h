// The prepared statements of each transaction, one group per file in brokerage_house/frames/:
// the client-side frames' statements, or the call of the transaction's server-side function.
// Statement names start with the transaction's code (e.g. "to_f3_...", "to_call") so they
// never clash.
#pragma once

#include <array>
#include <span>

#include "brokerage_house/frame_runner.h"
#include "common/db/session.h"

namespace bb::bh::frames {

std::span<const db::PreparedStatement> BrokerVolumeStatements(FrameMode mode);
std::span<const db::PreparedStatement> CustomerPositionStatements(FrameMode mode);
std::span<const db::PreparedStatement> MarketFeedStatements(FrameMode mode);
std::span<const db::PreparedStatement> MarketWatchStatements(FrameMode mode);
std::span<const db::PreparedStatement> SecurityDetailStatements(FrameMode mode);
std::span<const db::PreparedStatement> TradeLookupStatements(FrameMode mode);
std::span<const db::PreparedStatement> TradeOrderStatements(FrameMode mode);
std::span<const db::PreparedStatement> TradeResultStatements(FrameMode mode);
std::span<const db::PreparedStatement> TradeStatusStatements(FrameMode mode);
std::span<const db::PreparedStatement> TradeUpdateStatements(FrameMode mode);
std::span<const db::PreparedStatement> DataMaintenanceStatements(FrameMode mode);
std::span<const db::PreparedStatement> TradeCleanupStatements(FrameMode mode);

// The statements of one mode: the server-side function's call, or the client-side frames'.
inline std::span<const db::PreparedStatement> ForMode(
    FrameMode mode, std::span<const db::PreparedStatement> server,
    std::span<const db::PreparedStatement> client) {
  return mode == FrameMode::kServer ? server : client;
}

inline std::array<std::span<const db::PreparedStatement>, 12> AllStatementGroups(FrameMode m) {
  return {BrokerVolumeStatements(m), CustomerPositionStatements(m), MarketFeedStatements(m),
          MarketWatchStatements(m),  SecurityDetailStatements(m),   TradeLookupStatements(m),
          TradeOrderStatements(m),   TradeResultStatements(m),      TradeStatusStatements(m),
          TradeUpdateStatements(m),  DataMaintenanceStatements(m),  TradeCleanupStatements(m)};
}

}  // namespace bb::bh::frames
