#include "common/protocol/codec.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/protocol/test_messages.h"

namespace bb::protocol {
namespace {

using samples::EncodeToFrame;
using samples::SampleMessages;
using samples::Text;

// Writes the fields of a hand-made (possibly invalid) body.
struct BodyBuilder {
  std::vector<uint8_t> bytes;
  Writer w{bytes};
  BodyBuilder& U8(uint8_t v) { return w.PutU8(v), *this; }
  BodyBuilder& U16(uint16_t v) { return w.PutU16(v), *this; }
  BodyBuilder& U32(uint32_t v) { return w.PutU32(v), *this; }
  BodyBuilder& I32(int32_t v) { return w.PutI32(v), *this; }
  BodyBuilder& I64(int64_t v) { return w.PutI64(v), *this; }
  BodyBuilder& Str(const std::string& s) {
    w.PutU16(static_cast<uint16_t>(s.size()));
    w.PutBytes(s.data(), s.size());
    return *this;
  }
  BodyBuilder& Status() { return I32(0).U8(0).U32(0).I64(0).Str(""); }  // a ReplyStatus
};

template <typename M>
std::vector<uint8_t> Body(const M& m) {
  std::vector<uint8_t> bytes;
  Writer w(bytes);
  EXPECT_TRUE(Encode(m, w).ok());
  return bytes;
}

template <typename M>
std::string DecodeError(const std::vector<uint8_t>& body) {
  M out;
  Status s = Decode(body, out);
  return s.ok() ? "(decoded)" : s.message();
}

TEST(ProtocolCodec, EveryMessageRoundTripsThroughAFrame) {
  const std::vector<Message> all = SampleMessages();
  std::set<MessageType> types;
  uint64_t request_id = 1'000'000'000'000;
  for (const Message& m : all) {
    SCOPED_TRACE(MessageTypeName(TypeOf(m)));
    types.insert(TypeOf(m));
    const std::vector<uint8_t> frame = EncodeToFrame(m, ++request_id);
    ASSERT_FALSE(frame.empty());
    Result<Frame> decoded = DecodeFrame(frame);
    ASSERT_TRUE(decoded.ok()) << decoded.status().message();
    EXPECT_EQ(decoded->header.type, TypeOf(m));
    EXPECT_EQ(decoded->header.request_id, request_id);
    EXPECT_EQ(decoded->header.body_length, frame.size() - kFrameHeaderBytes);
    EXPECT_TRUE(decoded->message == m);
  }
  EXPECT_EQ(types.size(), std::variant_size_v<Message>) << "a message type has no sample";
}

TEST(ProtocolCodec, DefaultMessagesRoundTripToo) {
  for (const Message& sample : SampleMessages()) {
    Message m = sample;
    std::visit([](auto& x) { x = std::decay_t<decltype(x)>{}; }, m);
    Result<Frame> decoded = DecodeFrame(EncodeToFrame(m, 7));
    ASSERT_TRUE(decoded.ok()) << decoded.status().message();
    EXPECT_TRUE(decoded->message == m) << MessageTypeName(TypeOf(m));
  }
}

TEST(ProtocolCodec, PerMessagePairAndExactBytes) {
  const TradeResultInput in{0x0102030405060708, -2};
  const std::vector<uint8_t> body = Body(in);
  EXPECT_EQ(body, (std::vector<uint8_t>{8, 7, 6, 5, 4, 3, 2, 1, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                        0xFF, 0xFF}));
  TradeResultInput out;
  ASSERT_TRUE(Decode(body, out).ok());
  EXPECT_EQ(out, in);
}

TEST(ProtocolCodec, NullTradePriceRoundTrips) {
  TradeLookupOutput m;
  m.trades.resize(2);
  m.trades[1].trade_price = 0;  // present and zero is not NULL
  TradeLookupOutput out;
  ASSERT_TRUE(Decode(Body(m), out).ok());
  EXPECT_FALSE(out.trades[0].trade_price.has_value());
  EXPECT_EQ(out.trades[1].trade_price, 0);
}

TEST(ProtocolCodec, WriterReusesItsBufferInSteadyState) {
  const std::vector<Message> all = SampleMessages();
  std::vector<uint8_t> buffer;
  Writer w(buffer);
  for (const Message& m : all) ASSERT_TRUE(EncodeFrame(m, 1, w).ok());
  const size_t capacity = buffer.capacity();
  const uint8_t* data = buffer.data();
  for (int round = 0; round < 3; ++round) {
    for (const Message& m : all) {
      buffer.clear();
      ASSERT_TRUE(EncodeFrame(m, 2, w).ok());
    }
  }
  EXPECT_EQ(buffer.capacity(), capacity);
  EXPECT_EQ(buffer.data(), data);
}

TEST(ProtocolCodec, FixedBufferWriterFitsOrFailsCleanly) {
  const TradeOrderInput m = samples::SampleOf<TradeOrderInput>();
  const std::vector<uint8_t> expected = EncodeToFrame(m, 9);
  std::vector<uint8_t> storage(expected.size());
  Writer exact{std::span<uint8_t>(storage)};
  ASSERT_TRUE(EncodeFrame(m, 9, exact).ok());
  EXPECT_EQ(storage, expected);

  std::vector<uint8_t> small(expected.size() - 1);
  Writer w{std::span<uint8_t>(small)};
  Status s = EncodeFrame(m, 9, w);
  EXPECT_EQ(s.message(), "TradeOrderInput: the frame does not fit in the writer's buffer");
  EXPECT_EQ(w.size(), 0u);
}

TEST(ProtocolCodec, DecodeIntoAnExistingMessageReusesIt) {
  const std::vector<Message> all = SampleMessages();
  Message target = TradeStatusOutput{};
  for (const Message& m : all) {
    const std::vector<uint8_t> frame = EncodeToFrame(m, 3);
    ASSERT_TRUE(DecodeMessage(TypeOf(m), std::span(frame).subspan(kFrameHeaderBytes), target).ok());
    EXPECT_TRUE(target == m);
  }
}

TEST(ProtocolCodec, UnknownTypeIsRejected) {
  Result<Message> r = DecodeMessage(static_cast<MessageType>(99), {});
  EXPECT_EQ(r.status().message(), "message type: 99 is not a known message type");
}

TEST(ProtocolCodec, TruncatedBodyNamesTheField) {
  std::vector<uint8_t> body = Body(samples::SampleOf<TradeOrderInput>());
  body.pop_back();  // inside the last string, "SBMT"
  EXPECT_EQ(DecodeError<TradeOrderInput>(body),
            "TradeOrderInput.st_submitted_id: length 4 but only 3 bytes remain");
  body.resize(body.size() - 4);  // inside its u16 length
  EXPECT_EQ(DecodeError<TradeOrderInput>(body),
            "TradeOrderInput.st_submitted_id: truncated: needs 2 bytes, 1 remain");
  EXPECT_EQ(DecodeError<TradeResultInput>({1, 2, 3}),
            "TradeResultInput.trade_id: truncated: needs 8 bytes, 3 remain");
  EXPECT_EQ(DecodeError<TradeResultInput>({}),
            "TradeResultInput.trade_id: truncated: needs 8 bytes, 0 remain");
}

TEST(ProtocolCodec, TruncatedFrameIsRejected) {
  std::vector<uint8_t> frame = EncodeToFrame(TradeStatusInput{5}, 1);
  frame.pop_back();
  EXPECT_EQ(DecodeFrame(frame).status().message(),
            "frame header body_length: 8 but 7 bytes follow");
  EXPECT_EQ(DecodeFrame(std::span(frame).first(10)).status().message(),
            "frame: 10 bytes is shorter than the 24-byte header");
}

TEST(ProtocolCodec, TrailingGarbageIsRejected) {
  std::vector<uint8_t> body = Body(TradeResultInput{1, 2});
  body.push_back(0);
  body.push_back(0);
  EXPECT_EQ(DecodeError<TradeResultInput>(body),
            "TradeResultInput: 2 trailing bytes after the message");

  // A frame whose header covers the garbage too.
  std::vector<uint8_t> frame = EncodeToFrame(TradeResultInput{1, 2}, 1);
  frame.push_back(0x55);
  frame[20] += 1;
  EXPECT_EQ(DecodeFrame(frame).status().message(),
            "TradeResultInput: 1 trailing bytes after the message");
  // And a frame whose header does not.
  frame[20] -= 1;
  EXPECT_EQ(DecodeFrame(frame).status().message(),
            "frame header body_length: 16 but 17 bytes follow");
}

TEST(ProtocolCodec, FrameNumberOutOfRangeIsRejected) {
  std::vector<uint8_t> body = Body(TradeLookupInput{});
  body[0] = 9;
  EXPECT_EQ(DecodeError<TradeLookupInput>(body), "TradeLookupInput.frame: 9 is not 1..4");
  body = Body(TradeUpdateInput{});
  body[0] = 4;
  EXPECT_EQ(DecodeError<TradeUpdateInput>(body), "TradeUpdateInput.frame: 4 is not 1..3");
  body[0] = 0;
  EXPECT_EQ(DecodeError<TradeUpdateInput>(body), "TradeUpdateInput.frame: 0 is not 1..3");

  TradeLookupInput bad;
  bad.frame = -1;
  std::vector<uint8_t> bytes;
  Writer w(bytes);
  EXPECT_EQ(Encode(bad, w).message(), "TradeLookupInput.frame: -1 is not 1..4");
  EXPECT_TRUE(bytes.empty());
}

TEST(ProtocolCodec, BadEnumValuesAreRejected) {
  std::vector<uint8_t> body = Body(TradeOrderOutput{});
  body[4] = 9;  // ReplyStatus.outcome follows the int32 spec_status
  EXPECT_EQ(DecodeError<TradeOrderOutput>(body), "TradeOrderOutput.status.outcome: 9 is not 0..7");

  body = Body(ErrorReply{});
  body[0] = 0;
  EXPECT_EQ(DecodeError<ErrorReply>(body), "ErrorReply.code: 0 is not 1..5");
  body[0] = 6;
  EXPECT_EQ(DecodeError<ErrorReply>(body), "ErrorReply.code: 6 is not 1..5");

  body = Body(DataMaintenanceInput{});
  body[0] = 12;
  EXPECT_EQ(DecodeError<DataMaintenanceInput>(body), "DataMaintenanceInput.table: 12 is not 0..11");

  MarketTradeRequest m;
  m.action = static_cast<MarketAction>(2);
  std::vector<uint8_t> bytes;
  Writer w(bytes);
  EXPECT_EQ(Encode(m, w).message(), "MarketTradeRequest.action: 2 is not 0..1");
}

TEST(ProtocolCodec, BooleansMustBeZeroOrOne) {
  BodyBuilder b;
  b.I64(1).Str("").U8(2).I32(0);
  EXPECT_EQ(DecodeError<CustomerPositionInput>(b.bytes),
            "CustomerPositionInput.get_history: 2 is not 0 or 1");

  BodyBuilder present;  // TradeLookupOutput with one trade whose trade_price flag is 7
  present.Status().I32(1).U16(1).I64(1).I64(2).Str("x").U8(1).U8(0).I64(3).U8(7);
  EXPECT_EQ(DecodeError<TradeLookupOutput>(present.bytes),
            "TradeLookupOutput.trades[0].trade_price: 7 is not 0 or 1");
}

TEST(ProtocolCodec, StringsOverTheirLimitAreRejected) {
  BodyBuilder b;
  b.I64(1).Str(Text(width::kSymbol + 1, 0));
  EXPECT_EQ(DecodeError<MarketTradeRequest>(b.bytes),
            "MarketTradeRequest.symbol: length 16 exceeds 15");

  // The encoder refuses too, and leaves the buffer as it was.
  MarketTradeRequest m;
  m.symbol = Text(width::kSymbol + 1, 0);
  std::vector<uint8_t> bytes{42};
  Writer w(bytes);
  EXPECT_EQ(EncodeFrame(m, 1, w).message(), "MarketTradeRequest.symbol: length 16 exceeds 15");
  EXPECT_EQ(bytes, std::vector<uint8_t>{42});

  // Nested and indexed fields name their path.
  TradeLookupOutput t;
  t.trades.resize(4);
  t.trades[3].history.resize(2);
  t.trades[3].history[1].status_id = "PNDGX";
  EXPECT_EQ(Encode(t, w).message(),
            "TradeLookupOutput.trades[3].history[1].status_id: length 5 exceeds 4");
  EXPECT_EQ(DecodeError<TradeLookupOutput>([] {
              BodyBuilder tb;
              tb.Status().I32(1).U16(1).I64(1).I64(2).Str(Text(width::kExecName + 1, 1));
              return tb.bytes;
            }()),
            "TradeLookupOutput.trades[0].exec_name: length 50 exceeds 49");

  // Elements of a list of strings are named by index.
  BodyBuilder bv;
  bv.U16(2).Str("ok").Str(Text(width::kBrokerName + 1, 2));
  EXPECT_EQ(DecodeError<BrokerVolumeInput>(bv.bytes),
            "BrokerVolumeInput.broker_list[1]: length 50 exceeds 49");
}

TEST(ProtocolCodec, LongBlobUsesA32BitLengthAndIsBounded) {
  SecurityDetailOutput m;
  m.news.resize(1);
  m.news[0].item = Text(width::kNewsItem + 1, 3);
  std::vector<uint8_t> bytes;
  Writer w(bytes);
  EXPECT_EQ(Encode(m, w).message(),
            "SecurityDetailOutput.news[0].item: length 100001 exceeds 100000");

  m.news[0].item = Text(width::kNewsItem, 3);
  ASSERT_TRUE(Encode(m, w).ok());
  // Patch the u32 length (it follows the fixed fields; find it by value) to the limit + 1.
  const std::vector<uint8_t> len{0xA0, 0x86, 0x01, 0x00};  // 100000 little-endian
  auto it = std::search(bytes.begin(), bytes.end(), len.begin(), len.end());
  ASSERT_NE(it, bytes.end());
  *it = 0xA1;
  EXPECT_EQ(DecodeError<SecurityDetailOutput>(bytes),
            "SecurityDetailOutput.news[0].item: length 100001 exceeds 100000");
  *it = 0xFF;
  it[3] = 0xFF;  // a 4 GiB claim is refused before anything is allocated
  EXPECT_EQ(DecodeError<SecurityDetailOutput>(bytes),
            "SecurityDetailOutput.news[0].item: length 4278290175 exceeds 100000");
}

TEST(ProtocolCodec, ArraysOverTheirLimitAreRejected) {
  BodyBuilder b;
  b.Status().Str("").Str("").Str("").U16(51);
  EXPECT_EQ(DecodeError<TradeStatusOutput>(b.bytes),
            "TradeStatusOutput.trades: count 51 exceeds 50");

  TradeStatusOutput m;
  m.trades.resize(kMaxTradeStatus + 1);
  std::vector<uint8_t> bytes;
  Writer w(bytes);
  EXPECT_EQ(Encode(m, w).message(), "TradeStatusOutput.trades: count 51 exceeds 50");

  BodyBuilder feed;
  feed.U16(21);
  EXPECT_EQ(DecodeError<MarketFeedInput>(feed.bytes),
            "MarketFeedInput.entries: count 21 exceeds 20");

  BodyBuilder ids;  // a legal count with no bytes behind it is refused before resizing
  ids.I32(1).I32(20).U16(20);
  EXPECT_EQ(DecodeError<TradeLookupInput>(ids.bytes),
            "TradeLookupInput.trade_ids: count 20 but only 0 bytes remain");
  BodyBuilder short_ids;
  short_ids.I32(1).I32(20).U16(2).I64(1).U8(0);
  EXPECT_EQ(DecodeError<TradeLookupInput>(short_ids.bytes),
            "TradeLookupInput.trade_ids[1]: truncated: needs 8 bytes, 1 remain");
}

TEST(ProtocolCodec, NamesOfOutcomesAndTables) {
  EXPECT_STREQ(OutcomeName(Outcome::kRetryExhausted), "retry_exhausted");
  EXPECT_STREQ(OutcomeName(Outcome::kTimeout), "timeout");
  EXPECT_STREQ(MaintenanceTableName(MaintenanceTable::kCustomerTaxrate), "CUSTOMER_TAXRATE");
  EXPECT_STREQ(MaintenanceTableName(MaintenanceTable::kWatchItem), "WATCH_ITEM");
}

}  // namespace
}  // namespace bb::protocol

namespace bb::protocol {
namespace {

TEST(ProtocolText, ShowsEveryFieldNestedAndCutsLongStrings) {
  TradeLookupOutput out;
  out.status.retries = 2;
  out.trades.emplace_back().trade_id = 42;
  std::string text = ToText(out);
  EXPECT_NE(text.find("TradeLookupOutput\n"), std::string::npos) << text;
  EXPECT_NE(text.find("status\n  spec_status: 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  retries: 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("trades: 1 item\n"), std::string::npos) << text;
  EXPECT_NE(text.find("trade_id: 42"), std::string::npos) << text;

  TradeLookupInput in;
  in.trade_ids = {7, 8};
  text = ToText(in);
  EXPECT_NE(text.find("trade_ids: 2 items\n  [0]: 7\n  [1]: 8\n"), std::string::npos) << text;

  ErrorReply error{ErrorCode::kInternal, std::string(500, 'x')};
  text = ToText(error);
  EXPECT_NE(text.find("...' (500 bytes)"), std::string::npos) << text;
}

}  // namespace
}  // namespace bb::protocol
