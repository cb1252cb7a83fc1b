#include "brokerage_house/netbench/load_client.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <sys/resource.h>

#include "common/protocol/codec.h"
#include "common/protocol/frame.h"
#include "common/util/asio.h"

namespace bb::netbench {

namespace pr = protocol;
using Clock = std::chrono::steady_clock;

namespace {

constexpr size_t kRequestIdOffset = 12;  // frame.h: request_id at bytes 12..19
constexpr size_t kAccountOffset = 24;    // TradeStatusInput's acct_id, the body's first field
// Latency samples kept per connection: beyond this (hours at any rate we reach) the count
// still grows but percentiles come from the first samples.
constexpr size_t kMaxSamplesPerConnection = 4'000'000;

int64_t CpuMicros() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto micros = [](const timeval& t) { return int64_t{t.tv_sec} * 1'000'000 + t.tv_usec; };
  return micros(usage.ru_utime) + micros(usage.ru_stime);
}

void PutU64(std::vector<uint8_t>& frame, size_t offset, uint64_t v) {
  for (size_t i = 0; i < 8; ++i) frame[offset + i] = static_cast<uint8_t>(v >> (8 * i));
}

// The shared state of one run: read-only while the loop runs, except `active`.
struct Run {
  LoadMode mode;
  int64_t first_account;
  int64_t accounts;
  Clock::time_point start;
  Clock::time_point end;
  std::atomic<int> active{0};
  asio::io_context& io;
};

// One closed-loop connection. Its handlers form a single chain (write, then read until the
// reply is whole, then write again), so at most one runs at a time even with two threads, and
// no strand is needed. Owned by RunLoad; handlers hold a plain pointer, and RunLoad keeps the
// connection alive until the io_context has stopped.
class LoadConnection {
 public:
  LoadConnection(asio::io_context& io, Run& run, std::vector<uint8_t> request, uint64_t first_id,
                 uint64_t seed)
      : socket_(io), run_(run), request_(std::move(request)), next_id_(first_id), random_(seed) {
    buffer_.resize(4096);
  }

  asio::ip::tcp::socket& socket() { return socket_; }

  void Start() {
    run_.active.fetch_add(1, std::memory_order_relaxed);
    Send();
  }

  uint64_t requests() const { return requests_; }
  uint64_t completed() const { return completed_; }
  uint64_t errors() const { return errors_; }
  size_t reply_bytes() const { return reply_bytes_; }
  const std::vector<uint32_t>& samples() const { return samples_; }

 private:
  void Send() {
    if (run_.mode == LoadMode::kBrokerageHouse) {
      PutU64(request_, kRequestIdOffset, next_id_);
      if (run_.accounts > 0) {
        // xorshift64: a different account each request, no allocation, no lock.
        random_ ^= random_ << 13, random_ ^= random_ >> 7, random_ ^= random_ << 17;
        PutU64(request_, kAccountOffset,
               static_cast<uint64_t>(run_.first_account) +
                   random_ % static_cast<uint64_t>(run_.accounts));
      }
    }
    sent_at_ = Clock::now();
    asio::async_write(socket_, asio::buffer(request_), [this](error_code ec, std::size_t) {
      if (ec) return Finish(/*error=*/true);
      filled_ = 0;
      Read();
    });
  }

  void Read() {
    socket_.async_read_some(asio::buffer(buffer_.data() + filled_, buffer_.size() - filled_),
                            [this](error_code ec, std::size_t n) {
                              if (ec) return Finish(/*error=*/true);
                              filled_ += n;
                              OnBytes();
                            });
  }

  // How many bytes the reply has, once enough of it is in to say (0: not yet known).
  size_t ReplySize() const {
    if (run_.mode == LoadMode::kEcho) return request_.size();
    if (filled_ < pr::kFrameHeaderBytes) return 0;
    uint32_t body = 0;
    for (size_t i = 0; i < 4; ++i) body |= uint32_t{buffer_[20 + i]} << (8 * i);
    return pr::kFrameHeaderBytes + body;
  }

  void OnBytes() {
    const size_t size = ReplySize();
    if (size == 0 || filled_ < size) {
      if (size > buffer_.size()) buffer_.resize(size);
      return Read();
    }
    if (filled_ > size) return Finish(/*error=*/true);  // more than one reply: not closed-loop
    if (run_.mode == LoadMode::kBrokerageHouse && !IsExpectedReply()) return Finish(true);
    const auto now = Clock::now();
    ++completed_;
    reply_bytes_ = size;
    if (now <= run_.end) {
      ++requests_;
      if (samples_.size() < kMaxSamplesPerConnection) {
        samples_.push_back(static_cast<uint32_t>(
            std::chrono::duration_cast<std::chrono::microseconds>(now - sent_at_).count()));
      }
      ++next_id_;
      return Send();
    }
    Finish(/*error=*/false);
  }

  bool IsExpectedReply() const {
    auto parsed = pr::ParseFrameHeader(std::span<const uint8_t>(buffer_.data(), filled_));
    return parsed.state == pr::FrameHeaderParser::State::kGood &&
           parsed.header.type == pr::MessageType::kTradeStatusOutput &&
           parsed.header.request_id == next_id_;
  }

  void Finish(bool error) {
    if (error) ++errors_;
    error_code ec;
    socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
    socket_.close(ec);
    // The last connection to finish ends the run (the deadline timer need not fire).
    if (run_.active.fetch_sub(1, std::memory_order_acq_rel) == 1) run_.io.stop();
  }

  asio::ip::tcp::socket socket_;
  Run& run_;
  std::vector<uint8_t> request_;
  std::vector<uint8_t> buffer_;
  size_t filled_ = 0;
  uint64_t next_id_;
  uint64_t random_;
  Clock::time_point sent_at_;
  uint64_t requests_ = 0;
  uint64_t completed_ = 0;
  uint64_t errors_ = 0;
  size_t reply_bytes_ = 0;
  std::vector<uint32_t> samples_;
};

// Connects (blocking: before the measured interval) and, for the BH, says hello.
Status Connect(LoadConnection& c, const LoadOptions& o, const asio::ip::tcp::endpoint& target) {
  error_code ec;
  c.socket().connect(target, ec);
  if (ec) {
    return Status::Unavailable(
        fmt::format("connect {}:{}: {}", o.target.host, o.target.port, ec.message()));
  }
  c.socket().set_option(asio::ip::tcp::no_delay(true), ec);
  if (o.mode != LoadMode::kBrokerageHouse) return Status::Ok();
  std::vector<uint8_t> bytes;
  pr::Writer w(bytes);
  Status s = pr::EncodeFrame(pr::Hello{pr::kProtocolVersion, "bb-netbench", o.customers,
                                       o.scale_factor, o.initial_trade_days},
                             0, w);
  if (!s.ok()) return s;
  asio::write(c.socket(), asio::buffer(bytes), ec);
  bytes.assign(pr::kFrameHeaderBytes, 0);
  if (!ec) asio::read(c.socket(), asio::buffer(bytes), ec);
  if (ec) return Status::IoError("hello: " + ec.message());
  auto parsed = pr::ParseFrameHeader(bytes);
  if (parsed.state != pr::FrameHeaderParser::State::kGood) return parsed.status;
  bytes.resize(pr::kFrameHeaderBytes + parsed.header.body_length);
  asio::read(c.socket(),
             asio::buffer(bytes.data() + pr::kFrameHeaderBytes, parsed.header.body_length), ec);
  if (ec) return Status::IoError("hello reply: " + ec.message());
  auto frame = pr::DecodeFrame(bytes);
  if (!frame.ok()) return frame.status().WithContext("hello reply");
  const auto* reply = std::get_if<pr::HelloReply>(&frame->message);
  if (reply == nullptr) return Status::InvalidArgument("hello: the reply is not a HelloReply");
  if (!reply->accepted) return Status::InvalidArgument("hello refused: " + reply->reason);
  return Status::Ok();
}

int64_t Percentile(std::vector<uint32_t>& sorted_samples, double fraction) {
  if (sorted_samples.empty()) return 0;
  // Nearest rank: the smallest sample with at least `fraction` of the samples at or below it.
  auto rank = static_cast<size_t>(std::ceil(fraction * static_cast<double>(sorted_samples.size())));
  return sorted_samples[std::clamp<size_t>(rank, 1, sorted_samples.size()) - 1];
}

}  // namespace

Result<LoadReport> RunLoad(const LoadOptions& o) {
  error_code ec;
  auto address = asio::ip::make_address(o.target.host, ec);
  if (ec) {
    return Status::InvalidArgument(
        fmt::format("--target: '{}' is not an IP address", o.target.host));
  }
  const asio::ip::tcp::endpoint target(address, o.target.port);

  // The request: a Trade-Status input (the most frequent transaction of the mix, 19 %),
  // encoded once.
  std::vector<uint8_t> request;
  pr::Writer w(request);
  if (Status s = pr::EncodeFrame(pr::TradeStatusInput{43'000'001'234}, 1, w); !s.ok()) return s;

  asio::io_context io(o.threads);
  Run run{o.mode, o.first_account, o.accounts, {}, {}, {}, io};
  std::vector<std::unique_ptr<LoadConnection>> connections;
  for (int i = 0; i < o.connections; ++i) {
    connections.push_back(std::make_unique<LoadConnection>(
        io, run, request, 1, 0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(i + 1)));
    if (Status s = Connect(*connections.back(), o, target); !s.ok()) return s;
  }

  // A connection whose reply never comes cannot hold the run up.
  asio::steady_timer deadline(io);
  run.start = Clock::now();
  run.end = run.start +
            std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
  deadline.expires_at(run.end + std::chrono::seconds(10));
  deadline.async_wait([&io](error_code e) {
    if (!e) io.stop();
  });
  const int64_t cpu_before = CpuMicros();
  for (auto& c : connections) c->Start();
  {
    std::vector<std::jthread> threads;
    for (int i = 1; i < o.threads; ++i) threads.emplace_back([&io] { io.run(); });
    io.run();
  }
  const int64_t cpu_micros = CpuMicros() - cpu_before;
  const double wall = std::chrono::duration<double>(Clock::now() - run.start).count();

  LoadReport r;
  r.seconds = o.seconds;
  r.request_bytes = request.size();
  std::vector<uint32_t> samples;
  for (const auto& c : connections) {
    r.requests += c->requests();
    r.completed += c->completed();
    r.errors += c->errors();
    r.reply_bytes = std::max(r.reply_bytes, c->reply_bytes());
    samples.insert(samples.end(), c->samples().begin(), c->samples().end());
  }
  // Connections abandoned at the deadline.
  r.errors += static_cast<uint64_t>(std::max(0, run.active.load()));
  std::sort(samples.begin(), samples.end());
  r.p50_micros = Percentile(samples, 0.50);
  r.p99_micros = Percentile(samples, 0.99);
  r.max_micros = samples.empty() ? 0 : samples.back();
  r.requests_per_second = static_cast<double>(r.requests) / o.seconds;
  r.client_cpu_cores = wall > 0 ? static_cast<double>(cpu_micros) / 1e6 / wall : 0;
  r.client_cpu_micros_per_request =
      r.completed > 0 ? static_cast<double>(cpu_micros) / static_cast<double>(r.completed) : 0;
  return r;
}

std::string FormatReport(const LoadOptions& o, const LoadReport& r) {
  return fmt::format(
      "mode={} connections={} threads={} seconds={:.2f} requests={} completed={} rps={:.0f} "
      "p50_us={} p99_us={} max_us={} request_bytes={} reply_bytes={} client_cpu_cores={:.2f} "
      "client_cpu_us_per_req={:.2f} errors={}",
      o.mode == LoadMode::kEcho ? "echo" : "bh", o.connections, o.threads, r.seconds, r.requests,
      r.completed, r.requests_per_second, r.p50_micros, r.p99_micros, r.max_micros, r.request_bytes,
      r.reply_bytes, r.client_cpu_cores, r.client_cpu_micros_per_request, r.errors);
}

}  // namespace bb::netbench
