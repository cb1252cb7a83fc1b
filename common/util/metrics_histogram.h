// BucketHistogram: response times counted over fixed bounds, the form an OpenMetrics histogram
// takes (common/util/metrics_text.h renders it cumulatively on a scrape). The emulators record
// one per transaction type beside their LatencyHistogram (which gives the summary's
// percentiles but has bounds no scraper can aggregate); recording is a search of 17 bounds and
// two increments, never an allocation.
//
// The bounds, in seconds, run from 0.5 ms to 60 s and include the spec's 90th-percentile limits
// of 1, 2 and 3 s (clause 6.5), so that the share of a type within its limit is
// one bucket over the count. A value is compared in the whole microseconds the mix log holds.
// Each bound's "le" text is written out here in the OpenMetrics canonical form ("1.0", not "1").
//
// Ownership and thread-safety: a value; one writer; read it on the writer's thread.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

namespace bb {

class BucketHistogram {
 public:
  struct Bound {
    int64_t micros;
    std::string_view le;
  };
  static constexpr std::array<Bound, 17> kBounds{{
      {500, "0.0005"},
      {1'000, "0.001"},
      {2'500, "0.0025"},
      {5'000, "0.005"},
      {10'000, "0.01"},
      {25'000, "0.025"},
      {50'000, "0.05"},
      {100'000, "0.1"},
      {250'000, "0.25"},
      {500'000, "0.5"},
      {1'000'000, "1.0"},
      {2'000'000, "2.0"},
      {3'000'000, "3.0"},
      {5'000'000, "5.0"},
      {10'000'000, "10.0"},
      {30'000'000, "30.0"},
      {60'000'000, "60.0"},
  }};

  void Record(int64_t micros) {
    if (micros < 0) micros = 0;
    const auto* b =
        std::lower_bound(kBounds.begin(), kBounds.end(), micros,
                         [](const Bound& bound, int64_t v) { return bound.micros < v; });
    ++counts_[static_cast<size_t>(b - kBounds.begin())];  // kBounds.size(): above every bound
    ++count_;
    sum_micros_ += micros;
  }

  // The values at most kBounds[i] (i < kBounds.size()), or all of them (i == kBounds.size()).
  int64_t CumulativeCount(size_t i) const {
    int64_t n = 0;
    for (size_t j = 0; j <= i && j < counts_.size(); ++j) n += counts_[j];
    return n;
  }
  int64_t count() const { return count_; }
  int64_t sum_micros() const { return sum_micros_; }

 private:
  std::array<int64_t, kBounds.size() + 1> counts_{};
  int64_t count_ = 0;
  int64_t sum_micros_ = 0;
};

}  // namespace bb
