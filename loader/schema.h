// The TPC-E schema (clause 2.2), in four phases so that data can be loaded before keys and
// indexes are built: tables (with NOT NULL and CHECK constraints), primary keys, secondary
// indexes, foreign keys. The SQL lives in loader/sql/ and is compiled into the program.
//
// Thread-safety: the functions are pure or work on the Connection given; statements of one
// phase after the first are independent of each other and may run on several connections.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "common/db/connection.h"
#include "common/util/status.h"

namespace bb::loader {

enum class SchemaPhase { kTables, kPrimaryKeys, kIndexes, kForeignKeys };

inline constexpr std::array<SchemaPhase, 4> kSchemaPhases = {
    SchemaPhase::kTables, SchemaPhase::kPrimaryKeys, SchemaPhase::kIndexes,
    SchemaPhase::kForeignKeys};

std::string_view SchemaPhaseName(SchemaPhase phase);

// The statements of a phase, in file order, without comments or the trailing ';'.
std::vector<std::string> SchemaStatements(SchemaPhase phase);

// Names of the 33 tables, in the order they are created.
std::vector<std::string> TableNames();

// Runs every statement of a phase on one connection; stops at the first error, naming the
// statement that failed.
Status ApplySchemaPhase(db::Connection& conn, SchemaPhase phase);

}  // namespace bb::loader
