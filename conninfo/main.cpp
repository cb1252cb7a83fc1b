// bb-conninfo: the controller's door to libpq's connection-string parser (common/db/conninfo.h),
// so that bash never guesses at a conninfo's syntax. The connection string comes on stdin,
// never on the command line, where every local user could read it in /proc/PID/cmdline.
// Options and wiring only.
#include <filesystem>
#include <iostream>
#include <iterator>
#include <string>
#include <system_error>

#include <fmt/format.h>

#include "common/db/conninfo.h"
#include "common/util/cli_app.h"

namespace {

constexpr const char* kAbout =
    R"(Reads one libpq connection string (key=value pairs or a postgresql:// URI) on stdin:
  bb-conninfo redact|split <<<"CONNINFO"
)";

constexpr const char* kFooter =
    "Exit status: 0 ok, 1 the working directory cannot be read, 2 bad usage, a string libpq "
    "cannot parse, or a password with a line break.";

}  // namespace

int main(int argc, char** argv) {
  CLI::App app(kAbout, "bb-conninfo");
  bb::cli::Configure(app);
  app.footer(kFooter);
  app.require_subcommand(1);
  CLI::App* redact = app.add_subcommand(
      "redact", "print it as it may be shown or stored: password and sslpassword as ***");
  app.add_subcommand(
      "split",
      "print it without its password, and on a second line the password, if it\n"
      "has one (libpq takes a password that is not in the string from PGPASSWORD);\n"
      "the files it names (passfile, sslrootcert, sslcert, sslkey, sslcrl, sslcrldir)\n"
      "by absolute paths, relative ones taken from the working directory, so that\n"
      "programs that run in other directories find them");
  bb::cli::ParseOrExit(app, argc, argv);

  std::string conninfo(std::istreambuf_iterator<char>(std::cin), {});
  if (!conninfo.empty() && conninfo.back() == '\n') conninfo.pop_back();

  if (redact->parsed()) {
    fmt::print("{}\n", bb::db::RedactConninfo(conninfo));
    return 0;
  }
  std::error_code error;
  const std::filesystem::path here = std::filesystem::current_path(error);
  if (error) {
    fmt::print(stderr, "bb-conninfo: cannot read the working directory: {}\n", error.message());
    return 1;
  }
  auto absolute = bb::db::WithAbsoluteFiles(conninfo, here.string());
  if (!absolute.ok()) {
    fmt::print(stderr, "bb-conninfo: {}\n", absolute.status().message());
    return 2;
  }
  auto split = bb::db::SplitPassword(*absolute);
  if (!split.ok()) {
    fmt::print(stderr, "bb-conninfo: {}\n", split.status().message());
    return 2;
  }
  fmt::print("{}\n", split->conninfo);
  if (split->password) {
    if (split->password->find_first_of("\r\n") != std::string::npos) {
      fmt::print(stderr, "bb-conninfo: the database password holds a line break\n");
      return 2;
    }
    fmt::print("{}\n", *split->password);
  }
  return 0;
}
