#include "loader/schema.h"

#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace bb::loader {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

TEST(Schema, HasThe33TablesOfTheReference) {
  auto names = TableNames();
  EXPECT_EQ(names.size(), 33u);
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), 33u);
}

TEST(Schema, StatementsAreCleanAndComplete) {
  for (SchemaPhase phase : kSchemaPhases) {
    auto statements = SchemaStatements(phase);
    ASSERT_FALSE(statements.empty()) << SchemaPhaseName(phase);
    for (const auto& s : statements) {
      EXPECT_THAT(s, Not(HasSubstr("--"))) << s;
      EXPECT_THAT(s, Not(HasSubstr(";"))) << s;
    }
  }
  // One primary key per table; the later phases only alter or index existing tables.
  EXPECT_EQ(SchemaStatements(SchemaPhase::kPrimaryKeys).size(), 33u);
  for (const auto& s : SchemaStatements(SchemaPhase::kForeignKeys)) {
    EXPECT_THAT(s, StartsWith("ALTER TABLE "));
  }
  for (const auto& s : SchemaStatements(SchemaPhase::kIndexes)) {
    EXPECT_THAT(s, StartsWith("CREATE INDEX "));
  }
}

}  // namespace
}  // namespace bb::loader
