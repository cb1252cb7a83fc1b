// Hostile and careless clients of the Brokerage House (issue 16): half-closed connections get
// every reply, headers without their bodies cost no memory, a client that never reads is not
// read either, a refused hello closes, and running out of descriptors neither spins nor floods
// the log.
#include "tests/bh_server_fixture.h"

namespace bb::bh_server_test {

// ---------------------------------------------------------------------------------------------
// Hostile and careless clients (issue 16).

// A runner as slow as a short transaction, so that replies are still owed when the input ends.
class DelayRunner : public bh::BlockingRunner {
 public:
  void Run(const pr::Message&, bh::Completion& out) override {
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
  RunningServer server({}, [] {
    return Result<std::unique_ptr<bh::BlockingRunner>>(std::make_unique<DelayRunner>());
  });
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
  testing::WaitUntil([&] { return server.stats().clients.load() >= kClients; });
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

// The Brokerage House for the checks it shares with the market emulator (hostile_peer.h).
testing::HostileTarget Target(const RunningServer& server) {
  return {.port = server.port(),
          .hello = HelloFrame(),
          .refused_hello = HelloFrame(300),
          .refusal = "initial trade days 300",
          .request_type = pr::MessageType::kTradeStatusInput,
          .request = testing::FrameOf(pr::TradeStatusInput{}, 99),
          .reply_type = pr::MessageType::kTradeStatusOutput};
}

// A client that sends small bad frames as fast as it can and never reads its error replies.
TEST(BrokerageHouse, AClientThatNeverReadsIsNotReadEither) {
  RunningServer server;
  testing::ExpectNeverReadingPeerIsNotRead(Target(server));
}

TEST(BrokerageHouse, ARefusedHelloIsAnsweredThenTheConnectionClosed) {
  RunningServer server;
  testing::ExpectRefusedHelloAnsweredThenClosed(Target(server));
}

// The descriptor limit of a forked server lowered to 64, 100 idle clients: accept backs off
// (under 10 % of a core) and says so once, and once more when it accepts again.
TEST(BrokerageHouse, OutOfDescriptorsAcceptBacksOffAndLogsOncePerEpisode) {
  const std::string log_path =
      (std::filesystem::temp_directory_path() / fmt::format("bb-bh-emfile-{}.log", ::getpid()))
          .string();
  testing::ExpectAcceptBacksOffOutOfDescriptors(
      [](const std::string& port_file) {
        bh::ServerOptions options;
        options.listen = {"127.0.0.1", 0};
        options.identity = {"test bh", kCustomers, kScaleFactor, kDays};
        options.summary_seconds = 0;
        options.workers = 1;
        options.port_file = port_file;
        bh::Server server(options, [] {
          return Result<std::unique_ptr<bh::BlockingRunner>>(bh::MakeCannedRunner());
        });
        return server.Run().ok() ? 0 : 1;
      },
      log_path);
  std::filesystem::remove(log_path);
}

}  // namespace bb::bh_server_test
