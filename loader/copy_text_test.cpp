#include "loader/copy_text.h"

#include <set>
#include <string>

#include <gtest/gtest.h>

#include "loader/schema.h"
#include "loader/tables.h"

namespace bb::loader {
namespace {

TEST(CopyText, FormatsFieldsAndRows) {
  CopyText t;
  t.Int(-42).Fixed(12345, 2).Fixed(-5, 2).Fixed(7, 0).Bool(true).Null().Text("a\tb\\c\nd");
  t.EndRow();
  t.Int(1).EndRow();
  EXPECT_EQ(t.view(), "-42\t123.45\t-0.05\t7\tt\t\\N\ta\\tb\\\\c\\nd\n1\n");
  t.Clear();
  EXPECT_TRUE(t.empty());
  t.Fixed(100000, 5).EndRow();
  EXPECT_EQ(t.view(), "1.00000\n");
}

TEST(Tables, NamesMatchTheSchema) {
  std::set<std::string> from_enum;
  for (Table table : AllTables()) from_enum.insert(std::string(TableName(table)));
  auto names = TableNames();
  EXPECT_EQ(from_enum, std::set<std::string>(names.begin(), names.end()));
}

}  // namespace
}  // namespace bb::loader
