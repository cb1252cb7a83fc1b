// Dates, timestamps and the business calendar of the generated world (EGen's: initial trading
// starts Monday 2005-01-03 09:00; business days of 8 hours, no weekends, no holidays).
//
// A Timestamp is microseconds since 1970-01-01 00:00:00 and a Date is days since 1970-01-01,
// both in a time-zone-free civil calendar (the workload's dates are "wall" dates, written to
// PostgreSQL TIMESTAMP / DATE columns without a zone). Initial trading runs on "work time":
// 8-hour business days from Monday 2005-01-03 09:00, weekends skipped, no holidays.
//
// Thread-safety: values and pure functions.
#pragma once

#include <compare>
#include <cstdint>
#include <string>

#include "common/workload/sizing.h"

namespace bb::workload {

struct Date {
  int32_t days = 0;  // since 1970-01-01
  friend auto operator<=>(const Date&, const Date&) = default;
};

struct Timestamp {
  int64_t micros = 0;  // since 1970-01-01 00:00:00
  friend auto operator<=>(const Timestamp&, const Timestamp&) = default;
};

inline constexpr int64_t kMicrosPerMilli = 1000;
inline constexpr int64_t kMicrosPerSecond = 1'000'000;
inline constexpr int64_t kMicrosPerDay = 86'400 * kMicrosPerSecond;
inline constexpr int64_t kMillisPerBusinessDay = kSecondsPerBusinessDay * 1000;

Date MakeDate(int year, int month, int day);
Timestamp MakeTimestamp(int year, int month, int day, int hour = 0, int minute = 0, int second = 0,
                        int64_t micros = 0);

inline Date AddDays(Date d, int64_t days) { return Date{static_cast<int32_t>(d.days + days)}; }
inline Timestamp AddMillis(Timestamp t, int64_t ms) {
  return Timestamp{t.micros + ms * kMicrosPerMilli};
}
inline Timestamp AddMicros(Timestamp t, int64_t us) { return Timestamp{t.micros + us}; }
Date DateOf(Timestamp t);
inline Timestamp StartOfDay(Date d) { return Timestamp{d.days * kMicrosPerDay}; }
// 0 = Monday .. 6 = Sunday.
int DayOfWeek(Date d);
// Year, month (1-12) and day (1-31) of a date.
struct CivilDate {
  int year;
  int month;
  int day;
};
CivilDate ToCivil(Date d);

// 'YYYY-MM-DD HH:MM:SS.ffffff' and 'YYYY-MM-DD', as PostgreSQL reads them.
std::string FormatTimestamp(Timestamp t);
std::string FormatDate(Date d);
// Appending forms for the loader's hot path.
void AppendTimestamp(std::string& out, Timestamp t);
void AppendDate(std::string& out, Date d);

// Base dates (EGen's).
Timestamp InitialTradeStart();                 // Monday 2005-01-03 09:00:00
Date DailyMarketBaseDate();                    // Monday 2000-01-03
Date FinancialBaseDate();                      // 2000-01-01, the start of FINANCIAL's first quarter
inline constexpr int kDailyMarketDays = 1305;  // weekdays 2000-01-03 .. 2004-12-31
inline constexpr int kFinancialQuarters = 20;  // 2000-Q1 .. 2004-Q4

// The date `business_days` weekdays after `start` (which must be a weekday).
Date AddBusinessDays(Date start, int64_t business_days);

// Maps a work-time offset (ms since the start of initial trading, ≥ 0) to a calendar
// timestamp: whole 8-hour days become business days, the remainder is time after 09:00.
Timestamp WorkTimeToTimestamp(int64_t work_ms);

// The end of initial trading: ITD business days after the start (2006-02-27 09:00 at
// ITD 300). LAST_TRADE.LT_DTS; news dates count back from it.
Timestamp EndOfInitialTrades(const Sizing& sizing);
// The CE's end of initial trades for Trade-Lookup/Trade-Update: 15 minutes of work time later.
Timestamp EndOfInitialTradesForInputs(const Sizing& sizing);

}  // namespace bb::workload
