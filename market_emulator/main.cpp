// bb-market-emulator: the Market Exchange Emulator. Options and wiring only; see emulator.h.
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/util/cli_app.h"
#include "common/util/logging.h"
#include "common/workload/inputs.h"
#include "common/workload/sizing_options.h"
#include "market_emulator/emulator.h"

namespace {

using bb::Status;

constexpr const char* kAbout =
    R"(The Market Exchange Emulator: takes trade requests from one or more
Brokerage Houses, completes market and triggered limit orders after a processing delay at the
price curve's price, turns limit orders into ticker trigger entries when the curve reaches
their limit, and delivers Trade-Result and Market-Feed to the Brokerage House over a pool of
concurrent connections.
)";

constexpr const char* kFooter =
    R"(Stops cleanly on SIGTERM or SIGINT: no new orders, due deliveries drained, every row written.
Exit status: 0 stopped, 1 failed (the message says why), 2 bad usage.)";

struct Options {
  bb::mee::EmulatorOptions emulator;
  std::string log_file;
  std::string log_level;
  bool seed_fixed = false;
};

// The rules between options.
Status CheckOptions(const bb::mee::EmulatorOptions& e) {
  if (Status s = e.sizing.Validate(); !s.ok()) return s;
  if (!e.metrics_port_file.empty() && !e.metrics_listen) {
    return Status::InvalidArgument("--metrics-port-file: needs --metrics-listen");
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(e.out_dir, ec)) {
    return Status::InvalidArgument(fmt::format("--out: '{}' is not a directory", e.out_dir));
  }
  return Status::Ok();
}

void DefineOptions(CLI::App& app, Options& o) {
  namespace cli = bb::cli;
  using cli::Range;
  auto& e = o.emulator;
  e.seed = bb::workload::TimeOfDaySeed();
  e.sizing = {.customers = 1000, .scale_factor = 500, .initial_trade_days = 10};
  cli::Configure(app);
  app.footer(kFooter);
  // --listen HOST:0 asks for a port the system picks, reported through --port-file.
  cli::AddAddress(app, "--listen", e.listen,
                  "address for the Brokerage Houses' orders (default 127.0.0.1:30001),\n"
                  "or unix:PATH (a Unix-domain socket: cheaper on one host)",
                  /*listen=*/true);
  app.add_option("--port-file", e.port_file,
                 "write the bound port there once listening (for --listen ...:0)")
      ->type_name("FILE");
  cli::AddAddress(app, "--bh", e.bh,
                  "the Brokerage House to deliver to (default 127.0.0.1:30000), or\n"
                  "unix:PATH");
  app.add_option("--bh-port-file", e.bh_port_file,
                 "read the Brokerage House's port from FILE (its --port-file) before\n"
                 "each connection attempt; the port of --bh is then ignored")
      ->type_name("FILE");
  app.add_option("--delivery-connections", e.delivery_connections,
                 "connections to the Brokerage House (default 4)")
      ->check(Range(1, 1024));
  app.add_option("--max-in-flight", e.max_in_flight,
                 "requests outstanding per connection, 1 = closed loop (default 8)")
      ->check(Range(1, 1024));
  bb::workload::AddSizingOptions(app, e.sizing.customers, e.sizing.scale_factor,
                                 e.sizing.initial_trade_days,
                                 "the run's sizing, checked in every hello");
  auto* seed = app.add_option("--seed", e.seed,
                              "fix the seed of the processing delays and artificial ticker\n"
                              "entries (default: from the time of day and the process id, as\n"
                              "clause 5.8.2 wants; the seed in use is logged at the start)")
                   ->check(Range(0, INT64_MAX));
  app.add_option("--max-pending", e.max_pending,
                 "orders held at most (timers, triggers, due deliveries); beyond\n"
                 "it orders are refused and logged as failed (default 1000000)")
      ->check(Range(1, 100'000'000));
  app.add_option("--out", e.out_dir,
                 "where mix-mee.csv (the mix log, postprocess/MIXLOG.md),\n"
                 "failed-trades.csv (trade_id,code,reason of every order refused,\n"
                 "lost in flight or whose Trade-Result was not sent by the stop)\n"
                 "and, at stop, pending-trades.csv (trade_id,code,state of every\n"
                 "order the market had not finished with) go (default .)")
      ->type_name("DIR");
  app.add_option("--summary-seconds", e.summary_seconds,
                 "period of the summary line (default 10; 0: none)")
      ->check(Range(0, 3600));
  cli::AddMetricsOptions(app, e.metrics_listen, e.metrics_port_file);
  app.add_option("--drain-seconds", e.drain_seconds,
                 "at stop, time given to due deliveries (default 5)")
      ->check(Range(0, 3600));
  app.add_option("--log-file", o.log_file, "log there too (default: stderr only)")
      ->type_name("FILE");
  app.add_option("--log-level", o.log_level,
                 "trace, debug, info, warn, error (default info or SPDLOG_LEVEL)")
      ->type_name("LEVEL");
  cli::CheckAfterParse(app, [&o, seed] {
    o.seed_fixed = seed->count() > 0;
    return CheckOptions(o.emulator);
  });
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app(kAbout, "bb-market-emulator");
  DefineOptions(app, o);
  bb::cli::ParseOrExit(app, argc, argv);
  auto logger = bb::SetUpLogging("mee", o.log_level, o.log_file);
  if (!logger.ok()) {
    return bb::Fail("bb-market-emulator", logger.status(), 2);
  }
  spdlog::info("seed {} ({})", o.emulator.seed, o.seed_fixed ? "--seed" : "from the time of day");
  bb::mee::MarketEmulator emulator(std::move(o.emulator));
  if (Status s = emulator.Run(); !s.ok()) {
    spdlog::error("{}", s.message());
    return 1;
  }
  return 0;
}
