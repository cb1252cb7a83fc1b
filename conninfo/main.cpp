// bb-conninfo: the controller's door to libpq's connection-string parser (common/db/conninfo.h),
// so that bash never guesses at a conninfo's syntax. The connection string comes on stdin,
// never on the command line, where every local user could read it in /proc/PID/cmdline.
// Options and wiring only.
#include <iostream>
#include <iterator>
#include <string>

#include <fmt/format.h>

#include "common/db/conninfo.h"

namespace {

constexpr const char* kUsage = R"(Usage: bb-conninfo redact|split <<<"CONNINFO"

Reads one libpq connection string (key=value pairs or a postgresql:// URI) on stdin.

  redact   print it as it may be shown or stored: password and sslpassword as ***
  split    print it without its password, and on a second line the password, if it has one
           (libpq takes a password that is not in the string from PGPASSWORD)

Exit status: 0 ok, 2 bad usage, a string libpq cannot parse, or a password with a line break.
)";

}  // namespace

int main(int argc, char** argv) {
  const std::string command = argc == 2 ? argv[1] : "";
  if (command == "-h" || command == "--help") {
    fmt::print("{}", kUsage);
    return 0;
  }
  if (command != "redact" && command != "split") {
    fmt::print(stderr, "{}", kUsage);
    return 2;
  }
  std::string conninfo(std::istreambuf_iterator<char>(std::cin), {});
  if (!conninfo.empty() && conninfo.back() == '\n') conninfo.pop_back();

  if (command == "redact") {
    fmt::print("{}\n", bb::db::RedactConninfo(conninfo));
    return 0;
  }
  auto split = bb::db::SplitPassword(conninfo);
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
