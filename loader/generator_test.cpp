#include "loader/generator.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/workload/calendar.h"
#include "common/workload/ids.h"
#include "loader/schema.h"

namespace bb::loader {
namespace {

using ::testing::HasSubstr;
using workload::Sizing;

// 1 000 customers and 2 initial trade days: 115 200 trades, generated in about a second.
constexpr Sizing kSizing{.customers = 1000, .scale_factor = 500, .initial_trade_days = 2};

std::vector<std::string_view> Split(std::string_view row, char sep = '\t') {
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (true) {
    const size_t end = row.find(sep, start);
    fields.push_back(row.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return fields;
    start = end + 1;
  }
}

// Rows of one table of one unit. NI_ITEM (100 000 characters, hex) is only hashed; the kept
// row holds its first 16 hex digits and `news_item_chars` its full length.
struct TableCapture {
  std::string text;
  int64_t rows = 0;
  uint64_t hash = 0;  // over the byte stream in 8-byte words, whatever the chunks
  std::vector<size_t> news_item_chars;

  void Hash(std::string_view bytes) {
    size_t i = 0;
    for (; i < bytes.size() && pending_bytes_ != 0; ++i) Feed(bytes[i]);
    for (; i + 8 <= bytes.size(); i += 8) {
      uint64_t word;
      std::memcpy(&word, bytes.data() + i, 8);
      Mix(word);
    }
    for (; i < bytes.size(); ++i) Feed(bytes[i]);
  }

 private:
  void Feed(char c) {
    pending_ |= uint64_t{static_cast<unsigned char>(c)} << (8 * pending_bytes_);
    if (++pending_bytes_ == 8) {
      Mix(pending_);
      pending_ = 0;
      pending_bytes_ = 0;
    }
  }
  void Mix(uint64_t word) {
    hash = (hash ^ word) * 0x9e3779b97f4a7c15ULL;
    hash ^= hash >> 29;
  }
  uint64_t pending_ = 0;
  int pending_bytes_ = 0;
};

// Keeps every row in memory. Appends from one unit's thread only (as Generate promises); a
// mutex anyway, so that a wrong promise shows up as a data race in sanitizer builds, not here.
class CapturingSink : public TableSink {
 public:
  Status Append(Table table, std::string_view rows) override {
    std::lock_guard lock(mutex_);
    TableCapture& t = tables[static_cast<size_t>(table)];
    t.Hash(rows);
    EXPECT_TRUE(!rows.empty() && rows.back() == '\n') << TableName(table);
    size_t start = 0;
    while (start < rows.size()) {
      const size_t end = rows.find('\n', start);
      std::string_view row = rows.substr(start, end - start);
      start = end + 1;
      ++t.rows;
      if (table == Table::kNewsItem) {
        auto fields = Split(row);
        t.news_item_chars.push_back(fields.size() > 3 ? fields[3].size() : 0);
        std::string shortened;
        for (size_t i = 0; i < fields.size(); ++i) {
          if (i > 0) shortened += '\t';
          shortened += i == 3 ? fields[i].substr(0, 19) : fields[i];
        }
        t.text += shortened;
      } else {
        t.text += row;
      }
      t.text += '\n';
    }
    return Status::Ok();
  }

  std::array<TableCapture, kTableCount> tables;

 private:
  std::mutex mutex_;
};

struct Generated {
  std::vector<WorkUnit> units;
  std::vector<std::unique_ptr<CapturingSink>> sinks;  // one per unit, in `units` order

  // Every row of a table over all units.
  std::vector<std::string_view> Rows(Table table) const {
    std::vector<std::string_view> rows;
    for (const auto& sink : sinks) {
      std::string_view text = sink->tables[static_cast<size_t>(table)].text;
      while (!text.empty()) {
        const size_t end = text.find('\n');
        rows.push_back(text.substr(0, end));
        text.remove_prefix(end + 1);
      }
    }
    return rows;
  }
  std::vector<std::vector<std::string_view>> Fields(Table table) const {
    std::vector<std::vector<std::string_view>> out;
    for (std::string_view row : Rows(table)) out.push_back(Split(row));
    return out;
  }
  int64_t Count(Table table) const {
    int64_t n = 0;
    for (const auto& sink : sinks) n += sink->tables[static_cast<size_t>(table)].rows;
    return n;
  }
};

// Generates `units` of `sizing`, in the given order, on one thread or one thread per unit.
std::unique_ptr<Generated> GenerateUnits(const Sizing& sizing, std::vector<WorkUnit> units,
                                         bool threads) {
  auto g = std::make_unique<Generated>();
  g->units = std::move(units);
  std::vector<Status> results(g->units.size());
  for (size_t i = 0; i < g->units.size(); ++i)
    g->sinks.push_back(std::make_unique<CapturingSink>());
  std::atomic<int64_t> rows_done{0};
  if (threads) {
    std::vector<std::thread> workers;
    for (size_t i = 0; i < g->units.size(); ++i) {
      workers.emplace_back(
          [&, i] { results[i] = Generate(sizing, g->units[i], *g->sinks[i], &rows_done); });
    }
    for (auto& w : workers) w.join();
  } else {
    for (size_t i = 0; i < g->units.size(); ++i) {
      results[i] = Generate(sizing, g->units[i], *g->sinks[i], &rows_done);
    }
  }
  int64_t rows = 0;
  for (size_t i = 0; i < g->units.size(); ++i) {
    EXPECT_TRUE(results[i].ok()) << WorkUnitName(g->units[i]) << ": " << results[i].message();
    for (const auto& t : g->sinks[i]->tables) rows += t.rows;
  }
  EXPECT_EQ(rows_done.load(), rows) << "rows_done counts every row once";
  return g;
}

// ---------------------------------------------------------------------------------------
// The schema, parsed from loader/sql: column types, NOT NULL, simple CHECKs, keys.

struct Column {
  std::string name;
  std::string type;  // "BIGINT", "VARCHAR", "NUMERIC", ...
  int length = 0;    // VARCHAR(n); NUMERIC precision
  int scale = 0;     // NUMERIC scale
  bool not_null = false;
};
struct Check {
  int column;
  std::string op;  // ">", ">=", "IN"
  int other_column = -1;
  double value = 0;
  std::vector<std::string> values;
};
struct TableSchema {
  std::vector<Column> columns;
  std::vector<Check> checks;
  std::vector<int> primary_key;
  int Index(const std::string& name) const {
    for (size_t i = 0; i < columns.size(); ++i) {
      if (columns[i].name == name) return static_cast<int>(i);
    }
    ADD_FAILURE() << "no column " << name;
    return -1;
  }
};
struct ForeignKey {
  std::string table;
  std::vector<int> columns;
  std::string referenced;
};

std::string Trim(std::string s) {
  s.erase(0, s.find_first_not_of(" \t\n"));
  s.erase(s.find_last_not_of(" ,\t\n") + 1);
  return s;
}

std::vector<int> ColumnList(const TableSchema& t, const std::string& list) {
  std::vector<int> out;
  for (std::string_view name : Split(list, ',')) out.push_back(t.Index(Trim(std::string(name))));
  return out;
}

struct Schema {
  std::map<std::string, TableSchema> tables;
  std::vector<ForeignKey> foreign_keys;
};

Schema ParseSchema() {
  Schema schema;
  static const std::regex kCreate(R"(^CREATE TABLE (\w+) \(([\s\S]*)\)$)");
  static const std::regex kColumn(R"(^(\w+) (\w+)(?:\((\d+)(?:,(\d+))?\))?(.*)$)");
  static const std::regex kCompare(R"(CHECK \((\w+) (>=|>) (\w+)\))");
  static const std::regex kIn(R"(CHECK \((\w+) IN \(([^)]*)\)\))");
  for (const std::string& statement : SchemaStatements(SchemaPhase::kTables)) {
    std::smatch m;
    if (!std::regex_match(statement, m, kCreate)) continue;
    TableSchema& t = schema.tables[m[1]];
    const std::string body = m[2];
    std::vector<std::string> rest;
    for (std::string_view line : Split(body, '\n')) {
      const std::string l = Trim(std::string(line));
      if (l.empty()) continue;
      std::smatch c;
      EXPECT_TRUE(std::regex_match(l, c, kColumn)) << l;
      Column col{c[1], c[2], c[3].matched ? std::stoi(c[3]) : 0, c[4].matched ? std::stoi(c[4]) : 0,
                 l.find("NOT NULL") != std::string::npos};
      t.columns.push_back(col);
      rest.push_back(c[5]);
    }
    for (size_t i = 0; i < rest.size(); ++i) {
      std::smatch c;
      if (std::regex_search(rest[i], c, kCompare)) {
        Check check{static_cast<int>(i), c[2], -1, 0, {}};
        const std::string rhs = c[3];
        if (std::isdigit(static_cast<unsigned char>(rhs[0]))) {
          check.value = std::stod(rhs);
        } else {
          check.other_column = t.Index(rhs);
        }
        t.checks.push_back(check);
      } else if (std::regex_search(rest[i], c, kIn)) {
        Check check{static_cast<int>(i), "IN", -1, 0, {}};
        for (std::string_view v : Split(std::string(c[2]), ',')) {
          check.values.push_back(Trim(std::string(v)));
        }
        t.checks.push_back(check);
      }
    }
  }
  static const std::regex kPrimary(R"(^ALTER TABLE (\w+) ADD PRIMARY KEY \(([^)]*)\)$)");
  for (const std::string& statement : SchemaStatements(SchemaPhase::kPrimaryKeys)) {
    std::smatch m;
    if (!std::regex_match(statement, m, kPrimary)) continue;
    TableSchema& t = schema.tables.at(m[1]);
    t.primary_key = ColumnList(t, m[2]);
  }
  static const std::regex kForeign(
      R"(^ALTER TABLE (\w+) ADD CONSTRAINT \w+ FOREIGN KEY \(([^)]*)\) REFERENCES (\w+)$)");
  for (const std::string& statement : SchemaStatements(SchemaPhase::kForeignKeys)) {
    std::smatch m;
    EXPECT_TRUE(std::regex_match(statement, m, kForeign)) << statement;
    schema.foreign_keys.push_back({m[1], ColumnList(schema.tables.at(m[1]), m[2]), m[3]});
  }
  return schema;
}

// COPY text unescaped length of a field.
size_t TextLength(std::string_view field) {
  size_t n = 0;
  for (size_t i = 0; i < field.size(); ++i, ++n) {
    if (field[i] == '\\') ++i;
  }
  return n;
}

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// True when `s` has the shape of `pattern`, where '9' stands for any digit.
bool Matches(std::string_view s, std::string_view pattern) {
  if (s.size() != pattern.size()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (pattern[i] == '9' ? !std::isdigit(static_cast<unsigned char>(s[i])) : s[i] != pattern[i]) {
      return false;
    }
  }
  return true;
}

// Empty when the field is valid for the column, else what is wrong.
std::string FieldProblem(const Column& col, std::string_view f) {
  if (f == "\\N") return col.not_null ? "NULL in a NOT NULL column" : "";
  const std::string& type = col.type;
  if (type == "VARCHAR") {
    return TextLength(f) <= static_cast<size_t>(col.length) ? "" : "too long";
  }
  if (type == "BIGINT" || type == "INTEGER" || type == "SMALLINT") {
    std::string_view digits = f.substr(!f.empty() && f[0] == '-' ? 1 : 0);
    if (!AllDigits(digits) || digits.size() > 18) return "not an integer";
    const long long v = std::stoll(std::string(f));
    const long long max = type == "SMALLINT" ? 32767 : type == "INTEGER" ? 2147483647 : 0;
    return max != 0 && (v > max || v < -max - 1) ? "out of range" : "";
  }
  if (type == "NUMERIC") {
    std::string_view v = f.substr(!f.empty() && f[0] == '-' ? 1 : 0);
    const size_t dot = v.find('.');
    const std::string_view whole = v.substr(0, dot);
    const std::string_view frac = dot == std::string_view::npos ? "" : v.substr(dot + 1);
    if (!AllDigits(whole) || (dot != std::string_view::npos && !AllDigits(frac))) {
      return "not a number";
    }
    std::string_view significant =
        whole.substr(std::min(whole.find_first_not_of('0'), whole.size()));
    if (significant.size() > static_cast<size_t>(col.length - col.scale) ||
        frac.size() > static_cast<size_t>(col.scale)) {
      return "does not fit";
    }
    return "";
  }
  if (type == "BOOLEAN") return f == "t" || f == "f" ? "" : "not a boolean";
  if (type == "DATE") return Matches(f, "9999-99-99") ? "" : "not a date";
  if (type == "TIMESTAMP") {
    const bool ok = Matches(f.substr(0, 19), "9999-99-99 99:99:99") &&
                    (f.size() == 19 ||
                     (f.size() >= 21 && f.size() <= 26 && f[19] == '.' && AllDigits(f.substr(20))));
    return ok ? "" : "not a timestamp";
  }
  if (type == "BYTEA") {
    if (f.substr(0, 3) != "\\\\x") return "bytea not in hex";
    return std::all_of(f.begin() + 3, f.end(), [](char c) { return std::isxdigit(c) != 0; })
               ? ""
               : "bytea not in hex";
  }
  return "unknown type " + type;
}

std::string Key(const std::vector<std::string_view>& fields, const std::vector<int>& columns) {
  std::string key;
  for (int c : columns) {
    key += fields[static_cast<size_t>(c)];
    key += '\t';
  }
  return key;
}
// Keys are compared by a 64-bit hash: a false match among a few million keys is unlikely
// (about 1e-7) and would only hide a duplicate, never invent one.
uint64_t KeyHash(const std::vector<std::string_view>& fields, const std::vector<int>& columns) {
  return std::hash<std::string>()(Key(fields, columns));
}

// ---------------------------------------------------------------------------------------

class GeneratorTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    data_ = GenerateUnits(kSizing, WorkUnits(kSizing), /*threads=*/false).release();
  }
  static void TearDownTestSuite() {
    delete data_;
    data_ = nullptr;
  }
  static const Generated& data() { return *data_; }

 private:
  static inline Generated* data_ = nullptr;
};

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

TEST_F(GeneratorTest, TradeIdsFillTheLoadUnitBlockSkippingAbortedOrdinals) {
  std::vector<int64_t> ids;
  for (const auto& f : data().Fields(Table::kTrade)) ids.push_back(std::stoll(std::string(f[0])));
  std::sort(ids.begin(), ids.end());
  const auto range = workload::TradeOrdinalsOfLoadUnit(kSizing, 0);
  ASSERT_FALSE(ids.empty());
  EXPECT_EQ(ids.front(), workload::TradeIdFromOrdinal(range.first));
  EXPECT_LE(ids.back(), workload::TradeIdFromOrdinal(range.last));
  for (int64_t id : ids) {
    EXPECT_FALSE(workload::IsAbortedTradeOrdinal(workload::TradeOrdinal(id))) << id;
  }
  // Every ordinal up to the last one is used unless aborted.
  const int64_t used = workload::TradeOrdinal(ids.back()) - range.first + 1;
  EXPECT_EQ(static_cast<int64_t>(ids.size()), used - (used + 50) / 101);
}

TEST_F(GeneratorTest, DistributionsFollowTheReference) {
  const auto trades = data().Fields(Table::kTrade);
  const double n = static_cast<double>(trades.size());
  std::map<std::string, int> types;
  int lifo = 0;
  int buys = 0;
  int cash_buys = 0;
  std::map<std::string, int> quantities;
  for (const auto& f : trades) {
    ++types[std::string(f[3])];
    lifo += f[14] == "t";
    const bool sell = f[3] == "TMS" || f[3] == "TLS" || f[3] == "TSL";
    if (sell) {
      EXPECT_EQ(f[4], "t") << "every sell is a cash trade";
    } else {
      ++buys;
      cash_buys += f[4] == "t";
    }
    ++quantities[std::string(f[6])];
  }
  // ±1 percentage point: several standard deviations at 115 200 trades.
  EXPECT_NEAR(types["TMB"] / n, 0.30, 0.01);
  EXPECT_NEAR(types["TMS"] / n, 0.30, 0.01);
  EXPECT_NEAR(types["TLB"] / n, 0.20, 0.01);
  EXPECT_NEAR(types["TLS"] / n, 0.10, 0.01);
  EXPECT_NEAR(types["TSL"] / n, 0.10, 0.01);
  EXPECT_NEAR((types["TMB"] + types["TMS"]) / n, 0.60, 0.01);
  EXPECT_NEAR(lifo / n, 0.35, 0.01);
  EXPECT_NEAR(static_cast<double>(cash_buys) / buys, 0.84, 0.01);
  EXPECT_EQ(quantities.size(), 4u);
  for (const char* q : {"100", "200", "400", "800"}) EXPECT_NEAR(quantities[q] / n, 0.25, 0.01);

  // Account permissions: 60 / 38 / 2 % of accounts with 1 / 2 / 3 rows (±2.5, ±2.5, ±1).
  std::map<std::string, int> per_account;
  for (const auto& f : data().Fields(Table::kAccountPermission)) ++per_account[std::string(f[0])];
  std::array<int, 4> by_count{};
  for (const auto& [account, count] : per_account)
    ++by_count[static_cast<size_t>(std::min(count, 3))];
  EXPECT_EQ(per_account.size(), 5000u);
  EXPECT_NEAR(by_count[1] / 5000.0, 0.60, 0.025);
  EXPECT_NEAR(by_count[2] / 5000.0, 0.38, 0.025);
  EXPECT_NEAR(by_count[3] / 5000.0, 0.02, 0.01);

  // Watch items: 50..150 per list, uniform (mean 100).
  std::map<std::string, int> per_list;
  for (const auto& f : data().Fields(Table::kWatchItem)) ++per_list[std::string(f[0])];
  EXPECT_EQ(per_list.size(), 1000u);
  int below_75 = 0;
  for (const auto& [list, count] : per_list) {
    EXPECT_GE(count, 50);
    EXPECT_LE(count, 150);
    below_75 += count < 75;
  }
  EXPECT_NEAR(below_75 / 1000.0, 25.0 / 101.0, 0.05);

  // Tier-weighted selection: tier-3 accounts trade about 3× as often as tier-1 accounts
  // per customer (clause 1.4.2.1): compare trades per customer of tier 3 and tier 1.
  std::map<std::string, std::string> tier_of_customer;
  for (const auto& f : data().Fields(Table::kCustomer)) tier_of_customer[std::string(f[0])] = f[7];
  std::map<std::string, std::string> owner;
  for (const auto& f : data().Fields(Table::kCustomerAccount)) owner[std::string(f[0])] = f[2];
  std::map<std::string, int> trades_by_tier;
  for (const auto& f : trades) ++trades_by_tier[tier_of_customer[owner[std::string(f[8])]]];
  // 200 customers in tiers 1 and 3 each: 10 % and 30 % of the draws.
  EXPECT_NEAR(trades_by_tier["1"] / n, 0.10, 0.01);
  EXPECT_NEAR(trades_by_tier["3"] / n, 0.30, 0.01);

  // Trade history: 2 rows for market orders, 3 for limit orders, in time order.
  std::unordered_map<std::string, std::vector<std::pair<std::string, std::string>>> history;
  for (const auto& f : data().Fields(Table::kTradeHistory)) {
    history[std::string(f[0])].emplace_back(std::string(f[2]), std::string(f[1]));
  }
  int bad = 0;
  for (const auto& f : trades) {
    auto h = history[std::string(f[0])];
    const bool market = f[3] == "TMB" || f[3] == "TMS";
    std::map<std::string, std::string> at(h.begin(), h.end());
    const bool ok = h.size() == (market ? 2u : 3u) && at.contains("SBMT") && at["CMPT"] == f[1] &&
                    at["SBMT"] <= at["CMPT"] && (market || at["PNDG"] <= at["SBMT"]);
    if (!ok && ++bad <= 3) ADD_FAILURE() << "trade history of " << f[0];
  }
  EXPECT_EQ(bad, 0);
}

TEST_F(GeneratorTest, TradesAreConsistent) {
  // Lookups from the other tables.
  std::map<std::string, std::pair<int, std::string>> account;  // ca_id -> (tax status, broker)
  std::map<std::string, std::string> owner;
  for (const auto& f : data().Fields(Table::kCustomerAccount)) {
    account[std::string(f[0])] = {std::stoi(std::string(f[4])), std::string(f[1])};
    owner[std::string(f[0])] = f[2];
  }
  std::map<std::string, std::string> tier;
  for (const auto& f : data().Fields(Table::kCustomer)) tier[std::string(f[0])] = f[7];
  std::map<std::string, std::string> exchange_of;
  for (const auto& f : data().Fields(Table::kSecurity)) exchange_of[std::string(f[0])] = f[4];
  std::map<std::string, std::pair<std::string, std::string>> commission;  // key -> rate
  std::vector<std::vector<std::string_view>> rates = data().Fields(Table::kCommissionRate);
  std::map<std::string, std::string> charge;
  for (const auto& f : data().Fields(Table::kCharge)) {
    charge[std::string(f[0]) + "/" + std::string(f[1])] = f[2];
  }
  auto cents = [](std::string_view v) {
    return static_cast<int64_t>(std::llround(std::stod(std::string(v)) * 100));
  };
  auto rate_for = [&](std::string_view t, std::string_view tt, std::string_view ex, int qty) {
    for (const auto& f : rates) {
      if (f[0] == t && f[1] == tt && f[2] == ex && std::stoi(std::string(f[3])) <= qty &&
          qty <= std::stoi(std::string(f[4]))) {
        return cents(f[5]);  // hundredths of a percent
      }
    }
    ADD_FAILURE() << "no commission rate";
    return int64_t{0};
  };

  std::unordered_map<std::string, std::vector<std::string_view>> settlement;
  for (const auto& f : data().Fields(Table::kSettlement)) settlement[std::string(f[0])] = f;
  std::unordered_map<std::string, std::vector<std::string_view>> cash;
  for (const auto& f : data().Fields(Table::kCashTransaction)) cash[std::string(f[0])] = f;

  std::map<std::string, std::pair<int64_t, int64_t>> broker_sums;  // count, commission
  int bad = 0;
  auto fail = [&bad](const std::string& what) {
    if (++bad <= 5) ADD_FAILURE() << what;
  };
  for (const auto& f : data().Fields(Table::kTrade)) {
    const std::string t_id(f[0]);
    const std::string ca(f[8]);
    const auto [tax_status, broker] = account.at(ca);
    const std::string c_tier = tier.at(owner.at(ca));
    const bool sell = f[3] == "TMS" || f[3] == "TLS" || f[3] == "TSL";
    const int qty = std::stoi(std::string(f[6]));
    const int64_t price = cents(f[10]);
    const int64_t chrg = cents(f[11]);
    const int64_t comm = cents(f[12]);
    const int64_t tax = cents(f[13]);
    broker_sums[broker].first += 1;
    broker_sums[broker].second += comm;
    if (f[2] != "CMPT") fail("status of " + t_id);
    if (chrg != cents(charge.at(std::string(f[3]) + "/" + c_tier))) fail("charge of " + t_id);
    const int64_t rate = rate_for(c_tier, f[3], exchange_of.at(std::string(f[5])), qty);
    if (comm != (qty * price * rate + 5000) / 10000) fail("commission of " + t_id);
    if (tax_status == 0 && tax != 0) fail("tax on a non-taxable account: " + t_id);
    if (price < 2000 || price > 3000) fail("price of " + t_id);
    // SE_AMT reproduces from the trade's fields (an invariant of loader/check.cpp).
    const auto& se = settlement.at(t_id);
    int64_t expected = sell ? qty * price - chrg - comm : -(qty * price + chrg + comm);
    if (tax_status == 1) expected -= tax;
    if (std::llabs(cents(se[3]) - expected) > 1) fail("settlement amount of " + t_id);
    if ((se[1] == "Cash Account") != (f[4] == "t")) fail("cash type of " + t_id);
    // Due date = completion date + 2 days.
    const std::string dts(f[1]);
    const auto due = workload::AddDays(
        workload::MakeDate(std::stoi(dts.substr(0, 4)), std::stoi(dts.substr(5, 2)),
                           std::stoi(dts.substr(8, 2))),
        2);
    if (workload::FormatDate(due) != se[2]) fail("due date of " + t_id);
    // CASH_TRANSACTION iff cash; CT_AMT = SE_AMT, at completion.
    const auto ct = cash.find(t_id);
    if ((ct != cash.end()) != (f[4] == "t")) fail("cash transaction of " + t_id);
    if (ct != cash.end() && (ct->second[2] != se[3] || ct->second[1] != f[1] ||
                             ct->second[3].find(" shares of ") == std::string_view::npos)) {
      fail("cash transaction fields of " + t_id);
    }
  }
  EXPECT_EQ(bad, 0);

  // Consistency conditions 1-2 (clause 7.3.2): broker totals.
  ASSERT_EQ(data().Count(Table::kBroker), 10);
  for (const auto& f : data().Fields(Table::kBroker)) {
    const auto& sums = broker_sums[std::string(f[0])];
    EXPECT_EQ(std::stoll(std::string(f[3])), sums.first) << f[0];
    EXPECT_EQ(cents(f[4]), sums.second) << f[0];
    EXPECT_GT(sums.first, 0) << f[0];
  }
}

TEST_F(GeneratorTest, HoldingsAreConsistent) {
  // Condition 3 (clause 7.3.2) and an invariant: HS_QTY = Σ H_QTY per (account, symbol), no
  // zero rows, every lot of a position has the same sign, and the history of each lot adds up to
  // its quantity.
  std::map<std::string, int64_t> summary;
  for (const auto& f : data().Fields(Table::kHoldingSummary)) {
    const int64_t qty = std::stoll(std::string(f[2]));
    EXPECT_NE(qty, 0);
    summary[std::string(f[0]) + "/" + std::string(f[1])] = qty;
  }
  std::map<std::string, int64_t> sums;
  std::map<std::string, int> signs;
  std::unordered_map<std::string, int64_t> lot_qty;
  for (const auto& f : data().Fields(Table::kHolding)) {
    const std::string key = std::string(f[1]) + "/" + std::string(f[2]);
    const int64_t qty = std::stoll(std::string(f[5]));
    ASSERT_NE(qty, 0);
    sums[key] += qty;
    signs[key] |= qty > 0 ? 1 : 2;
    lot_qty[std::string(f[0])] = qty;
  }
  EXPECT_EQ(sums, summary);
  for (const auto& [key, sign] : signs) EXPECT_NE(sign, 3) << key << " has long and short lots";

  // Holding history: per lot, Σ (after − before) is its open quantity (0 once closed); each
  // lot starts with a creation row (before 0) by its own trade.
  std::unordered_map<std::string, int64_t> history_sum;
  std::unordered_set<std::string> created;
  for (const auto& f : data().Fields(Table::kHoldingHistory)) {
    const std::string lot(f[0]);
    const int64_t before = std::stoll(std::string(f[2]));
    const int64_t after = std::stoll(std::string(f[3]));
    history_sum[lot] += after - before;
    if (before == 0) {
      EXPECT_EQ(f[0], f[1]) << "a lot is created by its own trade";
      EXPECT_TRUE(created.insert(lot).second);
    }
  }
  int bad = 0;
  for (const auto& [lot, delta] : history_sum) {
    const auto it = lot_qty.find(lot);
    const int64_t open = it == lot_qty.end() ? 0 : it->second;
    if (delta != open && ++bad <= 3) ADD_FAILURE() << "history of lot " << lot;
    if (!created.contains(lot) && ++bad <= 3) ADD_FAILURE() << "no creation row for " << lot;
  }
  EXPECT_EQ(bad, 0);
  for (const auto& [lot, qty] : lot_qty) EXPECT_TRUE(history_sum.contains(lot)) << lot;
  // LIFO and FIFO both happen: some trades close more than one lot.
  EXPECT_GT(data().Count(Table::kHoldingHistory), data().Count(Table::kTrade));
}

TEST_F(GeneratorTest, MarketTablesFollowTheReference) {
  for (const auto& f : data().Fields(Table::kDailyMarket)) {
    ASSERT_EQ(f.size(), 6u);
    const int64_t close = std::llround(std::stod(std::string(f[2])) * 100);
    ASSERT_GE(close, 2000);
    ASSERT_LE(close, 3000);
    ASSERT_EQ(std::llround(std::stod(std::string(f[3])) * 100), (close * 105 + 50) / 100);
    ASSERT_EQ(std::llround(std::stod(std::string(f[4])) * 100), (close * 92 + 50) / 100);
  }
  for (const auto& f : data().Fields(Table::kLastTrade)) {
    ASSERT_EQ(f.size(), 5u);
    EXPECT_EQ(f[1], "2005-01-05 09:00:00.000") << "end of initial trading at ITD 2";
    EXPECT_EQ(f[2], f[3]);
    EXPECT_EQ(f[4], "0");
  }
  int64_t listed = 0;
  for (const auto& f : data().Fields(Table::kExchange)) listed += std::stoll(std::string(f[2]));
  EXPECT_EQ(listed, 685);
  // Competitors are other companies of the same LU.
  for (const auto& f : data().Fields(Table::kCompanyCompetitor)) EXPECT_NE(f[0], f[1]);
}

}  // namespace
}  // namespace bb::loader
