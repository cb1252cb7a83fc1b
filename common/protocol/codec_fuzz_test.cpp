// A deterministic mutation fuzzer in GoogleTest: valid frames of every message are damaged at
// random (bit flips, truncation, length fields set to edge values, random bytes, splices) and
// decoded. Decoding must never crash (run this under -fsanitize=address,undefined to catch
// out-of-bounds reads) and must either fail with a message or yield a message whose
// re-encoding reproduces the input byte for byte (the encoding is canonical).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "common/protocol/codec.h"
#include "common/protocol/test_messages.h"

namespace bb::protocol {
namespace {

constexpr uint64_t kSeed = 0x5EED'B0B0'2024'0601;
constexpr int kMaxCases = 200'000;
constexpr auto kTimeBudget = std::chrono::seconds(5);

class Mutator {
 public:
  explicit Mutator(uint64_t seed) : rng_(seed) {}

  size_t Below(size_t n) {
    return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(rng_);
  }
  uint8_t Byte() { return static_cast<uint8_t>(rng_()); }

  void Mutate(std::vector<uint8_t>& b, const std::vector<std::vector<uint8_t>>& corpus) {
    const int rounds = 1 + static_cast<int>(Below(4));
    for (int i = 0; i < rounds; ++i) MutateOnce(b, corpus);
  }

 private:
  // An edge value for a length or count field of `width` bytes.
  uint64_t EdgeValue() {
    static constexpr uint64_t kEdges[] = {0,          1,
                                          2,          3,
                                          4,          15,
                                          16,         20,
                                          21,         50,
                                          51,         0x7F,
                                          0x80,       0xFF,
                                          0x100,      0x7FFF,
                                          0x8000,     0xFFFF,
                                          100000,     100001,
                                          1 << 20,    (1 << 20) + 1,
                                          0x7FFFFFFF, 0xFFFFFFFF};
    return kEdges[Below(std::size(kEdges))];
  }

  void MutateOnce(std::vector<uint8_t>& b, const std::vector<std::vector<uint8_t>>& corpus) {
    switch (Below(9)) {
      case 0:  // flip a bit
        if (!b.empty()) b[Below(b.size())] ^= static_cast<uint8_t>(1u << Below(8));
        break;
      case 1:  // set a byte
        if (!b.empty()) b[Below(b.size())] = Byte();
        break;
      case 2:  // truncate
        b.resize(Below(b.size() + 1));
        break;
      case 3: {  // a u16/u32 length field somewhere gets an edge value
        const size_t width = Below(2) == 0 ? 2 : 4;
        if (b.size() < width) break;
        const size_t at = Below(b.size() - width + 1);
        const uint64_t v = EdgeValue();
        for (size_t i = 0; i < width; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
        break;
      }
      case 4: {  // the header's body_length, off by a little or a lot
        if (b.size() < kFrameHeaderBytes) break;
        const uint32_t body = static_cast<uint32_t>(b.size() - kFrameHeaderBytes);
        const uint32_t v = Below(2) == 0 ? body + static_cast<uint32_t>(Below(5)) - 2
                                         : static_cast<uint32_t>(EdgeValue());
        for (size_t i = 0; i < 4; ++i) b[20 + i] = static_cast<uint8_t>(v >> (8 * i));
        break;
      }
      case 5: {  // insert random bytes
        const size_t at = Below(b.size() + 1);
        const size_t n = 1 + Below(8);
        std::vector<uint8_t> extra(n);
        for (auto& x : extra) x = Byte();
        b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), extra.begin(), extra.end());
        break;
      }
      case 6: {  // erase a range
        if (b.empty()) break;
        const size_t at = Below(b.size());
        const size_t n = 1 + Below(std::min<size_t>(16, b.size() - at));
        b.erase(b.begin() + static_cast<std::ptrdiff_t>(at),
                b.begin() + static_cast<std::ptrdiff_t>(at + n));
        break;
      }
      case 7: {  // splice: keep this header, take another frame's body
        const auto& other = corpus[Below(corpus.size())];
        if (b.size() < kFrameHeaderBytes || other.size() < kFrameHeaderBytes) break;
        b.resize(kFrameHeaderBytes);
        b.insert(b.end(), other.begin() + kFrameHeaderBytes, other.end());
        break;
      }
      default: {  // the message type changes, body and length stay
        if (b.size() < kFrameHeaderBytes) break;
        const uint16_t type = static_cast<uint16_t>(Below(2) == 0 ? Below(42) : Byte());
        b[6] = static_cast<uint8_t>(type);
        b[7] = static_cast<uint8_t>(type >> 8);
        break;
      }
    }
  }

  std::mt19937_64 rng_;
};

std::vector<std::vector<uint8_t>> Corpus() {
  std::vector<std::vector<uint8_t>> corpus;
  for (const Message& m : samples::SampleMessages()) {
    corpus.push_back(samples::EncodeToFrame(m, 1));
    Message empty = m;
    std::visit([](auto& x) { x = std::decay_t<decltype(x)>{}; }, empty);
    corpus.push_back(samples::EncodeToFrame(empty, 2));
  }
  return corpus;
}

TEST(ProtocolCodecFuzz, MutatedFramesDecodeOrFailCleanly) {
  const std::vector<std::vector<uint8_t>> corpus = Corpus();
  for (const auto& frame : corpus) ASSERT_FALSE(frame.empty());

  Mutator mutator(kSeed);
  std::vector<uint8_t> input;
  std::vector<uint8_t> reencoded;
  Message reused;
  int cases = 0;
  int decoded = 0;
  int rejected = 0;
  const auto deadline = std::chrono::steady_clock::now() + kTimeBudget;
  for (; cases < kMaxCases; ++cases) {
    if (cases % 1024 == 0 && std::chrono::steady_clock::now() > deadline) break;
    if (mutator.Below(50) == 0) {  // now and then pure noise
      input.resize(mutator.Below(96));
      for (auto& x : input) x = mutator.Byte();
    } else {
      input = corpus[mutator.Below(corpus.size())];
      mutator.Mutate(input, corpus);
    }

    Result<Frame> frame = DecodeFrame(input);
    if (!frame.ok()) {
      ++rejected;
      ASSERT_FALSE(frame.status().message().empty()) << "case " << cases;
    } else {
      ++decoded;
      reencoded.clear();
      Writer w(reencoded);
      ASSERT_TRUE(EncodeFrame(frame->message, frame->header.request_id, w).ok()) << cases;
      ASSERT_EQ(reencoded, input) << "case " << cases << ": decoding is not canonical";
    }

    // The streaming path a server takes: header in random chunks, then the body, decoded into
    // a reused message.
    FrameHeaderParser parser;
    const uint8_t* p = input.data();
    const uint8_t* end = p + input.size();
    FrameHeaderParser::State state = FrameHeaderParser::State::kNeedMore;
    while (state == FrameHeaderParser::State::kNeedMore && p != end) {
      const uint8_t* chunk_end = p + std::min<size_t>(1 + mutator.Below(30), end - p);
      std::tie(state, p) = parser.Parse(p, chunk_end);
    }
    if (state == FrameHeaderParser::State::kGood) {
      ASSERT_LE(parser.header().body_length, kMaxBodyBytes);
      const size_t body = std::min<size_t>(parser.header().body_length, end - p);
      Status s = DecodeMessage(parser.header().type, {p, body}, reused);
      if (frame.ok()) {
        EXPECT_TRUE(s.ok()) << cases;
      }
    }
  }
  std::printf("fuzz: %d cases, %d decoded, %d rejected\n", cases, decoded, rejected);
  EXPECT_GT(cases, 10'000);
  EXPECT_GT(decoded, 0);  // some mutations (e.g. of request ids or values) stay valid
  EXPECT_GT(rejected, cases / 2);
}

}  // namespace
}  // namespace bb::protocol
