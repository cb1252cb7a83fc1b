#include "common/util/cli.h"

#include <gtest/gtest.h>

namespace bb {
namespace {

TEST(ParseInt, AcceptsValuesInRange) {
  auto v = ParseInt("--customers", "5000", 1000, 1000000);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 5000);
}

TEST(ParseInt, NamesOptionAndValueWhenNotANumber) {
  auto v = ParseInt("--customers", "5k", 1, 10);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(v.status().message(), "--customers: '5k' is not a whole number");
}

TEST(ParseInt, NamesRangeWhenOutside) {
  auto v = ParseInt("--jobs", "0", 1, 64);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(), "--jobs: '0' is not in the range 1 to 64");
  EXPECT_FALSE(ParseInt("--jobs", "99999999999999999999", 1, 64).ok());
  EXPECT_FALSE(ParseInt("--jobs", "", 1, 64).ok());
  EXPECT_FALSE(ParseInt("--jobs", " 3", 1, 64).ok());
}

TEST(ParseInt, WithoutAnOptionTheMessageStartsAtTheValue) {
  // As CLI11's validators use it (cli_app.h): CLI11 puts the option in front.
  EXPECT_EQ(ParseInt({}, "0", 1, 64).status().message(), "'0' is not in the range 1 to 64");
  EXPECT_EQ(ParseHostPort({}, "localhost").status().message(), "'localhost' is not host:port");
}

TEST(ParseDouble, ParsesAndChecksRange) {
  auto v = ParseDouble("--pacing", "2.5", 0, 10);
  ASSERT_TRUE(v.ok());
  EXPECT_DOUBLE_EQ(*v, 2.5);
  EXPECT_EQ(ParseDouble("--pacing", "11", 0, 10).status().message(),
            "--pacing: '11' is not in the range 0 to 10");
  EXPECT_EQ(ParseDouble("--pacing", "nan", 0, 10).status().message(),
            "--pacing: 'nan' is not a number");
}

TEST(ParseDurationSeconds, UnderstandsUnits) {
  EXPECT_EQ(*ParseDurationSeconds("--duration", "90", 1, 86400), 90);
  EXPECT_EQ(*ParseDurationSeconds("--duration", "90s", 1, 86400), 90);
  EXPECT_EQ(*ParseDurationSeconds("--duration", "15m", 1, 86400), 900);
  EXPECT_EQ(*ParseDurationSeconds("--duration", "2h", 1, 86400), 7200);
  auto bad = ParseDurationSeconds("--duration", "2d", 1, 86400);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--duration: '2d'"), std::string::npos);
  EXPECT_FALSE(ParseDurationSeconds("--duration", "0", 1, 86400).ok());
  EXPECT_FALSE(ParseDurationSeconds("--duration", "25h", 1, 86400).ok());
}

TEST(ParseHostPort, SplitsHostAndPort) {
  auto v = ParseHostPort("--listen", "127.0.0.1:30000");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->host, "127.0.0.1");
  EXPECT_EQ(v->port, 30000);
  auto v6 = ParseHostPort("--listen", "[::1]:5");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(ParseHostPort("--listen", "localhost").status().message(),
            "--listen: 'localhost' is not host:port");
  EXPECT_EQ(ParseHostPort("--listen", "localhost:70000").status().message(),
            "--listen: 'localhost:70000' is not host:port with a port from 1 to 65535");
}

TEST(ParseHostPort, ReadsUnixSocketPathsAndWritesAddressesBack) {
  auto u = ParseHostPort("--bh", "unix:/tmp/bb/bh.sock");
  ASSERT_TRUE(u.ok());
  EXPECT_TRUE(u->is_unix());
  EXPECT_EQ(u->path, "/tmp/bb/bh.sock");
  EXPECT_EQ(ToString(*u), "unix:/tmp/bb/bh.sock");
  EXPECT_EQ(ParseHostPort("--bh", "unix:").status().message(),
            "--bh: 'unix:' is not unix:PATH with a path of 1 to 107 bytes");
  EXPECT_FALSE(ParseHostPort("--bh", "unix:/" + std::string(107, 'x')).ok());
  EXPECT_EQ(ToString(*ParseHostPort("--bh", "[::1]:5")), "[::1]:5");
  EXPECT_EQ(ToString(*ParseHostPort("--bh", "10.0.0.1:30000")), "10.0.0.1:30000");
  EXPECT_FALSE(ParseHostPort("--bh", "10.0.0.1:30000")->is_unix());
}

TEST(ParseListenAddress, TakesPortZeroForASystemChosenPortAndElseWhatParseHostPortTakes) {
  auto any = ParseListenAddress("--metrics-listen", "127.0.0.1:0");
  ASSERT_TRUE(any.ok()) << any.status().message();
  EXPECT_EQ(any->host, "127.0.0.1");
  EXPECT_EQ(any->port, 0);
  auto v6 = ParseListenAddress("--metrics-listen", "[::1]:0");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 0);
  EXPECT_EQ(ParseListenAddress("--metrics-listen", "127.0.0.1:9464")->port, 9464);
  EXPECT_EQ(ParseListenAddress("--metrics-listen", "unix:/tmp/m:0")->path, "/tmp/m:0");
  EXPECT_EQ(ParseListenAddress("--metrics-listen", "[::1:0").status().message(),
            "--metrics-listen: '[::1:0' is not host:port with a port from 0 to 65535");
  EXPECT_EQ(ParseListenAddress("--metrics-listen", ":0").status().message(),
            "--metrics-listen: ':0' is not host:port with a port from 0 to 65535");
  EXPECT_EQ(ParseListenAddress("--metrics-listen", "h:65536").status().message(),
            "--metrics-listen: 'h:65536' is not host:port with a port from 0 to 65535");
  EXPECT_EQ(ParseListenAddress("--metrics-listen", "unix:").status().message(),
            "--metrics-listen: 'unix:' is not unix:PATH with a path of 1 to 107 bytes");
}

}  // namespace
}  // namespace bb

namespace bb {
namespace {

TEST(Fail, PrintsTheProgramAndTheMessageAndReturnsTheCode) {
  ::testing::internal::CaptureStderr();
  int code = Fail("bb-test", Status::InvalidArgument("--jobs: '0' is not in the range 1 to 64"), 2);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "bb-test: --jobs: '0' is not in the range 1 to 64\n");
  EXPECT_EQ(code, 2);
}

}  // namespace
}  // namespace bb
