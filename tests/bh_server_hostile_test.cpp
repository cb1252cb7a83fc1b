// Hostile and careless clients of the Brokerage House (issue 16): half-closed connections get
// every reply, headers without their bodies cost no memory, a client that never reads is not
// read either, a refused hello closes, and running out of descriptors neither spins nor floods
// the log.
#include "tests/bh_server_fixture.h"

namespace bb::bh_server_test {

// ---------------------------------------------------------------------------------------------
// Hostile and careless clients (issue 16).

// A handler as slow as a short transaction, so that replies are still owed when the input ends.
class DelayHandler : public bh::Handler {
 public:
  void Handle(const pr::Message&, bh::HandlerResult& out) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    out.to_market.clear();
    out.reply.emplace<pr::TradeStatusOutput>();
  }
};

std::vector<uint8_t> HelloFrame(int32_t initial_trade_days = kDays) {
  return testing::FrameOf(pr::Hello{pr::kProtocolVersion, "hostile client", kCustomers,
                                    kScaleFactor, initial_trade_days},
                          1);
}

TEST(BrokerageHouse, HalfClosedClientsGetEveryReplyOwedThenTheEnd) {
  RunningServer server(
      {}, [] { return Result<std::unique_ptr<bh::Handler>>(std::make_unique<DelayHandler>()); });
  std::vector<uint8_t> bytes = HelloFrame();
  const auto request = testing::FrameOf(pr::TradeStatusInput{}, 2);
  bytes.insert(bytes.end(), request.begin(), request.end());
  constexpr int kClients = 50;
  std::atomic<int> complete{0};
  {
    std::vector<std::jthread> clients;
    for (int i = 0; i < kClients; ++i) {
      clients.emplace_back([&] {
        BhClient c;
        if (!c.Connect("127.0.0.1", server.port()).ok() || !c.SendRaw(bytes).ok()) return;
        c.ShutdownSend();  // hello and Trade-Status sent: nothing more will come
        auto hello = c.ReadFrame();
        auto reply = c.ReadFrame();
        const bool answered = hello.ok() &&
                              std::holds_alternative<pr::HelloReply>(hello->message) &&
                              reply.ok() && reply->header.request_id == 2 &&
                              std::holds_alternative<pr::TradeStatusOutput>(reply->message);
        if (answered && !c.ReadFrame().ok()) ++complete;  // and then the end of the stream
      });
    }
  }
  EXPECT_EQ(complete.load(), kClients);
}

TEST(BrokerageHouse, HeadersWithoutTheirBodiesCostNoMemory) {
  RunningServer server;
  constexpr int kClients = 500;
  const int64_t before = testing::ResidentBytes();
  const auto header = testing::HeaderOnly(pr::MessageType::kTradeStatusInput, pr::kMaxBodyBytes);
  std::vector<int> fds;
  for (int i = 0; i < kClients; ++i) {
    const int fd = testing::ConnectLoopback(server.port());
    ASSERT_GE(fd, 0) << "connection " << i;
    fds.push_back(fd);
    ASSERT_TRUE(testing::SendAll(fd, header));  // 1 MiB declared, none of it sent
  }
  for (int i = 0; i < 500 && server.stats().clients.load() < kClients; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(server.stats().clients.load(), kClients);
  int64_t most = 0;
  for (int i = 0; i < 30; ++i) {  // the server reads the headers meanwhile
    most = std::max(most, testing::ResidentBytes());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_LT(most - before, 64 << 20) << "resident memory grew from " << before << " to " << most;
  EXPECT_EQ(server.stats().clients.load(), kClients);  // waiting for the bodies, not closed
  for (int fd : fds) ::close(fd);
}

// A client that sends small bad frames as fast as it can and never reads its error replies.
TEST(BrokerageHouse, AClientThatNeverReadsIsNotReadEither) {
  RunningServer server;
  const int fd = testing::ConnectLoopback(server.port());
  ASSERT_GE(fd, 0);
  std::vector<uint8_t> buffer;
  ASSERT_TRUE(testing::SendAll(fd, HelloFrame()));
  ASSERT_TRUE(testing::ReadFrame(fd, buffer).ok());
  // A Trade-Status with no body: a good header, a bad body, answered with an error each.
  const auto bad = testing::HeaderOnly(pr::MessageType::kTradeStatusInput, 0);
  constexpr int64_t kLimit = 150 << 20;
  const testing::Flood flood = testing::FloodWithoutReading(fd, bad, kLimit);
  ASSERT_LT(flood.resident_growth, 64 << 20) << flood.sent << " bytes sent";
  EXPECT_LT(flood.sent, kLimit) << "the server read on while its replies piled up";
  // Reading resumes once the replies drain: every bad frame is answered, then a good one.
  const testing::Drained drained =
      testing::DrainFlood(fd, bad, flood, testing::FrameOf(pr::TradeStatusInput{}, 99), 99);
  ASSERT_TRUE(drained.reply.ok()) << drained.reply.status().message() << " after " << drained.errors
                                  << " errors";
  EXPECT_TRUE(std::holds_alternative<pr::TradeStatusOutput>(drained.reply->message));
  EXPECT_EQ(drained.errors, drained.frames);
  ::close(fd);
}

TEST(BrokerageHouse, ARefusedHelloIsAnsweredThenTheConnectionClosed) {
  RunningServer server;
  testing::CountingLog log;
  std::vector<uint8_t> hellos;
  const auto refused = HelloFrame(300);
  for (int i = 0; i < 5000; ++i) hellos.insert(hellos.end(), refused.begin(), refused.end());
  const int fd = testing::ConnectLoopback(server.port());
  ASSERT_GE(fd, 0);
  (void)testing::SendAll(fd, hellos);  // the server may close before it has taken them all
  std::vector<uint8_t> buffer;
  auto reply = testing::ReadFrame(fd, buffer);
  ASSERT_TRUE(reply.ok()) << reply.status().message();
  ASSERT_TRUE(std::holds_alternative<pr::HelloReply>(reply->message));
  EXPECT_FALSE(std::get<pr::HelloReply>(reply->message).accepted);
  EXPECT_THAT(std::get<pr::HelloReply>(reply->message).reason, HasSubstr("initial trade days 300"));
  EXPECT_TRUE(testing::PeerClosed(fd));
  ::close(fd);
  EXPECT_LE(log.lines(), 3) << log.first_lines();
  EXPECT_THAT(log.first_lines(), HasSubstr("hello refused"));
}

// The descriptor limit of a forked server lowered to 64, 100 idle clients for 5 s: accept backs
// off (under 10 % of a core) and says so once, and once more when it accepts again.
TEST(BrokerageHouse, OutOfDescriptorsAcceptBacksOffAndLogsOncePerEpisode) {
  const std::string log_path =
      (std::filesystem::temp_directory_path() / fmt::format("bb-bh-emfile-{}.log", ::getpid()))
          .string();
  testing::ForkedServer child(
      [](const std::string& port_file) {
        bh::ServerOptions options;
        options.listen = {"127.0.0.1", 0};
        options.identity = {"test bh", kCustomers, kScaleFactor, kDays};
        options.summary_seconds = 0;
        options.workers = 1;
        options.port_file = port_file;
        bh::Server server(
            options, [] { return Result<std::unique_ptr<bh::Handler>>(bh::MakeCannedHandler()); });
        return server.Run().ok() ? 0 : 1;
      },
      64, log_path);
  ASSERT_NE(child.port(), 0);
  std::vector<int> fds;
  for (int i = 0; i < 100; ++i) {
    const int fd = testing::ConnectLoopback(child.port());  // the backlog takes the rest
    ASSERT_GE(fd, 0) << "connection " << i;
    fds.push_back(fd);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const double cpu_before = testing::CpuSeconds(child.pid());
  std::this_thread::sleep_for(std::chrono::seconds(5));
  const double cpu = testing::CpuSeconds(child.pid()) - cpu_before;
  EXPECT_LT(cpu, 0.5) << "seconds of CPU in 5 s";
  for (int fd : fds) ::close(fd);  // descriptors come back: the backlog is accepted, and ends
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
  std::filesystem::remove(log_path);
}

}  // namespace bb::bh_server_test
