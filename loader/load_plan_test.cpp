#include "loader/load_plan.h"

#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "loader/load_record.h"

namespace bb::loader {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using workload::Sizing;

constexpr Sizing kFiveLoadUnits{.customers = 5000, .scale_factor = 500, .initial_trade_days = 1};

std::string ErrorOf(const Status& s) { return s.ok() ? "(ok)" : s.message(); }

template <typename T>
std::string ErrorOf(const Result<T>& r) {
  return r.ok() ? "(ok)" : r.status().message();
}

TEST(LoadPhase, ParsesEveryNameAndRefusesOthersNamingTheOption) {
  for (LoadPhase p : {LoadPhase::kAll, LoadPhase::kPrepare, LoadPhase::kData, LoadPhase::kFinish}) {
    auto parsed = ParseLoadPhase("--phase", LoadPhaseName(p));
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    EXPECT_EQ(*parsed, p);
  }
  EXPECT_EQ(ErrorOf(ParseLoadPhase("--phase", "load")),
            "--phase: 'load' is not one of prepare, data, finish, all");
  EXPECT_EQ(ErrorOf(ParseLoadPhase("--phase", "")),
            "--phase: '' is not one of prepare, data, finish, all");
}

TEST(LoadUnitRange, ParsesRangesAndSingleUnits) {
  auto r = ParseLoadUnitRange("--load-units", "2-4");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, (LoadUnitRange{2, 4}));
  EXPECT_EQ(r->count(), 3);
  EXPECT_EQ(ToString(*r), "2-4");
  r = ParseLoadUnitRange("--load-units", "7");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, (LoadUnitRange{7, 7}));
  r = ParseLoadUnitRange("--load-units", "0-0");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, (LoadUnitRange{0, 0}));
}

TEST(LoadUnitRange, BadTextIsRefusedNamingTheOptionAndValue) {
  for (const char* bad : {"", "-", "1-", "-3", "a-b", "1-2-3", "1,2", " 1-2", "+1-2", "1.5"}) {
    EXPECT_THAT(ErrorOf(ParseLoadUnitRange("--load-units", bad)),
                HasSubstr(std::string("--load-units: '") + bad +
                          "' is not a range of load units FIRST-LAST"))
        << bad;
  }
  EXPECT_EQ(ErrorOf(ParseLoadUnitRange("--load-units", "3-1")),
            "--load-units: '3-1' ends before it starts");
  EXPECT_THAT(ErrorOf(ParseLoadUnitRange("--load-units", "0-100000")),
              HasSubstr("--load-units: '0-100000' names a load unit past 99999"));
  EXPECT_THAT(ErrorOf(ParseLoadUnitRange("--load-units", "99999999999999999999")),
              HasSubstr("names a load unit past"));
}

TEST(LoadUnitRange, MustLieInsideTheSizing) {
  EXPECT_TRUE(CheckLoadUnitRange("--load-units", {0, 4}, kFiveLoadUnits).ok());
  EXPECT_TRUE(CheckLoadUnitRange("--load-units", {4, 4}, kFiveLoadUnits).ok());
  EXPECT_EQ(ErrorOf(CheckLoadUnitRange("--load-units", {3, 5}, kFiveLoadUnits)),
            "--load-units: '3-5' is outside the load units of 5000 customers, which are 0-4");
}

TEST(WorkUnitsOf, TheRangeWithLoadUnitZeroHasTheFixedTables) {
  EXPECT_THAT(WorkUnitsOf(kFiveLoadUnits, {0, 1}),
              ElementsAre(WorkUnit{UnitPart::kFixed, -1}, WorkUnit{UnitPart::kCustomers, 0},
                          WorkUnit{UnitPart::kMarket, 0}, WorkUnit{UnitPart::kTrades, 0},
                          WorkUnit{UnitPart::kCustomers, 1}, WorkUnit{UnitPart::kMarket, 1},
                          WorkUnit{UnitPart::kTrades, 1}));
  EXPECT_THAT(WorkUnitsOf(kFiveLoadUnits, {4, 4}),
              ElementsAre(WorkUnit{UnitPart::kCustomers, 4}, WorkUnit{UnitPart::kMarket, 4},
                          WorkUnit{UnitPart::kTrades, 4}));
  EXPECT_EQ(WorkUnitsOf(kFiveLoadUnits, AllLoadUnits(kFiveLoadUnits)), WorkUnits(kFiveLoadUnits));
}

// Any split into whole ranges loads every work unit exactly once.
TEST(WorkUnitsOf, ASplitCoversEveryWorkUnitOnce) {
  std::vector<WorkUnit> joined;
  for (LoadUnitRange r : {LoadUnitRange{0, 1}, LoadUnitRange{2, 2}, LoadUnitRange{3, 4}}) {
    for (const WorkUnit& u : WorkUnitsOf(kFiveLoadUnits, r)) joined.push_back(u);
  }
  EXPECT_EQ(joined, WorkUnits(kFiveLoadUnits));
}

std::vector<LoadUnitRange> Split(int64_t load_units,
                                 const std::vector<std::optional<LoadUnitRange>>& requested) {
  auto shares = SplitLoadUnits(load_units, requested);
  EXPECT_TRUE(shares.ok()) << shares.status().message();
  return shares.ok() ? *shares : std::vector<LoadUnitRange>{};
}

TEST(SplitLoadUnits, EvenSharesInOrderTheFirstGetTheRemainder) {
  const std::optional<LoadUnitRange> kAuto;
  EXPECT_THAT(Split(2, {kAuto, kAuto}), ElementsAre(LoadUnitRange{0, 0}, LoadUnitRange{1, 1}));
  EXPECT_THAT(Split(5, {kAuto, kAuto}), ElementsAre(LoadUnitRange{0, 2}, LoadUnitRange{3, 4}));
  EXPECT_THAT(Split(7, {kAuto, kAuto, kAuto}),
              ElementsAre(LoadUnitRange{0, 2}, LoadUnitRange{3, 4}, LoadUnitRange{5, 6}));
  EXPECT_THAT(Split(3, {kAuto}), ElementsAre(LoadUnitRange{0, 2}));
  EXPECT_THAT(Split(3, {kAuto, kAuto, kAuto}),
              ElementsAre(LoadUnitRange{0, 0}, LoadUnitRange{1, 1}, LoadUnitRange{2, 2}));
}

TEST(SplitLoadUnits, MoreLoadersThanLoadUnitsIsRefused) {
  const std::optional<LoadUnitRange> kAuto;
  EXPECT_EQ(ErrorOf(SplitLoadUnits(2, {kAuto, kAuto, kAuto})),
            "3 loaders for 2 load units (2000 customers): each loader needs at least one load "
            "unit");
  EXPECT_THAT(ErrorOf(SplitLoadUnits(2, {})), HasSubstr("no loaders"));
}

TEST(SplitLoadUnits, NamedRangesAreKeptInTheLoadersOrder) {
  EXPECT_THAT(Split(5, {LoadUnitRange{3, 4}, LoadUnitRange{0, 2}}),
              ElementsAre(LoadUnitRange{3, 4}, LoadUnitRange{0, 2}));
  EXPECT_THAT(Split(1, {LoadUnitRange{0, 0}}), ElementsAre(LoadUnitRange{0, 0}));
}

TEST(SplitLoadUnits, NamedRangesMustCoverEveryLoadUnitOnce) {
  EXPECT_EQ(ErrorOf(SplitLoadUnits(5, {LoadUnitRange{0, 2}, LoadUnitRange{2, 4}})),
            "loader 2's load units 2-4 overlap loader 1's 0-2");
  EXPECT_EQ(ErrorOf(SplitLoadUnits(5, {LoadUnitRange{2, 4}, LoadUnitRange{0, 2}})),
            "loader 1's load units 2-4 overlap loader 2's 0-2");
  EXPECT_EQ(ErrorOf(SplitLoadUnits(5, {LoadUnitRange{0, 1}, LoadUnitRange{3, 4}})),
            "no loader has load units 2-2");
  EXPECT_EQ(ErrorOf(SplitLoadUnits(5, {LoadUnitRange{1, 4}})), "no loader has load units 0-0");
  EXPECT_EQ(ErrorOf(SplitLoadUnits(5, {LoadUnitRange{0, 3}})), "no loader has load units 4-4");
  EXPECT_EQ(ErrorOf(SplitLoadUnits(2, {LoadUnitRange{0, 0}, LoadUnitRange{1, 3}})),
            "loader 2: load units 1-3 go past the last load unit, 1 (2000 customers)");
}

TEST(SplitLoadUnits, NamingRangesForSomeLoadersOnlyIsRefused) {
  EXPECT_EQ(ErrorOf(SplitLoadUnits(5, {LoadUnitRange{0, 2}, std::nullopt})),
            "loader 2 names no load units but loader 1 does: name them for every loader or for "
            "none (then they are split evenly)");
}

TEST(ShareList, ReadsAutoAndRanges) {
  auto list = ParseShareList("--split-load-units", "auto,auto");
  ASSERT_TRUE(list.ok()) << list.status().message();
  EXPECT_THAT(*list, ElementsAre(std::nullopt, std::nullopt));
  list = ParseShareList("--split-load-units", "0-2,3");
  ASSERT_TRUE(list.ok()) << list.status().message();
  EXPECT_THAT(*list, ElementsAre(LoadUnitRange{0, 2}, LoadUnitRange{3, 3}));
  EXPECT_THAT(ErrorOf(ParseShareList("--split-load-units", "auto,,1")),
              HasSubstr("--split-load-units (entry 2, of 'auto,,1'): '' is not a range"));
  EXPECT_THAT(ErrorOf(ParseShareList("--split-load-units", "0-1,x")),
              HasSubstr("(entry 2, of '0-1,x'): 'x' is not a range"));
}

TEST(DescribeLoadUnits, JoinsRunsIntoRanges) {
  EXPECT_EQ(DescribeLoadUnits({}), "");
  EXPECT_EQ(DescribeLoadUnits({4}), "4");
  EXPECT_EQ(DescribeLoadUnits({1, 2, 3, 5, 7, 8}), "1-3, 5, 7-8");
}

class CapturingSink : public TableSink {
 public:
  Status Append(Table, std::string_view rows) override {
    text += rows;
    return Status::Ok();
  }
  std::string text;
};

TEST(RowCountingSink, CountsRowsPerTableAndForwardsThem) {
  CapturingSink next;
  RowCountingSink counting(next);
  ASSERT_TRUE(counting.Append(Table::kTrade, "1\ta\n2\tb\\nc\n").ok());
  ASSERT_TRUE(counting.Append(Table::kTrade, "3\tc\n").ok());
  ASSERT_TRUE(counting.Append(Table::kBroker, "9\tx\n").ok());
  EXPECT_EQ(counting.rows()[static_cast<size_t>(Table::kTrade)], 3);
  EXPECT_EQ(counting.rows()[static_cast<size_t>(Table::kBroker)], 1);
  EXPECT_EQ(counting.rows()[static_cast<size_t>(Table::kCustomer)], 0);
  EXPECT_EQ(next.text, "1\ta\n2\tb\\nc\n3\tc\n9\tx\n");
}

}  // namespace
}  // namespace bb::loader
