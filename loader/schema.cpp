#include "loader/schema.h"

#include <cstddef>
#include <regex>

#include <fmt/format.h>

#include "common/util/embedded_file.h"

namespace bb::loader {

// Defined in the source that cmake/EmbedText.cmake generates from loader/sql/*.sql.
namespace sql {
extern const std::array<EmbeddedFile, 4> kSchemaFiles;
}  // namespace sql

namespace {

std::string_view PhaseText(SchemaPhase phase) {
  return sql::kSchemaFiles[static_cast<std::size_t>(phase)].text;
}

// Splits a file into statements: strips "--" comments, splits on ';'. Our SQL files keep
// ';' out of literals and comments, which the tests check by round trip.
std::vector<std::string> SplitStatements(std::string_view text) {
  std::vector<std::string> out;
  std::string current;
  bool in_comment = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_comment) {
      if (c == '\n') in_comment = false;
      continue;
    }
    if (c == '-' && i + 1 < text.size() && text[i + 1] == '-') {
      in_comment = true;
      continue;
    }
    if (c == ';') {
      auto first = current.find_first_not_of(" \n\t");
      if (first != std::string::npos) {
        auto last = current.find_last_not_of(" \n\t");
        out.push_back(current.substr(first, last - first + 1));
      }
      current.clear();
      continue;
    }
    current.push_back(c);
  }
  return out;
}

}  // namespace

std::string_view SchemaPhaseName(SchemaPhase phase) {
  switch (phase) {
    case SchemaPhase::kTables:
      return "tables";
    case SchemaPhase::kPrimaryKeys:
      return "primary keys";
    case SchemaPhase::kIndexes:
      return "indexes";
    case SchemaPhase::kForeignKeys:
      return "foreign keys";
  }
  return "?";
}

std::vector<std::string> SchemaStatements(SchemaPhase phase) {
  return SplitStatements(PhaseText(phase));
}

std::vector<std::string> TableNames() {
  static const std::regex kCreate(R"(^CREATE TABLE (\w+))");
  std::vector<std::string> names;
  for (const auto& statement : SchemaStatements(SchemaPhase::kTables)) {
    std::smatch m;
    if (std::regex_search(statement, m, kCreate)) names.push_back(m[1]);
  }
  return names;
}

Status ApplySchemaPhase(db::Connection& conn, SchemaPhase phase) {
  for (const auto& statement : SchemaStatements(phase)) {
    Status s = conn.Execute(statement);
    if (!s.ok()) {
      return Status::DbError(fmt::format("schema phase '{}': {} (statement: {})",
                                         SchemaPhaseName(phase), s.message(),
                                         statement.substr(0, statement.find('\n'))));
    }
  }
  return Status::Ok();
}

}  // namespace bb::loader
