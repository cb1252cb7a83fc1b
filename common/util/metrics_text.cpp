#include "common/util/metrics_text.h"

#include <cassert>
#include <iterator>

#include <fmt/format.h>

namespace bb {

namespace {

constexpr std::string_view kSecondsSuffix = "_seconds";

// Label values and help texts: backslash, double quote and newline escaped (OpenMetrics 1.0,
// "Escaping"); a help text may hold a double quote as is, escaping it is allowed.
void AppendEscaped(std::string& out, std::string_view text) {
  for (char c : text) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
}

std::string_view TypeName(int type) {
  static constexpr std::string_view kNames[] = {"unknown", "counter", "gauge", "histogram",
                                                "stateset"};
  return kNames[type];
}

}  // namespace

void OpenMetricsText::Family(std::string_view name, Type type, std::string_view help) {
  family_.assign(name);
  type_ = type;
  fmt::format_to(std::back_inserter(out_), "# TYPE {} {}\n", name,
                 TypeName(static_cast<int>(type)));
  // The unit, when there is one, is the name's suffix (OpenMetrics 1.0, "Unit").
  if (type != Type::kStateSet && name.ends_with(kSecondsSuffix)) {
    fmt::format_to(std::back_inserter(out_), "# UNIT {} seconds\n", name);
  }
  fmt::format_to(std::back_inserter(out_), "# HELP {} ", name);
  AppendEscaped(out_, help);
  out_ += '\n';
}

void OpenMetricsText::Counter(std::string_view name, std::string_view help) {
  Family(name, Type::kCounter, help);
}

void OpenMetricsText::Gauge(std::string_view name, std::string_view help) {
  Family(name, Type::kGauge, help);
}

void OpenMetricsText::Histogram(std::string_view name, std::string_view help) {
  Family(name, Type::kHistogram, help);
}

void OpenMetricsText::Line(std::string_view suffix, MetricLabels labels, const MetricLabel* extra,
                           std::string_view value) {
  out_ += family_;
  out_ += suffix;
  if (labels.size() > 0 || extra != nullptr) {
    char separator = '{';
    auto label = [&](const MetricLabel& l) {
      out_ += separator;
      separator = ',';
      out_ += l.name;
      out_ += "=\"";
      AppendEscaped(out_, l.value);
      out_ += '"';
    };
    for (const auto& l : labels) label(l);
    if (extra != nullptr) label(*extra);
    out_ += '}';
  }
  out_ += ' ';
  out_ += value;
  out_ += '\n';
}

void OpenMetricsText::Sample(MetricLabels labels, int64_t value) {
  assert(type_ == Type::kCounter || type_ == Type::kGauge);
  Line(type_ == Type::kCounter ? "_total" : "", labels, nullptr, fmt::format("{}", value));
}

void OpenMetricsText::HistogramSample(MetricLabels labels, const BucketHistogram& histogram) {
  assert(type_ == Type::kHistogram);
  const auto& bounds = BucketHistogram::kBounds;
  for (size_t i = 0; i <= bounds.size(); ++i) {
    const MetricLabel le{"le", i < bounds.size() ? bounds[i].le : "+Inf"};
    Line("_bucket", labels, &le, fmt::format("{}", histogram.CumulativeCount(i)));
  }
  Line("_count", labels, nullptr, fmt::format("{}", histogram.count()));
  // Whole microseconds as seconds with six decimals: exact, no floating-point rounding.
  const int64_t us = histogram.sum_micros();
  Line("_sum", labels, nullptr, fmt::format("{}.{:06}", us / 1'000'000, us % 1'000'000));
}

void OpenMetricsText::StateSet(std::string_view name, std::string_view help,
                               std::span<const std::string_view> states, size_t current) {
  Family(name, Type::kStateSet, help);
  for (size_t i = 0; i < states.size(); ++i) {
    const MetricLabel state{name, states[i]};
    Line("", {}, &state, i == current ? "1" : "0");
  }
}

std::string OpenMetricsText::Finish() {
  out_ += "# EOF\n";
  std::string text;
  text.swap(out_);
  family_.clear();
  type_ = Type::kNone;
  return text;
}

}  // namespace bb
