#include "common/util/cli_app.h"

#include <cstdlib>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace bb::cli {
namespace {

// A validator from a parser of cli.h: its message (without an option, so CLI11 adds it) or "".
template <typename ParseFn>
CLI::Validator FromParser(ParseFn parse) {
  return CLI::Validator(
      [parse](std::string& text) {
        auto parsed = parse(text);
        return parsed.ok() ? std::string() : parsed.status().message();
      },
      /*validator_desc=*/"");
}

// CLI11's errors that carry no value in a message of ours, reworded.
std::string UsageMessage(const CLI::App& app, const CLI::ParseError& e) {
  std::string_view message = e.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    // The arguments no option or positional took stay in the App.
    const auto left = app.remaining(/*recurse=*/true);
    if (!left.empty()) {
      const std::string& first = left.front();
      return fmt::format("{} '{}' (see --help)",
                         first.starts_with('-') ? "unknown option" : "unexpected argument", first);
    }
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr && message.ends_with(" missing")) {
    // "--users: 1 required N missing": the option was last, with no value after it.
    if (auto colon = message.find(": "); colon != std::string_view::npos) {
      return fmt::format("{}: needs a value", message.substr(0, colon));
    }
  }
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr && app.get_subcommands().empty() &&
      app.get_require_subcommand_min() > 0) {
    std::string commands;
    for (const CLI::App* sub : app.get_subcommands({})) {
      commands += (commands.empty() ? "" : " or ") + sub->get_name();
    }
    return fmt::format("needs a command: {} (see --help)", commands);
  }
  return std::string(message);
}

// True when -h or --help came before the error: the help wins, as the user asked for it.
bool HelpAsked(const CLI::App& app) {
  const CLI::Option* help = app.get_help_all_ptr();
  if (help != nullptr && help->count() > 0) return true;
  for (const CLI::App* sub : app.get_subcommands()) {
    if (HelpAsked(*sub)) return true;
  }
  return false;
}

}  // namespace

void Configure(CLI::App& app) {
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  // One help flag that shows everything: with subcommands (bb-netbench) their options too.
  app.set_help_flag();
  app.set_help_all_flag("-h,--help", "this text");
  auto formatter = app.get_formatter();
  formatter->column_width(30);
  for (const char* number : {"INT", "UINT", "FLOAT"}) formatter->label(number, "N");
}

CLI::Validator Range(int64_t min, int64_t max) {
  return FromParser([=](std::string_view text) { return ParseInt({}, text, min, max); });
}

CLI::Validator DecimalRange(double min, double max) {
  return FromParser([=](std::string_view text) { return ParseDouble({}, text, min, max); });
}

CLI::Validator Address() {
  return FromParser([](std::string_view text) { return ParseHostPort({}, text); });
}

CLI::Validator ListenAddress() {
  return FromParser([](std::string_view text) { return ParseListenAddress({}, text); });
}

CLI::Validator NonEmpty() {
  return CLI::Validator(
      [](const std::string& text) {
        return std::string(text.empty() ? "needs a non-empty value" : "");
      },
      /*validator_desc=*/"");
}

CLI::Validator Duration(int64_t min_seconds, int64_t max_seconds) {
  return CLI::Validator(
      [=](std::string& text) {
        auto seconds = ParseDurationSeconds({}, text, min_seconds, max_seconds);
        if (!seconds.ok()) return seconds.status().message();
        text = std::to_string(*seconds);
        return std::string();
      },
      /*validator_desc=*/"");
}

CLI::Option* AddDuration(CLI::App& app, const std::string& name, std::chrono::milliseconds& target,
                         int64_t max_seconds, const std::string& help) {
  return app
      .add_option_function<int64_t>(
          name, [&target](int64_t seconds) { target = std::chrono::seconds(seconds); }, help)
      ->type_name("DURATION")
      ->transform(Duration(0, max_seconds));
}

void CheckAfterParse(CLI::App& app, std::function<Status()> check) {
  app.callback([check = std::move(check)] {
    if (Status s = check(); !s.ok()) throw CLI::ValidationError(s.message());
  });
}

Result<Parsed> Parse(CLI::App& app, int argc, const char* const* argv) {
  try {
    app.parse(argc, argv);
    return Parsed::kRun;
  } catch (const CLI::CallForHelp&) {
    return Parsed::kHelp;
  } catch (const CLI::CallForAllHelp&) {
    return Parsed::kHelp;
  } catch (const CLI::ParseError& e) {
    if (HelpAsked(app)) return Parsed::kHelp;
    return Status::InvalidArgument(UsageMessage(app, e));
  }
}

void ParseOrExit(CLI::App& app, int argc, const char* const* argv) {
  auto parsed = Parse(app, argc, argv);
  if (parsed.ok() && *parsed == Parsed::kRun) return;
  if (parsed.ok()) {
    fmt::print("{}", app.help("", CLI::AppFormatMode::All));
    std::exit(0);
  }
  // "bb-netbench client: ..." when the error is in a subcommand's options.
  std::string program = app.get_name();
  for (const CLI::App* sub : app.get_subcommands()) program += " " + sub->get_name();
  std::exit(Fail(program, parsed.status(), 2));
}

void AddMetricsOptions(CLI::App& app, std::optional<HostPort>& listen, std::string& port_file) {
  AddAddress(app, "--metrics-listen", listen,
             "serve live metrics (OpenMetrics, for Prometheus or curl) at\n"
             "http://HOST:PORT/metrics while it runs; port 0 takes a free one\n"
             "(default: no endpoint)",
             /*listen=*/true);
  app.add_option("--metrics-port-file", port_file,
                 "write the metrics endpoint's port there once it listens")
      ->type_name("FILE");
}

}  // namespace bb::cli
