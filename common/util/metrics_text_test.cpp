// OpenMetricsText and BucketHistogram: the exposition's exact text for each kind of family,
// escaping, cumulative buckets from recorded values; and the strict reader the endpoint tests
// use (tests/support/openmetrics_check.h) refuses what breaks the format, so that those tests
// can fail.
#include "common/util/metrics_text.h"

#include <string>
#include <string_view>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/util/metrics_histogram.h"
#include "tests/support/openmetrics_check.h"

namespace bb {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(OpenMetricsText, WritesEachKindOfFamilyAndEndsWithEof) {
  OpenMetricsText text;
  text.Counter("bb_requests", "Requests, by type");
  text.Sample({{"type", "TO"}}, 12);
  text.Sample({{"type", "TS"}}, 0);
  text.Gauge("bb_in_flight", "Requests sent and not answered");
  text.Sample({}, 3);
  static constexpr std::string_view kStates[] = {"connecting", "running", "stopping"};
  text.StateSet("bb_phase", "Where the run is", kStates, 1);
  EXPECT_EQ(text.Finish(),
            "# TYPE bb_requests counter\n"
            "# HELP bb_requests Requests, by type\n"
            "bb_requests_total{type=\"TO\"} 12\n"
            "bb_requests_total{type=\"TS\"} 0\n"
            "# TYPE bb_in_flight gauge\n"
            "# HELP bb_in_flight Requests sent and not answered\n"
            "bb_in_flight 3\n"
            "# TYPE bb_phase stateset\n"
            "# HELP bb_phase Where the run is\n"
            "bb_phase{bb_phase=\"connecting\"} 0\n"
            "bb_phase{bb_phase=\"running\"} 1\n"
            "bb_phase{bb_phase=\"stopping\"} 0\n"
            "# EOF\n");
  // Finish leaves the writer empty.
  EXPECT_EQ(text.Finish(), "# EOF\n");
}

TEST(OpenMetricsText, EscapesLabelValuesAndHelp) {
  OpenMetricsText text;
  text.Gauge("bb_g", "a \\ b\nc \"d\"");
  text.Sample({{"a", "x\"y"}, {"b", "1\\2\n3"}}, -4);
  const std::string out = text.Finish();
  EXPECT_THAT(out, HasSubstr("# HELP bb_g a \\\\ b\\nc \\\"d\\\"\n"));
  EXPECT_THAT(out, HasSubstr("bb_g{a=\"x\\\"y\",b=\"1\\\\2\\n3\"} -4\n"));
  auto parsed = metricstest::ParseOpenMetrics(out);
  EXPECT_THAT(parsed.errors, IsEmpty());
  ASSERT_NE(parsed.Find("bb_g"), nullptr);
  EXPECT_EQ(parsed.Find("bb_g")->help, "a \\ b\nc \"d\"");
  EXPECT_EQ(parsed.Value("bb_g", {{"a", "x\"y"}, {"b", "1\\2\n3"}}), -4);
}

TEST(OpenMetricsText, AHistogramIsCumulativeInSecondsWithItsUnit) {
  BucketHistogram h;
  // 0 µs and exactly 1 ms fall in le 0.001 (at most the bound); 1.001 ms in 0.0025; 2 s in
  // 2.0; 61 s above every bound.
  for (int64_t us : {0, 1'000, 1'001, 2'000'000, 61'000'000}) h.Record(us);
  OpenMetricsText text;
  text.Histogram("bb_response_seconds", "Response time");
  text.HistogramSample({{"type", "TO"}}, h);
  const std::string out = text.Finish();
  EXPECT_THAT(out, HasSubstr("# TYPE bb_response_seconds histogram\n"
                             "# UNIT bb_response_seconds seconds\n"
                             "# HELP bb_response_seconds Response time\n"
                             "bb_response_seconds_bucket{type=\"TO\",le=\"0.0005\"} 1\n"
                             "bb_response_seconds_bucket{type=\"TO\",le=\"0.001\"} 2\n"
                             "bb_response_seconds_bucket{type=\"TO\",le=\"0.0025\"} 3\n"));
  EXPECT_THAT(out, HasSubstr("bb_response_seconds_bucket{type=\"TO\",le=\"1.0\"} 3\n"
                             "bb_response_seconds_bucket{type=\"TO\",le=\"2.0\"} 4\n"));
  EXPECT_THAT(out, HasSubstr("bb_response_seconds_bucket{type=\"TO\",le=\"60.0\"} 4\n"
                             "bb_response_seconds_bucket{type=\"TO\",le=\"+Inf\"} 5\n"
                             "bb_response_seconds_count{type=\"TO\"} 5\n"
                             "bb_response_seconds_sum{type=\"TO\"} 63.002001\n"));
  auto parsed = metricstest::ParseOpenMetrics(out);
  EXPECT_THAT(parsed.errors, IsEmpty());
  EXPECT_EQ(parsed.Find("bb_response_seconds")->unit, "seconds");
  EXPECT_EQ(h.count(), 5);
  EXPECT_EQ(h.CumulativeCount(BucketHistogram::kBounds.size()), 5);
}

TEST(BucketHistogram, BoundsIncreaseAndTheirLeTextIsTheirValue) {
  const auto& b = BucketHistogram::kBounds;
  for (size_t i = 0; i < b.size(); ++i) {
    if (i > 0) {
      EXPECT_LT(b[i - 1].micros, b[i].micros) << i;
    }
    EXPECT_DOUBLE_EQ(std::stod(std::string(b[i].le)), static_cast<double>(b[i].micros) / 1e6);
    // OpenMetrics' canonical form: a decimal point always ("1.0", not "1").
    EXPECT_NE(b[i].le.find('.'), std::string_view::npos) << b[i].le;
  }
}

// The strict reader: each broken exposition below is refused, naming what broke.
TEST(OpenMetricsCheck, RefusesWhatBreaksTheFormat) {
  struct Case {
    std::string text;
    std::string error;
  };
  const std::string kGoodHistogram =
      "# TYPE h_seconds histogram\n# UNIT h_seconds seconds\n"
      "h_seconds_bucket{le=\"0.1\"} 1\nh_seconds_bucket{le=\"+Inf\"} 2\n"
      "h_seconds_count 2\nh_seconds_sum 0.3\n";
  ASSERT_THAT(metricstest::ParseOpenMetrics(kGoodHistogram + "# EOF\n").errors, IsEmpty());
  const Case cases[] = {
      {kGoodHistogram, "no '# EOF' line"},
      {kGoodHistogram + "# EOF\n# EOF\n", "a line after # EOF"},
      {"# TYPE c counter\nc 1\n# EOF\n", "a sample name not of its family c"},
      {"# TYPE c counter\nc_total -1\n# EOF\n", "a counter that is negative or NaN"},
      {"# TYPE c counter\nc_total 1\n# TYPE d gauge\nd 1\n# TYPE c counter\n# EOF\n",
       "a family seen before"},
      {"# HELP c x\n# TYPE c counter\n# EOF\n", "a family that does not start with its TYPE"},
      {"# TYPE c counter\n# UNIT c seconds\n# EOF\n", "a unit that is not the name's suffix"},
      {"# TYPE c cointer\n# EOF\n", "an unknown type"},
      {"# TYPE g gauge\ng{a=\"1\",a=\"2\"} 1\n# EOF\n", "a label given twice"},
      {"# TYPE g gauge\ng{a=\"\\t\"} 1\n# EOF\n", "a badly escaped label value"},
      {"# TYPE g gauge\ng{1a=\"x\"} 1\n# EOF\n", "an invalid label name"},
      {"# TYPE g gauge\ng 1,5\n# EOF\n", "not a number"},
      {"# TYPE g gauge\ng 1\ng 2\n# EOF\n", "g: g with labels  twice"},
      {"# a comment\n# EOF\n", "a comment that is not TYPE, UNIT, HELP or EOF"},
      {"\n# EOF\n", "not a sample line"},
      {"# TYPE s stateset\ns{s=\"a\"} 1\ns{s=\"b\"} 1\n# EOF\n", "s{}: 2 states set"},
      {"# TYPE h histogram\nh_bucket{le=\"1.0\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n# EOF\n",
       "h{}: bucket le inf has 1, less than the one before (2)"},
      {"# TYPE h histogram\nh_bucket{le=\"1.0\"} 1\nh_count 1\n# EOF\n",
       "h{}: the last bucket is not +Inf"},
      {"# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_count 3\n# EOF\n",
       "h{}: _count 3 is not the +Inf bucket's 2"},
      {"# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n# EOF\n",
       "h{}: le '1' is not canonical"},
      {"# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1.5\nh_count 1.5\n# EOF\n",
       "h{}: a bucket value that is not whole"},
      {"# TYPE h histogram\nh_bucket{a=\"1\",le=\"+Inf\"} 1\nh_bucket{a=\"2\",le=\"+Inf\"} 1\n"
       "h_count{a=\"1\"} 1\n# EOF\n",
       "h{a=1,}: its samples are interleaved"},
  };
  for (const auto& c : cases) {
    auto parsed = metricstest::ParseOpenMetrics(c.text);
    bool found = false;
    for (const auto& e : parsed.errors) found = found || e.find(c.error) != std::string::npos;
    EXPECT_TRUE(found) << "'" << c.error << "' not among the errors of:\n"
                       << c.text << "errors:\n"
                       << ::testing::PrintToString(parsed.errors);
  }
}

}  // namespace
}  // namespace bb
