#include "common/workload/sizing.h"

#include <gtest/gtest.h>

namespace bb::workload {
namespace {

Sizing Make(int64_t customers, int64_t scale_factor = 500, int64_t itd = 300) {
  return Sizing{.customers = customers, .scale_factor = scale_factor, .initial_trade_days = itd};
}

TEST(Sizing, DerivesTheCountsOfTheReference) {
  const Sizing s{.customers = 5000, .scale_factor = 500, .initial_trade_days = 300};
  ASSERT_TRUE(s.Validate().ok());
  EXPECT_EQ(s.LoadUnits(), 5);
  EXPECT_EQ(s.Companies(), 2500);
  EXPECT_EQ(s.Securities(), 3425);
  EXPECT_EQ(s.Brokers(), 50);
  EXPECT_EQ(s.Accounts(), 25000);
  EXPECT_EQ(s.TradesPerLoadUnit(), 17'280'000);
  EXPECT_EQ(s.TradeIdBlockSize(), 17'452'800);
  EXPECT_EQ(s.TradeIdBlockSize() % 101, 0);
  EXPECT_EQ(s.InitiatedTrades(), 87'264'000);
  EXPECT_EQ(s.NominalMilliTpsE(), 10'000);
}

TEST(Sizing, NamesTheOptionAndValueAtFault) {
  EXPECT_EQ(Sizing{.customers = 1500}.Validate().message(),
            "--customers: '1500' is not a multiple of 1000");
  EXPECT_EQ(Sizing{.customers = 0}.Validate().message(),
            "--customers: '0' is not a positive multiple of 1000");
  EXPECT_EQ(Sizing{.customers = -1000}.Validate().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Make(1000, 0).Validate().message(),
            "--scale-factor: '0' is not in the range 1 to 1000000");
  EXPECT_EQ(Make(1000, 500, 0).Validate().message(),
            "--initial-trade-days: '0' is not in the range 1 to 3650");
  EXPECT_EQ(Make(1000, 500, -5).Validate().message(),
            "--initial-trade-days: '-5' is not in the range 1 to 3650");
  EXPECT_TRUE(Make(1000, 1, 1).Validate().ok());
}

}  // namespace
}  // namespace bb::workload
