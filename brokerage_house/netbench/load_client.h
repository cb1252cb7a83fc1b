// The load side of bb-netbench: N connections in a closed loop (each sends one request, waits
// for the whole reply, sends the next), event-driven on one or two threads, bounded by time.
// Each connection is a common/net Link, as every connection of the kit's programs: a hello with
// the run's sizing first, then one Trade-Status request at a time (a new request id each, and a
// random account when `accounts` is set).
//
//   kBrokerageHouse  the reply must be the Trade-Status reply to that request id.
//   kEcho            the reply is the request itself, echoed by bb-netbench echo-server.
//
// The client measures its own CPU time too, so a report shows whether the client rather than
// the server was the bottleneck.
//
// Thread-safety: RunLoad is reentrant; it owns everything it uses.
#pragma once

#include <cstdint>
#include <string>

#include "common/util/cli.h"
#include "common/util/status.h"

namespace bb::netbench {

enum class LoadMode { kBrokerageHouse, kEcho };

struct LoadOptions {
  HostPort target{"127.0.0.1", 0};
  LoadMode mode = LoadMode::kBrokerageHouse;
  int connections = 16;
  double seconds = 5;
  int threads = 1;
  // The run's sizing, sent in the hello (kBrokerageHouse).
  int64_t customers = 1000;
  int32_t scale_factor = 500;
  int32_t initial_trade_days = 10;
  // Trade-Status accounts drawn uniformly from [first_account, first_account + accounts); 0:
  // always the same account (--no-db runs, where it does not matter).
  int64_t first_account = 0;
  int64_t accounts = 0;
};

struct LoadReport {
  uint64_t requests = 0;   // replies completed inside the measured interval
  uint64_t completed = 0;  // all replies, including those finishing after it
  double seconds = 0;      // the measured interval
  double requests_per_second = 0;
  int64_t p50_micros = 0;  // latency, nearest rank, over the requests of the interval
  int64_t p99_micros = 0;
  int64_t max_micros = 0;
  double client_cpu_cores = 0;  // this process's CPU time / wall time of the interval
  double client_cpu_micros_per_request = 0;
  uint64_t errors = 0;  // wrong or failed replies, connections that broke off
  size_t request_bytes = 0;
  size_t reply_bytes = 0;  // of the last reply (fixed for a fixed request)
};

// Connects every connection (and says hello), then runs the closed loop for options.seconds;
// a connection still waiting 10 s after that is abandoned and counted as an error. An error
// Status if the target cannot be reached or refuses the hello.
Result<LoadReport> RunLoad(const LoadOptions& options);

// One line of key=value pairs, readable by people and by the controller's bench script.
std::string FormatReport(const LoadOptions& options, const LoadReport& report);

}  // namespace bb::netbench
