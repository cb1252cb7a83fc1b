#include "brokerage_house/frames/trade_info.h"

namespace bb::bh::frames {

std::string TradeIdArrayLiteral(const std::vector<int64_t>& ids, std::size_t count) {
  std::string literal = "{";
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0) literal += ',';
    literal += std::to_string(ids[i]);
  }
  literal += '}';
  return literal;
}

void ReadTradeInfo(const db::QueryResult& rows, std::vector<protocol::TradeInfo>& trades) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i == 0 || rows.Int(i, 0) != rows.Int(i - 1, 0)) {
      protocol::TradeInfo& t = trades.emplace_back();
      t.trade_id = rows.Int(i, 1);
      if (!rows.IsNull(i, 2)) t.acct_id = rows.Int(i, 2);
      t.exec_name = rows.Text(i, 3);
      t.is_cash = rows.Bool(i, 4);
      if (!rows.IsNull(i, 5)) t.is_market = rows.Bool(i, 5);
      if (!rows.IsNull(i, 6)) t.bid_price = rows.Cents(i, 6);
      if (!rows.IsNull(i, 7)) t.trade_price = rows.Cents(i, 7);
      if (!rows.IsNull(i, 8)) t.quantity = static_cast<int32_t>(rows.Int(i, 8));
      if (!rows.IsNull(i, 9)) t.trade_dts = rows.TimestampMicros(i, 9);
      t.trade_type = rows.Text(i, 10);
      t.s_name = rows.Text(i, 11);
      t.type_name = rows.Text(i, 12);
      if (!rows.IsNull(i, 13)) {
        t.settlement_amount = rows.Cents(i, 13);
        t.settlement_cash_due_date = rows.DateDays(i, 14);
        t.settlement_cash_type = rows.Text(i, 15);
      }
      if (!rows.IsNull(i, 16)) {
        t.cash_transaction_amount = rows.Cents(i, 16);
        t.cash_transaction_dts = rows.TimestampMicros(i, 17);
        t.cash_transaction_name = rows.Text(i, 18);
      }
    }
    if (!rows.IsNull(i, 19) && trades.back().history.size() < protocol::kMaxTradeHistory) {
      trades.back().history.push_back({rows.TimestampMicros(i, 19), std::string(rows.Text(i, 20))});
    }
  }
}

}  // namespace bb::bh::frames
