// The scalar encodings, string widths and row limits every wire message uses, and the status
// that every transaction reply carries first (transactions.h says what the encodings mean).
//
// Thread-safety: values; copy freely.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace bb::protocol {

using Cents = int64_t;            // hundredths: $12.34 is 1234
using TimestampMicros = int64_t;  // microseconds since the Unix epoch, UTC
using EpochDays = int32_t;        // days since 1970-01-01

// Widths of the CHAR(n) columns that travel (clause 2.2); strings are limited to these bytes.
namespace width {
inline constexpr size_t kStatusId = 4;        // ST_ID: "PNDG", "SBMT", "CMPT", "CNCL"...
inline constexpr size_t kStatusName = 10;     // ST_NAME
inline constexpr size_t kTradeTypeId = 3;     // TT_ID: "TMB", "TMS", "TLB", "TLS", "TSL"
inline constexpr size_t kTradeTypeName = 12;  // TT_NAME
inline constexpr size_t kSymbol = 15;         // S_SYMB
inline constexpr size_t kIssue = 6;           // S_ISSUE
inline constexpr size_t kSecurityName = 70;   // S_NAME
inline constexpr size_t kBrokerName = 49;     // B_NAME
inline constexpr size_t kExecName = 49;       // T_EXEC_NAME
inline constexpr size_t kSectorName = 30;     // SC_NAME
inline constexpr size_t kIndustryName = 50;   // IN_NAME
inline constexpr size_t kTaxId = 20;          // C_TAX_ID, AP_TAX_ID
inline constexpr size_t kTaxRateId = 4;       // TX_ID
inline constexpr size_t kLastName = 25;       // C_L_NAME, AP_L_NAME
inline constexpr size_t kFirstName = 20;      // C_F_NAME, AP_F_NAME
inline constexpr size_t kMiddleName = 1;      // C_M_NAME
inline constexpr size_t kGender = 1;          // C_GNDR
inline constexpr size_t kPhoneCountry = 3;    // C_CTRY_n
inline constexpr size_t kPhoneArea = 3;       // C_AREA_n
inline constexpr size_t kPhoneLocal = 10;     // C_LOCAL_n
inline constexpr size_t kPhoneExt = 5;        // C_EXT_n
inline constexpr size_t kEmail = 50;          // C_EMAIL_n
inline constexpr size_t kCompanyName = 60;    // CO_NAME
inline constexpr size_t kSpRate = 4;          // CO_SP_RATE
inline constexpr size_t kCeoName = 46;        // CO_CEO
inline constexpr size_t kCompanyDesc = 150;   // CO_DESC
inline constexpr size_t kAddressLine = 80;    // AD_LINE1/2
inline constexpr size_t kZipCode = 12;        // ZC_CODE
inline constexpr size_t kTown = 80;           // ZC_TOWN
inline constexpr size_t kDivision = 80;       // ZC_DIV
inline constexpr size_t kCountry = 80;        // AD_CTRY
inline constexpr size_t kExchangeName = 100;  // EX_NAME
inline constexpr size_t kExchangeDesc = 150;  // EX_DESC
inline constexpr size_t kCashType = 40;       // SE_CASH_TYPE
inline constexpr size_t kCashTxnName = 100;   // CT_NAME
inline constexpr size_t kNewsHeadline = 80;   // NI_HEADLINE
inline constexpr size_t kNewsSummary = 255;   // NI_SUMMARY
inline constexpr size_t kNewsItem = 100000;   // NI_ITEM BLOB(100000)
inline constexpr size_t kNewsSource = 30;     // NI_SOURCE
inline constexpr size_t kNewsAuthor = 30;     // NI_AUTHOR
// Our own fields.
inline constexpr size_t kComponentName = 64;
inline constexpr size_t kReason = 1024;  // hello refusals and error replies
inline constexpr size_t kDetail = 256;   // ReplyStatus.detail, e.g. a SQLSTATE and message
}  // namespace width

// Row limits (clause 3.2.1.2 and the frame descriptions of clause 3.3).
inline constexpr size_t kMaxBrokerList = 40;       // Broker-Volume broker_list (20..40)
inline constexpr size_t kMaxAccounts = 10;         // max_acct_len
inline constexpr size_t kMaxPositionHistory = 30;  // max_hist_len
inline constexpr size_t kMaxFeedEntries = 20;      // max_feed_len
inline constexpr size_t kMaxDayRows = 20;          // Security-Detail day rows (5..20)
inline constexpr size_t kMaxFinancials = 20;       // max_fin_len
inline constexpr size_t kMaxNews = 2;              // max_news_len
inline constexpr size_t kMaxCompetitors = 3;       // max_comp_len
inline constexpr size_t kMaxTradesPerFrame = 20;   // Trade-Lookup / Trade-Update max rows
inline constexpr size_t kMaxTradeHistory = 3;      // TRADE_HISTORY rows per trade
inline constexpr size_t kMaxHoldingHistory = 20;   // Trade-Lookup frame 4
inline constexpr size_t kMaxTradeStatus = 50;      // max_trade_status_len

// How a transaction ended (docs/ARCHITECTURE.md, "Status and outcome: never conflate"). The BH
// sends the first six; net_error and timeout are what the CE or MEE records when no reply came.
enum class Outcome : uint8_t {
  kOk = 0,
  kRollback = 1,        // Trade-Order's intended roll-back (roll_it_back)
  kWarning = 2,         // positive spec status
  kInvalid = 3,         // negative spec status
  kRetryExhausted = 4,  // serialization failures or deadlocks beyond the retry limit
  kDbError = 5,
  kNetError = 6,
  kTimeout = 7,
};
inline constexpr uint8_t kMaxOutcome = 7;
// "ok", "rollback", "warning", "invalid", "retry_exhausted", "db_error", "net_error", "timeout".
const char* OutcomeName(Outcome outcome);

// Carried by every transaction reply, first.
struct ReplyStatus {
  int32_t spec_status = 0;  // 0 ok, < 0 invalid, > 0 warning (3.2.1.8)
  Outcome outcome = Outcome::kOk;
  uint32_t retries = 0;       // serialization-failure / deadlock retries spent
  int64_t server_micros = 0;  // time the BH spent on the request, queueing included
  std::string detail;         // empty when ok; e.g. "40P01 deadlock detected" (<= kDetail)
  bool operator==(const ReplyStatus&) const = default;
};

}  // namespace bb::protocol
