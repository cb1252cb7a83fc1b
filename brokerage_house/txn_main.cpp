// bb-txn: runs TPC-E transactions with generated inputs straight against a loaded database and
// shows what happened: the first tool to reach for when a transaction misbehaves. Options and
// wiring only; see txn_driver.h.
#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "brokerage_house/frame_runner.h"
#include "brokerage_house/txn_driver.h"
#include "common/db/connection.h"
#include "common/db/loaded_sizing.h"
#include "common/db/session.h"
#include "common/util/cli.h"
#include "common/util/cli_app.h"

namespace {

using bb::Status;
using bb::workload::TransactionType;
namespace pr = bb::protocol;

constexpr const char* kAbout =
    R"(Runs TPC-E transactions with generated inputs (deterministic for a seed) directly against a
loaded database, one connection, and prints each input and output, or a line each, and a
summary per transaction: outcomes, retries, latency (mean, 90th percentile, max), statements
and round trips per transaction. It plays the market emulator too: every market order that
Trade-Order or Market-Feed sends is completed at once by a Trade-Result.
)";

constexpr const char* kFooter =
    R"(Exit status: 0 when every transaction ended as intended (ok, a warning the spec allows, or
Trade-Order's intended rollback), 1 otherwise or on failure, 2 bad usage.)";

struct Options {
  std::string conninfo;
  std::vector<TransactionType> types;
  bool all = false;
  int64_t count = 1;
  int64_t seed = 1;
  int show = -1;  // -1: decide by size
  std::string report;
  bb::bh::FrameMode frames = bb::bh::FrameMode::kServer;
};

// A transaction code, in either case; the option then holds it in upper case.
CLI::Validator TransactionCode() {
  return CLI::Validator(
      [](std::string& code) {
        const std::string given = code;
        std::transform(code.begin(), code.end(), code.begin(), ::toupper);
        if (bb::workload::TransactionTypeFromCode(code)) return std::string();
        return fmt::format("'{}' is not a transaction code (BV CP MF MW SD TL TO TR TS TU DM TC)",
                           given);
      },
      /*validator_desc=*/"");
}

void DefineOptions(CLI::App& app, Options& o) {
  using bb::cli::Range;
  bb::cli::Configure(app);
  app.footer(kFooter);
  app.add_option_function<std::vector<std::string>>(
         "CODE",
         [&o](const std::vector<std::string>& codes) {
           for (const auto& code : codes) {
             o.types.push_back(*bb::workload::TransactionTypeFromCode(code));
           }
         },
         "BV CP MF MW SD TL TO TR TS TU DM TC (Broker-Volume ... Trade-Cleanup);\n"
         "TR runs a market Trade-Order and completes it; DM walks the table\n"
         "rotation")
      ->type_name("")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->transform(TransactionCode());
  app.add_flag("--all", o.all, "every transaction, each --count times, then one Trade-Cleanup");
  app.add_option("--count", o.count, "how many of each (default 1)")->check(Range(1, 1'000'000));
  app.add_option("--seed", o.seed, "seed of the generated inputs (default 1)")
      ->check(Range(0, INT64_MAX));
  app.add_option("--db", o.conninfo, "libpq connection string (PG* variables work)")
      ->type_name("CONNINFO");
  bb::cli::AddParsed(app, "--frames", o.frames, bb::bh::ParseFrameMode,
                     "server (default: one PL/pgSQL function call per transaction,\n"
                     "installed at start) or client (the frames' statements one by one)")
      ->type_name("MODE");
  app.add_flag_callback(
      "--show", [&o] { o.show = 1; },
      "print every input and output (default for up to 12 transactions)");
  app.add_flag_callback(
      "--brief", [&o] { o.show = 0; }, "one line each (default for more)");
  app.add_option("--report", o.report, "also write the summary table there")->type_name("FILE");
  bb::cli::CheckAfterParse(app, [&o] {
    if (o.all == !o.types.empty()) {
      return Status::InvalidArgument("name transactions by code, or say --all (not both)");
    }
    return Status::Ok();
  });
}

struct Tally {
  std::vector<int64_t> micros;
  std::map<pr::Outcome, int64_t> outcomes;
  std::map<int32_t, int64_t> statuses;  // non-zero spec statuses
  int64_t retries = 0, statements = 0, round_trips = 0;
};

int64_t Percentile(std::vector<int64_t> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  // Nearest rank: the smallest value with at least p of the samples at or below it.
  auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(v.size())));
  return v[std::max<std::size_t>(rank, 1) - 1];
}

bool Intended(const bb::bh::TxnSample& s) {
  return s.status.outcome == pr::Outcome::kOk || s.status.outcome == pr::Outcome::kWarning ||
         (s.status.outcome == pr::Outcome::kRollback && s.type == TransactionType::kTradeOrder);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app(kAbout, "bb-txn");
  DefineOptions(app, o);
  bb::cli::ParseOrExit(app, argc, argv);
  if (o.all) {
    o.types = {TransactionType::kBrokerVolume,   TransactionType::kCustomerPosition,
               TransactionType::kMarketWatch,    TransactionType::kSecurityDetail,
               TransactionType::kTradeLookup,    TransactionType::kTradeOrder,
               TransactionType::kTradeResult,    TransactionType::kTradeStatus,
               TransactionType::kTradeUpdate,    TransactionType::kMarketFeed,
               TransactionType::kDataMaintenance};
  }

  auto conn = bb::db::Connection::Open(o.conninfo);
  if (!conn.ok()) {
    return bb::Fail("bb-txn", conn.status(), 1);
  }
  auto sizing = bb::db::ReadLoadedSizing(**conn);
  if (!sizing.ok()) {
    return bb::Fail("bb-txn", sizing.status(), 1);
  }
  if (o.frames == bb::bh::FrameMode::kServer) {
    Status installed = bb::bh::InstallFrameFunctions(o.conninfo);
    if (!installed.ok()) return bb::Fail("bb-txn", installed, 1);
  }
  auto session = bb::bh::FrameRunner::OpenSession(o.conninfo, o.frames);
  if (!session.ok()) {
    return bb::Fail("bb-txn", session.status(), 1);
  }
  bb::bh::FrameOptions frames;
  frames.mode = o.frames;
  bb::bh::TxnDriver driver(**session, *sizing, static_cast<uint64_t>(o.seed), frames);
  const bool show =
      o.show == 1 || (o.show == -1 && static_cast<int64_t>(o.types.size()) * o.count <= 12);
  bb::bh::ShowFn printer = [](const pr::Message& in, const pr::Message& out) {
    fmt::print("{}{}\n", pr::ToText(in), pr::ToText(out));
  };

  std::vector<bb::bh::TxnSample> samples;
  auto run = [&](TransactionType type) {
    std::size_t first = samples.size();
    driver.Run(type, samples, show ? printer : nullptr);
    if (show) return;
    for (std::size_t i = first; i < samples.size(); ++i) {
      const auto& s = samples[i];
      fmt::print("{} {:<8} status {:>5} retries {} {:>8} us  {}\n",
                 bb::workload::TransactionCode(s.type), pr::OutcomeName(s.status.outcome),
                 s.status.spec_status, s.status.retries, s.micros, s.status.detail);
    }
  };
  for (int64_t n = 0; n < o.count; ++n) {
    for (auto type : o.types) run(type);
  }
  if (o.all) run(TransactionType::kTradeCleanup);  // leave no order pending

  std::map<TransactionType, Tally> tallies;
  int unintended = 0;
  for (const auto& s : samples) {
    Tally& t = tallies[s.type];
    t.micros.push_back(s.micros);
    ++t.outcomes[s.status.outcome];
    if (s.status.spec_status != 0) ++t.statuses[s.status.spec_status];
    t.retries += s.status.retries;
    t.statements += s.statements;
    t.round_trips += s.round_trips;
    if (!Intended(s)) ++unintended;
  }
  std::string table = fmt::format(
      "{:<4} {:>6} {:>6} {:>5} {:>5} {:>5} {:>5} {:>5} {:>7} {:>9} {:>9} {:>9} {:>6} {:>6}  {}\n",
      "txn", "count", "ok", "rollb", "warn", "inval", "retex", "dberr", "retries", "mean_us",
      "p90_us", "max_us", "stmts", "trips", "spec statuses");
  for (auto& [type, t] : tallies) {
    const double n = static_cast<double>(t.micros.size());
    double mean = 0;
    for (auto m : t.micros) mean += static_cast<double>(m) / n;
    std::string statuses;
    for (const auto& [st, c] : t.statuses) statuses += fmt::format("{}x{} ", st, c);
    table += fmt::format(
        "{:<4} {:>6} {:>6} {:>5} {:>5} {:>5} {:>5} {:>5} {:>7} {:>9.0f} {:>9} {:>9} {:>6.1f} "
        "{:>6.1f}  {}\n",
        bb::workload::TransactionCode(type), t.micros.size(), t.outcomes[pr::Outcome::kOk],
        t.outcomes[pr::Outcome::kRollback], t.outcomes[pr::Outcome::kWarning],
        t.outcomes[pr::Outcome::kInvalid], t.outcomes[pr::Outcome::kRetryExhausted],
        t.outcomes[pr::Outcome::kDbError], t.retries, mean, Percentile(t.micros, 0.9),
        *std::max_element(t.micros.begin(), t.micros.end()), static_cast<double>(t.statements) / n,
        static_cast<double>(t.round_trips) / n, statuses);
  }
  fmt::print("\n{}", table);
  fmt::print("{} transactions, {} not as intended (seed {}); latency percentiles by nearest rank\n",
             samples.size(), unintended, o.seed);
  if (tallies[TransactionType::kTradeStatus].statuses.count(-911) > 0) {
    fmt::print(
        "note: Trade-Status -911 means the account has fewer than 50 trades, as happens in a "
        "database of fewer than 300 initial trade days\n");
  }
  if (!o.report.empty()) {
    std::FILE* f = std::fopen(o.report.c_str(), "w");
    if (f == nullptr) {
      fmt::print(stderr, "bb-txn: --report: cannot write '{}': {}\n", o.report,
                 std::strerror(errno));
      return 1;
    }
    fmt::print(f, "{}", table);
    std::fclose(f);
  }
  return unintended == 0 ? 0 : 1;
}
