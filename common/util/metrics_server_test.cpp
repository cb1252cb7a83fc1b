// MetricsServer on loopback, its io_context on a thread of its own as a program's I/O thread:
// GET /metrics answers valid OpenMetrics rendered at each scrape; other methods and paths are
// refused; garbage is refused at once; a request that never ends, an oversized head and
// connections beyond the limit are bounded; the server keeps serving after all of them; Close
// lets the io_context run dry.
#include "common/util/metrics_server.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "common/util/metrics_histogram.h"
#include "common/util/metrics_text.h"
#include "tests/support/in_process_server.h"
#include "tests/support/openmetrics_check.h"

namespace bb {
namespace {

using metricstest::Exchange;
using metricstest::Get;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using namespace std::chrono_literals;

// A server rendering a counter of its own scrapes and a histogram, on its own I/O thread.
class RunningServer {
 public:
  explicit RunningServer(MetricsServerLimits limits = {})
      : server_(
            io_, [this] { return Render(); }, limits) {
    Status s = server_.Start({"127.0.0.1", 0});
    EXPECT_TRUE(s.ok()) << s.message();
    for (int64_t us : {300, 800, 4'000, 1'500'000}) histogram_.Record(us);
    thread_ = std::thread([this] { io_.run(); });
  }
  ~RunningServer() { CloseAndJoin(); }
  // Closes on the I/O thread; the io_context must then run dry (nothing else keeps it alive).
  void CloseAndJoin() {
    if (!thread_.joinable()) return;
    asio::post(io_, [this] { server_.Close(); });
    thread_.join();
  }
  uint16_t port() const { return server_.port(); }

 private:
  std::string Render() {
    OpenMetricsText text;
    text.Counter("test_scrapes", "Scrapes so far, this one included");
    text.Sample({}, ++scrapes_);
    text.Histogram("test_response_seconds", "Response time");
    text.HistogramSample({{"type", "TO"}}, histogram_);
    return text.Finish();
  }

  asio::io_context io_;
  MetricsServer server_;
  BucketHistogram histogram_;
  int64_t scrapes_ = 0;  // on the I/O thread only
  std::thread thread_;
};

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(MetricsServer, AnswersGetMetricsWithValidOpenMetricsRenderedAtEachScrape) {
  RunningServer server;
  ASSERT_NE(server.port(), 0);
  for (int scrape = 1; scrape <= 3; ++scrape) {
    auto r = Get(server.port(), scrape == 3 ? "/metrics?name[]=x" : "/metrics");
    ASSERT_EQ(r.status, 200) << r.raw;
    EXPECT_EQ(r.headers["content-type"],
              "application/openmetrics-text; version=1.0.0; charset=utf-8");
    EXPECT_EQ(r.headers["connection"], "close");
    EXPECT_EQ(r.headers["content-length"], std::to_string(r.body.size()));
    auto parsed = metricstest::ParseOpenMetrics(r.body);
    EXPECT_THAT(parsed.errors, IsEmpty()) << r.body;
    EXPECT_EQ(parsed.Value("test_scrapes_total"), scrape);
    EXPECT_EQ(parsed.Value("test_response_seconds_count", {{"type", "TO"}}), 4);
    EXPECT_EQ(parsed.Value("test_response_seconds_bucket", {{"type", "TO"}, {"le", "0.001"}}), 2);
  }
}

TEST(MetricsServer, RefusesOtherMethodsAndPaths) {
  RunningServer server;
  auto post = Exchange(server.port(), "POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(post.status, 405) << post.raw;
  EXPECT_EQ(post.headers["allow"], "GET");
  EXPECT_EQ(Exchange(server.port(), "HEAD /metrics HTTP/1.1\r\n\r\n").status, 405);
  auto other = Get(server.port(), "/");
  EXPECT_EQ(other.status, 404) << other.raw;
  EXPECT_EQ(other.body, "only /metrics is served here\n");
  EXPECT_EQ(Get(server.port(), "/metricsx").status, 404);
  EXPECT_EQ(Get(server.port(), "/metrics/").status, 404);
  // The refusals rendered nothing: the next scrape is the first.
  auto r = Get(server.port());
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(metricstest::ParseOpenMetrics(r.body).Value("test_scrapes_total"), 1);
}

TEST(MetricsServer, RefusesGarbageAtOnceAndKeepsServing) {
  MetricsServerLimits limits;
  limits.deadline = 5s;
  RunningServer server(limits);
  const auto t0 = std::chrono::steady_clock::now();
  // A TLS ClientHello's first bytes, then a request line in another protocol.
  auto tls =
      Exchange(server.port(), std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11));
  EXPECT_EQ(tls.status, 400) << tls.raw;
  EXPECT_THAT(tls.body, HasSubstr("not an HTTP/1.x request: the request line does not start"));
  auto h2 = Exchange(server.port(), "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
  EXPECT_EQ(h2.status, 400) << h2.raw;
  auto bare_lf = Exchange(server.port(), "GET /metrics HTTP/1.1\nHost: x\n\n");
  EXPECT_EQ(bare_lf.status, 400) << bare_lf.raw;
  EXPECT_LT(SecondsSince(t0), 2.0) << "refused only after the deadline";
  EXPECT_EQ(Get(server.port()).status, 200);
}

TEST(MetricsServer, ClosesARequestThatNeverEndsAtItsDeadline) {
  MetricsServerLimits limits;
  limits.deadline = 300ms;
  RunningServer server(limits);
  const auto t0 = std::chrono::steady_clock::now();
  // Half a request, then silence: the server closes with no answer once the deadline passes.
  auto r = Exchange(server.port(), "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  const double took = SecondsSince(t0);
  EXPECT_EQ(r.raw, "");
  EXPECT_GE(took, 0.29);
  EXPECT_LT(took, 3.0);
  EXPECT_EQ(Get(server.port()).status, 200);
}

TEST(MetricsServer, AnswersAnOversizedHead431) {
  MetricsServerLimits limits;
  limits.max_request_bytes = 1024;
  RunningServer server(limits);
  auto r = Exchange(server.port(),
                    "GET /metrics HTTP/1.1\r\nCookie: " + std::string(4000, 'x') + "\r\n\r\n");
  EXPECT_EQ(r.status, 431) << r.raw.substr(0, 200);
  EXPECT_EQ(r.body, "the request head is over 1024 bytes\n");
  EXPECT_EQ(Get(server.port()).status, 200);
}

TEST(MetricsServer, AnswersConnectionsBeyondTheLimit503AtOnce) {
  MetricsServerLimits limits;
  limits.max_connections = 2;
  limits.deadline = 1s;
  RunningServer server(limits);
  // Two clients connect and say nothing: they hold both places.
  asio::io_context io;
  std::vector<asio::ip::tcp::socket> idle;
  for (int i = 0; i < 2; ++i) {
    idle.emplace_back(io);
    idle.back().connect({asio::ip::make_address("127.0.0.1"), server.port()});
  }
  // Once both are accepted (a connection after them is answered 503), the next is too, at once.
  ASSERT_TRUE(testing::WaitUntil([&] { return Get(server.port()).status == 503; }));
  const auto t0 = std::chrono::steady_clock::now();
  auto busy = Get(server.port());
  EXPECT_LT(SecondsSince(t0), 0.5);
  EXPECT_EQ(busy.status, 503) << busy.raw;
  EXPECT_EQ(busy.body, "too many connections; try again\n");
  // Their deadline closes them, and the places are free again.
  for (auto& s : idle) {
    char c;
    error_code ec;
    s.read_some(asio::buffer(&c, 1), ec);
    EXPECT_EQ(ec, asio::error::eof);
  }
  EXPECT_EQ(Get(server.port()).status, 200);
}

TEST(MetricsServer, CloseStopsAcceptingAndLetsTheIoContextRunDry) {
  RunningServer server;
  const uint16_t port = server.port();
  ASSERT_EQ(Get(port).status, 200);
  // A client in the middle of its request does not keep the I/O thread alive either.
  asio::io_context io;
  asio::ip::tcp::socket pending(io);
  pending.connect({asio::ip::make_address("127.0.0.1"), port});
  asio::write(pending, asio::buffer(std::string("GET /met")));
  // The one I/O thread accepts in order: a later connection answered means this one is open.
  ASSERT_EQ(Get(port).status, 200);
  const auto t0 = std::chrono::steady_clock::now();
  server.CloseAndJoin();
  EXPECT_LT(SecondsSince(t0), 1.0);
  asio::ip::tcp::socket late(io);
  error_code ec;
  late.connect({asio::ip::make_address("127.0.0.1"), port}, ec);
  EXPECT_EQ(ec, asio::error::connection_refused);
}

TEST(MetricsServer, StartNamesTheOptionWhenTheAddressIsTaken) {
  RunningServer first;
  asio::io_context io;
  MetricsServer second(io, [] { return std::string("# EOF\n"); });
  Status s = second.Start({"127.0.0.1", first.port()});
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("--metrics-listen 127.0.0.1:" + std::to_string(first.port())));
}

TEST(MetricsServer, WritesTheBoundPortToThePortFileOrNamesIt) {
  const auto path =
      (std::filesystem::temp_directory_path() / ("metrics-port." + std::to_string(::getpid())))
          .string();
  asio::io_context io;
  MetricsServer server(io, [] { return std::string("# EOF\n"); });
  ASSERT_TRUE(server.Start({"127.0.0.1", 0}, path).ok());
  std::ifstream in(path);
  int written = 0;
  in >> written;
  EXPECT_NE(server.port(), 0);
  EXPECT_EQ(written, server.port());
  std::filesystem::remove(path);
  MetricsServer other(io, [] { return std::string("# EOF\n"); });
  EXPECT_EQ(other.Start({"127.0.0.1", 0}, "/nonexistent-dir/m.port").message(),
            "--metrics-port-file '/nonexistent-dir/m.port': No such file or directory");
}

}  // namespace
}  // namespace bb
