// Private to the codec (codec.cpp, codec_text.cpp): the field list of every message, walked by
// the visitors of field_visitors.h and codec_text.cpp. In an unnamed namespace on purpose, as
// field_visitors.h says why; include it from those two files only.
#pragma once

#include <concepts>
#include <type_traits>

#include "common/protocol/transactions.h"

namespace bb::protocol {
namespace {

// Field lists. M is T or const T; the order here is the wire order (PROTOCOL.md).

template <typename M, typename T>
concept Is = std::same_as<std::remove_const_t<M>, T>;

template <typename V, Is<ReplyStatus> M>
void Fields(V& v, M& m) {
  v.I32("spec_status", m.spec_status);
  v.Enum("outcome", m.outcome, 0, kMaxOutcome);
  v.U32("retries", m.retries);
  v.I64("server_micros", m.server_micros);
  v.Str("detail", m.detail, width::kDetail);
}

template <typename V, Is<Hello> M>
void Fields(V& v, M& m) {
  v.U16("protocol_version", m.protocol_version);
  v.Str("component", m.component, width::kComponentName);
  v.I64("customers_total", m.customers_total);
  v.I32("scale_factor", m.scale_factor);
  v.I32("initial_trade_days", m.initial_trade_days);
}

template <typename V, Is<HelloReply> M>
void Fields(V& v, M& m) {
  v.Bool("accepted", m.accepted);
  v.Str("component", m.component, width::kComponentName);
  v.Str("reason", m.reason, width::kReason);
}

template <typename V, Is<ErrorReply> M>
void Fields(V& v, M& m) {
  v.Enum("code", m.code, kMinErrorCode, kMaxErrorCode);
  v.Str("text", m.text, width::kReason);
}

template <typename V, Is<MarketTradeRequest> M>
void Fields(V& v, M& m) {
  v.I64("trade_id", m.trade_id);
  v.Str("symbol", m.symbol, width::kSymbol);
  v.I32("trade_qty", m.trade_qty);
  v.I64("price", m.price);
  v.Str("trade_type_id", m.trade_type_id, width::kTradeTypeId);
  v.Enum("action", m.action, 0, kMaxMarketAction);
  v.I64("sent_at", m.sent_at);
}

template <typename V, Is<MarketTradeAck> M>
void Fields(V& v, M& m) {
  v.I64("trade_id", m.trade_id);
}

// Broker-Volume.
template <typename V, Is<BrokerVolumeInput> M>
void Fields(V& v, M& m) {
  v.Array("broker_list", m.broker_list, kMaxBrokerList,
          [&v](auto& name) { v.Str(nullptr, name, width::kBrokerName); });
  v.Str("sector_name", m.sector_name, width::kSectorName);
}

template <typename V, Is<BrokerVolumeRow> M>
void Fields(V& v, M& m) {
  v.Str("broker_name", m.broker_name, width::kBrokerName);
  v.I64("volume", m.volume);
}

template <typename V, Is<BrokerVolumeOutput> M>
void Fields(V& v, M& m) {
  v.Nested("status", [&] { Fields(v, m.status); });
  v.Array("brokers", m.brokers, kMaxBrokerList, [&v](auto& row) { Fields(v, row); });
}

// Customer-Position.
template <typename V, Is<CustomerPositionInput> M>
void Fields(V& v, M& m) {
  v.I64("cust_id", m.cust_id);
  v.Str("tax_id", m.tax_id, width::kTaxId);
  v.Bool("get_history", m.get_history);
  v.I32("acct_id_idx", m.acct_id_idx);
}

template <typename V, Is<Phone> M>
void Fields(V& v, M& m) {
  v.Str("country", m.country, width::kPhoneCountry);
  v.Str("area", m.area, width::kPhoneArea);
  v.Str("local", m.local, width::kPhoneLocal);
  v.Str("ext", m.ext, width::kPhoneExt);
}

template <typename V, Is<CustomerAccountPosition> M>
void Fields(V& v, M& m) {
  v.I64("acct_id", m.acct_id);
  v.I64("cash_bal", m.cash_bal);
  v.I64("asset_total", m.asset_total);
}

template <typename V, Is<PositionHistoryRow> M>
void Fields(V& v, M& m) {
  v.I64("trade_id", m.trade_id);
  v.Str("symbol", m.symbol, width::kSymbol);
  v.I32("qty", m.qty);
  v.Str("trade_status", m.trade_status, width::kStatusName);
  v.I64("hist_dts", m.hist_dts);
}

template <typename V, Is<CustomerPositionOutput> M>
void Fields(V& v, M& m) {
  v.Nested("status", [&] { Fields(v, m.status); });
  v.I64("cust_id", m.cust_id);
  v.Str("c_st_id", m.c_st_id, width::kStatusId);
  v.Str("l_name", m.l_name, width::kLastName);
  v.Str("f_name", m.f_name, width::kFirstName);
  v.Str("m_name", m.m_name, width::kMiddleName);
  v.Str("gender", m.gender, width::kGender);
  v.I32("tier", m.tier);
  v.I32("dob", m.dob);
  v.I64("ad_id", m.ad_id);
  v.Nested("phones[0]", [&] { Fields(v, m.phones[0]); });
  v.Nested("phones[1]", [&] { Fields(v, m.phones[1]); });
  v.Nested("phones[2]", [&] { Fields(v, m.phones[2]); });
  v.Str("email_1", m.email_1, width::kEmail);
  v.Str("email_2", m.email_2, width::kEmail);
  v.Array("accounts", m.accounts, kMaxAccounts, [&v](auto& row) { Fields(v, row); });
  v.Array("history", m.history, kMaxPositionHistory, [&v](auto& row) { Fields(v, row); });
}

// Market-Feed.
template <typename V, Is<TickerEntry> M>
void Fields(V& v, M& m) {
  v.Str("symbol", m.symbol, width::kSymbol);
  v.I64("price_quote", m.price_quote);
  v.I32("trade_qty", m.trade_qty);
}

template <typename V, Is<MarketFeedInput> M>
void Fields(V& v, M& m) {
  v.Array("entries", m.entries, kMaxFeedEntries, [&v](auto& e) { Fields(v, e); });
  v.Str("status_submitted", m.status_submitted, width::kStatusId);
  v.Str("type_limit_buy", m.type_limit_buy, width::kTradeTypeId);
  v.Str("type_limit_sell", m.type_limit_sell, width::kTradeTypeId);
  v.Str("type_stop_loss", m.type_stop_loss, width::kTradeTypeId);
  v.I32("unique_symbols", m.unique_symbols);
}

template <typename V, Is<MarketFeedOutput> M>
void Fields(V& v, M& m) {
  v.Nested("status", [&] { Fields(v, m.status); });
  v.I32("num_updated", m.num_updated);
  v.I32("send_len", m.send_len);
}

// Market-Watch.
template <typename V, Is<MarketWatchInput> M>
void Fields(V& v, M& m) {
  v.I64("acct_id", m.acct_id);
  v.I64("cust_id", m.cust_id);
  v.Str("industry_name", m.industry_name, width::kIndustryName);
  v.I64("starting_co_id", m.starting_co_id);
  v.I64("ending_co_id", m.ending_co_id);
  v.I32("start_date", m.start_date);
}

template <typename V, Is<MarketWatchOutput> M>
void Fields(V& v, M& m) {
  v.Nested("status", [&] { Fields(v, m.status); });
  v.F64("pct_change", m.pct_change);
}

// Security-Detail.
template <typename V, Is<SecurityDetailInput> M>
void Fields(V& v, M& m) {
  v.Str("symbol", m.symbol, width::kSymbol);
  v.I32("max_rows_to_return", m.max_rows_to_return);
  v.I32("start_day", m.start_day);
  v.Bool("access_lob_flag", m.access_lob_flag);
}

template <typename V, Is<PostalAddress> M>
void Fields(V& v, M& m) {
  v.Str("line1", m.line1, width::kAddressLine);
  v.Str("line2", m.line2, width::kAddressLine);
  v.Str("town", m.town, width::kTown);
  v.Str("division", m.division, width::kDivision);
  v.Str("zip", m.zip, width::kZipCode);
  v.Str("country", m.country, width::kCountry);
}

template <typename V, Is<Competitor> M>
void Fields(V& v, M& m) {
  v.Str("co_name", m.co_name, width::kCompanyName);
  v.Str("in_name", m.in_name, width::kIndustryName);
}

template <typename V, Is<FinancialRow> M>
void Fields(V& v, M& m) {
  v.I32("year", m.year);
  v.I32("qtr", m.qtr);
  v.I32("qtr_start_date", m.qtr_start_date);
  v.I64("revenue", m.revenue);
  v.I64("net_earn", m.net_earn);
  v.I64("basic_eps", m.basic_eps);
  v.I64("dilut_eps", m.dilut_eps);
  v.I64("margin", m.margin);
  v.I64("invent", m.invent);
  v.I64("assets", m.assets);
  v.I64("liability", m.liability);
  v.I64("out_basic", m.out_basic);
  v.I64("out_dilut", m.out_dilut);
}

template <typename V, Is<DailyMarketRow> M>
void Fields(V& v, M& m) {
  v.I32("date", m.date);
  v.I64("close", m.close);
  v.I64("high", m.high);
  v.I64("low", m.low);
  v.I64("vol", m.vol);
}

template <typename V, Is<NewsRow> M>
void Fields(V& v, M& m) {
  v.Str("item", m.item, width::kNewsItem);
  v.I64("dts", m.dts);
  v.Str("src", m.src, width::kNewsSource);
  v.Str("auth", m.auth, width::kNewsAuthor);
  v.Str("headline", m.headline, width::kNewsHeadline);
  v.Str("summary", m.summary, width::kNewsSummary);
}

template <typename V, Is<SecurityDetailOutput> M>
void Fields(V& v, M& m) {
  v.Nested("status", [&] { Fields(v, m.status); });
  v.Str("s_name", m.s_name, width::kSecurityName);
  v.I64("num_out", m.num_out);
  v.I32("start_date", m.start_date);
  v.I32("exch_date", m.exch_date);
  v.I64("pe_ratio", m.pe_ratio);
  v.I64("wk52_high", m.wk52_high);
  v.I32("wk52_high_date", m.wk52_high_date);
  v.I64("wk52_low", m.wk52_low);
  v.I32("wk52_low_date", m.wk52_low_date);
  v.I64("divid", m.divid);
  v.I64("yield", m.yield);
  v.Str("co_name", m.co_name, width::kCompanyName);
  v.Str("sp_rate", m.sp_rate, width::kSpRate);
  v.Str("ceo_name", m.ceo_name, width::kCeoName);
  v.Str("co_desc", m.co_desc, width::kCompanyDesc);
  v.I32("open_date", m.open_date);
  v.Str("co_st_id", m.co_st_id, width::kStatusId);
  v.Nested("co_address", [&] { Fields(v, m.co_address); });
  v.Str("ex_name", m.ex_name, width::kExchangeName);
  v.Str("ex_desc", m.ex_desc, width::kExchangeDesc);
  v.I32("ex_open", m.ex_open);
  v.I32("ex_close", m.ex_close);
  v.I32("ex_num_symb", m.ex_num_symb);
  v.Nested("ex_address", [&] { Fields(v, m.ex_address); });
  v.Array("competitors", m.competitors, kMaxCompetitors, [&v](auto& row) { Fields(v, row); });
  v.Array("financials", m.financials, kMaxFinancials, [&v](auto& row) { Fields(v, row); });
  v.Array("days", m.days, kMaxDayRows, [&v](auto& row) { Fields(v, row); });
  v.I64("last_price", m.last_price);
  v.I64("last_open", m.last_open);
  v.I64("last_vol", m.last_vol);
  v.Array("news", m.news, kMaxNews, [&v](auto& row) { Fields(v, row); });
}

// Trade-Lookup and Trade-Update.
template <typename V, Is<TradeHistoryEntry> M>
void Fields(V& v, M& m) {
  v.I64("dts", m.dts);
  v.Str("status_id", m.status_id, width::kStatusId);
}

template <typename V, Is<TradeInfo> M>
void Fields(V& v, M& m) {
  v.I64("trade_id", m.trade_id);
  v.I64("acct_id", m.acct_id);
  v.Str("exec_name", m.exec_name, width::kExecName);
  v.Bool("is_cash", m.is_cash);
  v.Bool("is_market", m.is_market);
  v.I64("bid_price", m.bid_price);
  v.OptionalI64("trade_price", m.trade_price);
  v.I32("quantity", m.quantity);
  v.I64("trade_dts", m.trade_dts);
  v.Str("trade_type", m.trade_type, width::kTradeTypeId);
  v.Str("s_name", m.s_name, width::kSecurityName);
  v.Str("type_name", m.type_name, width::kTradeTypeName);
  v.I64("settlement_amount", m.settlement_amount);
  v.I32("settlement_cash_due_date", m.settlement_cash_due_date);
  v.Str("settlement_cash_type", m.settlement_cash_type, width::kCashType);
  v.I64("cash_transaction_amount", m.cash_transaction_amount);
  v.I64("cash_transaction_dts", m.cash_transaction_dts);
  v.Str("cash_transaction_name", m.cash_transaction_name, width::kCashTxnName);
  v.Array("history", m.history, kMaxTradeHistory, [&v](auto& row) { Fields(v, row); });
}

template <typename V, Is<HoldingHistoryRow> M>
void Fields(V& v, M& m) {
  v.I64("holding_trade_id", m.holding_trade_id);
  v.I64("trade_id", m.trade_id);
  v.I32("before_qty", m.before_qty);
  v.I32("after_qty", m.after_qty);
}

template <typename V, Is<TradeLookupInput> M>
void Fields(V& v, M& m) {
  v.I32In("frame", m.frame, 1, 4);
  v.I32("max_trades", m.max_trades);
  v.Array("trade_ids", m.trade_ids, kMaxTradesPerFrame, [&v](auto& id) { v.I64(nullptr, id); });
  v.I64("acct_id", m.acct_id);
  v.Str("symbol", m.symbol, width::kSymbol);
  v.I64("start_trade_dts", m.start_trade_dts);
  v.I64("end_trade_dts", m.end_trade_dts);
  v.I64("max_acct_id", m.max_acct_id);
}

template <typename V, Is<TradeLookupOutput> M>
void Fields(V& v, M& m) {
  v.Nested("status", [&] { Fields(v, m.status); });
  v.I32In("frame", m.frame, 1, 4);
  v.Array("trades", m.trades, kMaxTradesPerFrame, [&v](auto& row) { Fields(v, row); });
  v.I32("num_trades_found", m.num_trades_found);
  v.I64("trade_id", m.trade_id);
  v.Array("holding_history", m.holding_history, kMaxHoldingHistory,
          [&v](auto& row) { Fields(v, row); });
}

template <typename V, Is<TradeUpdateInput> M>
void Fields(V& v, M& m) {
  v.I32In("frame", m.frame, 1, 3);
  v.I32("max_trades", m.max_trades);
  v.I32("max_updates", m.max_updates);
  v.Array("trade_ids", m.trade_ids, kMaxTradesPerFrame, [&v](auto& id) { v.I64(nullptr, id); });
  v.I64("acct_id", m.acct_id);
  v.Str("symbol", m.symbol, width::kSymbol);
  v.I64("start_trade_dts", m.start_trade_dts);
  v.I64("end_trade_dts", m.end_trade_dts);
  v.I64("max_acct_id", m.max_acct_id);
}

template <typename V, Is<TradeUpdateOutput> M>
void Fields(V& v, M& m) {
  v.Nested("status", [&] { Fields(v, m.status); });
  v.I32In("frame", m.frame, 1, 3);
  v.I32("num_updated", m.num_updated);
  v.Array("trades", m.trades, kMaxTradesPerFrame, [&v](auto& row) { Fields(v, row); });
}

// Trade-Order.
template <typename V, Is<TradeOrderInput> M>
void Fields(V& v, M& m) {
  v.I64("acct_id", m.acct_id);
  v.Str("exec_f_name", m.exec_f_name, width::kFirstName);
  v.Str("exec_l_name", m.exec_l_name, width::kLastName);
  v.Str("exec_tax_id", m.exec_tax_id, width::kTaxId);
  v.Str("symbol", m.symbol, width::kSymbol);
  v.Str("co_name", m.co_name, width::kCompanyName);
  v.Str("issue", m.issue, width::kIssue);
  v.Str("trade_type_id", m.trade_type_id, width::kTradeTypeId);
  v.I32("trade_qty", m.trade_qty);
  v.I64("requested_price", m.requested_price);
  v.Bool("is_lifo", m.is_lifo);
  v.Bool("type_is_margin", m.type_is_margin);
  v.Bool("roll_it_back", m.roll_it_back);
  v.Str("st_pending_id", m.st_pending_id, width::kStatusId);
  v.Str("st_submitted_id", m.st_submitted_id, width::kStatusId);
}

template <typename V, Is<TradeOrderOutput> M>
void Fields(V& v, M& m) {
  v.Nested("status", [&] { Fields(v, m.status); });
  v.I64("trade_id", m.trade_id);
  v.I64("buy_value", m.buy_value);
  v.I64("sell_value", m.sell_value);
  v.I64("tax_amount", m.tax_amount);
}

// Trade-Result.
template <typename V, Is<TradeResultInput> M>
void Fields(V& v, M& m) {
  v.I64("trade_id", m.trade_id);
  v.I64("trade_price", m.trade_price);
}

template <typename V, Is<TradeResultOutput> M>
void Fields(V& v, M& m) {
  v.Nested("status", [&] { Fields(v, m.status); });
  v.I64("acct_id", m.acct_id);
  v.I64("acct_bal", m.acct_bal);
  v.I32("load_unit", m.load_unit);
}

// Trade-Status.
template <typename V, Is<TradeStatusInput> M>
void Fields(V& v, M& m) {
  v.I64("acct_id", m.acct_id);
}

template <typename V, Is<TradeStatusRow> M>
void Fields(V& v, M& m) {
  v.I64("trade_id", m.trade_id);
  v.I64("trade_dts", m.trade_dts);
  v.Str("status_name", m.status_name, width::kStatusName);
  v.Str("type_name", m.type_name, width::kTradeTypeName);
  v.Str("symbol", m.symbol, width::kSymbol);
  v.I32("trade_qty", m.trade_qty);
  v.Str("exec_name", m.exec_name, width::kExecName);
  v.I64("charge", m.charge);
  v.Str("s_name", m.s_name, width::kSecurityName);
  v.Str("ex_name", m.ex_name, width::kExchangeName);
}

template <typename V, Is<TradeStatusOutput> M>
void Fields(V& v, M& m) {
  v.Nested("status", [&] { Fields(v, m.status); });
  v.Str("cust_l_name", m.cust_l_name, width::kLastName);
  v.Str("cust_f_name", m.cust_f_name, width::kFirstName);
  v.Str("broker_name", m.broker_name, width::kBrokerName);
  v.Array("trades", m.trades, kMaxTradeStatus, [&v](auto& row) { Fields(v, row); });
}

// Data-Maintenance.
template <typename V, Is<DataMaintenanceInput> M>
void Fields(V& v, M& m) {
  v.Enum("table", m.table, 0, kMaxMaintenanceTable);
  v.I64("acct_id", m.acct_id);
  v.I64("c_id", m.c_id);
  v.I64("co_id", m.co_id);
  v.Str("symbol", m.symbol, width::kSymbol);
  v.I32("day_of_month", m.day_of_month);
  v.I32("vol_incr", m.vol_incr);
  v.Str("tx_id", m.tx_id, width::kTaxRateId);
}

template <typename V, Is<DataMaintenanceOutput> M>
void Fields(V& v, M& m) {
  v.Nested("status", [&] { Fields(v, m.status); });
}

// Trade-Cleanup.
template <typename V, Is<TradeCleanupInput> M>
void Fields(V& v, M& m) {
  v.Str("st_canceled_id", m.st_canceled_id, width::kStatusId);
  v.Str("st_pending_id", m.st_pending_id, width::kStatusId);
  v.Str("st_submitted_id", m.st_submitted_id, width::kStatusId);
  v.I64("start_trade_id", m.start_trade_id);
}

template <typename V, Is<TradeCleanupOutput> M>
void Fields(V& v, M& m) {
  v.Nested("status", [&] { Fields(v, m.status); });
}

}  // namespace
}  // namespace bb::protocol
