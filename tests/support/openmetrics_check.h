// Test support for the OpenMetrics endpoints (common/util/metrics_server.h): a blocking HTTP
// exchange over loopback, and a strict reader of an OpenMetrics 1.0 text exposition that
// collects every way the text breaks the format instead of stopping at the first:
//
//  * every line is "# TYPE", "# UNIT" or "# HELP" of a family, a sample, or the final "# EOF"
//    (last, once, with its newline); no empty line, no other comment;
//  * a family starts with its TYPE (a known type), has each metadata line at most once, UNIT
//    only as the suffix of its name, and is never interleaved with another or seen twice;
//  * a sample's name is its family's (counter: _total or _created; histogram: _bucket, _count,
//    _sum, _created; gauge and stateset: the name itself), labels have valid unique names
//    and correctly escaped values, and the value is a number as the ABNF writes one;
//  * counters are never negative or NaN; a stateset has one sample per state, 0 or 1, and
//    exactly one state set; a histogram's buckets (per label set, not interleaved) have
//    increasing canonical "le" values ending in +Inf, are cumulative, whole, and +Inf equals
//    _count; a labelset appears once per sample name.
//
// Thread-safety: none needed (functions of their arguments).
#pragma once

#include <cctype>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "common/util/asio.h"

namespace bb::metricstest {

// ---- HTTP ------------------------------------------------------------------------------------

struct HttpResponse {
  int status = 0;                              // 0: no status line came back
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;
  std::string raw;
};

// Connects to 127.0.0.1:port with a receive timeout (no test hangs on a server that says
// nothing), sends `request` as is, reads until the server closes, and splits the answer.
inline HttpResponse Exchange(uint16_t port, std::string_view request, int timeout_seconds = 10) {
  HttpResponse r;
  asio::io_context io;
  asio::ip::tcp::socket socket(io);
  error_code ec;
  socket.connect({asio::ip::make_address("127.0.0.1"), port}, ec);
  if (ec) return r;
  timeval tv{timeout_seconds, 0};
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  asio::write(socket, asio::buffer(request), ec);
  char buffer[4096];
  for (;;) {
    const size_t n = socket.read_some(asio::buffer(buffer), ec);
    if (ec) break;
    r.raw.append(buffer, n);
  }
  const size_t head_end = r.raw.find("\r\n\r\n");
  if (head_end == std::string::npos) return r;
  std::string head = r.raw.substr(0, head_end);
  r.body = r.raw.substr(head_end + 4);
  std::smatch m;
  const std::string status_line = head.substr(0, head.find("\r\n"));
  if (std::regex_match(status_line, m, std::regex(R"(HTTP/1\.1 (\d{3}) [^\r\n]+)"))) {
    r.status = std::stoi(m[1]);
  }
  for (size_t pos = head.find("\r\n"); pos != std::string::npos;) {
    const size_t next = head.find("\r\n", pos + 2);
    const std::string line =
        head.substr(pos + 2, next == std::string::npos ? next : next - pos - 2);
    const size_t colon = line.find(':');
    if (colon != std::string::npos) {
      std::string name = line.substr(0, colon);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      const size_t value = line.find_first_not_of(' ', colon + 1);
      r.headers[name] = value == std::string::npos ? "" : line.substr(value);
    }
    pos = next;
  }
  return r;
}

inline HttpResponse Get(uint16_t port, std::string_view path = "/metrics") {
  return Exchange(port, fmt::format("GET {} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                    "Accept: application/openmetrics-text\r\n\r\n",
                                    path));
}

// ---- OpenMetrics -----------------------------------------------------------------------------

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
  bool integer = false;  // written without a decimal point or exponent
};

struct Family {
  std::string name, type, unit, help;
  std::vector<Sample> samples;
};

struct Exposition {
  std::vector<Family> families;
  std::vector<std::string> errors;

  const Family* Find(std::string_view name) const {
    for (const auto& f : families) {
      if (f.name == name) return &f;
    }
    return nullptr;
  }
  // The value of the sample with this name and exactly these labels, if there is one.
  std::optional<double> Value(std::string_view sample,
                              const std::map<std::string, std::string>& labels = {}) const {
    for (const auto& f : families) {
      for (const auto& s : f.samples) {
        if (s.name == sample && s.labels == labels) return s.value;
      }
    }
    return std::nullopt;
  }
};

namespace detail {

inline bool ValidMetricName(std::string_view n) {
  static const std::regex kName("[a-zA-Z_:][a-zA-Z0-9_:]*");
  return std::regex_match(n.begin(), n.end(), kName);
}
inline bool ValidLabelName(std::string_view n) {
  static const std::regex kName("[a-zA-Z_][a-zA-Z0-9_]*");
  return std::regex_match(n.begin(), n.end(), kName) && !n.starts_with("__");
}
// The ABNF's number: a real number, or [sign] inf/infinity, or nan (case-insensitive).
inline std::optional<double> ParseNumber(const std::string& t, bool& integer) {
  static const std::regex kInteger(R"([+-]?\d+)");
  static const std::regex kReal(R"([+-]?(\d+(\.\d*)?|\d*\.\d+)([eE][+-]?\d+)?)");
  static const std::regex kSpecial("[+-]?(inf|infinity)|nan", std::regex::icase);
  integer = std::regex_match(t, kInteger);
  if (std::regex_match(t, kReal)) return std::stod(t);
  if (std::regex_match(t, kSpecial)) {
    if (t.back() == 'n' || t.back() == 'N') return NAN;
    return t.front() == '-' ? -INFINITY : INFINITY;
  }
  return std::nullopt;
}
// An escaped string's text (help or label value): only \\, \" and \n escapes are taken.
inline std::optional<std::string> Unescape(std::string_view s, bool quote_allowed) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '"' && !quote_allowed) return std::nullopt;
    if (s[i] != '\\') {
      out += s[i];
      continue;
    }
    if (++i == s.size()) return std::nullopt;
    if (s[i] == 'n') {
      out += '\n';
    } else if (s[i] == '\\' || s[i] == '"') {
      out += s[i];
    } else {
      return std::nullopt;
    }
  }
  return out;
}
inline std::string Key(const std::map<std::string, std::string>& labels, std::string_view skip) {
  std::string k;
  for (const auto& [n, v] : labels) {
    if (n != skip) k += n + "=" + v + ",";
  }
  return k;
}

}  // namespace detail

inline Exposition ParseOpenMetrics(std::string_view text) {
  using namespace detail;
  Exposition e;
  auto error = [&](int line, const std::string& what, std::string_view content) {
    e.errors.push_back(fmt::format("line {}: {}: '{}'", line, what, content));
  };
  if (!text.ends_with("# EOF\n")) e.errors.push_back("the text does not end with '# EOF\\n'");
  std::set<std::string> seen_families;
  Family* family = nullptr;
  std::set<std::string> metadata;  // of the current family
  bool eof = false;
  int n = 0;
  for (size_t pos = 0; pos < text.size();) {
    const size_t end = text.find('\n', pos);
    const std::string line(text.substr(pos, end == std::string_view::npos ? end : end - pos));
    pos = end == std::string_view::npos ? text.size() : end + 1;
    ++n;
    if (eof) {
      error(n, "a line after # EOF", line);
      continue;
    }
    if (line == "# EOF") {
      eof = true;
      continue;
    }
    if (line.starts_with("#")) {
      std::smatch m;
      if (!std::regex_match(line, m, std::regex(R"(# (TYPE|UNIT|HELP) (\S+) ?(.*))"))) {
        error(n, "a comment that is not TYPE, UNIT, HELP or EOF", line);
        continue;
      }
      const std::string kind = m[1], name = m[2], rest = m[3];
      if (!ValidMetricName(name)) error(n, "an invalid metric name", name);
      if (family == nullptr || family->name != name) {
        if (kind != "TYPE") error(n, "a family that does not start with its TYPE", line);
        if (!seen_families.insert(name).second) error(n, "a family seen before", name);
        e.families.push_back(Family{name, "unknown", "", "", {}});
        family = &e.families.back();
        metadata.clear();
      }
      if (!metadata.insert(kind).second) error(n, "a second " + kind + " line", line);
      if (kind == "TYPE") {
        static const std::set<std::string> kTypes = {"counter",  "gauge",          "histogram",
                                                     "stateset", "gaugehistogram", "info",
                                                     "summary",  "unknown"};
        if (!kTypes.contains(rest)) error(n, "an unknown type", rest);
        if (!family->samples.empty() || metadata.size() > 1) {
          error(n, "TYPE after the family's other lines", line);
        }
        family->type = rest;
      } else if (kind == "UNIT") {
        if (!name.ends_with("_" + rest) || rest.empty()) {
          error(n, "a unit that is not the name's suffix", line);
        }
        family->unit = rest;
      } else {
        auto help = Unescape(rest, true);
        if (!help) error(n, "a badly escaped help text", rest);
        family->help = help.value_or("");
      }
      if (!family->samples.empty()) error(n, "metadata after the family's samples", line);
      continue;
    }
    // sample = metricname [labels] SP number
    static const std::regex kSample(R"(([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+))");
    std::smatch m;
    if (!std::regex_match(line, m, kSample)) {
      error(n, "not a sample line", line);
      continue;
    }
    Sample s;
    s.name = m[1];
    const std::string value_text = m[3];
    auto value = ParseNumber(value_text, s.integer);
    if (!value) error(n, "not a number", value_text);
    s.value = value.value_or(NAN);
    if (m[2].matched) {
      const std::string labels = m[2].str().substr(1, m[2].length() - 2);
      static const std::regex kLabel(R"re(([^=,"]*)="((?:[^"\\]|\\.)*)"(,|$))re");
      auto it = std::sregex_iterator(labels.begin(), labels.end(), kLabel);
      size_t consumed = 0;
      for (; it != std::sregex_iterator(); ++it) {
        if (static_cast<size_t>(it->position()) != consumed) break;
        consumed += it->length();
        const std::string label_name = (*it)[1];
        if (!ValidLabelName(label_name)) error(n, "an invalid label name", label_name);
        auto label_value = Unescape((*it)[2].str(), false);
        if (!label_value) error(n, "a badly escaped label value", (*it)[2].str());
        if (!s.labels.emplace(label_name, label_value.value_or("")).second) {
          error(n, "a label given twice", label_name);
        }
        if ((*it)[3] == "" && consumed != labels.size()) break;
      }
      if (consumed != labels.size() || (!labels.empty() && labels.back() == ',')) {
        error(n, "labels that do not parse", m[2].str());
      }
    }
    if (family == nullptr) {
      error(n, "a sample before any family", line);
      continue;
    }
    static const std::map<std::string, std::vector<std::string>> kSuffixes = {
        {"counter", {"_total", "_created"}},
        {"gauge", {""}},
        {"stateset", {""}},
        {"unknown", {""}},
        {"histogram", {"_bucket", "_count", "_sum", "_created"}},
    };
    bool named = false;
    auto suffixes = kSuffixes.find(family->type);
    if (suffixes != kSuffixes.end()) {
      for (const auto& suffix : suffixes->second) named = named || s.name == family->name + suffix;
    }
    if (!named) error(n, "a sample name not of its family " + family->name, s.name);
    if (family->type == "counter" && s.name.ends_with("_total") &&
        (std::isnan(s.value) || s.value < 0)) {
      error(n, "a counter that is negative or NaN", line);
    }
    if (family->type == "stateset" &&
        (!s.labels.contains(family->name) || (s.value != 0 && s.value != 1) || !s.integer)) {
      error(n, "a stateset sample without its state label or not 0/1", line);
    }
    family->samples.push_back(std::move(s));
  }
  if (!eof) e.errors.push_back("no '# EOF' line");

  // Per family: unique label sets per sample name; stateset and histogram rules.
  for (const auto& f : e.families) {
    std::set<std::string> unique;
    for (const auto& s : f.samples) {
      if (!unique.insert(s.name + "{" + Key(s.labels, "") + "}").second) {
        e.errors.push_back(
            fmt::format("{}: {} with labels {} twice", f.name, s.name, Key(s.labels, "")));
      }
    }
    if (f.type == "stateset") {
      std::map<std::string, int> set_per_metric;
      for (const auto& s : f.samples) set_per_metric[Key(s.labels, f.name)] += s.value == 1;
      for (const auto& [metric, set] : set_per_metric) {
        if (set != 1)
          e.errors.push_back(fmt::format("{}{{{}}}: {} states set", f.name, metric, set));
      }
    }
    if (f.type != "histogram") continue;
    struct Point {
      std::vector<std::pair<double, double>> buckets;  // le, value
      std::optional<double> count, sum;
    };
    std::map<std::string, Point> points;
    std::set<std::string> finished;  // label sets whose samples have ended
    std::optional<std::string> current;
    for (const auto& s : f.samples) {
      const std::string key = Key(s.labels, "le");
      if (key != current) {
        if (current) finished.insert(*current);
        if (finished.contains(key)) {
          e.errors.push_back(fmt::format("{}{{{}}}: its samples are interleaved", f.name, key));
        }
        current = key;
      }
      Point& p = points[key];
      if (s.name == f.name + "_bucket") {
        auto le = s.labels.find("le");
        if (le == s.labels.end()) {
          e.errors.push_back(fmt::format("{}{{{}}}: a bucket without le", f.name, key));
          continue;
        }
        static const std::regex kCanonical(R"(\+Inf|\d+\.\d+|\d(\.\d+)?e[+-]\d+)");
        if (!std::regex_match(le->second, kCanonical)) {
          e.errors.push_back(
              fmt::format("{}{{{}}}: le '{}' is not canonical", f.name, key, le->second));
        }
        bool ignored = false;
        const double bound =
            le->second == "+Inf" ? INFINITY : ParseNumber(le->second, ignored).value_or(NAN);
        if (!s.integer) {
          e.errors.push_back(
              fmt::format("{}{{{}}}: a bucket value that is not whole", f.name, key));
        }
        p.buckets.emplace_back(bound, s.value);
      } else if (s.name == f.name + "_count") {
        if (!s.integer) e.errors.push_back(fmt::format("{}{{{}}}: _count not whole", f.name, key));
        p.count = s.value;
      } else if (s.name == f.name + "_sum") {
        if (s.value < 0 || std::isnan(s.value)) {
          e.errors.push_back(fmt::format("{}{{{}}}: _sum negative or NaN", f.name, key));
        }
        p.sum = s.value;
      }
    }
    for (const auto& [key, p] : points) {
      const std::string at = fmt::format("{}{{{}}}", f.name, key);
      if (p.buckets.empty() || p.buckets.back().first != INFINITY) {
        e.errors.push_back(at + ": the last bucket is not +Inf");
        continue;
      }
      for (size_t i = 1; i < p.buckets.size(); ++i) {
        if (!(p.buckets[i].first > p.buckets[i - 1].first)) {
          e.errors.push_back(
              fmt::format("{}: le {} after {}", at, p.buckets[i].first, p.buckets[i - 1].first));
        }
        if (p.buckets[i].second < p.buckets[i - 1].second) {
          e.errors.push_back(fmt::format("{}: bucket le {} has {}, less than the one before ({})",
                                         at, p.buckets[i].first, p.buckets[i].second,
                                         p.buckets[i - 1].second));
        }
      }
      if (p.sum && !p.count) e.errors.push_back(at + ": _sum without _count");
      if (p.count && *p.count != p.buckets.back().second) {
        e.errors.push_back(fmt::format("{}: _count {} is not the +Inf bucket's {}", at, *p.count,
                                       p.buckets.back().second));
      }
    }
  }
  return e;
}

}  // namespace bb::metricstest
