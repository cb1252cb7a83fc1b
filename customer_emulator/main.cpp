// bb-customer-emulator: the Customer Emulator. Options and wiring only; see emulator.h.
#include <cstring>
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include "common/util/cli.h"
#include "common/util/logging.h"
#include "common/workload/inputs.h"
#include "customer_emulator/emulator.h"

namespace {

using bb::Result;
using bb::Status;

constexpr const char* kUsage = R"(Usage: bb-customer-emulator [options]

The Customer Emulator: emulated users that each draw the next transaction from the TPC-E
mix deck, send it to the Brokerage House, wait for the reply and log a mix row; one
Trade-Cleanup before the users start and one Data-Maintenance every 60 s.

  --bh HOST:PORT              the Brokerage House (default 127.0.0.1:30000), or unix:PATH (a
                              Unix-domain socket: cheaper when both run on one host)
  --customers N, --scale-factor N, --initial-trade-days N
                              the run's sizing (default 1000, 500, 10); the Brokerage House
                              refuses a hello with another
  --users N                   emulated users (default 10)
  --ramp-up DURATION          time before START: users start spread evenly over its first
                              minute (all of it if shorter), then run at full load until it
                              ends (default 0; e.g. 30s, 10m)
  --duration DURATION         measured time from START (all users running) to STOP
                              (default 60s)
  --pacing SECONDS            each user's interval from one request's start to the next's
                              (a reply later than that: the next request at once; default
                              0: no wait; e.g. 0.5)
  --seed N                    fix the run's seed (users' decks and inputs follow from it) to
                              replay a run (default: from the time of day and the process id,
                              as clause 5.8.2 wants; the seed in use is logged at the start)
  --partition-first N         first customer ordinal (1-based) this emulator owns (spec 5.4:
  --partition-customers N     half the customers drawn from it, half from all); both or none
  --connections N             TCP connections to the Brokerage House (default min(users, 64))
  --out DIR                   write the mix log to DIR/mix-ce-<pid>.csv (default .)
  --mix-log FILE              write the mix log to FILE instead
  --no-trade-cleanup          skip the Trade-Cleanup before the users start
  --no-data-maintenance       send no Data-Maintenance (with several emulators, exactly one
                              sends it: spec 6.3.3, one every 60 s for the whole system)
  --stop-wait DURATION        at the end, how long to wait for outstanding replies before
                              logging them as timeouts (default 30s)
  --progress-seconds N        period of the progress line on stderr (default 5; 0: none)
  --metrics-listen HOST:PORT  serve live metrics (OpenMetrics, for Prometheus or curl) at
                              http://HOST:PORT/metrics while the run runs; port 0 takes a
                              free one (default: no endpoint)
  --metrics-port-file FILE    write the metrics endpoint's port there once it listens
  --log-level LEVEL           trace, debug, info, warn, error (default info or SPDLOG_LEVEL)
  -h, --help                  this text

DURATION is a number of seconds with an optional unit s, m or h. Stops on SIGTERM or SIGINT:
no new requests, outstanding replies awaited (bounded), STOP written, every row flushed.
Exit status: 0 done, 1 failed (the message says why), 2 bad usage.
)";

struct Options {
  bb::ce::EmulatorOptions emulator;
  std::string out_dir = ".";
  std::string log_level;
  bool seed_fixed = false;
};

Result<Options> Parse(int argc, char** argv) {
  Options o;
  auto& e = o.emulator;
  e.seed = bb::workload::TimeOfDaySeed();
  for (bb::Args args(argc, argv); args.Next();) {
    const std::string& arg = args.option();
    auto duration = [&](int64_t max_seconds) -> Result<int64_t> {
      auto v = args.Value();
      if (!v.ok()) return v.status();
      return bb::ParseDurationSeconds(arg, *v, 0, max_seconds);
    };
    if (arg == "--bh") {
      auto v = args.Value();
      if (!v.ok()) return v.status();
      auto hp = bb::ParseHostPort(arg, *v);
      if (!hp.ok()) return hp.status();
      e.bh = *hp;
    } else if (arg == "--customers" || arg == "--scale-factor" || arg == "--initial-trade-days") {
      auto n = args.Number(1, arg == "--customers"      ? bb::workload::kMaxCustomers
                         : arg == "--scale-factor" ? bb::workload::kMaxScaleFactor
                                                   : bb::workload::kMaxInitialTradeDays);
      if (!n.ok()) return n.status();
      (arg == "--customers"      ? e.sizing.customers
       : arg == "--scale-factor" ? e.sizing.scale_factor
                                 : e.sizing.initial_trade_days) = *n;
    } else if (arg == "--users" || arg == "--connections" || arg == "--progress-seconds") {
      auto n = args.Number(arg == "--progress-seconds" ? 0 : 1, arg == "--users"         ? 1'000'000
                                                           : arg == "--connections" ? 4096
                                                                                    : 3600);
      if (!n.ok()) return n.status();
      (arg == "--users"         ? e.users
       : arg == "--connections" ? e.connections
                                : e.progress_seconds) = static_cast<int>(*n);
    } else if (arg == "--seed") {
      auto n = args.Number(0, INT64_MAX);
      if (!n.ok()) return n.status();
      e.seed = static_cast<uint64_t>(*n);
      o.seed_fixed = true;
    } else if (arg == "--partition-first" || arg == "--partition-customers") {
      auto n = args.Number(1, bb::workload::kMaxCustomers);
      if (!n.ok()) return n.status();
      (arg == "--partition-first" ? e.partition_first : e.partition_customers) = *n;
    } else if (arg == "--ramp-up" || arg == "--duration" || arg == "--stop-wait") {
      auto s = duration(arg == "--stop-wait" ? 3600 : 30 * 86400);
      if (!s.ok()) return s.status();
      std::chrono::milliseconds ms = std::chrono::seconds(*s);
      (arg == "--ramp-up" ? e.ramp_up : arg == "--duration" ? e.duration : e.stop_wait) = ms;
    } else if (arg == "--pacing") {
      auto v = args.Value();
      if (!v.ok()) return v.status();
      auto seconds = bb::ParseDouble(arg, *v, 0, 3600);
      if (!seconds.ok()) return seconds.status();
      e.pacing = std::chrono::microseconds(static_cast<int64_t>(*seconds * 1e6));
    } else if (arg == "--out" || arg == "--mix-log" || arg == "--log-level") {
      auto v = args.Value();
      if (!v.ok()) return v.status();
      (arg == "--out" ? o.out_dir : arg == "--mix-log" ? e.mix_log : o.log_level) = *v;
    } else if (arg == "--metrics-port-file") {
      auto v = args.Value();
      if (!v.ok()) return v.status();
      e.metrics_port_file = *v;
    } else if (arg == "--metrics-listen") {
      auto v = args.Value();
      if (!v.ok()) return v.status();
      auto address = bb::ParseListenAddress(arg, *v);
      if (!address.ok()) return address.status();
      e.metrics_listen = *address;
    } else if (arg == "--no-trade-cleanup") {
      e.trade_cleanup = false;
    } else if (arg == "--no-data-maintenance") {
      e.dm_interval = std::chrono::milliseconds(0);
    } else {
      return Status::InvalidArgument(fmt::format("unknown option '{}' (see --help)", arg));
    }
  }
  if (!e.metrics_port_file.empty() && !e.metrics_listen) {
    return Status::InvalidArgument("--metrics-port-file: needs --metrics-listen");
  }
  if ((e.partition_first == 0) != (e.partition_customers == 0)) {
    return Status::InvalidArgument(
        "--partition-first and --partition-customers: give both or neither");
  }
  if (e.mix_log.empty()) {
    e.mix_log =
        (std::filesystem::path(o.out_dir) / fmt::format("mix-ce-{}.csv", ::getpid())).string();
  }
  if (Status s = bb::ce::ValidateOptions(e); !s.ok()) return s;
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = bb::ParseCommandLine(argc, argv, "bb-customer-emulator", kUsage, Parse);
  auto logger = bb::SetUpLogging("ce", o.log_level);
  if (!logger.ok()) {
    return bb::Fail("bb-customer-emulator", logger.status(), 2);
  }
  auto parent = std::filesystem::path(o.emulator.mix_log).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) {
    spdlog::error("--out: cannot create '{}': {}", parent.string(), ec.message());
    return 1;
  }
  o.emulator.handle_signals = true;
  spdlog::info("users {}, mix log {}, seed {} ({})", o.emulator.users, o.emulator.mix_log,
               o.emulator.seed, o.seed_fixed ? "--seed" : "from the time of day");
  bb::ce::Emulator emulator(o.emulator);
  Status s = emulator.Run();
  if (emulator.summary().rows > 0) fmt::print(stderr, "{}", emulator.SummaryText());
  if (!s.ok()) {
    spdlog::error("{}", s.message());
    return 1;
  }
  return 0;
}
