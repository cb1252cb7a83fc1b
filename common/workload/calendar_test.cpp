#include "common/workload/calendar.h"

#include <gtest/gtest.h>

namespace bb::workload {
namespace {

constexpr int64_t kHourMs = 3600 * 1000;

TEST(Calendar, FormatsForPostgres) {
  EXPECT_EQ(FormatTimestamp(MakeTimestamp(2005, 1, 3, 9, 0, 0)), "2005-01-03 09:00:00.000000");
  EXPECT_EQ(FormatTimestamp(MakeTimestamp(1999, 12, 31, 23, 59, 58, 123456)),
            "1999-12-31 23:59:58.123456");
  EXPECT_EQ(FormatDate(MakeDate(1800, 1, 1)), "1800-01-01");
  EXPECT_EQ(FormatTimestamp(MakeTimestamp(1960, 2, 29, 1, 2, 3, 4)), "1960-02-29 01:02:03.000004");
  std::string out = "x";
  AppendDate(out, MakeDate(2000, 1, 3));
  EXPECT_EQ(out, "x2000-01-03");
}

TEST(Calendar, KnowsTheDaysOfTheWeek) {
  EXPECT_EQ(DayOfWeek(MakeDate(2005, 1, 3)), 0);  // Monday
  EXPECT_EQ(DayOfWeek(MakeDate(2000, 1, 3)), 0);
  EXPECT_EQ(DayOfWeek(MakeDate(2006, 2, 27)), 0);
  EXPECT_EQ(DayOfWeek(MakeDate(2005, 1, 8)), 5);    // Saturday
  EXPECT_EQ(DayOfWeek(MakeDate(1969, 12, 31)), 2);  // before the epoch too
}

TEST(Calendar, ThreeHundredBusinessDaysEndOn2006_02_27) {
  const Sizing sizing;
  EXPECT_EQ(FormatTimestamp(EndOfInitialTrades(sizing)), "2006-02-27 09:00:00.000000");
  EXPECT_EQ(FormatTimestamp(EndOfInitialTradesForInputs(sizing)), "2006-02-27 09:15:00.000000");
  EXPECT_EQ(InitialTradeStart(), MakeTimestamp(2005, 1, 3, 9));
}

TEST(Calendar, WorkTimeSkipsWeekendsAndNights) {
  EXPECT_EQ(WorkTimeToTimestamp(0), MakeTimestamp(2005, 1, 3, 9));
  EXPECT_EQ(WorkTimeToTimestamp(8 * kHourMs - 1), MakeTimestamp(2005, 1, 3, 16, 59, 59, 999000));
  EXPECT_EQ(WorkTimeToTimestamp(8 * kHourMs), MakeTimestamp(2005, 1, 4, 9));
  // Friday afternoon, then Monday morning.
  EXPECT_EQ(WorkTimeToTimestamp(4 * 8 * kHourMs + 7 * kHourMs), MakeTimestamp(2005, 1, 7, 16));
  EXPECT_EQ(WorkTimeToTimestamp(5 * 8 * kHourMs), MakeTimestamp(2005, 1, 10, 9));
  for (int64_t ms = 0; ms < 400 * 8 * kHourMs; ms += 3 * kHourMs + 17) {
    const Timestamp t = WorkTimeToTimestamp(ms);
    ASSERT_LT(DayOfWeek(DateOf(t)), 5) << FormatTimestamp(t);
    const int64_t in_day = t.micros - StartOfDay(DateOf(t)).micros;
    ASSERT_GE(in_day, 9 * 3600 * kMicrosPerSecond);
    ASSERT_LT(in_day, 17 * 3600 * kMicrosPerSecond);
  }
}

TEST(Calendar, AddsBusinessDays) {
  EXPECT_EQ(AddBusinessDays(MakeDate(2000, 1, 3), 1304), MakeDate(2004, 12, 31));
  EXPECT_EQ(AddBusinessDays(MakeDate(2005, 1, 7), 1), MakeDate(2005, 1, 10));
  EXPECT_EQ(AddBusinessDays(MakeDate(2005, 1, 3), 300), MakeDate(2006, 2, 27));
  EXPECT_EQ(DailyMarketBaseDate(), MakeDate(2000, 1, 3));
  EXPECT_EQ(AddBusinessDays(DailyMarketBaseDate(), kDailyMarketDays - 1), MakeDate(2004, 12, 31));
}

TEST(Calendar, ConvertsToCivilDates) {
  const CivilDate c = ToCivil(MakeDate(2004, 2, 29));
  EXPECT_EQ(c.year, 2004);
  EXPECT_EQ(c.month, 2);
  EXPECT_EQ(c.day, 29);
  EXPECT_EQ(DateOf(MakeTimestamp(1969, 12, 31, 23)), MakeDate(1969, 12, 31));
}

}  // namespace
}  // namespace bb::workload
