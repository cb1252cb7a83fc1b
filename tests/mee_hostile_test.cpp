// Hostile and careless order connections of the market emulator (issue 16): a half-closed one
// gets every ack, headers without their bodies cost no memory, one that never reads is not read
// either, a refused hello closes, and running out of descriptors neither spins nor floods the
// log.
#include "tests/mee_fixture.h"

namespace bb::mee_test {

// ---------------------------------------------------------------------------------------------
// Hostile and careless order connections (issue 16). Port 1: no Brokerage House to deliver to.

std::vector<uint8_t> HelloFrame(int64_t customers = kSizing.customers) {
  return testing::FrameOf(pr::Hello{pr::kProtocolVersion, "hostile bh", customers,
                                    static_cast<int32_t>(kSizing.scale_factor),
                                    static_cast<int32_t>(kSizing.initial_trade_days)},
                          1);
}

// Orders sent, the connection half-closed, and the acks read only after a pause: when the end
// of the input comes, megabytes of acks are still unsent, and must all arrive, then the end.
TEST(MarketEmulator, AHalfClosedOrderConnectionGetsEveryAckThenTheEnd) {
  constexpr int kOrders = 200000;
  RunningMee mee(1, 1'000'000, 1);
  const int fd = testing::ConnectLoopback(mee.port());
  ASSERT_GE(fd, 0);
  std::vector<uint8_t> bytes = HelloFrame();
  for (int i = 1; i <= kOrders; ++i) {
    const auto order = testing::FrameOf(MarketOrder(i), static_cast<uint64_t>(i) + 1);
    bytes.insert(bytes.end(), order.begin(), order.end());
  }
  std::vector<uint8_t> received;
  bool ended = false;
  std::jthread reader([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    uint8_t chunk[65536];
    for (;;) {
      const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
      if (n < 0 && errno == EINTR) continue;
      ended = n == 0;
      if (n <= 0) return;
      received.insert(received.end(), chunk, chunk + n);
    }
  });
  ASSERT_TRUE(testing::SendAll(fd, bytes));
  ASSERT_EQ(::shutdown(fd, SHUT_WR), 0);
  reader.join();
  ::close(fd);
  int hellos = 0, acks = 0, others = 0;
  for (size_t at = 0; at + pr::kFrameHeaderBytes <= received.size();) {
    auto parsed = pr::ParseFrameHeader(std::span(received).subspan(at));
    ASSERT_EQ(parsed.state, pr::FrameHeaderParser::State::kGood) << parsed.status.message();
    const size_t size = pr::kFrameHeaderBytes + parsed.header.body_length;
    ASSERT_LE(at + size, received.size());
    if (parsed.header.type == pr::MessageType::kHelloReply) {
      ++hellos;
    } else if (parsed.header.type == pr::MessageType::kMarketTradeAck) {
      ++acks;
    } else {
      ++others;
    }
    at += size;
  }
  EXPECT_EQ(hellos, 1);
  EXPECT_EQ(acks, kOrders);
  EXPECT_EQ(others, 0);
  EXPECT_TRUE(ended) << "the emulator did not close the connection";
}

TEST(MarketEmulator, HeadersWithoutTheirBodiesCostNoMemory) {
  RunningMee mee(1, 100000, 1);
  const int64_t before = testing::ResidentBytes();
  const auto header = testing::HeaderOnly(pr::MessageType::kMarketTradeRequest, pr::kMaxBodyBytes);
  std::vector<int> fds;
  for (int i = 0; i < 500; ++i) {
    const int fd = testing::ConnectLoopback(mee.port());
    ASSERT_GE(fd, 0) << "connection " << i;
    fds.push_back(fd);
    ASSERT_TRUE(testing::SendAll(fd, header));
  }
  int64_t most = 0;
  for (int i = 0; i < 30; ++i) {  // the emulator reads the headers meanwhile
    most = std::max(most, testing::ResidentBytes());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_LT(most - before, 64 << 20) << "resident memory grew from " << before << " to " << most;
  // Still served: a Brokerage House that says hello gets its orders acked.
  auto c = OrderClient(mee.port());
  EXPECT_EQ(SendOrders(*c, 1, 3), 3);
  for (int fd : fds) ::close(fd);
}

TEST(MarketEmulator, AnOrderConnectionThatNeverReadsIsNotReadEither) {
  RunningMee mee(1, 100000, 1);
  testing::CountingLog log;
  const int fd = testing::ConnectLoopback(mee.port());
  ASSERT_GE(fd, 0);
  std::vector<uint8_t> buffer;
  ASSERT_TRUE(testing::SendAll(fd, HelloFrame()));
  ASSERT_TRUE(testing::ReadFrame(fd, buffer).ok());
  // A MarketTradeRequest with no body: answered with an error each.
  const auto bad = testing::HeaderOnly(pr::MessageType::kMarketTradeRequest, 0);
  constexpr int64_t kLimit = 150 << 20;
  const testing::Flood flood = testing::FloodWithoutReading(fd, bad, kLimit);
  ASSERT_LT(flood.resident_growth, 64 << 20) << flood.sent << " bytes sent";
  EXPECT_LT(flood.sent, kLimit) << "the emulator read on while its replies piled up";
  // Reading resumes once the replies drain: every bad frame is answered, then a good one.
  const testing::Drained drained =
      testing::DrainFlood(fd, bad, flood, testing::FrameOf(MarketOrder(7), 99), 99);
  ASSERT_TRUE(drained.reply.ok()) << drained.reply.status().message() << " after " << drained.errors
                                  << " errors";
  EXPECT_TRUE(std::holds_alternative<pr::MarketTradeAck>(drained.reply->message));
  EXPECT_EQ(drained.errors, drained.frames);
  EXPECT_LE(log.lines(), 3) << log.first_lines();  // one warning for the connection
  ::close(fd);
}

TEST(MarketEmulator, ARefusedHelloIsAnsweredThenTheConnectionClosed) {
  RunningMee mee(1, 100000, 1);
  testing::CountingLog log;
  std::vector<uint8_t> hellos;
  const auto refused = HelloFrame(2000);
  for (int i = 0; i < 5000; ++i) hellos.insert(hellos.end(), refused.begin(), refused.end());
  const int fd = testing::ConnectLoopback(mee.port());
  ASSERT_GE(fd, 0);
  (void)testing::SendAll(fd, hellos);  // the emulator may close before it has taken them all
  std::vector<uint8_t> buffer;
  auto reply = testing::ReadFrame(fd, buffer);
  ASSERT_TRUE(reply.ok()) << reply.status().message();
  ASSERT_TRUE(std::holds_alternative<pr::HelloReply>(reply->message));
  EXPECT_FALSE(std::get<pr::HelloReply>(reply->message).accepted);
  EXPECT_THAT(std::get<pr::HelloReply>(reply->message).reason, HasSubstr("customers 2000"));
  EXPECT_TRUE(testing::PeerClosed(fd));
  ::close(fd);
  EXPECT_LE(log.lines(), 3) << log.first_lines();
  EXPECT_THAT(log.first_lines(), HasSubstr("hello refused"));
}

TEST(MarketEmulator, OutOfDescriptorsAcceptBacksOffAndLogsOncePerEpisode) {
  const auto dir =
      std::filesystem::temp_directory_path() / fmt::format("mee-emfile-{}", ::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string log_path = (dir / "mee.log").string();
  testing::ForkedServer child(
      [&dir](const std::string& port_file) {
        mee::EmulatorOptions o;
        o.listen = {"127.0.0.1", 0};
        o.bh = {"127.0.0.1", 1};
        o.delivery_connections = 1;
        o.sizing = kSizing;
        o.out_dir = dir.string();
        o.port_file = port_file;
        o.summary_seconds = 0;
        o.drain_seconds = 1;
        mee::MarketEmulator emulator(std::move(o));
        return emulator.Run().ok() ? 0 : 1;
      },
      64, log_path);
  ASSERT_NE(child.port(), 0);
  std::vector<int> fds;
  for (int i = 0; i < 100; ++i) {
    const int fd = testing::ConnectLoopback(child.port());
    ASSERT_GE(fd, 0) << "connection " << i;
    fds.push_back(fd);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const double cpu_before = testing::CpuSeconds(child.pid());
  std::this_thread::sleep_for(std::chrono::seconds(5));
  const double cpu = testing::CpuSeconds(child.pid()) - cpu_before;
  EXPECT_LT(cpu, 0.5) << "seconds of CPU in 5 s";
  for (int fd : fds) ::close(fd);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  EXPECT_EQ(child.Stop(), 0);
  std::ifstream in(log_path);
  std::string line, text;
  int lines = 0, failed = 0, again = 0;
  while (std::getline(in, line)) {
    ++lines;
    if (line.find("accept failed: Too many open files") != std::string::npos) ++failed;
    if (line.find("accepting connections again") != std::string::npos) ++again;
    if (lines <= 20) text += line + "\n";
  }
  EXPECT_LT(lines, 100) << text;
  EXPECT_EQ(failed, 1) << text;
  EXPECT_EQ(again, 1) << text;
  std::filesystem::remove_all(dir);
}

}  // namespace bb::mee_test
