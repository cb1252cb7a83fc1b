// bb-brokerage-house: the Brokerage House server. Options and wiring only; see server.h.
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "brokerage_house/call_dispatcher.h"
#include "brokerage_house/frame_runner.h"
#include "brokerage_house/handler.h"
#include "brokerage_house/server.h"
#include "common/db/connection.h"
#include "common/db/loaded_sizing.h"
#include "common/util/cli.h"
#include "common/util/logging.h"

namespace {

using bb::Result;
using bb::Status;

constexpr const char* kUsage = R"(Usage: bb-brokerage-house [options]

The Brokerage House: serves the TPC-E transactions to customer and market emulators over
TCP, running each as one database transaction on a pool of DB workers, and sends trade
requests to the market emulator after Trade-Order and Market-Feed commit.

  --listen HOST:PORT        address to serve (default 127.0.0.1:30000; loopback unless told),
                            or unix:PATH, a Unix-domain socket (cheaper on one host)
  --db CONNINFO             libpq connection string of a loaded database (PG* variables work)
  --frames server|client    server (default): each transaction is one call of a PL/pgSQL
                            function, installed in the database at start, one round trip;
                            client: the frames' statements one by one from here
  --no-db                   answer every request with a valid canned reply, no database (to
                            measure the harness's own ceiling)
  --workers N               database connections (default 2 x cores): with server-side
                            frames the I/O thread drives them itself, with client-side frames
                            each has a worker thread
  --queue N                 requests that may wait for a worker before clients get
                            "overloaded" (default 10000)
  --market HOST:PORT        the market emulator (or unix:PATH); without it trade requests are
                            counted as failed and trades stay pending
  --market-connections N    connections to the market emulator (default 4)
  --max-retries N           retries on serialization failure or deadlock (default 5)
  --customers N, --scale-factor N, --initial-trade-days N
                            the run's sizing, checked against every client's hello; with
                            --db it is read from the database and these must agree
  --summary-seconds N       period of the summary line in the log (default 10; 0: none)
  --log-file FILE           log there too (default: stderr only)
  --log-level LEVEL         trace, debug, info, warn, error (default info or SPDLOG_LEVEL)
  --port-file FILE          write the bound port there once listening (for --listen ...:0)
  --stats-file FILE         when stopped, write the totals per transaction type there (CSV:
                            requests, outcomes, retries, server time, database round trips
                            and statements)
  -h, --help                this text

Stops gracefully on SIGTERM or SIGINT: no new clients, queued requests served and answered.
Exit status: 0 stopped, 1 failed (the message says why), 2 bad usage.
)";

// --listen HOST:0 asks for an ephemeral port, reported through --port-file (tests and bench
// harness use it). ParseHostPort takes ports 1..65535 only, as every address we connect to
// needs, so port 0 is recognised here; anything else gets ParseHostPort's message.
Result<bb::HostPort> ParseListen(std::string_view option, std::string_view text) {
  if (text.size() > 2 && text.ends_with(":0")) {
    std::string with_port(text.substr(0, text.size() - 1));
    with_port += '1';
    auto hp = bb::ParseHostPort(option, with_port);
    if (hp.ok()) return bb::HostPort{hp->host, 0};
  }
  return bb::ParseHostPort(option, text);
}

struct Options {
  bb::bh::ServerOptions server;
  std::string conninfo;
  bool no_db = false;
  bool sizing_given = false;
  bb::bh::FrameOptions frames;
  std::string log_file;
  std::string log_level;
};

Result<Options> Parse(int argc, char** argv) {
  Options o;
  o.server.workers = static_cast<int>(2 * std::max(1u, std::thread::hardware_concurrency()));
  o.server.identity = {"bb-brokerage-house 0.1.0", 1000, 500, 10};
  for (bb::Args args(argc, argv); args.Next();) {
    const std::string& arg = args.option();
    if (arg == "--listen" || arg == "--market") {
      auto v = args.Value();
      if (!v.ok()) return v.status();
      auto hp = arg == "--listen" ? ParseListen(arg, *v) : bb::ParseHostPort(arg, *v);
      if (!hp.ok()) return hp.status();
      if (arg == "--listen") {
        o.server.listen = *hp;
      } else {
        o.server.market = *hp;
      }
    } else if (arg == "--db" || arg == "--log-file" || arg == "--log-level" ||
               arg == "--port-file" || arg == "--stats-file") {
      auto v = args.Value();
      if (!v.ok()) return v.status();
      (arg == "--db"           ? o.conninfo
       : arg == "--log-file"   ? o.log_file
       : arg == "--log-level"  ? o.log_level
       : arg == "--stats-file" ? o.server.stats_file
                               : o.server.port_file) = *v;
    } else if (arg == "--frames") {
      auto v = args.Value();
      if (!v.ok()) return v.status();
      auto mode = bb::bh::ParseFrameMode(*v);
      if (!mode.ok()) return mode.status();
      o.frames.mode = *mode;
    } else if (arg == "--no-db") {
      o.no_db = true;
    } else if (arg == "--workers" || arg == "--queue" || arg == "--market-connections" ||
               arg == "--max-retries" || arg == "--summary-seconds") {
      auto n = args.Number(arg == "--max-retries" || arg == "--summary-seconds" ? 0 : 1,
                           arg == "--queue" ? 10'000'000 : 100'000);
      if (!n.ok()) return n.status();
      if (arg == "--workers") o.server.workers = static_cast<int>(*n);
      if (arg == "--queue") o.server.queue_capacity = static_cast<std::size_t>(*n);
      if (arg == "--market-connections") o.server.market_connections = static_cast<int>(*n);
      if (arg == "--max-retries") o.frames.max_retries = static_cast<int>(*n);
      if (arg == "--summary-seconds") o.server.summary_seconds = static_cast<int>(*n);
    } else if (arg == "--customers" || arg == "--scale-factor" || arg == "--initial-trade-days") {
      auto n = args.Number(1, arg == "--customers" ? 1'000'000'000 : 100'000);
      if (!n.ok()) return n.status();
      o.sizing_given = true;
      auto& id = o.server.identity;
      if (arg == "--customers") id.customers_total = *n;
      if (arg == "--scale-factor") id.scale_factor = static_cast<int32_t>(*n);
      if (arg == "--initial-trade-days") id.initial_trade_days = static_cast<int32_t>(*n);
    } else {
      return Status::InvalidArgument(fmt::format("unknown option '{}' (see --help)", arg));
    }
  }
  if (o.no_db && !o.conninfo.empty()) {
    return Status::InvalidArgument("--no-db and --db exclude each other");
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = bb::ParseCommandLine(argc, argv, "bb-brokerage-house", kUsage, Parse);
  // Its sessions carry its name in pg_stat_activity (unless PGAPPNAME gives another), so that a
  // user, or the fault matrix test, tells them from other clients'. Set before any thread starts.
  ::setenv("PGAPPNAME", "bb-brokerage-house", /*overwrite=*/0);
  auto logger = bb::SetUpLogging("bh", o.log_level, o.log_file);
  if (!logger.ok()) {
    return bb::Fail("bb-brokerage-house", logger.status(), 2);
  }

  // Server-side frames: the I/O thread's own database sessions (CallDispatcher); client-side
  // frames and --no-db: a pool of worker threads, each with a handler.
  bb::bh::SinkFactory sink;
  bb::bh::HandlerFactory factory;
  if (o.no_db) {
    factory = [] { return Result<std::unique_ptr<bb::bh::Handler>>(bb::bh::MakeCannedHandler()); };
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
      sink = bb::bh::MakeCallDispatcher(o.conninfo, o.frames);
    } else {
      factory = [conninfo = o.conninfo, frames = o.frames] {
        return bb::bh::MakeDatabaseHandler(conninfo, frames);
      };
    }
  }
  spdlog::info("serving customers {}, scale factor {}, initial trade days {}{}",
               o.server.identity.customers_total, o.server.identity.scale_factor,
               o.server.identity.initial_trade_days,
               o.no_db ? " (no database)"
                       : fmt::format(" ({}-side frames)", bb::bh::FrameModeName(o.frames.mode)));
  bb::bh::Server server = sink ? bb::bh::Server(o.server, std::move(sink))
                               : bb::bh::Server(o.server, std::move(factory));
  Status s = server.Run();
  if (!s.ok()) {
    spdlog::error("{}", s.message());
    return 1;
  }
  return 0;
}
