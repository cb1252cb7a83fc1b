// bb-customer-emulator: the Customer Emulator. Options and wiring only; see emulator.h.
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include "common/util/cli.h"
#include "common/util/cli_app.h"
#include "common/util/logging.h"
#include "common/workload/inputs.h"
#include "common/workload/sizing_options.h"
#include "customer_emulator/emulator.h"

namespace {

using bb::Status;

constexpr const char* kAbout =
    R"(The Customer Emulator: emulated users that each draw the next transaction from the TPC-E
mix deck, send it to the Brokerage House, wait for the reply and log a mix row; one
Trade-Cleanup before the users start and one Data-Maintenance every 60 s.
)";

constexpr const char* kFooter =
    R"(DURATION is a number of seconds with an optional unit s, m or h. Stops on SIGTERM or SIGINT:
no new requests, outstanding replies awaited (bounded), STOP written, every row flushed.
Exit status: 0 done, 1 failed (the message says why), 2 bad usage.)";

struct Options {
  bb::ce::EmulatorOptions emulator;
  std::string out_dir = ".";
  std::string log_level;
  bool seed_fixed = false;
};

// The rules between options, and the mix log's default name.
Status Finish(Options& o, bool seed_given) {
  auto& e = o.emulator;
  o.seed_fixed = seed_given;
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
  return bb::ce::ValidateOptions(e);
}

void DefineOptions(CLI::App& app, Options& o) {
  namespace cli = bb::cli;
  using cli::Range;
  namespace wl = bb::workload;
  auto& e = o.emulator;
  e.seed = wl::TimeOfDaySeed();
  cli::Configure(app);
  app.footer(kFooter);
  cli::AddAddress(app, "--bh", e.bh,
                  "the Brokerage House (default 127.0.0.1:30000), or unix:PATH (a\n"
                  "Unix-domain socket: cheaper when both run on one host)");
  wl::AddSizingOptions(app, e.sizing.customers, e.sizing.scale_factor, e.sizing.initial_trade_days,
                       "the run's sizing: the Brokerage House refuses a hello with another");
  app.add_option("--users", e.users, "emulated users (default 10)")->check(Range(1, 1'000'000));
  cli::AddDuration(app, "--ramp-up", e.ramp_up, 30 * 86400,
                   "time before START: users start spread evenly over its first\n"
                   "minute (all of it if shorter), then run at full load until it\n"
                   "ends (default 0; e.g. 30s, 10m)");
  cli::AddDuration(app, "--duration", e.duration, 30 * 86400,
                   "measured time from START (all users running) to STOP\n(default 60s)");
  app.add_option_function<double>(
         "--pacing",
         [&e](double seconds) {
           e.pacing = std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6));
         },
         "each user's interval from one request's start to the next's\n"
         "(a reply later than that: the next request at once; default\n"
         "0: no wait; e.g. 0.5)")
      ->type_name("SECONDS")
      ->check(cli::DecimalRange(0, 3600));
  auto* seed = app.add_option("--seed", e.seed,
                              "fix the run's seed (the deck and the users' inputs follow from\n"
                              "it) to replay a run (default: from the time of day and the process\n"
                              "id, as clause 5.8.2 wants; the seed in use is logged at the start)")
                   ->check(Range(0, INT64_MAX));
  app.add_option("--partition-first", e.partition_first,
                 "first customer ordinal (1-based) this emulator owns (spec 5.4:\n"
                 "half the customers drawn from it, half from all)")
      ->check(Range(1, wl::kMaxCustomers));
  app.add_option("--partition-customers", e.partition_customers,
                 "how many customers from --partition-first it owns; give both\n"
                 "options or neither")
      ->check(Range(1, wl::kMaxCustomers));
  app.add_option("--connections", e.connections,
                 "TCP connections to the Brokerage House (default min(users, 64))")
      ->check(Range(1, 4096));
  app.add_option("--out", o.out_dir, "write the mix log to DIR/mix-ce-<pid>.csv (default .)")
      ->type_name("DIR");
  app.add_option("--mix-log", e.mix_log, "write the mix log to FILE instead")->type_name("FILE");
  app.add_flag_callback(
      "--no-trade-cleanup", [&e] { e.trade_cleanup = false; },
      "skip the Trade-Cleanup before the users start");
  app.add_flag_callback(
      "--no-data-maintenance", [&e] { e.dm_interval = std::chrono::milliseconds(0); },
      "send no Data-Maintenance (with several emulators, exactly one\n"
      "sends it: spec 6.3.3, one every 60 s for the whole system)");
  cli::AddDuration(app, "--stop-wait", e.stop_wait, 3600,
                   "at the end, how long to wait for outstanding replies before\n"
                   "logging them as timeouts (default 30s)");
  app.add_option("--progress-seconds", e.progress_seconds,
                 "period of the progress line on stderr (default 5; 0: none)")
      ->check(Range(0, 3600));
  cli::AddMetricsOptions(app, e.metrics_listen, e.metrics_port_file);
  app.add_option("--log-level", o.log_level,
                 "trace, debug, info, warn, error (default info or SPDLOG_LEVEL)")
      ->type_name("LEVEL");
  cli::CheckAfterParse(app, [&o, seed] { return Finish(o, seed->count() > 0); });
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app(kAbout, "bb-customer-emulator");
  DefineOptions(app, o);
  bb::cli::ParseOrExit(app, argc, argv);
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
