#include "brokerage_house/netbench/load_client.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <sys/resource.h>

#include "common/net/link.h"
#include "common/protocol/codec.h"
#include "common/protocol/frame.h"
#include "common/util/stream_socket.h"

namespace bb::netbench {

namespace pr = protocol;
using Clock = std::chrono::steady_clock;

namespace {

// Latency samples kept per connection: beyond this (hours at any rate we reach) the count
// still grows but percentiles come from the first samples.
constexpr size_t kMaxSamplesPerConnection = 4'000'000;

int64_t CpuMicros() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto micros = [](const timeval& t) { return int64_t{t.tv_sec} * 1'000'000 + t.tv_usec; };
  return micros(usage.ru_utime) + micros(usage.ru_stime);
}

// What every connection of a run shares: read-only while the loop runs, except `active`.
struct Run {
  LoadMode mode;
  int64_t first_account;
  int64_t accounts;
  Clock::time_point end;
  std::atomic<int> active{0};
};

class LoadLink;

// One I/O thread's connections: its own io_context, so that a link's handlers all run on one
// thread (common/net/link.h) whether the client has one thread or two.
struct Group {
  asio::io_context io{1};
  std::vector<std::shared_ptr<LoadLink>> links;
  size_t ready = 0;     // links whose hello was accepted
  size_t finished = 0;  // links done with the closed loop
  Status failed;        // why the first link that could not say hello could not
};

// One closed-loop connection: a common/net Link (the hello with the run's sizing), then one
// Trade-Status request at a time, the next sent as the reply to the last is read. The reply must
// be the Trade-Status reply to that request id (the echo server's: the request itself).
class LoadLink final : public net::Link {
 public:
  LoadLink(StreamSocket socket, const net::Identity& us, Run& run, Group& group, uint64_t seed)
      : net::Link(std::move(socket), us, "target"), run_(run), group_(group), random_(seed) {}

  void Start() {
    run_.active.fetch_add(1, std::memory_order_relaxed);
    Send();
    Flush();
  }

  uint64_t requests() const { return requests_; }
  uint64_t completed() const { return completed_; }
  uint64_t errors() const { return errors_; }
  size_t reply_bytes() const { return reply_bytes_; }
  const std::vector<uint32_t>& samples() const { return samples_; }

 private:
  void OnReady(const std::string&) override {
    hello_done_ = true;
    if (++group_.ready == group_.links.size()) group_.io.stop();
  }

  void OnFrame(const pr::FrameHeader& header, std::span<const uint8_t> body) override {
    const auto expected = run_.mode == LoadMode::kEcho ? pr::MessageType::kTradeStatusInput
                                                       : pr::MessageType::kTradeStatusOutput;
    if (finished_ || header.type != expected || header.request_id != next_id_) {
      return Finish(/*error=*/true);  // not the one reply this closed loop waits for
    }
    const auto now = Clock::now();
    ++completed_;
    reply_bytes_ = pr::kFrameHeaderBytes + body.size();
    if (now > run_.end) return Finish(/*error=*/false);
    ++requests_;
    if (samples_.size() < kMaxSamplesPerConnection) {
      samples_.push_back(static_cast<uint32_t>(
          std::chrono::duration_cast<std::chrono::microseconds>(now - sent_at_).count()));
    }
    ++next_id_;
    Send();  // the link flushes it once this read's frames are handled
  }

  void OnClosed(const Status& why) override {
    if (!hello_done_) {  // the run cannot start
      if (group_.failed.ok()) group_.failed = why;
      group_.io.stop();
      return;
    }
    if (!finished_) Finish(/*error=*/!why.ok());
  }

  void Send() {
    pr::TradeStatusInput request{kAccount};
    if (run_.accounts > 0) {
      // xorshift64: a different account each request, no allocation, no lock.
      random_ ^= random_ << 13, random_ ^= random_ >> 7, random_ ^= random_ << 17;
      request.acct_id =
          run_.first_account + static_cast<int64_t>(random_ % static_cast<uint64_t>(run_.accounts));
    }
    sent_at_ = Clock::now();
    Append(request, next_id_);
  }

  void Finish(bool error) {
    if (finished_) return;
    finished_ = true;
    if (error) ++errors_;
    Close();
    // The last connection of the group to finish ends its thread (the deadline need not fire).
    if (++group_.finished == group_.links.size()) group_.io.stop();
    run_.active.fetch_sub(1, std::memory_order_acq_rel);
  }

  static constexpr int64_t kAccount = 43'000'001'234;  // any account, for --no-db runs

  Run& run_;
  Group& group_;
  uint64_t random_;
  uint64_t next_id_ = 1;
  bool hello_done_ = false;
  bool finished_ = false;
  Clock::time_point sent_at_;
  uint64_t requests_ = 0;
  uint64_t completed_ = 0;
  uint64_t errors_ = 0;
  size_t reply_bytes_ = 0;
  std::vector<uint32_t> samples_;
};

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
  const StreamProtocol::endpoint target(asio::ip::tcp::endpoint(address, o.target.port));
  const net::Identity us{"bb-netbench", o.customers, o.scale_factor, o.initial_trade_days};

  // Connect (blocking) and say hello, each group on its own, before the measured interval.
  Run run{o.mode, o.first_account, o.accounts, {}, {}};
  std::vector<std::unique_ptr<Group>> groups;
  for (int t = 0; t < std::max(1, o.threads); ++t) groups.push_back(std::make_unique<Group>());
  for (int i = 0; i < o.connections; ++i) {
    Group& g = *groups[static_cast<size_t>(i) % groups.size()];
    StreamSocket socket(g.io);
    socket.connect(target, ec);
    if (ec) {
      return Status::Unavailable(
          fmt::format("connect {}:{}: {}", o.target.host, o.target.port, ec.message()));
    }
    g.links.push_back(std::make_shared<LoadLink>(
        std::move(socket), us, run, g, 0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(i + 1)));
  }
  for (auto& g : groups) {
    if (g->links.empty()) continue;
    for (auto& link : g->links) link->Connected();
    g->io.run();  // until every link is ready, or one is refused
    g->io.restart();
    if (!g->failed.ok()) return g->failed;
  }

  // The closed loop, each group on its thread; a connection whose reply never comes cannot hold
  // the run up past the deadline.
  const auto start = Clock::now();
  run.end =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
  std::vector<std::unique_ptr<asio::steady_timer>> deadlines;
  for (auto& g : groups) {
    deadlines.push_back(
        std::make_unique<asio::steady_timer>(g->io, run.end + std::chrono::seconds(10)));
    deadlines.back()->async_wait([&io = g->io](error_code e) {
      if (!e) io.stop();
    });
    for (auto& link : g->links) link->Start();
  }
  const int64_t cpu_before = CpuMicros();
  {
    std::vector<std::jthread> threads;
    for (size_t t = 1; t < groups.size(); ++t) {
      threads.emplace_back([&g = *groups[t]] {
        if (!g.links.empty()) g.io.run();
      });
    }
    if (!groups[0]->links.empty()) groups[0]->io.run();
  }
  const int64_t cpu_micros = CpuMicros() - cpu_before;
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();

  LoadReport r;
  r.seconds = o.seconds;
  {
    std::vector<uint8_t> bytes;
    pr::Writer w(bytes);
    (void)pr::EncodeFrame(pr::TradeStatusInput{0}, 1, w);
    r.request_bytes = bytes.size();
  }
  std::vector<uint32_t> samples;
  for (const auto& g : groups) {
    for (const auto& link : g->links) {
      r.requests += link->requests();
      r.completed += link->completed();
      r.errors += link->errors();
      r.reply_bytes = std::max(r.reply_bytes, link->reply_bytes());
      samples.insert(samples.end(), link->samples().begin(), link->samples().end());
    }
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
