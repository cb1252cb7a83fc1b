#include "common/protocol/reply.h"

#include <vector>

#include <gtest/gtest.h>

#include "common/protocol/codec.h"

namespace bb::protocol {
namespace {

TEST(ProtocolReply, EveryRequestHasItsOwnReplyType) {
  EXPECT_EQ(ReplyTypeOf(MessageType::kHello), MessageType::kHelloReply);
  EXPECT_EQ(ReplyTypeOf(MessageType::kMarketTradeRequest), MessageType::kMarketTradeAck);
  EXPECT_EQ(ReplyTypeOf(MessageType::kTradeOrderInput), MessageType::kTradeOrderOutput);
  EXPECT_EQ(ReplyTypeOf(MessageType::kTradeCleanupInput), MessageType::kTradeCleanupOutput);
  EXPECT_EQ(ReplyTypeOf(MessageType::kTradeOrderOutput), MessageType::kErrorReply);
  EXPECT_TRUE(IsReplyTo(MessageType::kErrorReply, MessageType::kBrokerVolumeInput));
  EXPECT_TRUE(IsReplyTo(MessageType::kBrokerVolumeOutput, MessageType::kBrokerVolumeInput));
  EXPECT_FALSE(IsReplyTo(MessageType::kTradeStatusOutput, MessageType::kBrokerVolumeInput));
}

TEST(ProtocolReply, ReadsTheStatusAtTheHeadOfAReply) {
  TradeStatusOutput out;
  out.status.spec_status = -711;
  out.status.outcome = Outcome::kInvalid;
  out.status.retries = 3;
  out.status.detail = "not read";
  std::vector<uint8_t> body;
  Writer w(body);
  ASSERT_TRUE(Encode(out, w).ok());
  ReplyHead head;
  ASSERT_TRUE(DecodeReplyHead(MessageType::kTradeStatusOutput, body, head).ok());
  EXPECT_EQ(head.spec_status, -711);
  EXPECT_EQ(head.outcome, Outcome::kInvalid);
  EXPECT_EQ(head.retries, 3u);
}

TEST(ProtocolReply, ABadHeadIsAnErrorNamingTheTypeOrField) {
  ReplyHead head;
  std::vector<uint8_t> shortened{1, 2, 3};
  Status s = DecodeReplyHead(MessageType::kTradeStatusOutput, shortened, head);
  EXPECT_NE(s.message().find("TradeStatusOutput"), std::string::npos) << s.message();
  std::vector<uint8_t> bad_outcome{0, 0, 0, 0, 99, 0, 0, 0, 0};
  s = DecodeReplyHead(MessageType::kTradeStatusOutput, bad_outcome, head);
  EXPECT_NE(s.message().find("outcome: 99"), std::string::npos) << s.message();
  s = DecodeReplyHead(MessageType::kHelloReply, bad_outcome, head);
  EXPECT_NE(s.message().find("HelloReply"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace bb::protocol
