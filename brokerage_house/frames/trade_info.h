// Shared by Trade-Lookup and Trade-Update, whose frames return the same trade information:
// reading it from their common column layout, and passing frame 1's trade ids as an array.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/db/session.h"
#include "common/protocol/transactions.h"

namespace bb::bh::frames {

// The first `count` trade ids as a bigint[] literal, e.g. "{1,2,3}".
std::string TradeIdArrayLiteral(const std::vector<int64_t>& ids, std::size_t count);

// Reads rows of the trade-information layout (columns 0..20, see trade_lookup.cpp: row key,
// trade, settlement, cash transaction, then one history row per result row) into one TradeInfo
// per trade, in row order, with at most kMaxTradeHistory history entries each.
void ReadTradeInfo(const db::QueryResult& rows, std::vector<protocol::TradeInfo>& trades);

}  // namespace bb::bh::frames
