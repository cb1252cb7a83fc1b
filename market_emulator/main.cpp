// bb-market-emulator: the Market Exchange Emulator. Options and wiring only; see emulator.h.
#include <cstring>
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/util/cli.h"
#include "common/util/logging.h"
#include "common/workload/inputs.h"
#include "market_emulator/emulator.h"

namespace {

using bb::Result;
using bb::Status;

constexpr const char* kUsage = R"(Usage: bb-market-emulator [options]

The Market Exchange Emulator: takes trade requests from one or more
Brokerage Houses, completes market and triggered limit orders after a processing delay at the
price curve's price, turns limit orders into ticker trigger entries when the curve reaches
their limit, and delivers Trade-Result and Market-Feed to the Brokerage House over a pool of
concurrent connections.

  --listen HOST:PORT          address for the Brokerage Houses' orders (default 127.0.0.1:30001),
                              or unix:PATH (a Unix-domain socket: cheaper on one host)
  --port-file FILE            write the bound port there once listening (for --listen ...:0)
  --bh HOST:PORT              the Brokerage House to deliver to (default 127.0.0.1:30000), or
                              unix:PATH
  --bh-port-file FILE         read the Brokerage House's port from FILE (its --port-file) before
                              each connection attempt; the port of --bh is then ignored
  --delivery-connections N    connections to the Brokerage House (default 4)
  --max-in-flight N           requests outstanding per connection, 1 = closed loop (default 8)
  --customers N, --scale-factor N, --initial-trade-days N
                              the run's sizing (default 1000, 500, 10), checked in every hello
  --seed N                    fix the seed of the processing delays and artificial ticker
                              entries (default: from the time of day and the process id, as
                              clause 5.8.2 wants; the seed in use is logged at the start)
  --max-pending N             orders held at most (timers, triggers, due deliveries); beyond
                              it orders are refused and logged as failed (default 1000000)
  --out DIR                   where mix-mee.csv (the mix log, postprocess/MIXLOG.md),
                              failed-trades.csv (trade_id,code,reason of every order refused,
                              lost in flight or whose Trade-Result was not sent by the stop)
                              and, at stop, pending-trades.csv (trade_id,code,state of every
                              order the market had not finished with) go (default .)
  --summary-seconds N         period of the summary line (default 10; 0: none)
  --metrics-listen HOST:PORT  serve live metrics (OpenMetrics, for Prometheus or curl) at
                              http://HOST:PORT/metrics while it runs; port 0 takes a free one
                              (default: no endpoint)
  --metrics-port-file FILE    write the metrics endpoint's port there once it listens
  --drain-seconds N           at stop, time given to due deliveries (default 5)
  --log-file FILE             log there too (default: stderr only)
  --log-level LEVEL           trace, debug, info, warn, error (default info or SPDLOG_LEVEL)
  -h, --help                  this text

Stops cleanly on SIGTERM or SIGINT: no new orders, due deliveries drained, every row written.
Exit status: 0 stopped, 1 failed (the message says why), 2 bad usage.
)";

struct Options {
  bb::mee::EmulatorOptions emulator;
  std::string log_file;
  std::string log_level;
  bool seed_fixed = false;
};

Result<Options> Parse(int argc, char** argv) {
  Options o;
  o.emulator.seed = bb::workload::TimeOfDaySeed();
  o.emulator.sizing = {.customers = 1000, .scale_factor = 500, .initial_trade_days = 10};
  for (bb::Args args(argc, argv); args.Next();) {
    const std::string& arg = args.option();
    if (arg == "--listen" || arg == "--bh") {
      auto v = args.Value();
      if (!v.ok()) return v.status();
      // --listen HOST:0 asks for a port the system picks, reported through --port-file.
      auto hp = arg == "--listen" ? bb::ParseListenAddress(arg, *v) : bb::ParseHostPort(arg, *v);
      if (!hp.ok()) return hp.status();
      (arg == "--listen" ? o.emulator.listen : o.emulator.bh) = *hp;
    } else if (arg == "--port-file" || arg == "--bh-port-file" || arg == "--out" ||
               arg == "--log-file" || arg == "--log-level") {
      auto v = args.Value();
      if (!v.ok()) return v.status();
      (arg == "--port-file"      ? o.emulator.port_file
       : arg == "--bh-port-file" ? o.emulator.bh_port_file
       : arg == "--out"          ? o.emulator.out_dir
       : arg == "--log-file"     ? o.log_file
                                 : o.log_level) = *v;
    } else if (arg == "--metrics-listen") {
      auto v = args.Value();
      if (!v.ok()) return v.status();
      auto address = bb::ParseListenAddress(arg, *v);
      if (!address.ok()) return address.status();
      o.emulator.metrics_listen = *address;
    } else if (arg == "--metrics-port-file") {
      auto v = args.Value();
      if (!v.ok()) return v.status();
      o.emulator.metrics_port_file = *v;
    } else if (arg == "--delivery-connections" || arg == "--max-in-flight") {
      auto n = args.Number(1, 1024);
      if (!n.ok()) return n.status();
      (arg == "--delivery-connections" ? o.emulator.delivery_connections
                                       : o.emulator.max_in_flight) = static_cast<int>(*n);
    } else if (arg == "--summary-seconds" || arg == "--drain-seconds") {
      auto n = args.Number(0, 3600);
      if (!n.ok()) return n.status();
      (arg == "--summary-seconds" ? o.emulator.summary_seconds : o.emulator.drain_seconds) =
          static_cast<int>(*n);
    } else if (arg == "--max-pending") {
      auto n = args.Number(1, 100'000'000);
      if (!n.ok()) return n.status();
      o.emulator.max_pending = static_cast<size_t>(*n);
    } else if (arg == "--seed") {
      auto n = args.Number(0, INT64_MAX);
      if (!n.ok()) return n.status();
      o.emulator.seed = static_cast<uint64_t>(*n);
      o.seed_fixed = true;
    } else if (arg == "--customers" || arg == "--scale-factor" || arg == "--initial-trade-days") {
      auto n = args.Number(1, bb::workload::kMaxCustomers);
      if (!n.ok()) return n.status();
      auto& s = o.emulator.sizing;
      (arg == "--customers"      ? s.customers
       : arg == "--scale-factor" ? s.scale_factor
                                 : s.initial_trade_days) = *n;
    } else {
      return Status::InvalidArgument(fmt::format("unknown option '{}' (see --help)", arg));
    }
  }
  if (Status s = o.emulator.sizing.Validate(); !s.ok()) return s;
  if (!o.emulator.metrics_port_file.empty() && !o.emulator.metrics_listen) {
    return Status::InvalidArgument("--metrics-port-file: needs --metrics-listen");
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(o.emulator.out_dir, ec)) {
    return Status::InvalidArgument(
        fmt::format("--out: '{}' is not a directory", o.emulator.out_dir));
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = bb::ParseCommandLine(argc, argv, "bb-market-emulator", kUsage, Parse);
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
