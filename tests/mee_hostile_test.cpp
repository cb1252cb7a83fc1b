// Hostile and careless order connections of the market emulator (issue 16): a half-closed one
// gets every ack, headers without their bodies cost no memory, one that never reads is not read
// either, a refused hello closes, and running out of descriptors neither spins nor floods the
// log.
#include <cstring>

#include <sys/ioctl.h>

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

// The bytes waiting in FD's receive queue, once they have stopped growing for 50 ms: the peer
// has more to send than the queue takes, or nothing more. -1 if they keep growing for 10 s.
int QueuedOnceStalled(int fd) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  int queued = 0, last = -1;
  auto since = Clock::now();
  while (Clock::now() < deadline) {
    if (::ioctl(fd, FIONREAD, &queued) != 0) return -1;
    if (queued != last) {
      last = queued;
      since = Clock::now();
    } else if (queued > 0 && Clock::now() - since >= std::chrono::milliseconds(50)) {
      return queued;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return -1;
}

// Orders sent, the connection half-closed, and the acks read only once they have backed up
// (our receive queue full, the rest unsent on the emulator's side): when the end of the input
// comes, megabytes of acks are still unsent, and must all arrive, then the end.
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
  constexpr size_t kChunk = 65536;
  std::vector<uint8_t> received;
  std::atomic<size_t> read_so_far = 0;
  bool ended = false;
  int queued_at_first_read = -1;
  std::jthread reader([&] {
    queued_at_first_read = QueuedOnceStalled(fd);
    uint8_t chunk[kChunk];
    for (;;) {
      const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
      if (n < 0 && errno == EINTR) continue;
      ended = n == 0;
      if (n <= 0) return;
      received.insert(received.end(), chunk, chunk + n);
      read_so_far = received.size();
    }
  });
  ASSERT_TRUE(testing::SendAll(fd, bytes));
  ASSERT_EQ(::shutdown(fd, SHUT_WR), 0);
  // The acks that had reached us at the half-close: read, or waiting in our queue (a chunk
  // being read meanwhile is in neither, hence the margin below).
  int queued_at_half_close = 0;
  EXPECT_EQ(::ioctl(fd, FIONREAD, &queued_at_half_close), 0) << std::strerror(errno);
  const size_t arrived_at_half_close = read_so_far + static_cast<size_t>(queued_at_half_close);
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
  // What the test is about: at the half-close, acks were still unsent.
  ASSERT_GT(queued_at_first_read, 0) << "the acks never stopped coming in for 10 s";
  EXPECT_LT(arrived_at_half_close + kChunk, received.size())
      << "every ack had reached us before the half-close: the end came with nothing unsent";
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

// The market emulator for the checks it shares with the Brokerage House (hostile_peer.h).
testing::HostileTarget Target(const RunningMee& mee) {
  return {.port = mee.port(),
          .hello = HelloFrame(),
          .refused_hello = HelloFrame(2000),
          .refusal = "customers 2000",
          .request_type = pr::MessageType::kMarketTradeRequest,
          .request = testing::FrameOf(MarketOrder(7), 99),
          .reply_type = pr::MessageType::kMarketTradeAck};
}

TEST(MarketEmulator, AnOrderConnectionThatNeverReadsIsNotReadEither) {
  RunningMee mee(1, 100000, 1);
  testing::ExpectNeverReadingPeerIsNotRead(Target(mee));
}

TEST(MarketEmulator, ARefusedHelloIsAnsweredThenTheConnectionClosed) {
  RunningMee mee(1, 100000, 1);
  testing::ExpectRefusedHelloAnsweredThenClosed(Target(mee));
}

TEST(MarketEmulator, OutOfDescriptorsAcceptBacksOffAndLogsOncePerEpisode) {
  const auto dir =
      std::filesystem::temp_directory_path() / fmt::format("mee-emfile-{}", ::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  testing::ExpectAcceptBacksOffOutOfDescriptors(
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
      (dir / "mee.log").string());
  std::filesystem::remove_all(dir);
}

}  // namespace bb::mee_test
