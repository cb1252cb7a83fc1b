#include "brokerage_house/frames/trade_info.h"

#include <array>
#include <cstddef>
#include <string_view>

#include "brokerage_house/frames/statements.h"

namespace bb::bh::frames {
namespace {

// The current row of a statement's result (the client-side frames).
class ResultRows {
 public:
  explicit ResultRows(const db::QueryResult& rows) : rows_(rows) {}
  bool Next() {
    row_ = next_++;
    return row_ < rows_.size();
  }
  bool IsNull(int col) const { return rows_.IsNull(row_, col); }
  int64_t Int(int col) const { return rows_.Int(row_, col); }
  bool Bool(int col) const { return rows_.Bool(row_, col); }
  int64_t Cents(int col) const { return rows_.Cents(row_, col); }
  int64_t TimestampMicros(int col) const { return rows_.TimestampMicros(row_, col); }
  int32_t DateDays(int col) const { return rows_.DateDays(row_, col); }
  std::string_view Text(int col) const { return rows_.Text(row_, col); }

 private:
  const db::QueryResult& rows_;
  std::size_t next_ = 0;
  std::size_t row_ = 0;
};

// The current element of every one of the layout's parallel arrays (the server-side frames).
class ArrayRows {
 public:
  ArrayRows(const db::QueryResult& row, int first)
      : columns_(Lists<kTradeInfoColumns>(row, first)) {}
  bool Next() {
    bool more = columns_[0].Next();
    for (std::size_t i = 1; i < columns_.size(); ++i) more = columns_[i].Next() && more;
    return more;
  }
  bool IsNull(int col) const { return at(col).is_null(); }
  int64_t Int(int col) const { return at(col).Int(); }
  bool Bool(int col) const { return at(col).Bool(); }
  int64_t Cents(int col) const { return at(col).Cents(); }
  int64_t TimestampMicros(int col) const { return at(col).TimestampMicros(); }
  int32_t DateDays(int col) const { return at(col).DateDays(); }
  std::string_view Text(int col) const { return at(col).value(); }

 private:
  const db::ArrayReader& at(int col) const { return columns_[static_cast<std::size_t>(col)]; }
  std::array<db::ArrayReader, kTradeInfoColumns> columns_;
};

template <typename Rows>
void Read(Rows& rows, std::vector<protocol::TradeInfo>& trades) {
  bool first = true;
  int64_t key = 0;
  while (rows.Next()) {
    if (first || rows.Int(0) != key) {
      first = false;
      key = rows.Int(0);
      protocol::TradeInfo& t = trades.emplace_back();
      t.trade_id = rows.Int(1);
      if (!rows.IsNull(2)) t.acct_id = rows.Int(2);
      t.exec_name = rows.Text(3);
      t.is_cash = rows.Bool(4);
      if (!rows.IsNull(5)) t.is_market = rows.Bool(5);
      if (!rows.IsNull(6)) t.bid_price = rows.Cents(6);
      if (!rows.IsNull(7)) t.trade_price = rows.Cents(7);
      if (!rows.IsNull(8)) t.quantity = static_cast<int32_t>(rows.Int(8));
      if (!rows.IsNull(9)) t.trade_dts = rows.TimestampMicros(9);
      t.trade_type = rows.Text(10);
      t.s_name = rows.Text(11);
      t.type_name = rows.Text(12);
      if (!rows.IsNull(13)) {
        t.settlement_amount = rows.Cents(13);
        t.settlement_cash_due_date = rows.DateDays(14);
        t.settlement_cash_type = rows.Text(15);
      }
      if (!rows.IsNull(16)) {
        t.cash_transaction_amount = rows.Cents(16);
        t.cash_transaction_dts = rows.TimestampMicros(17);
        t.cash_transaction_name = rows.Text(18);
      }
    }
    if (!rows.IsNull(19) && trades.back().history.size() < protocol::kMaxTradeHistory) {
      trades.back().history.push_back({rows.TimestampMicros(19), std::string(rows.Text(20))});
    }
  }
}

}  // namespace

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
  ResultRows cursor(rows);
  Read(cursor, trades);
}

void ReadTradeInfoArrays(const db::QueryResult& row, int first,
                         std::vector<protocol::TradeInfo>& trades) {
  ArrayRows cursor(row, first);
  Read(cursor, trades);
}

}  // namespace bb::bh::frames
