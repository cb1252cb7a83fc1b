// bb-netbench: the Brokerage House's network side against the transport's ceiling. Options
// and wiring only; see echo_server.h and load_client.h.
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "brokerage_house/netbench/echo_server.h"
#include "brokerage_house/netbench/load_client.h"
#include "common/util/cli.h"
#include "common/util/cli_app.h"
#include "common/workload/sizing_options.h"

namespace {

using bb::Result;
using bb::Status;
namespace nb = bb::netbench;

constexpr const char* kAbout =
    R"(The Brokerage House's network side against the transport's ceiling.
)";

constexpr const char* kEchoServerAbout =
    R"(A plain TCP echo server on one I/O thread (as the Brokerage House's network side has):
whatever arrives is written back. The transport's ceiling. Stops on SIGTERM or SIGINT.
)";

constexpr const char* kClientAbout =
    R"(N connections in a closed loop (send one request, wait for the whole reply, send the next),
event-driven, for S seconds; then one line of key=value figures: requests/s, latency median
and p99 (nearest rank), and the client's own CPU (client_cpu_cores near 1 per thread means
the client, not the server, limits).
)";

constexpr const char* kFooter =
    "Exit status: 0 done, 1 failed (the message says why, e.g. errors during the run), 2 bad "
    "usage.";

Result<nb::LoadMode> ParseMode(std::string_view text) {
  if (text == "bh") return nb::LoadMode::kBrokerageHouse;
  if (text == "echo") return nb::LoadMode::kEcho;
  return Status::InvalidArgument(fmt::format("--mode: '{}' is not bh or echo", text));
}

// --accounts FIRST:COUNT
Status ParseAccounts(std::string_view text, nb::LoadOptions& o) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) {
    return Status::InvalidArgument(fmt::format("--accounts: '{}' is not FIRST:COUNT", text));
  }
  auto first = bb::ParseInt("--accounts", text.substr(0, colon), 1, INT64_MAX / 2);
  if (!first.ok()) return first.status();
  auto count = bb::ParseInt("--accounts", text.substr(colon + 1), 1, 1'000'000'000);
  if (!count.ok()) return count.status();
  o.first_account = *first;
  o.accounts = *count;
  return Status::Ok();
}

void DefineEchoServer(CLI::App& app, nb::EchoServerOptions& o) {
  // --listen HOST:0 asks for an ephemeral port, reported through --port-file.
  bb::cli::AddAddress(app, "--listen", o.listen,
                      "address to serve (default 127.0.0.1:0, an ephemeral loopback port)",
                      /*listen=*/true);
  app.add_option("--port-file", o.port_file, "write the bound port there once listening")
      ->type_name("FILE");
}

void DefineClient(CLI::App& app, nb::LoadOptions& o) {
  using bb::cli::Range;
  bb::cli::AddAddress(app, "--target", o.target,
                      "the server (a Brokerage House for bh, an echo server for echo)")
      ->required();
  bb::cli::AddParsed(app, "--mode", o.mode, ParseMode,
                     "bh (default): hello with the sizing, then a fixed Trade-Status request\n"
                     "frame, read a whole reply frame; echo: the same request bytes, read\n"
                     "back as many bytes")
      ->type_name("bh|echo");
  app.add_option("--connections", o.connections, "concurrent connections, 1..10000 (default 16)")
      ->check(Range(1, 10'000));
  app.add_option("--seconds", o.seconds, "length of the measured interval, 0.1..3600 (default 5)")
      ->type_name("S")
      ->check(bb::cli::DecimalRange(0.1, 3600));
  app.add_option("--threads", o.threads, "client I/O threads, 1 or 2 (default 1)")
      ->check(Range(1, 2));
  app.add_option_function<std::string>(
         "--accounts",
         [&o](const std::string& text) {
           if (Status s = ParseAccounts(text, o); !s.ok()) throw CLI::ValidationError(s.message());
         },
         "Trade-Status accounts drawn uniformly from COUNT accounts from FIRST\n"
         "(default: one fixed account; a real database wants many)")
      ->type_name("FIRST:COUNT");
  bb::workload::AddSizingOptions(app, o.customers, o.scale_factor, o.initial_trade_days,
                                 "the sizing sent in the hello (the defaults: the BH's --no-db)");
}

}  // namespace

int main(int argc, char** argv) {
  nb::EchoServerOptions echo_options;
  nb::LoadOptions load_options;
  CLI::App app(kAbout, "bb-netbench");
  bb::cli::Configure(app);
  app.footer(kFooter);
  app.require_subcommand(1);
  CLI::App* echo_server = app.add_subcommand("echo-server", kEchoServerAbout);
  DefineEchoServer(*echo_server, echo_options);
  CLI::App* client = app.add_subcommand("client", kClientAbout);
  DefineClient(*client, load_options);
  bb::cli::ParseOrExit(app, argc, argv);

  if (echo_server->parsed()) {
    nb::EchoServer server(echo_options);
    if (Status s = server.Run(); !s.ok()) {
      fmt::print(stderr, "bb-netbench echo-server: {}\n", s.message());
      return 1;
    }
    return 0;
  }
  auto report = nb::RunLoad(load_options);
  if (!report.ok()) {
    fmt::print(stderr, "bb-netbench client: {}\n", report.status().message());
    return 1;
  }
  fmt::print("{}\n", nb::FormatReport(load_options, *report));
  if (report->errors > 0) {
    fmt::print(stderr, "bb-netbench client: {} errors during the run\n", report->errors);
    return 1;
  }
  return 0;
}
