// bb-brokerage-house: the Brokerage House server. Options and wiring only; see server.h.
#include <cstdlib>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "brokerage_house/blocking_runner.h"
#include "brokerage_house/call_lanes.h"
#include "brokerage_house/frame_runner.h"
#include "brokerage_house/server.h"
#include "brokerage_house/worker_lanes.h"
#include "common/db/connection.h"
#include "common/db/loaded_sizing.h"
#include "common/util/cli_app.h"
#include "common/util/logging.h"
#include "common/workload/sizing_options.h"

namespace {

using bb::Result;
using bb::Status;

constexpr const char* kAbout =
    R"(The Brokerage House: serves the TPC-E transactions to customer and market emulators over
TCP, running each as one database transaction on one of --workers database sessions (none
with --no-db), and sends trade requests to the market emulator after Trade-Order and
Market-Feed commit.
)";

constexpr const char* kFooter =
    R"(Stops gracefully on SIGTERM or SIGINT: no new clients, queued requests served and answered.
Exit status: 0 stopped, 1 failed (the message says why), 2 bad usage.)";

struct Options {
  bb::bh::ServerOptions server;
  std::string conninfo;
  bool no_db = false;
  bool sizing_given = false;
  bb::bh::FrameOptions frames;
  std::string log_file;
  std::string log_level;
};

void DefineOptions(CLI::App& app, Options& o) {
  namespace cli = bb::cli;
  using cli::Range;
  auto& s = o.server;
  s.workers = static_cast<int>(2 * std::max(1u, std::thread::hardware_concurrency()));
  s.identity = {"bb-brokerage-house 0.1.0", 1000, 500, 10};
  cli::Configure(app);
  app.footer(kFooter);
  // --listen HOST:0 asks for an ephemeral port, reported through --port-file (tests and the
  // bench harness use it).
  cli::AddAddress(app, "--listen", s.listen,
                  "address to serve (default 127.0.0.1:30000; loopback unless told),\n"
                  "or unix:PATH, a Unix-domain socket (cheaper on one host)",
                  /*listen=*/true);
  app.add_option("--db", o.conninfo,
                 "libpq connection string of a loaded database (PG* variables work)")
      ->type_name("CONNINFO");
  cli::AddParsed(app, "--frames", o.frames.mode, bb::bh::ParseFrameMode,
                 "server (default): each transaction is one call of a PL/pgSQL\n"
                 "function, installed in the database at start, one round trip;\n"
                 "client: the frames' statements one by one from here")
      ->type_name("server|client");
  app.add_flag("--no-db", o.no_db,
               "answer every request with a valid canned reply, no database (to\n"
               "measure the harness's own ceiling)");
  app.add_option("--workers", s.workers,
                 "database connections (default 2 x cores): with server-side\n"
                 "frames the I/O thread drives them itself, with client-side frames\n"
                 "each has a worker thread")
      ->check(Range(1, 100'000));
  app.add_option("--queue", s.queue_capacity,
                 "requests that may wait for a worker before clients get\n"
                 "\"overloaded\" (default 10000)")
      ->check(Range(1, 10'000'000));
  cli::AddAddress(app, "--market", s.market,
                  "the market emulator (or unix:PATH); without it trade requests are\n"
                  "counted as failed and trades stay pending");
  app.add_option("--market-connections", s.market_connections,
                 "connections to the market emulator (default 4)")
      ->check(Range(1, 100'000));
  app.add_option("--max-retries", o.frames.max_retries,
                 "retries on serialization failure or deadlock (default 5)")
      ->check(Range(0, 100'000));
  const auto sizing = bb::workload::AddSizingOptions(
      app, s.identity.customers_total, s.identity.scale_factor, s.identity.initial_trade_days,
      "the run's sizing, checked against every client's hello; with --db\n"
      "it is read from the database and the sizing options must agree");
  app.add_option("--summary-seconds", s.summary_seconds,
                 "period of the summary line in the log (default 10; 0: none)")
      ->check(Range(0, 100'000));
  app.add_option("--log-file", o.log_file, "log there too (default: stderr only)")
      ->type_name("FILE");
  app.add_option("--log-level", o.log_level,
                 "trace, debug, info, warn, error (default info or SPDLOG_LEVEL)")
      ->type_name("LEVEL");
  app.add_option("--port-file", s.port_file,
                 "write the bound port there once listening (for --listen ...:0)")
      ->type_name("FILE");
  app.add_option("--stats-file", s.stats_file,
                 "when stopped, write the totals per transaction type there (CSV:\n"
                 "requests, outcomes, retries, server time, database round trips\n"
                 "and statements)")
      ->type_name("FILE");
  cli::CheckAfterParse(app, [&o, sizing] {
    o.sizing_given = sizing.given();
    if (o.no_db && !o.conninfo.empty()) {
      return Status::InvalidArgument("--no-db and --db exclude each other");
    }
    return Status::Ok();
  });
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app(kAbout, "bb-brokerage-house");
  DefineOptions(app, o);
  bb::cli::ParseOrExit(app, argc, argv);
  // Its sessions carry its name in pg_stat_activity (unless PGAPPNAME gives another), so that a
  // user, or the fault matrix test, tells them from other clients'. Set before any thread starts.
  ::setenv("PGAPPNAME", "bb-brokerage-house", /*overwrite=*/0);
  auto logger = bb::SetUpLogging("bh", o.log_level, o.log_file);
  if (!logger.ok()) {
    return bb::Fail("bb-brokerage-house", logger.status(), 2);
  }

  // One Dispatcher serves every mode; its lanes differ. Server-side frames: the I/O thread's
  // own database sessions (CallLanes); client-side frames and --no-db: worker threads, each with
  // a blocking runner (WorkerLanes).
  bb::bh::LanesFactory lanes;
  if (o.no_db) {
    lanes = bb::bh::MakeWorkerLanes(
        [] { return Result<std::unique_ptr<bb::bh::BlockingRunner>>(bb::bh::MakeCannedRunner()); });
  } else {
    // The sizing the database was loaded with is the run's sizing.
    auto conn = bb::db::Connection::Open(o.conninfo);
    if (!conn.ok()) {
      spdlog::error("{}", conn.status().message());
      return 1;
    }
    auto loaded = bb::db::ReadLoadedSizing(**conn);
    if (!loaded.ok()) {
      spdlog::error("{}", loaded.status().message());
      return 1;
    }
    auto& id = o.server.identity;
    if (o.sizing_given &&
        (id.customers_total != loaded->customers || id.scale_factor != loaded->scale_factor ||
         id.initial_trade_days != loaded->initial_trade_days)) {
      spdlog::error(
          "the sizing given (customers {}, scale factor {}, initial trade days {}) is "
          "not the database's (customers {}, scale factor {}, initial trade days {})",
          id.customers_total, id.scale_factor, id.initial_trade_days, loaded->customers,
          loaded->scale_factor, loaded->initial_trade_days);
      return 2;
    }
    id.customers_total = loaded->customers;
    id.scale_factor = static_cast<int32_t>(loaded->scale_factor);
    id.initial_trade_days = static_cast<int32_t>(loaded->initial_trade_days);
    if (o.frames.mode == bb::bh::FrameMode::kServer) {
      Status installed = bb::bh::InstallFrameFunctions(o.conninfo);
      if (!installed.ok()) {
        spdlog::error("{}", installed.message());
        return 1;
      }
    }
    if (o.frames.mode == bb::bh::FrameMode::kServer) {
      lanes = bb::bh::MakeCallLanes(o.conninfo, o.frames);
    } else {
      lanes = bb::bh::MakeWorkerLanes([conninfo = o.conninfo, frames = o.frames] {
        return bb::bh::MakeClientFramesRunner(conninfo, frames);
      });
    }
  }
  spdlog::info("serving customers {}, scale factor {}, initial trade days {}{}",
               o.server.identity.customers_total, o.server.identity.scale_factor,
               o.server.identity.initial_trade_days,
               o.no_db ? " (no database)"
                       : fmt::format(" ({}-side frames)", bb::bh::FrameModeName(o.frames.mode)));
  bb::bh::Server server(o.server, std::move(lanes));
  Status s = server.Run();
  if (!s.ok()) {
    spdlog::error("{}", s.message());
    return 1;
  }
  return 0;
}
