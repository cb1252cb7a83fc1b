#include "common/workload/calendar.h"

#include <chrono>

#include <fmt/format.h>

namespace bb::workload {
namespace {

using std::chrono::day;
using std::chrono::month;
using std::chrono::sys_days;
using std::chrono::year;
using std::chrono::year_month_day;

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

constexpr int64_t kWorkDayStartHour = 9;

}  // namespace

Date MakeDate(int y, int m, int d) {
  const sys_days days{
      year_month_day{year{y}, month{static_cast<unsigned>(m)}, day{static_cast<unsigned>(d)}}};
  return Date{static_cast<int32_t>(days.time_since_epoch().count())};
}

Timestamp MakeTimestamp(int y, int m, int d, int hour, int minute, int second, int64_t micros) {
  return Timestamp{StartOfDay(MakeDate(y, m, d)).micros +
                   ((hour * 60 + minute) * 60 + second) * kMicrosPerSecond + micros};
}

Date DateOf(Timestamp t) { return Date{static_cast<int32_t>(FloorDiv(t.micros, kMicrosPerDay))}; }

int DayOfWeek(Date d) {
  // 1970-01-01 was a Thursday (3 when Monday is 0).
  return static_cast<int>(((d.days + 3) % 7 + 7) % 7);
}

CivilDate ToCivil(Date d) {
  const year_month_day ymd{sys_days{std::chrono::days{d.days}}};
  return CivilDate{static_cast<int>(ymd.year()), static_cast<int>(unsigned{ymd.month()}),
                   static_cast<int>(unsigned{ymd.day()})};
}

void AppendDate(std::string& out, Date d) {
  const CivilDate c = ToCivil(d);
  fmt::format_to(std::back_inserter(out), "{:04}-{:02}-{:02}", c.year, c.month, c.day);
}

void AppendTimestamp(std::string& out, Timestamp t) {
  const Date d = DateOf(t);
  AppendDate(out, d);
  const int64_t in_day = t.micros - StartOfDay(d).micros;
  const int64_t seconds = in_day / kMicrosPerSecond;
  fmt::format_to(std::back_inserter(out), " {:02}:{:02}:{:02}.{:06}", seconds / 3600,
                 seconds / 60 % 60, seconds % 60, in_day % kMicrosPerSecond);
}

std::string FormatDate(Date d) {
  std::string out;
  AppendDate(out, d);
  return out;
}

std::string FormatTimestamp(Timestamp t) {
  std::string out;
  AppendTimestamp(out, t);
  return out;
}

Timestamp InitialTradeStart() { return MakeTimestamp(2005, 1, 3, kWorkDayStartHour); }
Date DailyMarketBaseDate() { return MakeDate(2000, 1, 3); }
Date FinancialBaseDate() { return MakeDate(2000, 1, 1); }

Date AddBusinessDays(Date start, int64_t business_days) {
  const int weekday = DayOfWeek(start);  // 0..4 for a weekday start
  const int64_t total = weekday + business_days;
  const int64_t weeks = FloorDiv(total, 5);
  const int64_t in_week = total - weeks * 5;
  return AddDays(start, weeks * 7 + in_week - weekday);
}

Timestamp WorkTimeToTimestamp(int64_t work_ms) {
  const int64_t whole_days = FloorDiv(work_ms, kMillisPerBusinessDay);
  const int64_t remainder_ms = work_ms - whole_days * kMillisPerBusinessDay;
  const Date day = AddBusinessDays(DateOf(InitialTradeStart()), whole_days);
  return AddMillis(Timestamp{StartOfDay(day).micros + kWorkDayStartHour * 3600 * kMicrosPerSecond},
                   remainder_ms);
}

Timestamp EndOfInitialTrades(const Sizing& sizing) {
  return WorkTimeToTimestamp(sizing.initial_trade_days * kMillisPerBusinessDay);
}

Timestamp EndOfInitialTradesForInputs(const Sizing& sizing) {
  return WorkTimeToTimestamp(sizing.initial_trade_days * kMillisPerBusinessDay + 15 * 60 * 1000);
}

}  // namespace bb::workload
