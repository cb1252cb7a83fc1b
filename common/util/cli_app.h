// The programs' command lines through CLI11 (Debian's libcli11-dev, header only): the settings
// every program shares, validators whose messages name the value, and the parse that prints the
// help or a usage error and exits (STYLE.md, "Errors": 2 for bad usage).
//
// CLI11 puts the option in front of a validator's message, so an error reads as it always has:
//   bb-customer-emulator: --users: '0' is not in the range 1 to 1000000
// A program's main() holds an options struct and one function that adds its options to an App:
//   CLI::App app(kAbout, "bb-x");
//   bb::cli::Configure(app);
//   app.add_option("--users", o.users, "emulated users")->check(bb::cli::Range(1, 1'000'000));
//   bb::cli::ParseOrExit(app, argc, argv);
// Kept apart from cli.h (the value parsers and HostPort, which the network code includes) so
// that only the mains and this file compile CLI11.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include <CLI/CLI.hpp>

#include "common/util/cli.h"
#include "common/util/status.h"

namespace bb::cli {

// The settings every program shares; call it before adding options. A repeated option takes
// its last value (the controller puts a user's options after its own), "-h, --help" prints the
// whole help (subcommands' options too), the help's value names are N for numbers.
void Configure(CLI::App& app);

// Validators. Each accepts what the bb::Parse* function of the same kind accepts (cli.h) and
// otherwise says why: "'5k' is not a whole number", "'0' is not in the range 1 to 64".
CLI::Validator Range(int64_t min, int64_t max);       // a whole decimal number
CLI::Validator DecimalRange(double min, double max);  // a decimal number such as 2.5
CLI::Validator Address();                             // HOST:PORT or unix:PATH
CLI::Validator ListenAddress();                       // the same, or HOST:0 (the system picks)
CLI::Validator NonEmpty();                            // "needs a non-empty value"
// A duration ("90", "90s", "15m", "2h") from min to max seconds; a transform: the option then
// holds the number of seconds.
CLI::Validator Duration(int64_t min_seconds, int64_t max_seconds);

// --NAME HOST:PORT|unix:PATH into `target` (a HostPort or a std::optional<HostPort>); with
// `listen`, HOST:0 too.
template <typename Target>
CLI::Option* AddAddress(CLI::App& app, const std::string& name, Target& target,
                        const std::string& help, bool listen = false) {
  return app
      .add_option_function<std::string>(
          name,
          [&target, listen](const std::string& text) {
            // Already checked by the validator below, so the value is there.
            target = *(listen ? ParseListenAddress(std::string_view(), text)
                              : ParseHostPort(std::string_view(), text));
          },
          help)
      ->type_name("HOST:PORT")
      ->check(listen ? ListenAddress() : Address());
}

// --NAME VALUE into `target`, read by `parse(text)`, a parser whose error message names the option
// itself (e.g. "--phase: 'dat' is not one of prepare, data, finish, all"), which is kept as is.
template <typename Target, typename ParseFn>
CLI::Option* AddParsed(CLI::App& app, const std::string& name, Target& target, ParseFn parse,
                       const std::string& help) {
  return app.add_option_function<std::string>(
      name,
      [&target, parse](const std::string& text) {
        auto parsed = parse(text);
        if (!parsed.ok()) throw CLI::ValidationError(parsed.status().message());
        target = std::move(parsed).value();
      },
      help);
}

// --NAME DURATION into `target`, from 0 to `max_seconds`.
CLI::Option* AddDuration(CLI::App& app, const std::string& name, std::chrono::milliseconds& target,
                         int64_t max_seconds, const std::string& help);

// Runs `check` once every option of `app` is read: the rules between options. A failed Status
// is a usage error with its message.
void CheckAfterParse(CLI::App& app, std::function<Status()> check);

// What a command line asks for when it is right.
enum class Parsed { kRun, kHelp };

// Reads argv into the options `app` binds. An error names the option and the value (CLI11's
// own errors reworded so: "unknown option '--x' (see --help)", "--users: needs a value").
Result<Parsed> Parse(CLI::App& app, int argc, const char* const* argv);

// The live-metrics endpoint's two options (README, "Live metrics"), the same in both emulators:
// --metrics-listen HOST:PORT (port 0: a free one) and --metrics-port-file FILE.
void AddMetricsOptions(CLI::App& app, std::optional<HostPort>& listen, std::string& port_file);

// The start of every main(): on --help prints the help on stdout and exits 0; on a usage error
// prints "<program>: <message>" on stderr and exits 2. (Exiting is fine: nothing has started.)
void ParseOrExit(CLI::App& app, int argc, const char* const* argv);

}  // namespace bb::cli
