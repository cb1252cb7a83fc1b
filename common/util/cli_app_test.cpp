#include "common/util/cli_app.h"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace bb::cli {
namespace {

// The options of a small program, as a main() defines them.
struct Options {
  int64_t users = 10;
  double pacing = 0;
  std::chrono::milliseconds duration{60'000};
  HostPort bh{"127.0.0.1", 30000};
  std::optional<HostPort> listen;
  std::string out = ".";
  std::string mode = "server";
  bool quiet = false;
};

void Define(CLI::App& app, Options& o) {
  Configure(app);
  app.add_option("--users", o.users, "emulated users")->check(Range(1, 1'000'000));
  app.add_option("--pacing", o.pacing, "seconds between requests")->check(DecimalRange(0, 3600));
  AddDuration(app, "--duration", o.duration, 86400, "measured time");
  AddAddress(app, "--bh", o.bh, "the Brokerage House");
  AddAddress(app, "--listen", o.listen, "where to listen", /*listen=*/true);
  app.add_option("--out", o.out, "the directory")->type_name("DIR")->check(NonEmpty());
  AddParsed(
      app, "--mode", o.mode,
      [](std::string_view text) -> Result<std::string> {
        if (text == "server" || text == "client") return std::string(text);
        return Status::InvalidArgument(fmt::format("--mode: '{}' is not server or client", text));
      },
      "server or client");
  app.add_flag("--quiet", o.quiet, "say less");
  CheckAfterParse(app, [&o] {
    if (o.quiet && o.users > 100) {
      return Status::InvalidArgument("--quiet: not with more than 100 users");
    }
    return Status::Ok();
  });
}

// Parses `args` (after the program's name) into fresh options.
struct Outcome {
  Result<Parsed> parsed;
  Options options;
};
Outcome ParseArgs(std::vector<const char*> args) {
  args.insert(args.begin(), "bb-test");
  Outcome outcome{Parsed::kRun, {}};
  CLI::App app("A program for the tests.", "bb-test");
  Define(app, outcome.options);
  outcome.parsed = Parse(app, static_cast<int>(args.size()), args.data());
  return outcome;
}

std::string Error(std::vector<const char*> args) {
  auto outcome = ParseArgs(std::move(args));
  return outcome.parsed.ok() ? "(no error)" : outcome.parsed.status().message();
}

TEST(Parse, ReadsEveryKindOfOption) {
  auto r =
      ParseArgs({"--users", "12", "--pacing=0.5", "--duration", "15m", "--bh", "unix:/tmp/bh.sock",
                 "--listen", "[::1]:0", "--out", "/tmp/x", "--mode", "client", "--quiet"});
  ASSERT_TRUE(r.parsed.ok()) << r.parsed.status().message();
  EXPECT_EQ(*r.parsed, Parsed::kRun);
  EXPECT_EQ(r.options.users, 12);
  EXPECT_DOUBLE_EQ(r.options.pacing, 0.5);
  EXPECT_EQ(r.options.duration, std::chrono::minutes(15));
  EXPECT_EQ(r.options.bh.path, "/tmp/bh.sock");
  ASSERT_TRUE(r.options.listen.has_value());
  EXPECT_EQ(r.options.listen->host, "::1");
  EXPECT_EQ(r.options.listen->port, 0);
  EXPECT_EQ(r.options.out, "/tmp/x");
  EXPECT_EQ(r.options.mode, "client");
  EXPECT_TRUE(r.options.quiet);
}

TEST(Parse, LeavesDefaultsAndTakesTheLastOfARepeatedOption) {
  auto none = ParseArgs({});
  ASSERT_TRUE(none.parsed.ok());
  EXPECT_EQ(none.options.users, 10);
  EXPECT_FALSE(none.options.listen.has_value());
  EXPECT_EQ(none.options.bh.port, 30000);
  // The controller puts a user's options after its own.
  auto repeated = ParseArgs({"--users", "5", "--users", "7"});
  ASSERT_TRUE(repeated.parsed.ok());
  EXPECT_EQ(repeated.options.users, 7);
}

TEST(Parse, ErrorsNameTheOptionAndTheValue) {
  EXPECT_EQ(Error({"--users", "0"}), "--users: '0' is not in the range 1 to 1000000");
  EXPECT_EQ(Error({"--users", "5k"}), "--users: '5k' is not a whole number");
  EXPECT_EQ(Error({"--users=-3"}), "--users: '-3' is not in the range 1 to 1000000");
  EXPECT_EQ(Error({"--pacing", "nan"}), "--pacing: 'nan' is not a number");
  EXPECT_EQ(Error({"--duration", "2d"}),
            "--duration: '2d' is not a duration from 0s to 86400s (a number with an optional "
            "unit s, m or h)");
  EXPECT_EQ(Error({"--bh", "localhost"}), "--bh: 'localhost' is not host:port");
  EXPECT_EQ(Error({"--bh", "h:0"}), "--bh: 'h:0' is not host:port with a port from 1 to 65535");
  EXPECT_EQ(Error({"--listen", "h:65536"}),
            "--listen: 'h:65536' is not host:port with a port from 0 to 65535");
  EXPECT_EQ(Error({"--out", ""}), "--out: needs a non-empty value");
  // A parser that names the option itself is not prefixed twice.
  EXPECT_EQ(Error({"--mode", "both"}), "--mode: 'both' is not server or client");
}

TEST(Parse, RewordsCliElevensOwnErrors) {
  EXPECT_EQ(Error({"--frobnicate", "3"}), "unknown option '--frobnicate' (see --help)");
  EXPECT_EQ(Error({"stray"}), "unexpected argument 'stray' (see --help)");
  EXPECT_EQ(Error({"--quiet", "--users"}), "--users: needs a value");
  // Not the last: the next argument is its value, as it always was.
  EXPECT_EQ(Error({"--users", "--quiet"}), "--users: '--quiet' is not a whole number");
}

TEST(Parse, RunsTheChecksBetweenOptionsLast) {
  EXPECT_EQ(Error({"--quiet", "--users", "101"}), "--quiet: not with more than 100 users");
  EXPECT_TRUE(ParseArgs({"--quiet", "--users", "100"}).parsed.ok());
}

TEST(Parse, HelpWinsWhereverItIs) {
  for (auto args : std::vector<std::vector<const char*>>{
           {"--help"}, {"-h"}, {"--users", "3", "--help"}, {"--users", "0", "-h"}}) {
    auto r = ParseArgs(args);
    ASSERT_TRUE(r.parsed.ok()) << r.parsed.status().message();
    EXPECT_EQ(*r.parsed, Parsed::kHelp);
  }
}

TEST(Parse, SaysWhichCommandsThereAre) {
  CLI::App app("Two commands.", "bb-two");
  Configure(app);
  app.require_subcommand(1);
  int64_t n = 1;
  app.add_subcommand("serve", "serve")->add_option("--n", n)->check(Range(1, 9));
  app.add_subcommand("load", "load");
  const char* none[] = {"bb-two"};
  EXPECT_EQ(Parse(app, 1, none).status().message(), "needs a command: serve or load (see --help)");
}

TEST(Help, ShowsEveryOptionWithItsValueNameAndText) {
  Options o;
  CLI::App app("A program for the tests.", "bb-test");
  Define(app, o);
  app.footer("Exit status: 0 done, 2 bad usage.");
  const std::string help = app.help("", CLI::AppFormatMode::All);
  for (const char* line :
       {"A program for the tests.", "Usage: bb-test [OPTIONS]",
        "  -h,--help                   this text", "  --users N                   emulated users",
        "  --duration DURATION         measured time",
        "  --bh HOST:PORT              the Brokerage House",
        "  --out DIR                   the directory", "Exit status: 0 done, 2 bad usage."}) {
    EXPECT_NE(help.find(line), std::string::npos) << line << "\nnot in:\n" << help;
  }
}

TEST(ParseOrExitDeathTest, ExitsTwoNamingTheProgramAndZeroAfterHelp) {
  auto run = [](std::vector<const char*> args) {
    args.insert(args.begin(), "bb-test");
    Options o;
    CLI::App app("A program for the tests.", "bb-test");
    Define(app, o);
    ParseOrExit(app, static_cast<int>(args.size()), args.data());
    std::exit(7);  // not reached for these arguments
  };
  EXPECT_EXIT(run({"--users", "0"}), ::testing::ExitedWithCode(2),
              "^bb-test: --users: '0' is not in the range 1 to 1000000\n$");
  EXPECT_EXIT(run({"--help"}), ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(run({"--users", "3"}), ::testing::ExitedWithCode(7), "");
}

}  // namespace
}  // namespace bb::cli
