#include "common/protocol/reply.h"

#include <string>
#include <variant>
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

TEST(ProtocolReply, ReadsTheTradeIdOfATradeOrderPastItsDetail) {
  TradeOrderOutput out;
  out.status.outcome = Outcome::kOk;
  out.status.server_micros = 77;
  out.status.detail = "a detail the head skips";
  out.trade_id = 200'000'000'004'242;
  out.buy_value = 123;
  std::vector<uint8_t> body;
  Writer w(body);
  ASSERT_TRUE(Encode(out, w).ok());
  ReplyHead head;
  ASSERT_TRUE(DecodeReplyHead(MessageType::kTradeOrderOutput, body, head).ok());
  EXPECT_EQ(head.outcome, Outcome::kOk);
  EXPECT_EQ(head.trade_id, 200'000'000'004'242);
  // Cut inside the trade id: an error naming the field.
  std::vector<uint8_t> cut(body.begin(), body.end() - 3 * 8 - 4);
  Status s = DecodeReplyHead(MessageType::kTradeOrderOutput, cut, head);
  EXPECT_NE(s.message().find("TradeOrderOutput trade_id"), std::string::npos) << s.message();
  // Other replies carry none.
  TradeStatusOutput ts;
  body.clear();
  Writer w2(body);
  ASSERT_TRUE(Encode(ts, w2).ok());
  head.trade_id = 5;
  ASSERT_TRUE(DecodeReplyHead(MessageType::kTradeStatusOutput, body, head).ok());
  EXPECT_EQ(head.trade_id, 0);
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

TEST(ProtocolReply, TheTwelveTransactionInputsAreTheRequests) {
  int requests = 0;
  for (int t = 0; t < 256; ++t) {
    if (IsTransactionRequest(static_cast<MessageType>(t))) ++requests;
  }
  EXPECT_EQ(requests, 12);
  EXPECT_TRUE(IsTransactionRequest(MessageType::kTradeOrderInput));
  EXPECT_TRUE(IsTransactionRequest(MessageType::kTradeCleanupInput));
  EXPECT_FALSE(IsTransactionRequest(MessageType::kTradeOrderOutput));
  EXPECT_FALSE(IsTransactionRequest(MessageType::kHello));
  EXPECT_FALSE(IsTransactionRequest(MessageType::kMarketTradeRequest));
}

TEST(ProtocolReply, StampsAndReadsTheStatusOfTransactionRepliesOnly) {
  Message reply = TradeLookupOutput{};
  StampServerTime(reply, 1234);
  ASSERT_NE(StatusOf(reply), nullptr);
  EXPECT_EQ(StatusOf(reply)->server_micros, 1234);
  Message error = ErrorReply{ErrorCode::kOverloaded, "full"};
  StampServerTime(error, 1234);  // nothing to stamp
  EXPECT_EQ(StatusOf(error), nullptr);
  EXPECT_EQ(StatusOf(Message(TradeLookupInput{})), nullptr);
}

TEST(ProtocolReply, AnEmptyReplyHasTheRequestsReplyTypeAndTheStatusGiven) {
  ReplyStatus status;
  status.outcome = Outcome::kDbError;
  status.detail = "connection lost";
  Message reply;
  ASSERT_TRUE(MakeEmptyReply(TradeResultInput{}, status, reply));
  EXPECT_EQ(TypeOf(reply), MessageType::kTradeResultOutput);
  ASSERT_NE(StatusOf(reply), nullptr);
  EXPECT_EQ(StatusOf(reply)->outcome, Outcome::kDbError);
  EXPECT_EQ(StatusOf(reply)->detail, "connection lost");
  ASSERT_TRUE(MakeEmptyReply(BrokerVolumeInput{}, status, reply));
  EXPECT_EQ(TypeOf(reply), MessageType::kBrokerVolumeOutput);
  Message untouched = HelloReply{};
  EXPECT_FALSE(MakeEmptyReply(MarketTradeRequest{}, status, untouched));
  EXPECT_EQ(TypeOf(untouched), MessageType::kHelloReply);
}

TEST(ProtocolReply, AReplyThatBreaksALimitIsEncodedAsAnInternalErrorSayingWhy) {
  std::vector<uint8_t> out{7};  // appended to, not replaced
  TradeStatusOutput fine;
  ASSERT_TRUE(EncodeReply(fine, 41, out).ok());
  auto frame = DecodeFrame(std::span<const uint8_t>(out).subspan(1));
  ASSERT_TRUE(frame.ok()) << frame.status().message();
  EXPECT_EQ(frame->header.request_id, 41u);
  EXPECT_TRUE(std::holds_alternative<TradeStatusOutput>(frame->message));

  TradeStatusOutput bad;
  bad.status.detail = std::string(width::kDetail + 1, 'x');
  out.clear();
  Status s = EncodeReply(bad, 42, out);
  EXPECT_NE(s.message().find("detail"), std::string::npos) << s.message();
  frame = DecodeFrame(out);
  ASSERT_TRUE(frame.ok()) << frame.status().message();
  EXPECT_EQ(frame->header.request_id, 42u);
  ASSERT_TRUE(std::holds_alternative<ErrorReply>(frame->message));
  const auto& error = std::get<ErrorReply>(frame->message);
  EXPECT_EQ(error.code, ErrorCode::kInternal);
  EXPECT_NE(error.text.find("server could not encode its reply: "), std::string::npos)
      << error.text;
}

}  // namespace
}  // namespace bb::protocol
