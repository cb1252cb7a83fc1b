// The server-side frames: installing the PL/pgSQL functions of frames/sql/ (compiled into the
// program by cmake/EmbedText.cmake) into the database.
//
// Every function is declared with enable_seqscan, enable_hashjoin and enable_mergejoin off:
// its statements, each about a few rows, reach the tables that grow with the database through
// index lookups at every size (nested loops). At 1000 customers the planner would rather read
// a one-page BROKER or an 800-row LAST_TRADE whole (by a scan, or by a full index scan for a
// merge join), which costs little there, grows with every customer, and under SERIALIZABLE
// locks the whole table against every concurrent writer (Trade-Result's retry storm;
// BENCHMARKS.md). The plan guard (tests/plan_guard_db_test.cpp) holds the functions to it.
#include <array>
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "brokerage_house/frame_runner.h"
#include "common/db/connection.h"
#include "common/util/embedded_file.h"

namespace bb::bh {

// Defined in the source that cmake/EmbedText.cmake generates from frames/sql/*.sql.
namespace sql {
extern const std::array<EmbeddedFile, 12> kFrameFunctions;
}  // namespace sql

namespace {

// The version of the functions: FNV-1a over every file's name and text, so a database holding
// another build's functions gets this build's.
std::string Version() {
  uint64_t h = 14695981039346656037ULL;
  for (const EmbeddedFile& f : sql::kFrameFunctions) {
    for (std::string_view part : {f.name, f.text}) {
      for (char c : part) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    }
  }
  return fmt::format("{:016x}", h);
}

}  // namespace

Status InstallFrameFunctions(const std::string& conninfo) {
  auto conn = db::Connection::Open(conninfo);
  if (!conn.ok()) return conn.status();
  const std::string version = Version();
  auto installed = (*conn)->Query("SELECT bb_frames_version()");
  if (installed.ok() && installed->values.size() == 1 && installed->values[0][0] == version) {
    return Status::Ok();
  }
  // One transaction: every function or none, and a second installer waits for the first.
  std::string script = "BEGIN;\nSELECT pg_advisory_xact_lock(hashtext('brokerbench frames'));\n";
  for (const EmbeddedFile& f : sql::kFrameFunctions) {
    script += f.text;
    script += "\n";
  }
  script += fmt::format(
      "CREATE OR REPLACE FUNCTION bb_frames_version() RETURNS text LANGUAGE sql IMMUTABLE "
      "AS $$ SELECT '{}' $$;\nCOMMIT;\n",
      version);
  Status s = (*conn)->Execute(script);
  if (!s.ok()) {
    return Status::DbError(fmt::format(
        "cannot install the server-side frames (PL/pgSQL functions) in the database: {}; the "
        "database user needs CREATE on its schema, or run the frames from the client "
        "(--frames client)",
        s.message()));
  }
  return Status::Ok();
}

}  // namespace bb::bh
