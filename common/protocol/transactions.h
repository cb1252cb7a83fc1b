// The messages of the brokerbench wire protocol as plain C++ values: the inputs and outputs of
// the twelve TPC-E transactions (spec clauses 3.3.1-3.3.12) as the Customer
// Emulator (CE) and the Market Exchange Emulator (MEE) send them and the Brokerage House (BH)
// answers them. The connection's own messages (hello, error reply, the BH's trade request to the
// MEE) are in link_messages.h; the scalar types, widths and row limits in wire_values.h.
//
// Encodings (see PROTOCOL.md):
//  * Money and every other NUMERIC(m,2) value (prices, P/E, EPS, margin, yield) is an int64 in
//    hundredths (type `Cents`): exact, like the database's NUMERIC, with no rounding on the wire.
//  * DATETIME is int64 microseconds since 1970-01-01 00:00:00 UTC (`TimestampMicros`).
//  * DATE is int32 days since 1970-01-01 (`EpochDays`); 2000-01-03 is day 10959.
//  * CHAR(n) is a std::string of at most n bytes (the kit's data is ASCII); the decoder rejects
//    longer strings. Lists are std::vector with the spec's maximum row count.
// The protocol checks shape only (lengths, counts, enum ranges, booleans, frame numbers);
// whether a value makes sense for the transaction is the caller's business.
//
// Each message struct names its wire type as kType.
//
// Thread-safety: values; copy freely.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/protocol/link_messages.h"
#include "common/protocol/message_type.h"
#include "common/protocol/wire_values.h"

namespace bb::protocol {

// ---------------------------------------------------------------------------------------------
// Broker-Volume (clause 3.3.1).

struct BrokerVolumeInput {
  static constexpr MessageType kType = MessageType::kBrokerVolumeInput;
  std::vector<std::string> broker_list;  // 20..40 distinct B_NAMEs (<= kMaxBrokerList)
  std::string sector_name;               // <= kSectorName
  bool operator==(const BrokerVolumeInput&) const = default;
};

struct BrokerVolumeRow {
  std::string broker_name;
  Cents volume = 0;  // sum(TR_QTY * TR_BID_PRICE)
  bool operator==(const BrokerVolumeRow&) const = default;
};

struct BrokerVolumeOutput {
  static constexpr MessageType kType = MessageType::kBrokerVolumeOutput;
  ReplyStatus status;
  std::vector<BrokerVolumeRow> brokers;  // volume descending; list_len = size (<= 40)
  bool operator==(const BrokerVolumeOutput&) const = default;
};

// ---------------------------------------------------------------------------------------------
// Customer-Position (clause 3.3.2).

struct CustomerPositionInput {
  static constexpr MessageType kType = MessageType::kCustomerPositionInput;
  int64_t cust_id = 0;  // 0 when looking up by tax id
  std::string tax_id;   // "" when cust_id is given (<= kTaxId)
  bool get_history = false;
  int32_t acct_id_idx = 0;
  bool operator==(const CustomerPositionInput&) const = default;
};

struct Phone {
  std::string country;  // C_CTRY_n
  std::string area;     // C_AREA_n
  std::string local;    // C_LOCAL_n
  std::string ext;      // C_EXT_n
  bool operator==(const Phone&) const = default;
};

struct CustomerAccountPosition {
  int64_t acct_id = 0;
  Cents cash_bal = 0;
  Cents asset_total = 0;
  bool operator==(const CustomerAccountPosition&) const = default;
};

struct PositionHistoryRow {
  int64_t trade_id = 0;
  std::string symbol;
  int32_t qty = 0;
  std::string trade_status;  // ST_NAME
  TimestampMicros hist_dts = 0;
  bool operator==(const PositionHistoryRow&) const = default;
};

struct CustomerPositionOutput {
  static constexpr MessageType kType = MessageType::kCustomerPositionOutput;
  ReplyStatus status;
  int64_t cust_id = 0;  // the C_ID found (frame 1)
  std::string c_st_id;
  std::string l_name;
  std::string f_name;
  std::string m_name;
  std::string gender;
  int32_t tier = 0;
  EpochDays dob = 0;
  int64_t ad_id = 0;
  std::array<Phone, 3> phones;
  std::string email_1;
  std::string email_2;
  std::vector<CustomerAccountPosition> accounts;  // acct_len = size (<= kMaxAccounts)
  std::vector<PositionHistoryRow> history;        // hist_len = size (<= kMaxPositionHistory)
  bool operator==(const CustomerPositionOutput&) const = default;
};

// ---------------------------------------------------------------------------------------------
// Market-Feed (clause 3.3.3), MEE -> BH.

struct TickerEntry {
  std::string symbol;
  Cents price_quote = 0;
  int32_t trade_qty = 0;
  bool operator==(const TickerEntry&) const = default;
};

struct MarketFeedInput {
  static constexpr MessageType kType = MessageType::kMarketFeedInput;
  std::vector<TickerEntry> entries;  // max_feed_len = 20 (<= kMaxFeedEntries)
  std::string status_submitted;      // "SBMT"
  std::string type_limit_buy;        // "TLB"
  std::string type_limit_sell;       // "TLS"
  std::string type_stop_loss;        // "TSL"
  int32_t unique_symbols = 0;        // distinct symbols among the entries
  bool operator==(const MarketFeedInput&) const = default;
};

struct MarketFeedOutput {
  static constexpr MessageType kType = MessageType::kMarketFeedOutput;
  ReplyStatus status;
  int32_t num_updated = 0;  // LAST_TRADE rows updated
  int32_t send_len = 0;     // triggered limit orders sent to the MEE
  bool operator==(const MarketFeedOutput&) const = default;
};

// ---------------------------------------------------------------------------------------------
// Market-Watch (clause 3.3.4). Exactly one of acct_id, cust_id, industry_name is set.

struct MarketWatchInput {
  static constexpr MessageType kType = MessageType::kMarketWatchInput;
  int64_t acct_id = 0;
  int64_t cust_id = 0;
  std::string industry_name;  // <= kIndustryName
  int64_t starting_co_id = 0;
  int64_t ending_co_id = 0;
  EpochDays start_date = 0;
  bool operator==(const MarketWatchInput&) const = default;
};

struct MarketWatchOutput {
  static constexpr MessageType kType = MessageType::kMarketWatchOutput;
  ReplyStatus status;
  double pct_change = 0;  // a ratio, not money: IEEE-754 binary64 on the wire
  bool operator==(const MarketWatchOutput&) const = default;
};

// ---------------------------------------------------------------------------------------------
// Security-Detail (clause 3.3.5).

struct SecurityDetailInput {
  static constexpr MessageType kType = MessageType::kSecurityDetailInput;
  std::string symbol;
  int32_t max_rows_to_return = 0;  // 5..20
  EpochDays start_day = 0;
  bool access_lob_flag = false;
  bool operator==(const SecurityDetailInput&) const = default;
};

struct PostalAddress {
  std::string line1;
  std::string line2;
  std::string town;      // ZC_TOWN
  std::string division;  // ZC_DIV
  std::string zip;       // ZC_CODE
  std::string country;   // AD_CTRY
  bool operator==(const PostalAddress&) const = default;
};

struct Competitor {
  std::string co_name;
  std::string in_name;
  bool operator==(const Competitor&) const = default;
};

struct FinancialRow {
  int32_t year = 0;
  int32_t qtr = 0;
  EpochDays qtr_start_date = 0;
  Cents revenue = 0;
  Cents net_earn = 0;
  Cents basic_eps = 0;
  Cents dilut_eps = 0;
  Cents margin = 0;
  Cents invent = 0;
  Cents assets = 0;
  Cents liability = 0;
  int64_t out_basic = 0;
  int64_t out_dilut = 0;
  bool operator==(const FinancialRow&) const = default;
};

struct DailyMarketRow {
  EpochDays date = 0;
  Cents close = 0;
  Cents high = 0;
  Cents low = 0;
  int64_t vol = 0;
  bool operator==(const DailyMarketRow&) const = default;
};

struct NewsRow {
  std::string item;  // NI_ITEM when access_lob_flag, else empty (<= kNewsItem)
  TimestampMicros dts = 0;
  std::string src;
  std::string auth;
  std::string headline;  // empty when access_lob_flag
  std::string summary;   // empty when access_lob_flag
  bool operator==(const NewsRow&) const = default;
};

struct SecurityDetailOutput {
  static constexpr MessageType kType = MessageType::kSecurityDetailOutput;
  ReplyStatus status;
  // SECURITY
  std::string s_name;
  int64_t num_out = 0;
  EpochDays start_date = 0;
  EpochDays exch_date = 0;
  Cents pe_ratio = 0;
  Cents wk52_high = 0;
  EpochDays wk52_high_date = 0;
  Cents wk52_low = 0;
  EpochDays wk52_low_date = 0;
  Cents divid = 0;
  Cents yield = 0;  // percent in hundredths (S_YIELD NUM(5,2))
  // COMPANY
  std::string co_name;
  std::string sp_rate;
  std::string ceo_name;
  std::string co_desc;
  EpochDays open_date = 0;
  std::string co_st_id;
  PostalAddress co_address;
  // EXCHANGE
  std::string ex_name;
  std::string ex_desc;
  int32_t ex_open = 0;   // hhmm
  int32_t ex_close = 0;  // hhmm
  int32_t ex_num_symb = 0;
  PostalAddress ex_address;
  // Lists
  std::vector<Competitor> competitors;   // <= kMaxCompetitors
  std::vector<FinancialRow> financials;  // fin_len (<= kMaxFinancials)
  std::vector<DailyMarketRow> days;      // day_len (<= kMaxDayRows)
  // LAST_TRADE
  Cents last_price = 0;
  Cents last_open = 0;
  int64_t last_vol = 0;
  std::vector<NewsRow> news;  // news_len (<= kMaxNews)
  bool operator==(const SecurityDetailOutput&) const = default;
};

// ---------------------------------------------------------------------------------------------
// Trade-Lookup (clause 3.3.6) and Trade-Update (clause 3.3.10): one input and one output type
// per transaction; `frame` says which of the mutually exclusive frames runs, and each frame
// reads only its own inputs (noted per field).

struct TradeHistoryEntry {
  TimestampMicros dts = 0;
  std::string status_id;
  bool operator==(const TradeHistoryEntry&) const = default;
};

// The per-trade detail ("trade info") that Trade-Lookup F1-F3 and Trade-Update F1-F3 return.
// Fields a frame does not return stay at their defaults.
struct TradeInfo {
  int64_t trade_id = 0;
  int64_t acct_id = 0;  // F3
  std::string exec_name;
  bool is_cash = false;
  bool is_market = false;            // F1
  Cents bid_price = 0;               // F1, F2
  std::optional<Cents> trade_price;  // T_TRADE_PRICE is NULL until the trade completes
  int32_t quantity = 0;              // F3
  TimestampMicros trade_dts = 0;     // F2, F3
  std::string trade_type;            // T_TT_ID, F3
  std::string s_name;                // Trade-Update F3
  std::string type_name;             // Trade-Update F3
  Cents settlement_amount = 0;
  EpochDays settlement_cash_due_date = 0;
  std::string settlement_cash_type;
  Cents cash_transaction_amount = 0;  // cash trades only
  TimestampMicros cash_transaction_dts = 0;
  std::string cash_transaction_name;
  std::vector<TradeHistoryEntry> history;  // first 3 by TH_DTS (<= kMaxTradeHistory)
  bool operator==(const TradeInfo&) const = default;
};

struct HoldingHistoryRow {
  int64_t holding_trade_id = 0;  // HH_H_T_ID
  int64_t trade_id = 0;          // HH_T_ID
  int32_t before_qty = 0;
  int32_t after_qty = 0;
  bool operator==(const HoldingHistoryRow&) const = default;
};

struct TradeLookupInput {
  static constexpr MessageType kType = MessageType::kTradeLookupInput;
  int32_t frame = 1;                    // 1..4
  int32_t max_trades = 0;               // F1-F3 (20)
  std::vector<int64_t> trade_ids;       // F1 (<= kMaxTradesPerFrame)
  int64_t acct_id = 0;                  // F2, F4
  std::string symbol;                   // F3
  TimestampMicros start_trade_dts = 0;  // F2, F3, F4
  TimestampMicros end_trade_dts = 0;    // F2, F3
  int64_t max_acct_id = 0;              // F3 (engineering hook, not applied)
  bool operator==(const TradeLookupInput&) const = default;
};

struct TradeLookupOutput {
  static constexpr MessageType kType = MessageType::kTradeLookupOutput;
  ReplyStatus status;
  int32_t frame = 1;                               // 1..4, echoes the input
  std::vector<TradeInfo> trades;                   // F1-F3: num_found = size
  int32_t num_trades_found = 0;                    // F4
  int64_t trade_id = 0;                            // F4: the first trade at or after the start
  std::vector<HoldingHistoryRow> holding_history;  // F4: num_found = size (<= 20)
  bool operator==(const TradeLookupOutput&) const = default;
};

struct TradeUpdateInput {
  static constexpr MessageType kType = MessageType::kTradeUpdateInput;
  int32_t frame = 1;                    // 1..3
  int32_t max_trades = 0;               // 20
  int32_t max_updates = 0;              // 20
  std::vector<int64_t> trade_ids;       // F1 (<= kMaxTradesPerFrame)
  int64_t acct_id = 0;                  // F2
  std::string symbol;                   // F3
  TimestampMicros start_trade_dts = 0;  // F2, F3
  TimestampMicros end_trade_dts = 0;    // F2, F3
  int64_t max_acct_id = 0;              // F3
  bool operator==(const TradeUpdateInput&) const = default;
};

struct TradeUpdateOutput {
  static constexpr MessageType kType = MessageType::kTradeUpdateOutput;
  ReplyStatus status;
  int32_t frame = 1;  // 1..3, echoes the input
  int32_t num_updated = 0;
  std::vector<TradeInfo> trades;  // num_found = size (<= kMaxTradesPerFrame)
  bool operator==(const TradeUpdateOutput&) const = default;
};

// ---------------------------------------------------------------------------------------------
// Trade-Order (clause 3.3.7).

struct TradeOrderInput {
  static constexpr MessageType kType = MessageType::kTradeOrderInput;
  int64_t acct_id = 0;
  std::string exec_f_name;
  std::string exec_l_name;
  std::string exec_tax_id;
  std::string symbol;   // either symbol...
  std::string co_name;  // ...or company name and issue
  std::string issue;
  std::string trade_type_id;  // "TMB", "TMS", "TLB", "TLS", "TSL"
  int32_t trade_qty = 0;
  Cents requested_price = 0;  // limit orders only
  bool is_lifo = false;
  bool type_is_margin = false;
  bool roll_it_back = false;
  std::string st_pending_id;    // "PNDG"
  std::string st_submitted_id;  // "SBMT"
  bool operator==(const TradeOrderInput&) const = default;
};

struct TradeOrderOutput {
  static constexpr MessageType kType = MessageType::kTradeOrderOutput;
  ReplyStatus status;
  int64_t trade_id = 0;  // the new trade (also set when rolled back)
  Cents buy_value = 0;
  Cents sell_value = 0;
  Cents tax_amount = 0;
  bool operator==(const TradeOrderOutput&) const = default;
};

// ---------------------------------------------------------------------------------------------
// Trade-Result (clause 3.3.8), MEE -> BH.

struct TradeResultInput {
  static constexpr MessageType kType = MessageType::kTradeResultInput;
  int64_t trade_id = 0;
  Cents trade_price = 0;
  bool operator==(const TradeResultInput&) const = default;
};

struct TradeResultOutput {
  static constexpr MessageType kType = MessageType::kTradeResultOutput;
  ReplyStatus status;
  int64_t acct_id = 0;
  Cents acct_bal = 0;
  int32_t load_unit = 0;  // LU of the account's customer
  bool operator==(const TradeResultOutput&) const = default;
};

// ---------------------------------------------------------------------------------------------
// Trade-Status (clause 3.3.9).

struct TradeStatusInput {
  static constexpr MessageType kType = MessageType::kTradeStatusInput;
  int64_t acct_id = 0;
  bool operator==(const TradeStatusInput&) const = default;
};

struct TradeStatusRow {
  int64_t trade_id = 0;
  TimestampMicros trade_dts = 0;
  std::string status_name;
  std::string type_name;
  std::string symbol;
  int32_t trade_qty = 0;
  std::string exec_name;
  Cents charge = 0;
  std::string s_name;
  std::string ex_name;
  bool operator==(const TradeStatusRow&) const = default;
};

struct TradeStatusOutput {
  static constexpr MessageType kType = MessageType::kTradeStatusOutput;
  ReplyStatus status;
  std::string cust_l_name;
  std::string cust_f_name;
  std::string broker_name;
  std::vector<TradeStatusRow> trades;  // most recent first (<= kMaxTradeStatus)
  bool operator==(const TradeStatusOutput&) const = default;
};

// ---------------------------------------------------------------------------------------------
// Data-Maintenance (clause 3.3.11): one table per call, in this rotation.

enum class MaintenanceTable : uint8_t {
  kAccountPermission = 0,
  kAddress = 1,
  kCompany = 2,
  kCustomer = 3,
  kCustomerTaxrate = 4,
  kDailyMarket = 5,
  kExchange = 6,
  kFinancial = 7,
  kNewsItem = 8,
  kSecurity = 9,
  kTaxrate = 10,
  kWatchItem = 11,
};
inline constexpr uint8_t kMaxMaintenanceTable = 11;
// The spec's table_name: "ACCOUNT_PERMISSION", "ADDRESS", ..., "WATCH_ITEM".
const char* MaintenanceTableName(MaintenanceTable table);

struct DataMaintenanceInput {
  static constexpr MessageType kType = MessageType::kDataMaintenanceInput;
  MaintenanceTable table = MaintenanceTable::kAccountPermission;
  int64_t acct_id = 0;
  int64_t c_id = 0;
  int64_t co_id = 0;
  std::string symbol;
  int32_t day_of_month = 0;
  int32_t vol_incr = 0;
  std::string tx_id;  // <= kTaxRateId
  bool operator==(const DataMaintenanceInput&) const = default;
};

struct DataMaintenanceOutput {
  static constexpr MessageType kType = MessageType::kDataMaintenanceOutput;
  ReplyStatus status;
  bool operator==(const DataMaintenanceOutput&) const = default;
};

// ---------------------------------------------------------------------------------------------
// Trade-Cleanup (clause 3.3.12).

struct TradeCleanupInput {
  static constexpr MessageType kType = MessageType::kTradeCleanupInput;
  std::string st_canceled_id;   // "CNCL"
  std::string st_pending_id;    // "PNDG"
  std::string st_submitted_id;  // "SBMT"
  int64_t start_trade_id = 0;   // first trade id of the run-time range
  bool operator==(const TradeCleanupInput&) const = default;
};

struct TradeCleanupOutput {
  static constexpr MessageType kType = MessageType::kTradeCleanupOutput;
  ReplyStatus status;
  bool operator==(const TradeCleanupOutput&) const = default;
};

}  // namespace bb::protocol
