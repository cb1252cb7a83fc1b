// Parsing of command-line option values. Each parser names the option and the value it
// rejected, so a program can print the message and exit 2 (STYLE.md, "Errors").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/util/status.h"

namespace bb {

// A whole decimal number in [min, max]; no sign for non-negative ranges, no trailing text.
Result<int64_t> ParseInt(std::string_view option, std::string_view text, int64_t min, int64_t max);

// A decimal number (e.g. "2.5") in [min, max].
Result<double> ParseDouble(std::string_view option, std::string_view text, double min, double max);

// A duration: a number with an optional unit s, m or h ("90", "90s", "15m", "2h"), in seconds.
Result<int64_t> ParseDurationSeconds(std::string_view option, std::string_view text,
                                     int64_t min_seconds, int64_t max_seconds);

// True when -h or --help is among the arguments: the program prints its usage and exits 0.
bool WantsHelp(int argc, char** argv);

// Prints "<program>: <message>" on stderr and returns `exit_code`: how a main() reports a
// failure before it has a logger (2 for bad usage, 1 for a runtime failure).
int Fail(std::string_view program, const Status& status, int exit_code);

// host:port, with the port in 1..65535. "[::1]:5000" for IPv6 literals.
struct HostPort {
  std::string host;
  uint16_t port = 0;
};
Result<HostPort> ParseHostPort(std::string_view option, std::string_view text);

}  // namespace bb
