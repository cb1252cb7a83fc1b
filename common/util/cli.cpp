#include "common/util/cli.h"

#include <charconv>
#include <cmath>
#include <system_error>

#include <fmt/format.h>

namespace bb {
namespace {

Status Invalid(std::string_view option, std::string_view text, std::string_view want) {
  if (option.empty()) return Status::InvalidArgument(fmt::format("'{}' is not {}", text, want));
  return Status::InvalidArgument(fmt::format("{}: '{}' is not {}", option, text, want));
}

}  // namespace

int Fail(std::string_view program, const Status& status, int exit_code) {
  fmt::print(stderr, "{}: {}\n", program, status.message());
  return exit_code;
}

Result<int64_t> ParseInt(std::string_view option, std::string_view text, int64_t min, int64_t max) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec == std::errc::invalid_argument || ptr != end) {
    return Invalid(option, text, "a whole number");
  }
  if (ec == std::errc::result_out_of_range || value < min || value > max) {
    return Invalid(option, text, fmt::format("in the range {} to {}", min, max));
  }
  return value;
}

Result<double> ParseDouble(std::string_view option, std::string_view text, double min, double max) {
  double value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec == std::errc::invalid_argument || ptr != end || !std::isfinite(value)) {
    return Invalid(option, text, "a number");
  }
  if (ec == std::errc::result_out_of_range || value < min || value > max) {
    return Invalid(option, text, fmt::format("in the range {} to {}", min, max));
  }
  return value;
}

Result<int64_t> ParseDurationSeconds(std::string_view option, std::string_view text,
                                     int64_t min_seconds, int64_t max_seconds) {
  int64_t scale = 1;
  std::string_view digits = text;
  if (!text.empty()) {
    switch (text.back()) {
      case 's':
        scale = 1;
        digits.remove_suffix(1);
        break;
      case 'm':
        scale = 60;
        digits.remove_suffix(1);
        break;
      case 'h':
        scale = 3600;
        digits.remove_suffix(1);
        break;
      default:
        break;
    }
  }
  int64_t value = 0;
  const char* end = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(digits.data(), end, value);
  if (digits.empty() || ec != std::errc() || ptr != end || value < 0 ||
      value > max_seconds / scale) {
    return Invalid(option, text,
                   fmt::format("a duration from {}s to {}s (a number with an optional unit "
                               "s, m or h)",
                               min_seconds, max_seconds));
  }
  value *= scale;
  if (value < min_seconds) {
    return Invalid(option, text,
                   fmt::format("a duration from {}s to {}s", min_seconds, max_seconds));
  }
  return value;
}

Result<HostPort> ParseHostPort(std::string_view option, std::string_view text) {
  if (text.starts_with("unix:")) {
    // sockaddr_un holds 108 bytes with the terminating NUL.
    if (text.size() == 5 || text.size() - 5 > 107) {
      return Invalid(option, text, "unix:PATH with a path of 1 to 107 bytes");
    }
    return HostPort::Unix(std::string(text.substr(5)));
  }
  auto colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    return Invalid(option, text, "host:port");
  }
  std::string_view host = text.substr(0, colon);
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') return Invalid(option, text, "host:port");
    host = host.substr(1, host.size() - 2);
  }
  auto port = ParseInt(option, text.substr(colon + 1), 1, 65535);
  if (!port.ok()) return Invalid(option, text, "host:port with a port from 1 to 65535");
  return HostPort{std::string(host), static_cast<uint16_t>(*port)};
}

Result<HostPort> ParseListenAddress(std::string_view option, std::string_view text) {
  if (text.starts_with("unix:")) return ParseHostPort(option, text);
  // ParseHostPort takes ports 1..65535 only (what a peer's address needs): HOST:0 is read as
  // HOST:1, then given port 0, so that the host is checked the same way.
  std::string with_port(text);
  if (text.ends_with(":0")) with_port.back() = '1';
  auto address = ParseHostPort(option, with_port);
  if (!address.ok()) return Invalid(option, text, "host:port with a port from 0 to 65535");
  if (text.ends_with(":0")) address = HostPort{address->host, 0};
  return address;
}

std::string ToString(const HostPort& address) {
  if (address.is_unix()) return "unix:" + address.path;
  if (address.host.find(':') != std::string::npos) {
    return fmt::format("[{}]:{}", address.host, address.port);
  }
  return fmt::format("{}:{}", address.host, address.port);
}

}  // namespace bb
