// bb-netbench: the Brokerage House's network side against the transport's ceiling. Options
// and wiring only; see echo_server.h and load_client.h.
#include <cstring>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "brokerage_house/netbench/echo_server.h"
#include "brokerage_house/netbench/load_client.h"
#include "common/util/cli.h"

namespace {

using bb::Result;
using bb::Status;

constexpr const char* kUsage =
    R"(Usage: bb-netbench echo-server [--listen HOST:PORT] [--port-file FILE]
       bb-netbench client --target HOST:PORT [--connections N] [--seconds S] [--mode bh|echo]
                          [--threads 1|2] [--accounts FIRST:COUNT]

echo-server   a plain TCP echo server on one I/O thread (as the Brokerage House's network
              side has): whatever arrives is written back. The transport's ceiling.
  --listen HOST:PORT    address to serve (default 127.0.0.1:0, an ephemeral loopback port)
  --port-file FILE      write the bound port there once listening
              Stops on SIGTERM or SIGINT.

client        N connections in a closed loop (send one request, wait for the whole reply, send
              the next), event-driven, for S seconds; then one line of key=value figures:
              requests/s, latency median and p99 (nearest rank), and the client's own CPU
              (client_cpu_cores near 1 per thread means the client, not the server, limits).
  --target HOST:PORT    the server (a Brokerage House for bh, an echo server for echo)
  --mode bh|echo        bh (default): hello with the sizing, then a fixed Trade-Status request
                        frame, read a whole reply frame; echo: the same request bytes, read
                        back as many bytes
  --connections N       concurrent connections, 1..10000 (default 16)
  --seconds S           length of the measured interval, 0.1..3600 (default 5)
  --threads N           client I/O threads, 1 or 2 (default 1)
  --accounts FIRST:COUNT
                        Trade-Status accounts drawn uniformly from COUNT accounts from FIRST
                        (default: one fixed account; a real database wants many)
  --customers N, --scale-factor N, --initial-trade-days N
                        the sizing sent in the hello (default 1000, 500, 10: the BH's --no-db)

Exit status: 0 done, 1 failed (the message says why, e.g. errors during the run), 2 bad usage.
)";

// --listen HOST:0 asks for an ephemeral port, reported through --port-file. ParseHostPort
// takes ports 1..65535 only, so port 0 is recognised here (as bb-brokerage-house does).
Result<bb::HostPort> ParseListen(std::string_view option, std::string_view text) {
  if (text.size() > 2 && text.ends_with(":0")) {
    std::string with_port(text.substr(0, text.size() - 1));
    with_port += '1';
    auto hp = bb::ParseHostPort(option, with_port);
    if (hp.ok()) return bb::HostPort{hp->host, 0};
  }
  return bb::ParseHostPort(option, text);
}

Status ParseEchoServer(int argc, char** argv, bb::netbench::EchoServerOptions& o) {
  for (int i = 2; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (i + 1 >= argc) return Status::InvalidArgument(fmt::format("{}: needs a value", arg));
    std::string_view value = argv[++i];
    if (arg == "--listen") {
      auto hp = ParseListen(arg, value);
      if (!hp.ok()) return hp.status();
      o.listen = *hp;
    } else if (arg == "--port-file") {
      o.port_file = value;
    } else {
      return Status::InvalidArgument(fmt::format("unknown option '{}' (see --help)", arg));
    }
  }
  return Status::Ok();
}

Status ParseClient(int argc, char** argv, bb::netbench::LoadOptions& o) {
  bool target_given = false;
  for (int i = 2; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (i + 1 >= argc) return Status::InvalidArgument(fmt::format("{}: needs a value", arg));
    std::string_view value = argv[++i];
    auto number = [&](int64_t min, int64_t max) { return bb::ParseInt(arg, value, min, max); };
    if (arg == "--target") {
      auto hp = bb::ParseHostPort(arg, value);
      if (!hp.ok()) return hp.status();
      o.target = *hp;
      target_given = true;
    } else if (arg == "--mode") {
      if (value != "bh" && value != "echo") {
        return Status::InvalidArgument(fmt::format("--mode: '{}' is not bh or echo", value));
      }
      o.mode =
          value == "bh" ? bb::netbench::LoadMode::kBrokerageHouse : bb::netbench::LoadMode::kEcho;
    } else if (arg == "--accounts") {
      // FIRST:COUNT
      const auto colon = value.find(':');
      auto first = bb::ParseInt(arg, value.substr(0, colon), 1, INT64_MAX / 2);
      auto count = colon == std::string_view::npos
                       ? Result<int64_t>(Status::InvalidArgument(
                             fmt::format("--accounts: '{}' is not FIRST:COUNT", value)))
                       : bb::ParseInt(arg, value.substr(colon + 1), 1, 1'000'000'000);
      if (!first.ok()) return first.status();
      if (!count.ok()) return count.status();
      o.first_account = *first;
      o.accounts = *count;
    } else if (arg == "--seconds") {
      auto s = bb::ParseDouble(arg, value, 0.1, 3600);
      if (!s.ok()) return s.status();
      o.seconds = *s;
    } else if (arg == "--connections" || arg == "--threads" || arg == "--customers" ||
               arg == "--scale-factor" || arg == "--initial-trade-days") {
      auto n = number(1, arg == "--threads"       ? 2
                         : arg == "--connections" ? 10'000
                         : arg == "--customers"   ? 1'000'000'000
                                                  : 100'000);
      if (!n.ok()) return n.status();
      if (arg == "--connections") o.connections = static_cast<int>(*n);
      if (arg == "--threads") o.threads = static_cast<int>(*n);
      if (arg == "--customers") o.customers = *n;
      if (arg == "--scale-factor") o.scale_factor = static_cast<int32_t>(*n);
      if (arg == "--initial-trade-days") o.initial_trade_days = static_cast<int32_t>(*n);
    } else {
      return Status::InvalidArgument(fmt::format("unknown option '{}' (see --help)", arg));
    }
  }
  if (!target_given) return Status::InvalidArgument("--target HOST:PORT is required");
  return Status::Ok();
}

}  // namespace

int main(int argc, char** argv) {
  if (bb::WantsHelp(argc, argv)) {
    fmt::print("{}", kUsage);
    return 0;
  }
  const std::string_view command = argc > 1 ? argv[1] : "";
  if (command == "echo-server") {
    bb::netbench::EchoServerOptions o;
    if (Status s = ParseEchoServer(argc, argv, o); !s.ok()) {
      fmt::print(stderr, "bb-netbench echo-server: {}\n", s.message());
      return 2;
    }
    bb::netbench::EchoServer server(o);
    if (Status s = server.Run(); !s.ok()) {
      fmt::print(stderr, "bb-netbench echo-server: {}\n", s.message());
      return 1;
    }
    return 0;
  }
  if (command == "client") {
    bb::netbench::LoadOptions o;
    if (Status s = ParseClient(argc, argv, o); !s.ok()) {
      fmt::print(stderr, "bb-netbench client: {}\n", s.message());
      return 2;
    }
    auto report = bb::netbench::RunLoad(o);
    if (!report.ok()) {
      fmt::print(stderr, "bb-netbench client: {}\n", report.status().message());
      return 1;
    }
    fmt::print("{}\n", bb::netbench::FormatReport(o, *report));
    if (report->errors > 0) {
      fmt::print(stderr, "bb-netbench client: {} errors during the run\n", report->errors);
      return 1;
    }
    return 0;
  }
  fmt::print(stderr, "{}", kUsage);
  return 2;
}
