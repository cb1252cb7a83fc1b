// MetricsWatcher: scrapes an emulator's metrics endpoint (common/util/metrics_server.h) again
// and again through a run and checks each exposition as it comes: an HTTP 200, valid
// OpenMetrics (openmetrics_check.h), and no counter or histogram sample lower than at the scrape
// before. It keeps the phases (stateset states) seen and each sample's last value, for the
// test's checks at the end. The customer and the market emulator tests share it.
//
// Thread-safety: none; one per test, on the test's thread.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "tests/support/openmetrics_check.h"

namespace bb::metricstest {

class MetricsWatcher {
 public:
  // One scrape of 127.0.0.1:`port`, checked (failures are the test's); false when nothing
  // answered (the endpoint is closed: the run ended).
  bool Scrape(uint16_t port) {
    auto r = Get(port);
    if (r.status == 0) return false;
    ++scrapes_;
    EXPECT_EQ(r.status, 200) << r.raw;
    latest_ = ParseOpenMetrics(r.body);
    for (const auto& e : latest_.errors) ADD_FAILURE() << "scrape " << scrapes_ << ": " << e;
    for (const auto& f : latest_.families) {
      for (const auto& sample : f.samples) {
        if (f.type == "stateset" && sample.value == 1) phases_.insert(sample.labels.at(f.name));
        if (f.type != "counter" && f.type != "histogram") continue;
        const std::string key = sample.name + detail::Key(sample.labels, "");
        EXPECT_GE(sample.value, last_[key]) << key << " went down at scrape " << scrapes_;
        last_[key] = sample.value;
      }
    }
    return true;
  }

  int scrapes() const { return scrapes_; }
  const std::set<std::string>& phases() const { return phases_; }
  // The last value of a counter or histogram sample (0 if never seen).
  double Last(const std::string& sample, const std::map<std::string, std::string>& labels = {}) {
    return last_[sample + detail::Key(labels, "")];
  }
  // The exposition of the last scrape that was answered.
  const Exposition& latest() const { return latest_; }

 private:
  int scrapes_ = 0;
  std::set<std::string> phases_;
  std::map<std::string, double> last_;
  Exposition latest_;
};

}  // namespace bb::metricstest
