// Test-only: one fully populated value of every message, every field set to a non-default
// value, strings at their maximum width and lists at their maximum count, so a round trip
// catches a field the codec forgets, truncates or reorders. Shared by the unit and fuzz tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/protocol/codec.h"

namespace bb::protocol::samples {

// A string of exactly `size` bytes that differs with `seed`, so swapped fields show up.
inline std::string Text(size_t size, int seed) {
  std::string s(size, ' ');
  for (size_t i = 0; i < size; ++i) s[i] = static_cast<char>('A' + (seed * 7 + i) % 26);
  return s;
}

inline ReplyStatus MakeReplyStatus(int seed) {
  return ReplyStatus{-(100 + seed), Outcome::kRetryExhausted, static_cast<uint32_t>(3 + seed),
                     1'234'567 + seed, Text(width::kDetail, seed)};
}

inline TradeInfo MakeTradeInfo(int seed) {
  TradeInfo t;
  t.trade_id = 200'000'000'000'000 + seed;
  t.acct_id = 43'000'000'001 + seed;
  t.exec_name = Text(width::kExecName, seed);
  t.is_cash = seed % 2 == 0;
  t.is_market = seed % 2 == 1;
  t.bid_price = 2'512 + seed;
  if (seed % 3 != 0) t.trade_price = 2'499 + seed;
  t.quantity = 800;
  t.trade_dts = 1'104'537'600'000'000 + seed;
  t.trade_type = Text(width::kTradeTypeId, seed);
  t.s_name = Text(width::kSecurityName, seed + 1);
  t.type_name = Text(width::kTradeTypeName, seed + 2);
  t.settlement_amount = -2'000'512 - seed;
  t.settlement_cash_due_date = 12'784 + seed;
  t.settlement_cash_type = Text(width::kCashType, seed + 3);
  t.cash_transaction_amount = 1'999'488 + seed;
  t.cash_transaction_dts = 1'104'537'600'123'456 + seed;
  t.cash_transaction_name = Text(width::kCashTxnName, seed + 4);
  for (size_t i = 0; i < kMaxTradeHistory; ++i) {
    t.history.push_back({1'104'537'600'000'000 + static_cast<int64_t>(i),
                         Text(width::kStatusId, seed + static_cast<int>(i))});
  }
  return t;
}

inline PostalAddress MakeAddress(int seed) {
  return PostalAddress{Text(width::kAddressLine, seed), Text(width::kAddressLine, seed + 1),
                       Text(width::kTown, seed + 2),    Text(width::kDivision, seed + 3),
                       Text(width::kZipCode, seed + 4), Text(width::kCountry, seed + 5)};
}

inline std::vector<Message> SampleMessages() {
  std::vector<Message> out;

  out.push_back(Hello{1, Text(width::kComponentName, 1), 5'000'000, 500, 300});
  out.push_back(HelloReply{true, Text(width::kComponentName, 2), Text(width::kReason, 3)});
  out.push_back(ErrorReply{ErrorCode::kShuttingDown, Text(width::kReason, 4)});
  out.push_back(MarketTradeRequest{200'000'000'000'123, Text(width::kSymbol, 5), 400, 2'575, "TLS",
                                   MarketAction::kSetLimitTrigger, 1'700'000'000'000'001});
  out.push_back(MarketTradeAck{-7});

  {
    BrokerVolumeInput m;
    for (size_t i = 0; i < kMaxBrokerList; ++i) {
      m.broker_list.push_back(Text(width::kBrokerName, static_cast<int>(i)));
    }
    m.sector_name = Text(width::kSectorName, 9);
    out.push_back(m);
    BrokerVolumeOutput r;
    r.status = MakeReplyStatus(1);
    for (size_t i = 0; i < kMaxBrokerList; ++i) {
      r.brokers.push_back({Text(width::kBrokerName, static_cast<int>(i)),
                           9'000'000'000'000 - static_cast<int64_t>(i)});
    }
    out.push_back(r);
  }
  {
    out.push_back(CustomerPositionInput{4'300'001'234, Text(width::kTaxId, 1), true, 7});
    CustomerPositionOutput r;
    r.status = MakeReplyStatus(2);
    r.cust_id = 4'300'001'234;
    r.c_st_id = "ACTV";
    r.l_name = Text(width::kLastName, 1);
    r.f_name = Text(width::kFirstName, 2);
    r.m_name = "Q";
    r.gender = "F";
    r.tier = 3;
    r.dob = -3'650;
    r.ad_id = 4'300'000'042;
    for (int i = 0; i < 3; ++i) {
      r.phones[static_cast<size_t>(i)] =
          Phone{Text(width::kPhoneCountry, i), Text(width::kPhoneArea, i + 1),
                Text(width::kPhoneLocal, i + 2), Text(width::kPhoneExt, i + 3)};
    }
    r.email_1 = Text(width::kEmail, 5);
    r.email_2 = Text(width::kEmail, 6);
    for (size_t i = 0; i < kMaxAccounts; ++i) {
      const auto k = static_cast<int64_t>(i);
      r.accounts.push_back({43'000'000'001 + k, -5'000 + k, 1'000'000'000 + k});
    }
    for (size_t i = 0; i < kMaxPositionHistory; ++i) {
      const auto k = static_cast<int>(i);
      r.history.push_back({200'000'000'000'000 + k, Text(width::kSymbol, k), -800 + k,
                           Text(width::kStatusName, k), 1'104'537'600'000'000 + k});
    }
    out.push_back(r);
  }
  {
    MarketFeedInput m;
    for (size_t i = 0; i < kMaxFeedEntries; ++i) {
      const auto k = static_cast<int>(i);
      m.entries.push_back({Text(width::kSymbol, k), 2'000 + k, 100 + k});
    }
    m.status_submitted = "SBMT";
    m.type_limit_buy = "TLB";
    m.type_limit_sell = "TLS";
    m.type_stop_loss = "TSL";
    m.unique_symbols = 19;
    out.push_back(m);
    out.push_back(MarketFeedOutput{MakeReplyStatus(3), 20, 4});
  }
  {
    out.push_back(MarketWatchInput{43'000'000'017, 4'300'000'011, Text(width::kIndustryName, 1),
                                   4'300'000'001, 4'300'005'000, 11'000});
    out.push_back(MarketWatchOutput{MakeReplyStatus(4), -3.14159});
  }
  {
    out.push_back(SecurityDetailInput{Text(width::kSymbol, 2), 20, 10'959, true});
    SecurityDetailOutput r;
    r.status = MakeReplyStatus(5);
    r.s_name = Text(width::kSecurityName, 1);
    r.num_out = 3'000'000'000;
    r.start_date = 10'000;
    r.exch_date = 10'001;
    r.pe_ratio = 1'523;
    r.wk52_high = 3'012;
    r.wk52_high_date = 12'700;
    r.wk52_low = 1'899;
    r.wk52_low_date = 12'600;
    r.divid = 55;
    r.yield = 321;
    r.co_name = Text(width::kCompanyName, 2);
    r.sp_rate = "AAA+";
    r.ceo_name = Text(width::kCeoName, 3);
    r.co_desc = Text(width::kCompanyDesc, 4);
    r.open_date = -20'000;
    r.co_st_id = "ACTV";
    r.co_address = MakeAddress(1);
    r.ex_name = Text(width::kExchangeName, 5);
    r.ex_desc = Text(width::kExchangeDesc, 6);
    r.ex_open = 930;
    r.ex_close = 1600;
    r.ex_num_symb = 2'765;
    r.ex_address = MakeAddress(7);
    for (size_t i = 0; i < kMaxCompetitors; ++i) {
      const auto k = static_cast<int>(i);
      r.competitors.push_back({Text(width::kCompanyName, k), Text(width::kIndustryName, k + 1)});
    }
    for (size_t i = 0; i < kMaxFinancials; ++i) {
      const auto k = static_cast<int>(i);
      r.financials.push_back({2000 + k / 4, 1 + k % 4, 10'957 + 91 * k, 100'000'000'000 + k,
                              -5'000'000 - k, 123 + k, 120 + k, 1'500 + k, 7'000 + k,
                              900'000'000 + k, 800'000'000 + k, 50'000'000 + k, 51'000'000 + k});
    }
    for (size_t i = 0; i < kMaxDayRows; ++i) {
      const auto k = static_cast<int>(i);
      r.days.push_back({10'959 + k, 2'500 + k, 2'600 + k, 2'400 + k, 1'000'000 + k});
    }
    r.last_price = 2'555;
    r.last_open = 2'500;
    r.last_vol = 77'777;
    r.news.push_back({Text(width::kNewsItem, 1), 1'104'537'600'000'000, Text(width::kNewsSource, 2),
                      Text(width::kNewsAuthor, 3), "", ""});
    r.news.push_back({"", 1'104'537'600'000'001, Text(width::kNewsSource, 4), "",
                      Text(width::kNewsHeadline, 5), Text(width::kNewsSummary, 6)});
    out.push_back(r);
  }
  {
    TradeLookupInput m;
    m.frame = 3;
    m.max_trades = 20;
    for (size_t i = 0; i < kMaxTradesPerFrame; ++i) {
      m.trade_ids.push_back(200'000'000'000'000 + static_cast<int64_t>(i) * 101);
    }
    m.acct_id = 43'000'000'099;
    m.symbol = Text(width::kSymbol, 3);
    m.start_trade_dts = 1'104'537'600'000'000;
    m.end_trade_dts = 1'104'537'600'000'999;
    m.max_acct_id = 43'000'050'000;
    out.push_back(m);
    TradeLookupOutput r;
    r.status = MakeReplyStatus(6);
    r.frame = 4;
    for (size_t i = 0; i < kMaxTradesPerFrame; ++i)
      r.trades.push_back(MakeTradeInfo(static_cast<int>(i)));
    r.num_trades_found = 1;
    r.trade_id = 200'000'000'000'777;
    for (size_t i = 0; i < kMaxHoldingHistory; ++i) {
      const auto k = static_cast<int>(i);
      r.holding_history.push_back({200'000'000'000'000 + k, 200'000'000'001'000 + k, 800 - k, -k});
    }
    out.push_back(r);
  }
  {
    TradeOrderInput m;
    m.acct_id = 43'000'000'123;
    m.exec_f_name = Text(width::kFirstName, 1);
    m.exec_l_name = Text(width::kLastName, 2);
    m.exec_tax_id = Text(width::kTaxId, 3);
    m.symbol = Text(width::kSymbol, 4);
    m.co_name = Text(width::kCompanyName, 5);
    m.issue = Text(width::kIssue, 6);
    m.trade_type_id = "TSL";
    m.trade_qty = 800;
    m.requested_price = 2'999;
    m.is_lifo = true;
    m.type_is_margin = true;
    m.roll_it_back = true;
    m.st_pending_id = "PNDG";
    m.st_submitted_id = "SBMT";
    out.push_back(m);
    out.push_back(
        TradeOrderOutput{MakeReplyStatus(7), 200'000'000'004'242, 1'600'000, 2'400'000, 80'000});
  }
  {
    out.push_back(TradeResultInput{200'000'000'004'242, 2'523});
    out.push_back(TradeResultOutput{MakeReplyStatus(8), 43'000'000'123, -123'456'789, 17});
  }
  {
    out.push_back(TradeStatusInput{43'000'000'555});
    TradeStatusOutput r;
    r.status = MakeReplyStatus(9);
    r.cust_l_name = Text(width::kLastName, 1);
    r.cust_f_name = Text(width::kFirstName, 2);
    r.broker_name = Text(width::kBrokerName, 3);
    for (size_t i = 0; i < kMaxTradeStatus; ++i) {
      const auto k = static_cast<int>(i);
      r.trades.push_back({200'000'000'000'000 + k, 1'104'537'600'000'000 - k,
                          Text(width::kStatusName, k), Text(width::kTradeTypeName, k + 1),
                          Text(width::kSymbol, k + 2), 100 * (k + 1), Text(width::kExecName, k + 3),
                          1'000 + k, Text(width::kSecurityName, k + 4),
                          Text(width::kExchangeName, k + 5)});
    }
    out.push_back(r);
  }
  {
    TradeUpdateInput m;
    m.frame = 2;
    m.max_trades = 20;
    m.max_updates = 19;
    for (size_t i = 0; i < kMaxTradesPerFrame; ++i) {
      m.trade_ids.push_back(300'000'000'000'000 + static_cast<int64_t>(i));
    }
    m.acct_id = 43'000'000'321;
    m.symbol = Text(width::kSymbol, 8);
    m.start_trade_dts = 1'000'000'000'000'000;
    m.end_trade_dts = 1'000'000'000'000'001;
    m.max_acct_id = 43'000'100'000;
    out.push_back(m);
    TradeUpdateOutput r;
    r.status = MakeReplyStatus(10);
    r.frame = 3;
    r.num_updated = 20;
    for (size_t i = 0; i < kMaxTradesPerFrame; ++i) {
      r.trades.push_back(MakeTradeInfo(100 + static_cast<int>(i)));
    }
    out.push_back(r);
  }
  {
    out.push_back(DataMaintenanceInput{MaintenanceTable::kWatchItem, 43'000'000'001, 4'300'000'002,
                                       4'300'000'003, Text(width::kSymbol, 1), 31, -3, "US5"});
    out.push_back(DataMaintenanceOutput{MakeReplyStatus(11)});
  }
  {
    out.push_back(TradeCleanupInput{"CNCL", "PNDG", "SBMT", 200'000'000'000'001});
    out.push_back(TradeCleanupOutput{MakeReplyStatus(12)});
  }
  return out;
}

// The sample of type M.
template <typename M>
M SampleOf() {
  for (const Message& m : SampleMessages()) {
    if (const M* p = std::get_if<M>(&m)) return *p;
  }
  return M{};
}

// Encodes a message as one frame; the message must be valid.
inline std::vector<uint8_t> EncodeToFrame(const Message& m, uint64_t request_id) {
  std::vector<uint8_t> bytes;
  Writer w(bytes);
  Status s = EncodeFrame(m, request_id, w);
  if (!s.ok()) bytes.clear();
  return bytes;
}

}  // namespace bb::protocol::samples
