// Shared by the generator's tests (generator_test.cpp, generator_data_test.cpp): the generated
// rows captured per table, the schema read back from the DDL to check them against, and the
// fixture that generates 1 000 customers once for the whole binary.
#pragma once

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
#include "loader/generator.h"
#include "loader/schema.h"

namespace bb::loader::generator_test {

using ::testing::HasSubstr;
using workload::Sizing;

// 1 000 customers and 2 initial trade days: 115 200 trades, generated in about a second.
inline constexpr Sizing kSizing{.customers = 1000, .scale_factor = 500, .initial_trade_days = 2};

inline std::vector<std::string_view> Split(std::string_view row, char sep = '\t') {
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
inline std::unique_ptr<Generated> GenerateUnits(const Sizing& sizing, std::vector<WorkUnit> units,
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

inline std::string Trim(std::string s) {
  s.erase(0, s.find_first_not_of(" \t\n"));
  s.erase(s.find_last_not_of(" ,\t\n") + 1);
  return s;
}

inline std::vector<int> ColumnList(const TableSchema& t, const std::string& list) {
  std::vector<int> out;
  for (std::string_view name : Split(list, ',')) out.push_back(t.Index(Trim(std::string(name))));
  return out;
}

struct Schema {
  std::map<std::string, TableSchema> tables;
  std::vector<ForeignKey> foreign_keys;
};

inline Schema ParseSchema() {
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
  // A key's INCLUDE columns (index-only reads) are not part of what must be unique.
  static const std::regex kPrimary(
      R"(^ALTER TABLE (\w+) ADD PRIMARY KEY \(([^)]*)\)(?: INCLUDE \([^)]*\))?$)");
  for (const std::string& statement : SchemaStatements(SchemaPhase::kPrimaryKeys)) {
    std::smatch m;
    EXPECT_TRUE(std::regex_match(statement, m, kPrimary)) << statement;
    if (m.empty()) continue;
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
inline size_t TextLength(std::string_view field) {
  size_t n = 0;
  for (size_t i = 0; i < field.size(); ++i, ++n) {
    if (field[i] == '\\') ++i;
  }
  return n;
}

inline bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// True when `s` has the shape of `pattern`, where '9' stands for any digit.
inline bool Matches(std::string_view s, std::string_view pattern) {
  if (s.size() != pattern.size()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (pattern[i] == '9' ? !std::isdigit(static_cast<unsigned char>(s[i])) : s[i] != pattern[i]) {
      return false;
    }
  }
  return true;
}

// Empty when the field is valid for the column, else what is wrong.
inline std::string FieldProblem(const Column& col, std::string_view f) {
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

inline std::string Key(const std::vector<std::string_view>& fields,
                       const std::vector<int>& columns) {
  std::string key;
  for (int c : columns) {
    key += fields[static_cast<size_t>(c)];
    key += '\t';
  }
  return key;
}
// Keys are compared by a 64-bit hash: a false match among a few million keys is unlikely
// (about 1e-7) and would only hide a duplicate, never invent one.
inline uint64_t KeyHash(const std::vector<std::string_view>& fields,
                        const std::vector<int>& columns) {
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

}  // namespace bb::loader::generator_test
