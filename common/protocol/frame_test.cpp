#include "common/protocol/frame.h"

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace bb::protocol {
namespace {

using State = FrameHeaderParser::State;

std::array<uint8_t, kFrameHeaderBytes> Bytes(const FrameHeader& h) {
  std::array<uint8_t, kFrameHeaderBytes> out{};
  WriteFrameHeader(h, out);
  return out;
}

FrameHeader SampleHeader() {
  FrameHeader h;
  h.type = MessageType::kTradeOrderInput;
  h.request_id = 0x0102030405060708;
  h.body_length = 300;
  return h;
}

TEST(ProtocolFrameHeader, LayoutIsLittleEndianAndFixed) {
  const auto b = Bytes(SampleHeader());
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(b.data()), 4), "BBPT");
  EXPECT_EQ(b[4], kProtocolVersion & 0xFF);
  EXPECT_EQ(b[5], kProtocolVersion >> 8);
  EXPECT_EQ(b[6], 28);  // kTradeOrderInput
  EXPECT_EQ(b[7], 0);
  EXPECT_EQ(b[12], 0x08);  // request id, least significant byte first
  EXPECT_EQ(b[19], 0x01);
  EXPECT_EQ(b[20], 300 & 0xFF);
  EXPECT_EQ(b[21], 300 >> 8);
}

TEST(ProtocolFrameHeader, OneShotParseRoundTrips) {
  const auto b = Bytes(SampleHeader());
  ParsedHeader p = ParseFrameHeader(b);
  ASSERT_EQ(p.state, State::kGood) << p.status.message();
  EXPECT_EQ(p.header, SampleHeader());
  EXPECT_EQ(ParseFrameHeader(std::span(b).first(23)).state, State::kNeedMore);
}

TEST(ProtocolFrameHeaderParser, ByteByByteNeedsMoreUntilTheLastHeaderByte) {
  std::vector<uint8_t> frame;
  const auto b = Bytes(SampleHeader());
  frame.insert(frame.end(), b.begin(), b.end());
  frame.push_back(0xAB);  // first body byte
  FrameHeaderParser parser;
  for (size_t i = 0; i + 1 < kFrameHeaderBytes; ++i) {
    auto [state, next] = parser.Parse(frame.data() + i, frame.data() + i + 1);
    ASSERT_EQ(state, State::kNeedMore) << "byte " << i;
    EXPECT_EQ(next, frame.data() + i + 1);
  }
  auto [state, next] =
      parser.Parse(frame.data() + kFrameHeaderBytes - 1, frame.data() + frame.size());
  ASSERT_EQ(state, State::kGood) << parser.status().message();
  EXPECT_EQ(next, frame.data() + kFrameHeaderBytes);  // the body is not consumed
  EXPECT_EQ(*next, 0xAB);
  EXPECT_EQ(parser.header(), SampleHeader());

  parser.Reset();
  auto [again, rest] = parser.Parse(frame);
  EXPECT_EQ(again, State::kGood);
  EXPECT_EQ(rest, frame.data() + kFrameHeaderBytes);
}

struct BadHeaderCase {
  const char* name;
  void (*mutate)(FrameHeader&);
  const char* message;
};

class ProtocolBadHeader : public ::testing::TestWithParam<BadHeaderCase> {};

TEST_P(ProtocolBadHeader, IsRejectedNamingTheFieldAndValue) {
  FrameHeader h = SampleHeader();
  GetParam().mutate(h);
  const auto b = Bytes(h);
  FrameHeaderParser parser;
  auto [state, next] = parser.Parse(b);
  EXPECT_EQ(state, State::kBad);
  EXPECT_EQ(next, b.data() + b.size());
  EXPECT_EQ(parser.status().message(), GetParam().message);
  // The request id survives so that an error reply can echo it.
  EXPECT_EQ(parser.header().request_id, SampleHeader().request_id);
  EXPECT_EQ(ParseFrameHeader(b).status.message(), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    ProtocolFrameHeader, ProtocolBadHeader,
    ::testing::Values(
        BadHeaderCase{"magic", [](FrameHeader& h) { h.magic = 0x12345678; },
                      "frame header magic: 0x12345678 is not 0x54504242"},
        BadHeaderCase{"version", [](FrameHeader& h) { h.version = 2; },
                      "frame header version: 2 is not 1 (the peer speaks another protocol "
                      "version)"},
        BadHeaderCase{"unknown_type", [](FrameHeader& h) { h.type = static_cast<MessageType>(6); },
                      "frame header type: 6 is not a known message type"},
        BadHeaderCase{"type_zero", [](FrameHeader& h) { h.type = static_cast<MessageType>(0); },
                      "frame header type: 0 is not a known message type"},
        BadHeaderCase{"flags", [](FrameHeader& h) { h.flags = 4; },
                      "frame header flags: 0x00000004 is not 0 (no flags are defined)"},
        BadHeaderCase{"oversized_body", [](FrameHeader& h) { h.body_length = kMaxBodyBytes + 1; },
                      "frame header body_length: 1048577 exceeds 1048576"},
        BadHeaderCase{"huge_body", [](FrameHeader& h) { h.body_length = 0xFFFFFFFF; },
                      "frame header body_length: 4294967295 exceeds 1048576"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(ProtocolFrameHeader, MaxBodyLengthIsAccepted) {
  FrameHeader h = SampleHeader();
  h.body_length = kMaxBodyBytes;
  EXPECT_EQ(ParseFrameHeader(Bytes(h)).state, State::kGood);
}

TEST(ProtocolMessageTypes, KnownTypesAreExactlyTheNamedOnes) {
  int known = 0;
  for (uint32_t t = 0; t <= 0xFFFF; ++t) {
    const auto type = static_cast<MessageType>(t);
    const bool named = std::strcmp(MessageTypeName(type), "unknown") != 0;
    EXPECT_EQ(IsKnownMessageType(static_cast<uint16_t>(t)), named) << t;
    known += named ? 1 : 0;
  }
  EXPECT_EQ(known, 29);
  EXPECT_STREQ(MessageTypeName(MessageType::kTradeCleanupOutput), "TradeCleanupOutput");
}

}  // namespace
}  // namespace bb::protocol
