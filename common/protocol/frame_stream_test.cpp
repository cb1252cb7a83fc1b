#include "common/protocol/frame_stream.h"

#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "common/protocol/codec.h"

namespace bb::protocol {
namespace {

using State = FrameStream::State;

std::vector<uint8_t> Frames(int n) {
  std::vector<uint8_t> out;
  Writer w(out);
  for (int i = 0; i < n; ++i) EXPECT_TRUE(EncodeFrame(TradeStatusInput{1000 + i}, i + 1, w).ok());
  return out;
}

// Feeds `bytes` in pieces of `piece` bytes, taking frames as they complete.
std::vector<uint64_t> Feed(FrameStream& s, const std::vector<uint8_t>& bytes, size_t piece) {
  std::vector<uint64_t> ids;
  for (size_t at = 0; at < bytes.size();) {
    auto space = s.space();
    const size_t n = std::min({piece, space.size(), bytes.size() - at});
    std::memcpy(space.data(), bytes.data() + at, n);
    s.Commit(n);
    at += n;
    while (s.Next() == State::kFrame) {
      ids.push_back(s.header().request_id);
      TradeStatusInput in;
      EXPECT_TRUE(Decode(s.body(), in).ok());
      EXPECT_EQ(in.acct_id, 999 + static_cast<int64_t>(s.header().request_id));
    }
  }
  return ids;
}

TEST(ProtocolFrameStream, CutsFramesWhateverTheReadSizes) {
  const auto bytes = Frames(50);
  for (size_t piece : {1, 7, 24, 25, 100, 100000}) {
    FrameStream s;
    auto ids = Feed(s, bytes, piece);
    ASSERT_EQ(ids.size(), 50u) << "piece " << piece;
    for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ids[i], i + 1);
    EXPECT_FALSE(s.partial());
  }
}

TEST(ProtocolFrameStream, AHeaderAloneClaimsAChunkNotItsDeclaredLength) {
  FrameHeader h;
  h.type = MessageType::kTradeStatusInput;
  h.body_length = kMaxBodyBytes;
  FrameStream s;
  auto space = s.space();
  WriteFrameHeader(h, space.first<kFrameHeaderBytes>());
  s.Commit(kFrameHeaderBytes);
  EXPECT_EQ(s.Next(), State::kNeedMore);
  EXPECT_TRUE(s.partial());
  EXPECT_LE(s.space().size(), 2 * FrameStream::kChunk);
}

TEST(ProtocolFrameStream, GrowsWithWhatArrivesForALargeFrame) {
  FrameHeader h;
  h.type = MessageType::kTradeStatusInput;
  h.body_length = 300'000;
  std::vector<uint8_t> bytes(kFrameHeaderBytes + h.body_length, 0xAB);
  WriteFrameHeader(h, std::span<uint8_t, kFrameHeaderBytes>(bytes.data(), kFrameHeaderBytes));
  FrameStream s;
  size_t at = 0;
  size_t largest_offer = 0;
  for (;;) {
    auto space = s.space();
    // Never more room than what is held again plus a chunk, nor than the frame lacks.
    EXPECT_LE(space.size(), std::max(at, FrameStream::kChunk) + FrameStream::kChunk);
    largest_offer = std::max(largest_offer, space.size());
    const size_t n = std::min(space.size(), bytes.size() - at);
    std::memcpy(space.data(), bytes.data() + at, n);
    s.Commit(n);
    at += n;
    if (s.Next() == State::kFrame) break;
    ASSERT_LT(at, bytes.size());
  }
  EXPECT_EQ(s.body().size(), h.body_length);
  EXPECT_GT(largest_offer, FrameStream::kChunk);  // it did grow, by doubling rather than chunks
}

TEST(ProtocolFrameStream, ABadHeaderSaysWhichFieldAndKeepsItsRequestId) {
  auto bytes = Frames(1);
  bytes[8] = 1;  // flags
  FrameStream s;
  auto space = s.space();
  std::memcpy(space.data(), bytes.data(), bytes.size());
  s.Commit(bytes.size());
  ASSERT_EQ(s.Next(), State::kBad);
  EXPECT_NE(s.status().message().find("flags"), std::string::npos) << s.status().message();
  EXPECT_EQ(s.header().request_id, 1u);
}

}  // namespace
}  // namespace bb::protocol
