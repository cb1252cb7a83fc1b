// ParseRequestHead: a whole head is good, every proper prefix of it is incomplete, and a byte
// that breaks the grammar is bad as soon as it arrives.
#include "common/util/metrics_request.h"

#include <string>

#include <gtest/gtest.h>

namespace bb {
namespace {

using State = RequestHead::State;

TEST(ParseRequestHead, TakesMethodAndTargetOfAWholeHeadAndFindsEveryPrefixIncomplete) {
  const std::string head =
      "GET /metrics?x=1 HTTP/1.1\r\nHost: 127.0.0.1:9464\r\nUser-Agent: Prometheus/2.45.0\r\n"
      "Accept: application/openmetrics-text;version=1.0.0,text/plain;q=0.5\r\n"
      "X-Empty:\r\n\r\n";
  const RequestHead r = ParseRequestHead(head);
  ASSERT_EQ(r.state, State::kGood) << r.why;
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.target, "/metrics?x=1");
  for (size_t n = 0; n < head.size(); ++n) {
    EXPECT_EQ(ParseRequestHead(head.substr(0, n)).state, State::kIncomplete) << n;
  }
  // HTTP/1.0, no header lines.
  const RequestHead old = ParseRequestHead("POST /x HTTP/1.0\r\n\r\n");
  ASSERT_EQ(old.state, State::kGood);
  EXPECT_EQ(old.method, "POST");
  EXPECT_EQ(old.target, "/x");
}

TEST(ParseRequestHead, RefusesAtTheFirstByteThatBreaksTheGrammar) {
  struct Case {
    std::string bytes;
    std::string why;
  };
  const Case cases[] = {
      {std::string("\x16\x03\x01\x02\x00", 5), "the request line does not start with a method"},
      {" GET", "the request line does not start with a method"},
      {"GET metrics", "the request target is not a path (\"/...\")"},
      {"GET http://h/metrics HTTP/1.1\r\n\r\n", "the request target is not a path (\"/...\")"},
      {std::string("GET /a\tb", 8), "the request target holds a control character"},
      {"GET /metrics HTTP/2", "the version is not HTTP/1.x"},
      {"GET /metrics HTTP/1.x", "the version is not HTTP/1.x"},
      {"GET /metrics HTTP/1.1\n", "the request line does not end with CRLF"},
      {"GET /metrics HTTP/1.1\r\r", "the request line does not end with CRLF"},
      {"GET /metrics HTTP/1.1\r\nHost 1\r\n", "a header line is not 'name: value'"},
      {"GET /metrics HTTP/1.1\r\n: v\r\n", "a header line is not 'name: value'"},
      {"GET /metrics HTTP/1.1\r\nA: \x01", "a header line holds a control character"},
      {"GET /metrics HTTP/1.1\r\nA: b\r\n\rX", "a line does not end with CRLF"},
  };
  for (const auto& c : cases) {
    const RequestHead r = ParseRequestHead(c.bytes);
    EXPECT_EQ(r.state, State::kBad) << c.bytes;
    EXPECT_EQ(r.why, c.why) << c.bytes;
  }
}

}  // namespace
}  // namespace bb
