// Link over a socketpair, on one thread, against a raw peer (the test's own bytes). The
// hostile-input cases run as a matrix over both ends: a Link that accepted and one that
// connected. The hello rule runs between two Links with every sizing field differing, and
// against a raw peer with another protocol version. The tests wait on events (a link closed, a
// frame seen, bytes arrived), never on time.
#include "common/net/link.h"

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "common/protocol/codec.h"

namespace bb::net {
namespace {

namespace pr = protocol;
using ::testing::HasSubstr;

const Identity kUs{"test-side", 1000, 500, 10};

// A Link that answers Trade-Status requests (accepting side), or just records what comes.
class TestLink : public Link {
 public:
  using Link::Link;
  std::vector<pr::FrameHeader> frames;
  std::vector<uint64_t> bad_bodies;
  std::string peer_component;
  std::optional<Status> closed_why;
  bool reply_later = false;  // Owe each reply; the test pays them with PayAll
  std::vector<uint64_t> owed_ids;

  void PayAll() {
    for (uint64_t id : owed_ids) {
      Repaid();
      Append(pr::TradeStatusOutput{}, id);
    }
    owed_ids.clear();
    Flush();
  }

 protected:
  void OnReady(const std::string& component) override { peer_component = component; }
  void OnFrame(const pr::FrameHeader& header, std::span<const uint8_t> body) override {
    frames.push_back(header);
    pr::TradeStatusInput in;
    if (header.type == pr::MessageType::kTradeStatusInput && !pr::Decode(body, in).ok()) {
      bad_bodies.push_back(header.request_id);
      return AnswerError(header.request_id, pr::ErrorCode::kMalformedFrame, "bad body");
    }
    if (reply_later) {
      Owe();
      owed_ids.push_back(header.request_id);
    } else if (header.type == pr::MessageType::kTradeStatusInput) {
      Append(pr::TradeStatusOutput{}, header.request_id);
    }
  }
  void OnClosed(const Status& why) override { closed_why = why; }
};

enum class End { kAccepting, kConnecting };
std::string EndName(const ::testing::TestParamInfo<End>& info) {
  return info.param == End::kAccepting ? "Accepting" : "Connecting";
}

template <typename M>
std::vector<uint8_t> FrameOf(const M& m, uint64_t id) {
  std::vector<uint8_t> out;
  pr::Writer w(out);
  EXPECT_TRUE(pr::EncodeFrame(m, id, w).ok());
  return out;
}

// The test's side of a socketpair: blocking sends, non-blocking receives, whole frames.
class RawPeer {
 public:
  explicit RawPeer(int fd) : fd_(fd) {}
  ~RawPeer() { ::close(fd_); }
  void Send(const std::vector<uint8_t>& bytes) {
    size_t at = 0;
    while (at < bytes.size()) {
      const ssize_t n = ::send(fd_, bytes.data() + at, bytes.size() - at, MSG_NOSIGNAL);
      ASSERT_GT(n, 0);
      at += static_cast<size_t>(n);
    }
  }
  void ShutdownSend() { ::shutdown(fd_, SHUT_WR); }
  // Takes what has arrived; true once the other end closed.
  bool Drain() {
    uint8_t buffer[65536];
    for (;;) {
      const ssize_t n = ::recv(fd_, buffer, sizeof buffer, MSG_DONTWAIT);
      if (n == 0) return eof_ = true;
      if (n < 0) return eof_;
      in_.insert(in_.end(), buffer, buffer + n);
    }
  }
  // The whole frames received so far.
  std::vector<pr::Frame> Frames() {
    Drain();
    std::vector<pr::Frame> out;
    size_t at = 0;
    while (in_.size() - at >= pr::kFrameHeaderBytes) {
      auto parsed = pr::ParseFrameHeader(std::span<const uint8_t>(in_).subspan(at));
      const size_t whole = pr::kFrameHeaderBytes + parsed.header.body_length;
      if (in_.size() - at < whole) break;
      auto frame = pr::DecodeFrame(std::span<const uint8_t>(in_).subspan(at, whole));
      EXPECT_TRUE(frame.ok()) << frame.status().message();
      if (frame.ok()) out.push_back(std::move(frame).value());
      at += whole;
    }
    return out;
  }
  bool eof() const { return eof_; }
  size_t received() const { return in_.size(); }
  int fd() const { return fd_; }

 private:
  int fd_;
  std::vector<uint8_t> in_;
  bool eof_ = false;
};

class LinkTest : public ::testing::TestWithParam<End> {
 protected:
  void SetUp() override {
    int fds[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    peer_ = std::make_unique<RawPeer>(fds[1]);
    link_ = std::make_shared<TestLink>(StreamSocket(io_, StreamProtocol(AF_UNIX, 0), fds[0]), kUs,
                                       "peer");
    if (GetParam() == End::kAccepting) {
      link_->Accept();
      peer_->Send(FrameOf(HelloOf({"raw", 1000, 500, 10}), 0));
      ASSERT_TRUE(RunUntil([&] { return link_->ready(); }));
      ASSERT_TRUE(RunUntil([&] { return !peer_->Frames().empty(); }));
      EXPECT_TRUE(std::get<pr::HelloReply>(peer_->Frames()[0].message).accepted);
    } else {
      link_->Connected();
      ASSERT_TRUE(RunUntil([&] { return !peer_->Frames().empty(); }));
      EXPECT_EQ(std::get<pr::Hello>(peer_->Frames()[0].message), HelloOf(kUs));
      peer_->Send(FrameOf(pr::HelloReply{true, "raw", ""}, 0));
      ASSERT_TRUE(RunUntil([&] { return link_->ready(); }));
    }
    EXPECT_EQ(link_->peer_component, "raw");
    frames_before_ = peer_->Frames().size();
  }

  // Runs the I/O until `done`, at most 10 s (a failure, not a wait: every step is an event).
  bool RunUntil(const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      io_.restart();
      io_.run_one_for(std::chrono::milliseconds(20));
    }
    return true;
  }
  // The frames the peer got after the hello.
  std::vector<pr::Frame> NewFrames() {
    auto all = peer_->Frames();
    return {all.begin() + static_cast<std::ptrdiff_t>(frames_before_), all.end()};
  }
  bool Accepting() const { return GetParam() == End::kAccepting; }

  asio::io_context io_;
  std::unique_ptr<RawPeer> peer_;
  std::shared_ptr<TestLink> link_;
  size_t frames_before_ = 0;
};

TEST_P(LinkTest, ABadHeaderIsAnsweredByTheAcceptingSideThenTheLinkCloses) {
  auto bytes = FrameOf(pr::TradeStatusInput{1}, 77);
  bytes[8] = 1;  // flags
  peer_->Send(bytes);
  ASSERT_TRUE(RunUntil([&] { return link_->closed_why.has_value(); }));
  EXPECT_THAT(link_->closed_why->message(), HasSubstr("flags"));
  ASSERT_TRUE(RunUntil([&] { return peer_->Drain(); }));  // closed: the peer sees the end
  auto frames = NewFrames();
  if (Accepting()) {
    ASSERT_EQ(frames.size(), 1u);
    EXPECT_EQ(frames[0].header.request_id, 77u);
    const auto& error = std::get<pr::ErrorReply>(frames[0].message);
    EXPECT_EQ(error.code, pr::ErrorCode::kMalformedFrame);
    EXPECT_THAT(error.text, HasSubstr("flags"));
  } else {
    EXPECT_TRUE(frames.empty());
  }
}

TEST_P(LinkTest, ABadBodyKeepsTheFraming) {
  auto bad = FrameOf(pr::TradeStatusInput{1}, 5);
  bad.resize(pr::kFrameHeaderBytes + 2);
  bad[20] = 2, bad[21] = bad[22] = bad[23] = 0;  // body_length 2: too short for an account id
  auto good = FrameOf(pr::TradeStatusInput{2}, 6);
  bad.insert(bad.end(), good.begin(), good.end());
  peer_->Send(bad);
  ASSERT_TRUE(RunUntil([&] { return link_->frames.size() == 2; }));
  EXPECT_EQ(link_->bad_bodies, std::vector<uint64_t>{5});
  EXPECT_EQ(link_->frames[1].request_id, 6u);
  EXPECT_FALSE(link_->closed());
  ASSERT_TRUE(RunUntil([&] { return NewFrames().size() >= (Accepting() ? 2u : 1u); }));
  EXPECT_EQ(std::get<pr::ErrorReply>(NewFrames()[0].message).code, pr::ErrorCode::kMalformedFrame);
}

TEST_P(LinkTest, AHeaderWithoutItsBodyWaitsAndAnEndInsideAFrameIsNamed) {
  pr::FrameHeader h;
  h.type = pr::MessageType::kTradeStatusInput;
  h.body_length = pr::kMaxBodyBytes;
  std::vector<uint8_t> bytes(pr::kFrameHeaderBytes);
  pr::WriteFrameHeader(h, std::span<uint8_t, pr::kFrameHeaderBytes>(bytes.data(), bytes.size()));
  bytes.resize(bytes.size() + 100, 0);
  peer_->Send(bytes);
  io_.restart();
  io_.poll();
  EXPECT_FALSE(link_->closed());
  EXPECT_TRUE(link_->frames.empty());
  peer_->ShutdownSend();
  ASSERT_TRUE(RunUntil([&] { return link_->closed_why.has_value(); }));
  EXPECT_THAT(link_->closed_why->message(), HasSubstr("inside a frame"));
}

TEST_P(LinkTest, AHalfCloseGetsEveryOwedReplyBeforeTheClose) {
  link_->reply_later = true;
  std::vector<uint8_t> requests;
  for (uint64_t id = 1; id <= 100; ++id) {
    auto f = FrameOf(pr::TradeStatusInput{static_cast<int64_t>(id)}, id);
    requests.insert(requests.end(), f.begin(), f.end());
  }
  peer_->Send(requests);
  peer_->ShutdownSend();
  ASSERT_TRUE(RunUntil([&] { return link_->input_ended(); }));
  EXPECT_EQ(link_->frames.size(), 100u);
  EXPECT_FALSE(link_->closed());  // 100 replies are owed
  link_->PayAll();
  ASSERT_TRUE(RunUntil([&] { return link_->closed() && peer_->Drain(); }));
  auto frames = NewFrames();
  ASSERT_EQ(frames.size(), 100u);
  for (uint64_t id = 1; id <= 100; ++id) EXPECT_EQ(frames[id - 1].header.request_id, id);
  EXPECT_THAT(link_->closed_why->message(), HasSubstr("closed the connection"));
}

TEST_P(LinkTest, APeerThatNeverReadsIsNotReadEither) {
  if (!Accepting()) GTEST_SKIP() << "a connecting side answers nothing it is sent";
  // Requests whose replies pass kMaxUnsentBytes while the peer reads nothing.
  const auto one = FrameOf(pr::TradeStatusInput{1}, 1);
  std::vector<uint8_t> burst;
  while (burst.size() < 64 * 1024) burst.insert(burst.end(), one.begin(), one.end());
  size_t sent = 0;
  // Send until the link stops reading: then the socket's buffers fill and a send would block.
  for (;;) {
    io_.restart();
    io_.poll();
    const ssize_t n = ::send(peer_->fd(), burst.data(), burst.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n <= 0) {
      io_.restart();
      io_.poll();
      if (::send(peer_->fd(), burst.data(), 1, MSG_DONTWAIT | MSG_NOSIGNAL) <= 0) break;
      continue;
    }
    sent += static_cast<size_t>(n);
    ASSERT_LT(sent, size_t{512} << 20) << "the link never stopped reading";
  }
  EXPECT_GT(link_->unsent(), Link::kMaxUnsentBytes);
  EXPECT_FALSE(link_->closed());
  // Reading the replies resumes it.
  const size_t frames_seen = link_->frames.size();
  ASSERT_TRUE(RunUntil([&] {
    peer_->Drain();
    return link_->frames.size() > frames_seen;
  }));
}

INSTANTIATE_TEST_SUITE_P(BothEnds, LinkTest, ::testing::Values(End::kAccepting, End::kConnecting),
                         EndName);

// The hello rule, Link to Link: every sizing field that differs is refused, on both sides,
// naming the field and both values.
struct Mismatch {
  const char* name;
  Identity other;
  const char* field;
};

class HelloRuleTest : public ::testing::TestWithParam<Mismatch> {};

TEST_P(HelloRuleTest, TheConnectingSideShowsTheRefusalAndBothClose) {
  asio::io_context io;
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  auto server = std::make_shared<TestLink>(StreamSocket(io, StreamProtocol(AF_UNIX, 0), fds[0]),
                                           kUs, "client");
  auto client = std::make_shared<TestLink>(StreamSocket(io, StreamProtocol(AF_UNIX, 0), fds[1]),
                                           GetParam().other, "server");
  server->Accept();
  client->Connected();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!(server->closed() && client->closed()) && std::chrono::steady_clock::now() < deadline) {
    io.run_one_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(client->closed_why.has_value());
  ASSERT_TRUE(server->closed_why.has_value());
  const std::string& why = client->closed_why->message();
  EXPECT_THAT(why, HasSubstr("test-side refused the hello"));
  EXPECT_THAT(why, HasSubstr(GetParam().field));
  EXPECT_THAT(server->closed_why->message(), HasSubstr("hello refused"));
  EXPECT_FALSE(client->ready());
  EXPECT_TRUE(server->frames.empty());
}

INSTANTIATE_TEST_SUITE_P(
    EverySizingField, HelloRuleTest,
    ::testing::Values(Mismatch{"Customers", {"other", 2000, 500, 10}, "customers 2000"},
                      Mismatch{"ScaleFactor", {"other", 1000, 400, 10}, "scale factor 400"},
                      Mismatch{"TradeDays", {"other", 1000, 500, 300}, "initial trade days 300"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(HelloRule, AnotherProtocolVersionIsRefusedNamingBoth) {
  pr::Hello hello = HelloOf({"old-peer", 1000, 500, 10});
  hello.protocol_version = 99;
  const auto reply = AnswerHello(hello, kUs);
  EXPECT_FALSE(reply.accepted);
  EXPECT_THAT(reply.reason, HasSubstr("old-peer speaks 99"));
  EXPECT_THAT(reply.reason, HasSubstr(fmt::format("test-side speaks {}", pr::kProtocolVersion)));
  EXPECT_TRUE(AnswerHello(HelloOf(kUs), kUs).accepted);
}

TEST(HelloRule, TheConnectingSideReadsARefusalAnErrorOrAnotherFrame) {
  pr::HelloReply reply;
  auto read = [&](const auto& message) {
    const auto bytes = FrameOf(message, 0);
    auto parsed = pr::ParseFrameHeader(bytes);
    return ReadHelloAnswer(parsed.header,
                           std::span<const uint8_t>(bytes).subspan(pr::kFrameHeaderBytes), reply);
  };
  EXPECT_TRUE(read(pr::HelloReply{true, "bh", ""}).ok());
  EXPECT_THAT(read(pr::HelloReply{false, "bh", "sizing differs: x"}).message(),
              HasSubstr("bh refused the hello: sizing differs: x"));
  EXPECT_THAT(read(pr::ErrorReply{pr::ErrorCode::kMalformedFrame, "bad"}).message(),
              HasSubstr("answered with an error: bad"));
  EXPECT_THAT(read(pr::MarketTradeAck{1}).message(), HasSubstr("MarketTradeAck instead of"));
}

}  // namespace
}  // namespace bb::net
