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

// The trade-information layout (see trade_lookup.cpp): row key, trade, settlement, cash
// transaction, then one history row per result row.
inline constexpr int kTradeInfoColumns = 21;

// Reads rows of the trade-information layout (columns 0..20) into one TradeInfo per trade, in
// row order, with at most kMaxTradeHistory history entries each: the client-side frames.
void ReadTradeInfo(const db::QueryResult& rows, std::vector<protocol::TradeInfo>& trades);

// The same, from the server-side frames (sql/trade_lookup.sql, sql/trade_update.sql): the
// layout's columns as 21 parallel arrays, columns first..first+20 of the call's one row, read
// by the same code as ReadTradeInfo's rows.
void ReadTradeInfoArrays(const db::QueryResult& row, int first,
                         std::vector<protocol::TradeInfo>& trades);

}  // namespace bb::bh::frames
