// Support for the Customer Emulator tests: an in-process Brokerage House on an ephemeral
// loopback port, a strict reader of the mix log format (postprocess/MIXLOG.md), and the
// emulator's mix against its deck (clause 6.3.1).
//
// Thread-safety: none; one of each per test.
#pragma once

#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "brokerage_house/blocking_runner.h"
#include "brokerage_house/server.h"
#include "common/protocol/transactions.h"
#include "common/util/cli.h"
#include "common/util/mix_log.h"
#include "common/workload/mix.h"
#include "common/workload/spec.h"
#include "tests/support/in_process_server.h"

namespace bb::cetest {

// A Brokerage House server running on its own thread on 127.0.0.1:<ephemeral>.
class RunningBh {
 public:
  static bh::RunnerFactory Canned() {
    return [] { return Result<std::unique_ptr<bh::BlockingRunner>>(bh::MakeCannedRunner()); };
  }

  RunningBh(const workload::Sizing& sizing, bh::RunnerFactory factory, int workers = 2)
      : RunningBh(sizing, workers, [&](const bh::ServerOptions& o) {
          return std::make_unique<bh::Server>(o, std::move(factory));
        }) {}
  RunningBh(const workload::Sizing& sizing, bh::LanesFactory factory, int workers = 2)
      : RunningBh(sizing, workers, [&](const bh::ServerOptions& o) {
          return std::make_unique<bh::Server>(o, std::move(factory));
        }) {}
  void StopAndJoin() { server_.StopAndJoin(); }
  uint16_t port() const { return server_.port(); }
  const Status& status() const { return server_.status(); }

 private:
  template <typename Make>
  RunningBh(const workload::Sizing& sizing, int workers, Make make)
      : server_(make(Options(sizing, workers))) {}

  static bh::ServerOptions Options(const workload::Sizing& sizing, int workers) {
    bh::ServerOptions options;
    options.listen = {"127.0.0.1", 0};
    options.workers = workers;
    options.summary_seconds = 0;
    options.identity = {"test bh", sizing.customers, static_cast<int32_t>(sizing.scale_factor),
                        static_cast<int32_t>(sizing.initial_trade_days)};
    return options;
  }

  testing::InProcessServer<bh::Server> server_;
};

struct LogRow {
  int64_t start_us = 0;
  std::string code;
  int32_t spec_status = 0;
  std::string outcome;
  int64_t response_us = 0;
  uint32_t retries = 0;
  int64_t user = 0;
  int64_t wait_us = 0;
  std::string inputs;
  int64_t trade_id = 0;  // 0: the column is empty
};

struct ParsedLog {
  std::vector<LogRow> rows;                              // transactions only, in file order
  std::vector<std::pair<std::string, int64_t>> markers;  // code, start_us, in file order
  std::vector<std::string> errors;                       // lines that break the format

  int64_t MarkerTime(const std::string& code) const {
    for (const auto& [c, t] : markers) {
      if (c == code) return t;
    }
    return -1;
  }
};

inline std::vector<std::string> SplitCsv(const std::string& line) {
  std::vector<std::string> fields(1);
  for (char ch : line) {
    if (ch == ',') {
      fields.emplace_back();
    } else {
      fields.back() += ch;
    }
  }
  return fields;
}

inline bool ToInt(const std::string& s, int64_t& out) {
  if (s.empty()) return false;
  size_t used = 0;
  try {
    out = std::stoll(s, &used);
  } catch (...) {
    return false;
  }
  return used == s.size();
}

// Reads a mix log strictly by MIXLOG.md (v3): the header, the column line, then rows of ten
// fields (a known code, a known outcome, whole numbers, the inputs text, the trade id: present
// on every Trade-Order ended ok, absent on every row but a Trade-Order's or a Trade-Result's)
// or markers (start_us and code only).
inline ParsedLog ReadMixLog(const std::string& path) {
  ParsedLog log;
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line) || line != MixLog::kHeader) {
    log.errors.push_back("line 1: '" + line + "' is not the header");
    return log;
  }
  if (!std::getline(in, line) || line != MixLog::kColumns) {
    log.errors.push_back("line 2: '" + line + "' is not the column line");
    return log;
  }
  static const std::vector<std::string> kOutcomes = {"ok",        "rollback",        "warning",
                                                     "invalid",   "retry_exhausted", "db_error",
                                                     "net_error", "timeout"};
  int n = 2;
  while (std::getline(in, line)) {
    ++n;
    auto f = SplitCsv(line);
    int64_t v[6] = {};
    if (f.size() != 10) {
      log.errors.push_back(fmt::format("line {}: {} fields: {}", n, f.size(), line));
      continue;
    }
    if (f[1] == "START" || f[1] == "STOP") {
      bool empty = true;
      for (int i = 2; i < 10; ++i) empty = empty && f[i].empty();
      if (!ToInt(f[0], v[0]) || !empty) {
        log.errors.push_back(fmt::format("line {}: bad marker: {}", n, line));
      }
      log.markers.emplace_back(f[1], v[0]);
      continue;
    }
    bool known_outcome = false;
    for (const auto& o : kOutcomes) known_outcome = known_outcome || o == f[3];
    if (!workload::TransactionTypeFromCode(f[1]) || !known_outcome || !ToInt(f[0], v[0]) ||
        !ToInt(f[2], v[1]) || !ToInt(f[4], v[2]) || !ToInt(f[5], v[3]) || !ToInt(f[6], v[4]) ||
        !ToInt(f[7], v[5])) {
      log.errors.push_back(fmt::format("line {}: bad row: {}", n, line));
      continue;
    }
    int64_t trade_id = 0;
    if ((!f[9].empty() && (!ToInt(f[9], trade_id) || trade_id <= 0)) ||
        (f[1] == "TO" && f[3] == "ok" && trade_id == 0) ||
        (f[1] != "TO" && f[1] != "TR" && trade_id != 0)) {
      log.errors.push_back(fmt::format("line {}: bad trade_id: {}", n, line));
      continue;
    }
    log.rows.push_back(LogRow{v[0], f[1], static_cast<int32_t>(v[1]), f[3], v[2],
                              static_cast<uint32_t>(v[3]), v[4], v[5], f[8], trade_id});
  }
  return log;
}

// The customer emulator's mix against its deck (clause 6.3.1): its users draw in turn from the
// emulator's one 890-card deck and every draw ends in a row, so its user rows are `passes` whole
// passes of the deck plus the first `rest` cards of one more.
struct DeckMix {
  int64_t passes = 0;
  int64_t rest = 0;
  std::map<std::string, int64_t> count;  // user rows by type
};
inline DeckMix MixOfTheDeck(const ParsedLog& log) {
  DeckMix mix;
  int64_t rows = 0;
  for (const auto& r : log.rows) {
    if (r.user >= 0) {
      ++mix.count[r.code];
      ++rows;
    }
  }
  mix.passes = rows / static_cast<int64_t>(workload::kDeckSize);
  mix.rest = rows % static_cast<int64_t>(workload::kDeckSize);
  return mix;
}

// The spec's required ranges (clause 6.3.1; common/workload/spec.h, which spec_test checks
// against the deck) of the customer emulator's eight types: all but Trade-Result and
// Market-Feed, which come from the market emulator.
inline std::vector<workload::spec::MixRange> CustomerEmulatorRanges() {
  std::vector<workload::spec::MixRange> ranges;
  for (const auto& r : workload::spec::kMixRanges) {
    if (r.type != workload::TransactionType::kTradeResult &&
        r.type != workload::TransactionType::kMarketFeed) {
      ranges.push_back(r);
    }
  }
  return ranges;
}
// The eight CE types' shares as the spec counts them: the targets are over the whole mix,
// where MF and TR (1 % + 10 %) come from the MEE; a CE alone carries 89 % of it, so a CE
// share is scaled by that share before it is compared with the range.
inline double SpecPercent(int64_t count, int64_t ce_total) {
  return 100.0 * workload::spec::kCustomerEmulatorShare * static_cast<double>(count) /
         static_cast<double>(ce_total);
}

}  // namespace bb::cetest
