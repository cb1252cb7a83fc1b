// Market-Feed (clause 3.3.3): the market exchange reports a batch of ticker
// entries. For each, LAST_TRADE takes the new price and volume, and the pending limit orders
// of that symbol that the price triggers (stop-loss and limit-buy at or above their limit,
// limit-sell at or below) are submitted: TRADE to SBMT with a history row, TRADE_REQUEST row
// deleted. After the commit each triggered order goes back to the market as an order to fill.
// REPEATABLE READ (L2, clause 7.4.1.3).
//
// The whole batch is one database transaction (the spec allows one to twenty entries per
// transaction). Entries are applied in symbol order, keeping the feed's order for repeats of a
// symbol (so the last price of a symbol wins, as in the feed): concurrent feeds then lock
// LAST_TRADE rows in the same order and cannot deadlock. Server-side: sql/market_feed.sql, the
// entries passed in that order.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "brokerage_house/frame_runner.h"
#include "brokerage_house/frames/statements.h"

namespace bb::bh {

namespace {

// Parameters: symbol, price, quantity, now.
constexpr db::PreparedStatement kUpdateLastTrade{
    "mf_f1_update_last_trade",
    "UPDATE last_trade SET lt_price = $2, lt_vol = lt_vol + $3, lt_dts = $4 "
    "WHERE lt_s_symb = $1"};

// The requests of the symbol that the price triggers, submitted: request deleted, trade
// SBMT at now, history row. Parameters: symbol, price, stop-loss type, limit-sell type,
// limit-buy type, now, submitted status. Returns the submitted requests.
constexpr db::PreparedStatement kSubmitTriggered{
    "mf_f1_submit_triggered",
    "WITH r AS (DELETE FROM trade_request WHERE tr_s_symb = $1 AND ((tr_tt_id = $3 AND "
    "tr_bid_price >= $2) OR (tr_tt_id = $4 AND tr_bid_price <= $2) OR (tr_tt_id = $5 AND "
    "tr_bid_price >= $2)) RETURNING tr_t_id, tr_bid_price, tr_tt_id, tr_qty), t AS (UPDATE "
    "trade SET t_dts = $6, t_st_id = $7 FROM r WHERE t_id = r.tr_t_id), h AS (INSERT INTO "
    "trade_history (th_t_id, th_dts, th_st_id) SELECT tr_t_id, $6::timestamp, $7::varchar "
    "FROM r) SELECT tr_t_id, tr_bid_price, tr_tt_id, tr_qty FROM r ORDER BY tr_t_id"};

constexpr db::PreparedStatement kStatements[] = {kUpdateLastTrade, kSubmitTriggered};

// Harness status code (3.3.3.5): fewer LAST_TRADE rows updated than distinct symbols sent.
constexpr int32_t kTooFewUpdated = -311;

// The order in which the entries are applied: by symbol, repeats of a symbol in the feed's
// order.
using EntryOrder = std::array<uint8_t, protocol::kMaxFeedEntries>;

// The server-side frame: one call of sql/market_feed.sql's function. Its columns:
enum CallColumn : int {
  kStatus,
  kNumUpdated,
  kTradeIds,  // then the other fields of the triggered orders, parallel to it: symbol, bid
              // price, trade type, quantity
};
constexpr std::string_view kCall = "mf_call";
constexpr db::PreparedStatement kServerStatements[] = {
    {kCall, "SELECT * FROM bb_market_feed($1, $2, $3, $4, $5, $6, $7, $8, $9)"}};

// Array literals of the entries' fields in `order`: text[] (each symbol quoted, so that any
// character in it is data), numeric[] and integer[].
struct EntryArrays {
  std::string symbols = "{";
  std::string prices = "{";
  std::string qtys = "{";
};
EntryArrays ArraysInOrder(const protocol::MarketFeedInput& in, const EntryOrder& order,
                          uint8_t count) {
  EntryArrays arrays;
  for (uint8_t k = 0; k < count; ++k) {
    const protocol::TickerEntry& entry = in.entries[order[k]];
    if (k > 0) {
      arrays.symbols += ',';
      arrays.prices += ',';
      arrays.qtys += ',';
    }
    arrays.symbols += '"';
    for (char c : entry.symbol) {
      if (c == '"' || c == '\\') arrays.symbols += '\\';
      arrays.symbols += c;
    }
    arrays.symbols += '"';
    arrays.prices += db::Param::Cents(entry.price_quote).text();
    arrays.qtys += fmt::format("{}", entry.trade_qty);
  }
  arrays.symbols += '}';
  arrays.prices += '}';
  arrays.qtys += '}';
  return arrays;
}

// True when the feed is refused before any database work, with its reply in `out`.
bool Refused(const protocol::MarketFeedInput& in, protocol::MarketFeedOutput& out) {
  if (in.entries.size() <= protocol::kMaxFeedEntries) return false;
  // The protocol refuses such a feed; a caller that builds one itself gets this.
  out.status.spec_status = kTooFewUpdated;
  out.status.outcome = protocol::Outcome::kInvalid;
  out.status.detail = "more ticker entries than max_feed_len (20)";
  return true;
}

// The entries in symbol order (stable), the order both modes update them in.
EntryOrder SymbolOrder(const protocol::MarketFeedInput& in) {
  EntryOrder order{};
  const auto count = static_cast<uint8_t>(in.entries.size());
  for (uint8_t i = 0; i < count; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.begin() + count, [&](uint8_t a, uint8_t b) {
    return in.entries[a].symbol < in.entries[b].symbol;
  });
  return order;
}

}  // namespace

std::span<const db::PreparedStatement> frames::MarketFeedStatements(FrameMode mode) {
  return ForMode(mode, kServerStatements, kStatements);
}

// The whole batch in one call.
bool frames::Prepare(const protocol::MarketFeedInput& in, ServerCall& call,
                     protocol::MarketFeedOutput& refused) {
  if (Refused(in, refused)) return false;
  EntryArrays arrays = ArraysInOrder(in, SymbolOrder(in), static_cast<uint8_t>(in.entries.size()));
  call.isolation = db::Isolation::kRepeatableRead;
  call.finish = db::Finish::kCommit;
  call.statement = kCall;
  call.params.assign({std::move(arrays.symbols), std::move(arrays.prices), std::move(arrays.qtys),
                      in.type_stop_loss, in.type_limit_sell, in.type_limit_buy, in.status_submitted,
                      in.unique_symbols});
  AppendNow(call);
  return true;
}

// The triggered orders go to the market only after the commit.
protocol::MarketFeedOutput frames::Read(const protocol::MarketFeedInput&,
                                        const db::TxnOutcome& outcome, const db::QueryResult& row,
                                        std::vector<protocol::MarketTradeRequest>& to_market) {
  protocol::MarketFeedOutput out;
  if (outcome.end == db::TxnEnd::kCommitted && row.size() == 1) {
    out.num_updated = static_cast<int32_t>(row.Int(0, kNumUpdated));
    auto lists = frames::Lists<5>(row, kTradeIds);
    auto& [ids, symbols, prices, types, qtys] = lists;
    while (ids.Next()) {
      for (std::size_t i = 1; i < lists.size(); ++i) lists[i].Next();
      protocol::MarketTradeRequest& request = to_market.emplace_back();
      request.trade_id = ids.Int();
      request.symbol.assign(symbols.value());
      request.price = prices.Cents();
      request.trade_type_id.assign(types.value());
      request.trade_qty = static_cast<int32_t>(qtys.Int());
      request.action = protocol::MarketAction::kProcessOrder;
      ++out.send_len;
    }
  }
  out.status = MakeReplyStatus(outcome, frames::CallStatus(outcome, row));
  return out;
}

protocol::MarketFeedOutput FrameRunner::Run(const protocol::MarketFeedInput& in,
                                            std::vector<protocol::MarketTradeRequest>& to_market) {
  if (on_server()) {
    return frames::RunServerCall(session_, options_.max_retries, in, to_market);
  }
  protocol::MarketFeedOutput out;
  int32_t status = 0;
  if (Refused(in, out)) return out;
  const EntryOrder order = SymbolOrder(in);
  const auto count = static_cast<uint8_t>(in.entries.size());

  // Triggered orders go straight to the end of to_market; an attempt that does not commit
  // takes its own back off again, so only committed ones remain.
  const std::size_t mark = to_market.size();
  const db::TxnOutcome outcome =
      session_.Run(db::Isolation::kRepeatableRead, options_.max_retries, [&](db::Transaction& tx) {
        out = {};
        status = 0;
        to_market.resize(mark);
        const db::Param now = db::Param::Timestamp(Now());
        for (uint8_t k = 0; k < count; ++k) {
          const protocol::TickerEntry& entry = in.entries[order[k]];
          const db::Param price = db::Param::Cents(entry.price_quote);
          out.num_updated += static_cast<int32_t>(
              tx.Exec(kUpdateLastTrade.name, {entry.symbol, price, entry.trade_qty, now})
                  .affected_rows());
          const db::QueryResult triggered = tx.Exec(
              kSubmitTriggered.name, {entry.symbol, price, in.type_stop_loss, in.type_limit_sell,
                                      in.type_limit_buy, now, in.status_submitted});
          for (std::size_t i = 0; i < triggered.size(); ++i) {
            protocol::MarketTradeRequest& request = to_market.emplace_back();
            request.trade_id = triggered.Int(i, 0);
            request.symbol = entry.symbol;
            request.price = triggered.Cents(i, 1);
            request.trade_type_id.assign(triggered.Text(i, 2));
            request.trade_qty = static_cast<int32_t>(triggered.Int(i, 3));
            request.action = protocol::MarketAction::kProcessOrder;
          }
        }
        if (out.num_updated < in.unique_symbols) {
          // As the server-side frame, which rolls back by raising the status: only the status.
          out = {};
          status = kTooFewUpdated;
          return db::Finish::kRollback;
        }
        out.send_len = static_cast<int32_t>(to_market.size() - mark);
        return db::Finish::kCommit;
      });
  out.status = MakeReplyStatus(outcome, status);
  if (outcome.end != db::TxnEnd::kCommitted) {
    to_market.resize(mark);
    out.send_len = 0;
  }
  return out;
}

}  // namespace bb::bh
