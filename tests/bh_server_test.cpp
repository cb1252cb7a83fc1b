// The Brokerage House's network side in --no-db mode (canned replies) on loopback: the hello
// and its sizing check, every transaction type, many concurrent clients, and bad input from one
// client (garbage, bad bodies, a disconnect inside a frame, 10,000 fuzzed frames) leaving the
// others untouched.
#include "tests/bh_server_fixture.h"

namespace bb::bh_server_test {

TEST(BrokerageHouse, RefusesAHelloWithAnotherSizingNamingBoth) {
  RunningServer server;
  BhClient c;
  ASSERT_TRUE(c.Connect("127.0.0.1", server.port()).ok());
  Status s = c.Hello(kCustomers, kScaleFactor, 300);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("initial trade days 300"));
  EXPECT_THAT(s.message(), HasSubstr("initial trade days 10"));
}

TEST(BrokerageHouse, WantsAHelloBeforeRequests) {
  RunningServer server;
  auto c = server.Client(/*hello=*/false);
  auto r = c->Call(pr::TradeStatusInput{});
  ASSERT_TRUE(Holds<pr::ErrorReply>(r));
  EXPECT_EQ(std::get<pr::ErrorReply>(*r).code, pr::ErrorCode::kUnexpectedMessage);
  EXPECT_THAT(std::get<pr::ErrorReply>(*r).text, HasSubstr("hello"));
}

TEST(BrokerageHouse, AnswersEveryTransactionTypeWithItsReply) {
  RunningServer server;
  auto c = server.Client();
  EXPECT_TRUE(Holds<pr::BrokerVolumeOutput>(c->Call(pr::BrokerVolumeInput{})));
  EXPECT_TRUE(Holds<pr::CustomerPositionOutput>(c->Call(pr::CustomerPositionInput{})));
  EXPECT_TRUE(Holds<pr::MarketFeedOutput>(c->Call(pr::MarketFeedInput{})));
  EXPECT_TRUE(Holds<pr::MarketWatchOutput>(c->Call(pr::MarketWatchInput{})));
  EXPECT_TRUE(Holds<pr::SecurityDetailOutput>(c->Call(pr::SecurityDetailInput{})));
  pr::TradeLookupInput lookup;
  EXPECT_TRUE(Holds<pr::TradeLookupOutput>(c->Call(lookup)));
  pr::TradeOrderInput order;
  order.trade_type_id = "TMB";
  order.trade_qty = 100;
  auto to = c->Call(order);
  ASSERT_TRUE(Holds<pr::TradeOrderOutput>(to));
  EXPECT_GT(std::get<pr::TradeOrderOutput>(*to).trade_id, 0);
  EXPECT_TRUE(Holds<pr::TradeResultOutput>(c->Call(pr::TradeResultInput{})));
  EXPECT_TRUE(Holds<pr::TradeStatusOutput>(c->Call(pr::TradeStatusInput{})));
  pr::TradeUpdateInput update;
  EXPECT_TRUE(Holds<pr::TradeUpdateOutput>(c->Call(update)));
  EXPECT_TRUE(Holds<pr::DataMaintenanceOutput>(c->Call(pr::DataMaintenanceInput{})));
  EXPECT_TRUE(Holds<pr::TradeCleanupOutput>(c->Call(pr::TradeCleanupInput{})));
  // A reply type sent to the server is refused, and the connection goes on.
  auto wrong = c->Call(pr::TradeStatusOutput{});
  ASSERT_TRUE(Holds<pr::ErrorReply>(wrong));
  EXPECT_THAT(std::get<pr::ErrorReply>(*wrong).text, HasSubstr("not a request"));
  EXPECT_TRUE(Holds<pr::TradeStatusOutput>(c->Call(pr::TradeStatusInput{})));
}

TEST(BrokerageHouse, ServesManyConcurrentClients) {
  RunningServer server;
  constexpr int kClients = 32, kRequests = 200;
  std::atomic<int> answered{0};
  {
    std::vector<std::jthread> clients;
    for (int i = 0; i < kClients; ++i) {
      clients.emplace_back([&] {
        auto c = server.Client();
        for (int n = 0; n < kRequests; ++n) {
          if (Holds<pr::TradeStatusOutput>(c->Call(pr::TradeStatusInput{}))) ++answered;
        }
      });
    }
  }
  EXPECT_EQ(answered.load(), kClients * kRequests);
}

TEST(BrokerageHouse, AnswersABadBodyAndKeepsTheConnection) {
  RunningServer server;
  auto c = server.Client();
  // A valid header whose Trade-Lookup body names frame 9.
  pr::TradeLookupInput lookup;
  std::vector<uint8_t> bytes;
  pr::Writer w(bytes);
  ASSERT_TRUE(pr::EncodeFrame(lookup, 77, w).ok());
  // frame_to_execute is the body's first field (i32): make it 9.
  bytes[pr::kFrameHeaderBytes] = 9;
  ASSERT_TRUE(c->SendRaw(bytes).ok());
  auto frame = c->ReadFrame();
  ASSERT_TRUE(frame.ok()) << frame.status().message();
  EXPECT_EQ(frame->header.request_id, 77u);
  ASSERT_TRUE(std::holds_alternative<pr::ErrorReply>(frame->message));
  EXPECT_THAT(std::get<pr::ErrorReply>(frame->message).text, HasSubstr("frame"));
  EXPECT_TRUE(Holds<pr::TradeStatusOutput>(c->Call(pr::TradeStatusInput{})));
}

TEST(BrokerageHouse, AnswersGarbageThenClosesAndServesTheOthers) {
  RunningServer server;
  auto good = server.Client();
  auto bad = server.Client();
  std::vector<uint8_t> garbage(64, 0xAB);
  ASSERT_TRUE(bad->SendRaw(garbage).ok());
  auto frame = bad->ReadFrame();
  ASSERT_TRUE(frame.ok()) << frame.status().message();
  ASSERT_TRUE(std::holds_alternative<pr::ErrorReply>(frame->message));
  EXPECT_THAT(std::get<pr::ErrorReply>(frame->message).text, HasSubstr("magic"));
  EXPECT_FALSE(bad->ReadFrame().ok());  // closed
  EXPECT_TRUE(Holds<pr::TradeStatusOutput>(good->Call(pr::TradeStatusInput{})));
  EXPECT_GE(server.stats().malformed_frames.load(), 1u);
}

TEST(BrokerageHouse, SurvivesADisconnectInsideAFrame) {
  RunningServer server;
  auto good = server.Client();
  {
    auto quitter = server.Client();
    std::vector<uint8_t> bytes;
    pr::Writer w(bytes);
    ASSERT_TRUE(pr::EncodeFrame(pr::TradeStatusInput{}, 5, w).ok());
    bytes.resize(bytes.size() - 3);  // the last bytes never come
    ASSERT_TRUE(quitter->SendRaw(bytes).ok());
    quitter->Close();
  }
  for (int i = 0; i < 10; ++i) {
    EXPECT_TRUE(Holds<pr::TradeStatusOutput>(good->Call(pr::TradeStatusInput{})));
  }
}

// Acceptance (issue 5): 10,000 malformed frames from a fuzzing client while 16 good clients
// run: no crash, every good request answered, every malformed one answered with an error or
// its connection closed.
TEST(BrokerageHouse, TenThousandMalformedFramesDisturbNoGoodClient) {
  RunningServer server;
  std::atomic<bool> fuzzing{true};
  std::atomic<int> good_answered{0}, good_sent{0};
  std::vector<std::jthread> good;
  for (int i = 0; i < 16; ++i) {
    good.emplace_back([&] {
      auto c = server.Client();
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (fuzzing && std::chrono::steady_clock::now() < deadline) {
        ++good_sent;
        if (Holds<pr::TradeStatusOutput>(c->Call(pr::TradeStatusInput{}))) ++good_answered;
      }
    });
  }
  std::mt19937_64 rng(20261121);
  std::vector<uint8_t> valid;
  pr::Writer w(valid);
  pr::TradeOrderInput order;
  order.trade_type_id = "TLB";
  order.symbol = "ABC";
  ASSERT_TRUE(pr::EncodeFrame(order, 1, w).ok());
  // Each malformed frame goes on a connection of its own, which then half-closes: whatever
  // the server makes of the bytes (a bad header, a bad body, a body it waits for), the
  // client sees an answer or the end of the connection, never a hang.
  int malformed = 0, answered = 0, closed_without_answer = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (; malformed < 10000 && std::chrono::steady_clock::now() < deadline; ++malformed) {
    auto fuzzer = server.Client();
    std::vector<uint8_t> bytes = valid;
    switch (rng() % 4) {
      case 0:  // corrupt the header
        bytes[rng() % pr::kFrameHeaderBytes] ^= static_cast<uint8_t>(1 + rng() % 255);
        break;
      case 1:  // an oversized length
        bytes[20] = 0xFF, bytes[21] = 0xFF, bytes[22] = 0xFF;
        break;
      case 2:  // a body byte turned into something invalid
        bytes[pr::kFrameHeaderBytes + rng() % (bytes.size() - pr::kFrameHeaderBytes)] = 0xFF;
        break;
      default:  // an unknown message type
        bytes[6] = 0xEE, bytes[7] = 0xEE;
        break;
    }
    ASSERT_TRUE(fuzzer->SendRaw(bytes).ok());
    fuzzer->ShutdownSend();
    auto reply = fuzzer->ReadFrame();
    if (!reply.ok()) {
      ++closed_without_answer;  // e.g. the header promised more body than came
    } else if (std::holds_alternative<pr::ErrorReply>(reply->message) ||
               std::holds_alternative<pr::TradeOrderOutput>(reply->message)) {
      ++answered;  // an error naming the problem, or a mutation that left a valid order
      // A shortened body length splits the bytes into more frames, each answered; then the
      // connection ends.
      bool ended = false;
      for (int more = 0; more < 10 && !ended; ++more) {
        auto next = fuzzer->ReadFrame();
        ended = !next.ok();
        if (next.ok()) {
          EXPECT_TRUE(std::holds_alternative<pr::ErrorReply>(next->message));
        }
      }
      EXPECT_TRUE(ended);
    } else {
      ADD_FAILURE() << "unexpected reply to a malformed frame";
    }
  }
  fuzzing = false;
  good.clear();
  EXPECT_EQ(malformed, 10000);
  EXPECT_EQ(answered + closed_without_answer, malformed);
  EXPECT_GT(answered, 5000);  // most malformations are recognised and answered
  EXPECT_GT(good_sent.load(), 16);
  EXPECT_EQ(good_answered.load(), good_sent.load());
}

}  // namespace bb::bh_server_test
