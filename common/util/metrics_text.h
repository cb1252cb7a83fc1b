// OpenMetricsText: writes an OpenMetrics 1.0 text exposition, the body of a GET /metrics
// (common/util/metrics_server.h), family by family:
//
//   OpenMetricsText text;
//   text.Counter("brokerbench_transactions", "Transactions completed, by type");
//   text.Sample({{"type", "TO"}}, 1234);        // brokerbench_transactions_total{type="TO"} 1234
//   text.Histogram("brokerbench_response_seconds", "Response time, by type");
//   text.HistogramSample({{"type", "TO"}}, h);  // _bucket{...,le="..."}..., _count, _sum
//   std::string body = text.Finish();           // ends with "# EOF\n"
//
// Each family gets its "# TYPE", "# UNIT" (when its name ends in _seconds) and "# HELP" lines,
// in that order; a family's samples follow it. Label values and help texts are escaped as the
// format wants (backslash, double quote, newline). Names are the callers' constants and are
// not checked here (the tests parse the whole exposition strictly).
//
// Only a scrape builds one, so its allocations are the scrape's, never a transaction's.
//
// Ownership and thread-safety: a value; one thread.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

#include "common/util/metrics_histogram.h"

namespace bb {

struct MetricLabel {
  std::string_view name;
  std::string_view value;
};
using MetricLabels = std::initializer_list<MetricLabel>;

class OpenMetricsText {
 public:
  static constexpr std::string_view kContentType =
      "application/openmetrics-text; version=1.0.0; charset=utf-8";

  // Starts a family. Its samples (Sample, HistogramSample) follow, until the next family.
  void Counter(std::string_view name, std::string_view help);
  void Gauge(std::string_view name, std::string_view help);
  void Histogram(std::string_view name, std::string_view help);

  // A sample of the current counter ("<name>_total") or gauge ("<name>").
  void Sample(MetricLabels labels, int64_t value);
  // A histogram's samples: one "_bucket" per bound of BucketHistogram and "+Inf", cumulative,
  // then "_count" and "_sum" (in seconds).
  void HistogramSample(MetricLabels labels, const BucketHistogram& histogram);

  // A whole stateset family of one metric: a sample per state, labelled with the family's own
  // name, 1 for states[current] and 0 for the others (an enum, as the format encodes one).
  void StateSet(std::string_view name, std::string_view help,
                std::span<const std::string_view> states, size_t current);

  // The exposition, ended by "# EOF"; the writer starts empty again.
  std::string Finish();

 private:
  enum class Type { kNone, kCounter, kGauge, kHistogram, kStateSet };
  void Family(std::string_view name, Type type, std::string_view help);
  // "<family><suffix>{labels[,extra]} <value>\n"
  void Line(std::string_view suffix, MetricLabels labels, const MetricLabel* extra,
            std::string_view value);

  std::string out_;
  std::string family_;
  Type type_ = Type::kNone;
};

}  // namespace bb
