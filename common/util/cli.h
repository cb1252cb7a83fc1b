// Parsing of command-line option values. Each parser names the option and the value it
// rejected, so a program can print the message and exit 2 (docs/STYLE.md, "Errors"). With an empty
// `option` the message starts at the value: CLI11's validators use them so (cli_app.h), and
// CLI11 puts the option in front.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "common/util/status.h"

namespace bb {

// A whole decimal number in [min, max]; no sign for non-negative ranges, no trailing text.
Result<int64_t> ParseInt(std::string_view option, std::string_view text, int64_t min, int64_t max);

// A decimal number (e.g. "2.5") in [min, max].
Result<double> ParseDouble(std::string_view option, std::string_view text, double min, double max);

// A duration: a number with an optional unit s, m or h ("90", "90s", "15m", "2h"), in seconds.
Result<int64_t> ParseDurationSeconds(std::string_view option, std::string_view text,
                                     int64_t min_seconds, int64_t max_seconds);

// Prints "<program>: <message>" on stderr and returns `exit_code`: how a main() reports a
// failure before it has a logger (2 for bad usage, 1 for a runtime failure).
int Fail(std::string_view program, const Status& status, int exit_code);

// Where a program listens or connects: host:port, with the port in 1..65535 ("[::1]:5000" for
// IPv6 literals), or "unix:PATH", a Unix-domain socket (cheaper than loopback TCP when every
// program runs on one host).
struct HostPort {
  HostPort() = default;
  HostPort(std::string h, uint16_t p) : host(std::move(h)), port(p) {}
  static HostPort Unix(std::string path) {
    HostPort address;
    address.path = std::move(path);
    return address;
  }
  bool is_unix() const { return !path.empty(); }

  std::string host;
  uint16_t port = 0;
  std::string path;  // the Unix-domain socket's path; when set, host and port are unused
};
Result<HostPort> ParseHostPort(std::string_view option, std::string_view text);
// Where a server listens: as ParseHostPort, and also HOST:0, a port the system picks (the
// program then writes the port it got to a port file: common/util/port_file.h).
Result<HostPort> ParseListenAddress(std::string_view option, std::string_view text);
// "host:port", "[v6]:port" or "unix:PATH", as ParseHostPort reads it.
std::string ToString(const HostPort& address);

}  // namespace bb
