// The generator's contract (work units, refused units, the sink's errors, determinism) and the
// rows it writes against the schema and the reference's cardinalities.
#include "loader/generator_test_support.h"

namespace bb::loader::generator_test {

TEST(WorkUnits, OneFixedUnitThenThreePartsPerLoadUnit) {
  const Sizing sizing{.customers = 3000, .scale_factor = 500, .initial_trade_days = 1};
  const auto units = WorkUnits(sizing);
  ASSERT_EQ(units.size(), 10u);
  EXPECT_EQ(units[0], (WorkUnit{UnitPart::kFixed, -1}));
  EXPECT_EQ(units[1], (WorkUnit{UnitPart::kCustomers, 0}));
  EXPECT_EQ(units[2], (WorkUnit{UnitPart::kMarket, 0}));
  EXPECT_EQ(units[9], (WorkUnit{UnitPart::kTrades, 2}));
  EXPECT_EQ(WorkUnitName(units[9]), "trades of load unit 2");
  EXPECT_EQ(WorkUnitName(units[0]), "fixed tables");
}

TEST(Generate, RejectsAUnitOutsideTheSizing) {
  CapturingSink sink;
  Status s = Generate(kSizing, {UnitPart::kTrades, 1}, sink);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "work unit: load unit 1 is not in 0..0");
  s = Generate(Sizing{.customers = 1500}, {UnitPart::kFixed, -1}, sink);
  EXPECT_THAT(s.message(), HasSubstr("--customers"));
}

class FailingSink : public TableSink {
 public:
  Status Append(Table, std::string_view) override {
    ++calls;
    return Status::IoError("disk full");
  }
  int calls = 0;
};

TEST(Generate, StopsAtTheSinksFirstErrorAndNamesIt) {
  FailingSink sink;
  const Status s = Generate(kSizing, {UnitPart::kTrades, 0}, sink);
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_THAT(s.message(), ::testing::StartsWith("writing "));
  EXPECT_THAT(s.message(), HasSubstr("disk full"));
  EXPECT_EQ(sink.calls, 1);
}

TEST(Generate, IsDeterministicInAnyOrderOnAnyThreads) {
  const Sizing sizing{.customers = 2000, .scale_factor = 500, .initial_trade_days = 1};
  std::vector<WorkUnit> units = WorkUnits(sizing);
  units.erase(std::remove_if(units.begin(), units.end(),
                             [](const WorkUnit& u) { return u.part == UnitPart::kMarket; }),
              units.end());
  const auto forward = GenerateUnits(sizing, units, /*threads=*/false);
  std::vector<WorkUnit> reversed(units.rbegin(), units.rend());
  const auto backward = GenerateUnits(sizing, reversed, /*threads=*/true);
  // A subset: the trades of the second LU alone.
  const auto alone = GenerateUnits(sizing, {{UnitPart::kTrades, 1}}, /*threads=*/false);
  for (size_t i = 0; i < units.size(); ++i) {
    const size_t j = units.size() - 1 - i;
    for (int t = 0; t < kTableCount; ++t) {
      const TableCapture& a = forward->sinks[i]->tables[static_cast<size_t>(t)];
      const TableCapture& b = backward->sinks[j]->tables[static_cast<size_t>(t)];
      EXPECT_EQ(a.rows, b.rows) << WorkUnitName(units[i]) << " " << TableName(Table(t));
      EXPECT_EQ(a.hash, b.hash) << WorkUnitName(units[i]) << " " << TableName(Table(t));
      EXPECT_TRUE(a.text == b.text) << WorkUnitName(units[i]) << " " << TableName(Table(t));
    }
    if (units[i] == WorkUnit{UnitPart::kTrades, 1}) {
      for (int t = 0; t < kTableCount; ++t) {
        EXPECT_EQ(forward->sinks[i]->tables[static_cast<size_t>(t)].hash,
                  alone->sinks[0]->tables[static_cast<size_t>(t)].hash)
            << TableName(Table(t));
      }
    }
  }
  // The two LUs differ (their streams are seeded apart).
  EXPECT_NE(forward->sinks[2]->tables[static_cast<size_t>(Table::kTrade)].hash,
            forward->sinks[4]->tables[static_cast<size_t>(Table::kTrade)].hash);
}

TEST_F(GeneratorTest, MarketUnitIsDeterministic) {
  // The suite generated every unit in order on one thread; the market alone, on a thread.
  const auto again = GenerateUnits(kSizing, {{UnitPart::kMarket, 0}}, /*threads=*/true);
  ASSERT_EQ(data().units[2], (WorkUnit{UnitPart::kMarket, 0}));
  for (int t = 0; t < kTableCount; ++t) {
    const TableCapture& a = data().sinks[2]->tables[static_cast<size_t>(t)];
    const TableCapture& b = again->sinks[0]->tables[static_cast<size_t>(t)];
    EXPECT_EQ(a.rows, b.rows) << TableName(Table(t));
    EXPECT_EQ(a.hash, b.hash) << TableName(Table(t));
  }
}

TEST_F(GeneratorTest, EveryRowFitsTheSchema) {
  const Schema schema = ParseSchema();
  ASSERT_EQ(schema.tables.size(), static_cast<size_t>(kTableCount));
  std::map<std::string, std::unordered_set<uint64_t>> primary_keys;
  for (Table table : AllTables()) {
    const std::string name(TableName(table));
    const TableSchema& ts = schema.tables.at(name);
    auto& keys = primary_keys[name];
    const auto rows = data().Fields(table);
    keys.reserve(rows.size());
    int problems = 0;
    for (const auto& f : rows) {
      if (f.size() != ts.columns.size()) {
        if (++problems <= 3) ADD_FAILURE() << name << ": " << f.size() << " fields";
        continue;
      }
      for (size_t c = 0; c < f.size(); ++c) {
        const std::string p = FieldProblem(ts.columns[c], f[c]);
        if (!p.empty() && ++problems <= 3) {
          ADD_FAILURE() << name << "." << ts.columns[c].name << " '" << f[c] << "': " << p;
        }
      }
      for (const Check& check : ts.checks) {
        const std::string_view v = f[static_cast<size_t>(check.column)];
        bool ok;
        if (check.op == "IN") {
          ok = std::find(check.values.begin(), check.values.end(), v) != check.values.end();
        } else {
          const double x = std::stod(std::string(v));
          const double y = check.other_column >= 0
                               ? std::stod(std::string(f[static_cast<size_t>(check.other_column)]))
                               : check.value;
          ok = check.op == ">" ? x > y : x >= y;
        }
        if (!ok && ++problems <= 3) {
          ADD_FAILURE() << name << "." << ts.columns[static_cast<size_t>(check.column)].name
                        << " fails its CHECK: " << v;
        }
      }
      if (!keys.insert(KeyHash(f, ts.primary_key)).second && ++problems <= 3) {
        ADD_FAILURE() << name << ": duplicate primary key " << Key(f, ts.primary_key);
      }
    }
    EXPECT_EQ(problems, 0) << name;
  }
  // Every foreign key resolves in the rows of some unit.
  for (const ForeignKey& fk : schema.foreign_keys) {
    const auto& referenced = primary_keys.at(fk.referenced);
    int missing = 0;
    for (Table table : AllTables()) {
      if (TableName(table) != fk.table) continue;
      for (const auto& f : data().Fields(table)) {
        if (!referenced.contains(KeyHash(f, fk.columns)) && ++missing <= 3) {
          ADD_FAILURE() << fk.table << " -> " << fk.referenced << ": " << Key(f, fk.columns);
        }
      }
    }
    EXPECT_EQ(missing, 0) << fk.table << " -> " << fk.referenced;
  }
}

TEST_F(GeneratorTest, CardinalitiesFollowTheReference) {
  const int64_t trades =
      kSizing.initial_trade_days * 8 * 3600 * kSizing.customers / kSizing.scale_factor;  // 2.6.1
  ASSERT_EQ(trades, 115'200);
  const std::map<Table, int64_t> exact = {
      {Table::kStatusType, 5},
      {Table::kTradeType, 5},
      {Table::kExchange, 4},
      {Table::kSector, 12},
      {Table::kIndustry, 102},
      {Table::kCharge, 15},
      {Table::kCommissionRate, 240},
      {Table::kTaxrate, 320},
      {Table::kZipCode, 14741},
      {Table::kAddress, 4 + 500 + 1000},
      {Table::kCustomer, 1000},
      {Table::kCustomerAccount, 5000},
      {Table::kCustomerTaxrate, 2000},
      {Table::kBroker, 10},
      {Table::kCompany, 500},
      {Table::kCompanyCompetitor, 1500},
      {Table::kSecurity, 685},
      {Table::kLastTrade, 685},
      {Table::kDailyMarket, 685 * 1305},
      {Table::kFinancial, 10000},
      {Table::kNewsItem, 1000},
      {Table::kNewsXref, 1000},
      {Table::kWatchList, 1000},
      {Table::kTrade, trades},
      {Table::kSettlement, trades},
      {Table::kTradeRequest, 0},
  };
  for (const auto& [table, count] : exact) {
    EXPECT_EQ(data().Count(table), count) << TableName(table);
  }
  // ±: 1.42 × accounts (clause 2.6), 100 per watch list, 2.4 and 0.92 per trade.
  EXPECT_NEAR(data().Count(Table::kAccountPermission) / 5000.0, 1.42, 0.03);
  EXPECT_NEAR(data().Count(Table::kWatchItem) / 1000.0, 100.0, 3.0);
  EXPECT_NEAR(static_cast<double>(data().Count(Table::kTradeHistory)) / trades, 2.4, 0.01);
  EXPECT_NEAR(static_cast<double>(data().Count(Table::kCashTransaction)) / trades, 0.92, 0.01);
  // The holding ratios of clause 2.6 hold for ITD 300 only; at 2 days every position is young.
  EXPECT_GT(data().Count(Table::kHoldingSummary), 5000);
  EXPECT_LE(data().Count(Table::kHoldingSummary), 5000 * 18);
  EXPECT_GE(data().Count(Table::kHolding), data().Count(Table::kHoldingSummary));
  EXPECT_GT(data().Count(Table::kHoldingHistory), trades);
  // NI_ITEM: 100 000 characters as hex with the doubled backslash and 'x'.
  for (const auto& sink : data().sinks) {
    for (size_t chars : sink->tables[static_cast<size_t>(Table::kNewsItem)].news_item_chars) {
      ASSERT_EQ(chars, 3u + 2u * 100'000u);
    }
  }
}

}  // namespace bb::loader::generator_test
