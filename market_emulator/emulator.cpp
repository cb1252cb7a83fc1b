#include "market_emulator/emulator.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/protocol/codec.h"
#include "common/util/accept_loop.h"
#include "common/util/asio.h"
#include "common/util/clock.h"
#include "common/util/latency_histogram.h"
#include "common/util/metrics_histogram.h"
#include "common/util/metrics_server.h"
#include "common/util/metrics_text.h"
#include "common/util/mix_log.h"
#include "common/util/port_file.h"
#include "common/util/stream_socket.h"
#include "market_emulator/frame_stream.h"
#include "market_emulator/trading_floor.h"

namespace bb::mee {

namespace pr = protocol;
using Clock = std::chrono::steady_clock;

namespace {

// Re-sends of a Trade-Result that the BH gave up on (retry_exhausted), per trade.
constexpr int32_t kMaxResends = 3;

// Appends one encoded frame to `out`; encoding our own well-formed messages cannot fail
// except on a bug, which is logged.
template <typename M>
void AppendFrame(const M& message, uint64_t request_id, std::vector<uint8_t>& out) {
  pr::Writer w(out);
  if (Status s = pr::EncodeFrame(message, request_id, w); !s.ok()) {
    spdlog::error("cannot encode {}: {}", pr::MessageTypeName(M::kType), s.message());
  }
}

// A socket's outgoing bytes: frames accumulate in `pending` while one async_write sends
// `writing`; then they swap. One write per burst, however many frames it holds.
struct OutBuffer {
  std::vector<uint8_t> pending;
  std::vector<uint8_t> writing;
  bool busy = false;
};

}  // namespace

class MarketEmulator::Impl {
 public:
  explicit Impl(EmulatorOptions options)
      : options_(std::move(options)),
        floor_(FloorOptions{options_.sizing, options_.seed, options_.max_pending}),
        acceptor_(io_),
        accept_(acceptor_, [this](StreamSocket&& socket) { Accepted(std::move(socket)); }),
        signals_(io_, SIGINT, SIGTERM),
        book_timer_(io_),
        summary_timer_(io_),
        drain_timer_(io_),
        base_(Clock::now()) {
    for (int i = 0; i < options_.delivery_connections; ++i) {
      links_.push_back(std::make_unique<Link>(io_, i));
    }
  }

  Status Run();
  void Stop() {
    asio::post(io_, [this] { BeginShutdown(); });
  }
  std::string MetricsText() const;
  std::atomic<uint16_t> port_{0};
  std::atomic<uint16_t> metrics_port_{0};
  std::atomic<bool> listening_{false};
  EmulatorStats stats_;

 private:
  // ---- the order side: one session per Brokerage House connection ----
  class Session : public std::enable_shared_from_this<Session> {
   public:
    Session(Impl& owner, StreamSocket socket)
        : owner_(owner), socket_(std::move(socket)), peer_(PeerName(socket_)) {}
    void Start() { Read(); }
    void Close() {
      error_code ec;
      socket_.shutdown(StreamSocket::shutdown_both, ec);
      socket_.close(ec);
    }

   private:
    // Replies waiting to be written beyond which the session stops reading (a peer that sends
    // and never reads); a write's end resumes it.
    static constexpr size_t kMaxUnsentBytes = 1 << 20;

    void Read();
    void HandleFrames();
    void Flush();
    size_t Unsent() const { return out_.pending.size() + out_.writing.size(); }

    Impl& owner_;
    StreamSocket socket_;
    std::string peer_;
    FrameStream stream_;
    OutBuffer out_;
    bool hello_done_ = false;
    bool closing_ = false;  // no more reading: what is queued is written, then it closes
    bool paused_ = false;   // too much unsent (kMaxUnsentBytes)
    bool warned_ = false;   // one warning per session for bad orders
  };

  // ---- the delivery side: one link per connection to the Brokerage House ----
  struct InFlight {
    uint64_t request_id = 0;
    Delivery delivery;
    int64_t sent_us = 0;  // floor time (monotonic) at send
    int64_t sent_wall_us = 0;
  };
  struct Link {
    Link(asio::io_context& io, int i) : socket(io), retry(io), index(i) {}
    StreamSocket socket;
    asio::steady_timer retry;
    int index;
    enum class State { kDown, kConnecting, kHello, kReady, kPaused } state = State::kDown;
    FrameStream stream;
    OutBuffer out;
    std::vector<InFlight> in_flight;  // at most max_in_flight
    bool warned = false;
    uint64_t generation = 0;  // bumped on each drop; stale handlers compare it
  };

  int64_t NowUs() const {
    return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - base_).count();
  }

  void Accepted(StreamSocket&& socket);
  void OnOrder(Session& session, const pr::MarketTradeRequest& request, uint64_t request_id,
               std::vector<uint8_t>& out);
  void ArmBookTimer();
  void Connect(Link& link);
  void ReadLink(Link& link);
  void OnReply(Link& link, const pr::FrameHeader& header, std::span<const uint8_t> body);
  void DropLink(Link& link, const std::string& why);
  void RetryLater(Link& link, std::chrono::milliseconds after);
  void Pump();
  void FlushLink(Link& link);
  void Delivered(Link& link, InFlight& f, const pr::ReplyStatus& status);
  void Summary();
  void BeginShutdown();
  void MaybeFinish();
  void Finish();
  void Fail(int64_t trade_id, std::string_view code, std::string_view reason);
  void StopOnError(Status why);
  Status WritePending(const std::string& text);
  // Counts a mix row for the metrics endpoint; `reply`: the BH answered it.
  void CountRow(const MixRow& row, bool is_tr, bool reply);
  void RefreshGauges() {
    stats_.pending.store(static_cast<int64_t>(floor_.pending()), std::memory_order_relaxed);
    stats_.due.store(static_cast<int64_t>(floor_.due_count()), std::memory_order_relaxed);
  }

  EmulatorOptions options_;
  asio::io_context io_;
  TradingFloor floor_;
  StreamAcceptor acceptor_;
  AcceptLoop accept_;
  asio::signal_set signals_;
  asio::steady_timer book_timer_;
  asio::steady_timer summary_timer_;
  asio::steady_timer drain_timer_;
  Clock::time_point base_;
  std::optional<int64_t> armed_due_us_;
  std::vector<std::weak_ptr<Session>> sessions_;
  std::vector<std::unique_ptr<Link>> links_;
  size_t next_link_ = 0;
  uint64_t next_request_id_ = 1;
  std::unique_ptr<MixLog> mix_;
  std::FILE* failed_ = nullptr;
  int64_t failed_lines_ = 0;
  Status pending_written_;  // of pending-trades.csv, at the end
  Status failure_;          // a file that could not be written: the run stopped on it
  bool stopping_ = false;
  bool finished_ = false;
  Clock::time_point last_refusal_log_{};
  int64_t refusals_unlogged_ = 0;
  // For the summary's rates: valid Trade-Result replies (ok, rollback, warning, as the report
  // counts TRTPS) and their response times since the last summary line; Market-Feeds.
  Clock::time_point last_summary_;
  LatencyHistogram tr_interval_;
  int64_t last_mf_ = 0;
  // For the metrics endpoint, per mix row: [0] Trade-Result, [1] Market-Feed.
  std::array<int64_t, 2> rows_by_type_{};
  std::array<int64_t, pr::kMaxOutcome + 1> rows_by_outcome_{};
  std::array<BucketHistogram, 2> response_by_type_{};
  std::unique_ptr<MetricsServer> metrics_;  // after io_: closed and destroyed before it
};

// ---------------------------------------------------------------------------------------------
// Start and stop.

Status MarketEmulator::Impl::Run() {
  auto mix = MixLog::Open(options_.out_dir + "/" + kMixLogName, [this](const Status& s) {
    asio::post(io_, [this, s] { StopOnError(s); });
  });
  if (!mix.ok()) return mix.status();
  mix_ = std::move(mix).value();
  const std::string failed_path = options_.out_dir + "/" + kFailedName;
  failed_ = std::fopen(failed_path.c_str(), "w");
  if (failed_ == nullptr) {
    return Status::IoError(fmt::format("{}: {}", failed_path, std::strerror(errno)));
  }
  // Line-buffered: a killed emulator keeps every failure it found (block buffering lost up to
  // 4 KiB of them on SIGKILL). Failures are rare, so a write each costs nothing that matters.
  std::setvbuf(failed_, nullptr, _IOLBF, 0);
  std::fputs("trade_id,code,reason\n", failed_);

  if (Status listened = Listen(acceptor_, options_.listen, "--listen"); !listened.ok()) {
    std::fclose(failed_);
    failed_ = nullptr;
    (void)mix_->Close();
    return listened;
  }
  port_.store(BoundPort(acceptor_));
  listening_.store(true);
  if (!options_.port_file.empty() && !options_.listen.is_unix()) {
    if (Status written = WritePortFile(options_.port_file, port_.load()); !written.ok()) {
      std::fclose(failed_);
      failed_ = nullptr;
      (void)mix_->Close();
      return written;
    }
  }
  if (options_.metrics_listen) {
    metrics_ = std::make_unique<MetricsServer>(io_, [this] { return MetricsText(); });
    if (Status s = metrics_->Start(*options_.metrics_listen, options_.metrics_port_file); !s.ok()) {
      std::fclose(failed_);
      failed_ = nullptr;
      (void)mix_->Close();
      return s;
    }
    metrics_port_.store(metrics_->port());
  }
  spdlog::info(
      "listening for Brokerage House orders on {}; delivering to {} over {} connections "
      "({} in flight each); sizing {} customers, SF {}, ITD {}; pending cap {}",
      options_.listen.is_unix() ? ToString(options_.listen)
                                : fmt::format("{}:{}", options_.listen.host, port_.load()),
      options_.bh_port_file.empty() || options_.bh.is_unix()
          ? ToString(options_.bh)
          : "the port in " + options_.bh_port_file,
      options_.delivery_connections, options_.max_in_flight, options_.sizing.customers,
      options_.sizing.scale_factor, options_.sizing.initial_trade_days, options_.max_pending);

  mix_->Mark("START");
  accept_.Start();
  for (auto& link : links_) Connect(*link);
  signals_.async_wait([this](error_code ec, int signo) {
    if (ec) return;
    spdlog::info("signal {}: stopping", signo);
    BeginShutdown();
  });
  last_summary_ = Clock::now();
  Summary();
  io_.run();

  Status result = mix_->Close();
  if (!failure_.ok()) result = failure_;  // the error that stopped the run comes first
  if (failed_ != nullptr && std::fclose(failed_) != 0 && result.ok()) {
    result = Status::IoError(fmt::format("{}: {}", failed_path, std::strerror(errno)));
  }
  failed_ = nullptr;
  if (result.ok()) result = pending_written_;
  return result;
}

void MarketEmulator::Impl::BeginShutdown() {
  if (stopping_) return;
  stopping_ = true;
  error_code ec;
  acceptor_.close(ec);
  accept_.Stop();
  signals_.cancel(ec);
  summary_timer_.cancel();
  book_timer_.cancel();
  for (auto& weak : sessions_) {
    if (auto s = weak.lock()) s->Close();
  }
  sessions_.clear();
  spdlog::info(
      "stopping: {} due and {} in flight get up to {} s to be delivered", floor_.due_count(),
      [this] {
        size_t n = 0;
        for (auto& l : links_) n += l->in_flight.size();
        return n;
      }(),
      options_.drain_seconds);
  drain_timer_.expires_after(std::chrono::seconds(options_.drain_seconds));
  drain_timer_.async_wait([this](error_code e) {
    if (!e) Finish();
  });
  MaybeFinish();
}

void MarketEmulator::Impl::MaybeFinish() {
  if (!stopping_ || finished_ || floor_.HasDue()) return;
  for (auto& l : links_) {
    if (!l->in_flight.empty()) return;
  }
  Finish();
}

void MarketEmulator::Impl::Finish() {
  if (finished_) return;
  finished_ = true;
  drain_timer_.cancel();
  if (metrics_) metrics_->Close();
  for (auto& link : links_) {
    DropLink(*link, "the market emulator is stopping");
    link->retry.cancel();
  }
  // Orders the market has not finished with are pending, not failed; a Trade-Result due but not
  // delivered is a failure.
  std::string pending = "trade_id,code,state\n";
  std::array<int64_t, 3> by_state{};
  for (const auto& u : floor_.TakeUnfinished()) {
    ++by_state[static_cast<size_t>(u.state)];
    if (IsPending(u.state)) {
      fmt::format_to(std::back_inserter(pending), "{},TR,{}\n", u.trade_id,
                     UnfinishedName(u.state));
    } else {
      Fail(u.trade_id, "TR", UnfinishedName(u.state));
    }
  }
  const int64_t armed = by_state[static_cast<size_t>(Unfinished::kLimitTriggerArmed)];
  const int64_t completing = by_state[static_cast<size_t>(Unfinished::kInCompletionDelay)];
  const int64_t unsent = by_state[static_cast<size_t>(Unfinished::kTradeResultNotSent)];
  stats_.pending_at_stop.store(armed + completing);
  stats_.unfinished_at_stop.store(armed + completing + unsent);
  RefreshGauges();
  pending_written_ = WritePending(pending);
  if (unsent > 0) {
    spdlog::error("{} Trade-Results were due but not sent at stop: failed, in {}/{}", unsent,
                  options_.out_dir, kFailedName);
  }
  spdlog::info(
      "stopped: {} orders received ({} limit orders triggered into the ticker), {} refused, {} "
      "Trade-Results and {} Market-Feeds delivered, {} lost in flight; pending at stop {} ({} "
      "limit triggers armed, {} in their completion delay; in {}); {} lines in {}",
      stats_.orders_received.load(), floor_.limits_triggered(), stats_.orders_refused.load(),
      stats_.trade_results_delivered.load(), stats_.market_feeds_delivered.load(),
      stats_.lost_in_flight.load(), armed + completing, armed, completing, kPendingName,
      failed_lines_, kFailedName);
  mix_->Mark("STOP");
}

void MarketEmulator::Impl::Fail(int64_t trade_id, std::string_view code, std::string_view reason) {
  ++failed_lines_;
  if (failed_ == nullptr) return;
  fmt::memory_buffer line;
  fmt::format_to(std::back_inserter(line), "{},{},{}\n", trade_id, code, reason);
  // The file is line-buffered, so a full disk shows here at once. Posted: our caller may be in
  // the middle of a delivery that the stop would tear down.
  if (std::fwrite(line.data(), 1, line.size(), failed_) != line.size()) {
    Status why = Status::IoError(
        fmt::format("{}/{}: {}", options_.out_dir, kFailedName, std::strerror(errno)));
    asio::post(io_, [this, why] { StopOnError(why); });
  }
}

// A file that cannot be written ends the run at once, without the drain: what would still be
// delivered could not be logged. Run returns `why`.
void MarketEmulator::Impl::StopOnError(Status why) {
  if (!failure_.ok()) return;
  failure_ = std::move(why);
  BeginShutdown();
  Finish();
}

// Written whole and renamed into place: the file exists only once the emulator has reached its
// end, so a reader tells "nothing pending" from "the emulator never got there" (killed).
Status MarketEmulator::Impl::WritePending(const std::string& text) {
  const std::string path = options_.out_dir + "/" + kPendingName;
  const std::string part = path + ".part";
  std::FILE* f = std::fopen(part.c_str(), "w");
  bool ok = f != nullptr && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = f != nullptr && std::fclose(f) == 0 && ok;
  if (!ok || std::rename(part.c_str(), path.c_str()) != 0) {
    Status s = Status::IoError(fmt::format("{}: {}", path, std::strerror(errno)));
    spdlog::error("{}", s.message());
    return s;
  }
  return {};
}

void MarketEmulator::Impl::Summary() {
  if (options_.summary_seconds <= 0 || stopping_) return;
  summary_timer_.expires_after(std::chrono::seconds(options_.summary_seconds));
  summary_timer_.async_wait([this](error_code ec) {
    if (ec) return;
    const auto now = Clock::now();
    const double seconds = std::chrono::duration<double>(now - last_summary_).count();
    const int64_t mf = stats_.market_feeds_delivered.load();
    size_t in_flight = 0;
    for (auto& l : links_) in_flight += l->in_flight.size();
    // controller/run shows "TR/s" and "TR p90" of the latest line in its progress line.
    spdlog::info(
        "pending {} (timers {}, triggers {}), due-unsent {}, in flight {}, TR/s {:.1f}, TR p90 {}, "
        "MF/s {:.1f}, received {}, refused {}, errors {}, lost in flight {}, busy {}, re-sent {}, "
        "links up {}/{}",
        floor_.pending(), floor_.armed_count(), floor_.trigger_count(), floor_.due_count(),
        in_flight, static_cast<double>(tr_interval_.count()) / seconds,
        tr_interval_.count() > 0
            ? fmt::format("{:.1f} ms", static_cast<double>(tr_interval_.Percentile(0.9)) / 1000)
            : std::string("-"),
        (mf - last_mf_) / seconds, stats_.orders_received.load(), stats_.orders_refused.load(),
        stats_.delivery_errors.load(), stats_.lost_in_flight.load(), stats_.bh_busy.load(),
        stats_.resent.load(), stats_.links_up.load(), links_.size());
    last_summary_ = now;
    tr_interval_ = {};
    last_mf_ = mf;
    Summary();
  });
}

// ---------------------------------------------------------------------------------------------
// Orders from the Brokerage House.

void MarketEmulator::Impl::Accepted(StreamSocket&& socket) {
  SetNoDelay(socket);
  auto session = std::make_shared<Session>(*this, std::move(socket));
  std::erase_if(sessions_, [](const auto& w) { return w.expired(); });
  sessions_.push_back(session);
  session->Start();
}

void MarketEmulator::Impl::Session::Read() {
  auto space = stream_.space();
  socket_.async_read_some(asio::buffer(space.data(), space.size()),
                          [self = shared_from_this()](error_code ec, size_t n) {
                            if (ec == asio::error::eof) {
                              // Half-closed: the replies already queued go out, then it closes.
                              self->closing_ = true;
                              self->Flush();
                              return;
                            }
                            if (ec) {
                              if (ec != asio::error::operation_aborted)
                                spdlog::warn("Brokerage House {}: {}", self->peer_, ec.message());
                              self->Close();
                              return;
                            }
                            self->stream_.Commit(n);
                            self->HandleFrames();
                            if (self->closing_) return;
                            // One read's frames add a bounded amount: checking between reads
                            // bounds what waits.
                            if (self->Unsent() > kMaxUnsentBytes) {
                              self->paused_ = true;
                            } else {
                              self->Read();
                            }
                          });
}

void MarketEmulator::Impl::Session::HandleFrames() {
  Impl& o = owner_;
  pr::MarketTradeRequest request;
  for (;;) {
    auto state = stream_.Next();
    if (state == FrameStream::State::kNeedMore) break;
    if (state == FrameStream::State::kBad) {
      spdlog::warn("Brokerage House {}: {}; closing", peer_, stream_.status().message());
      AppendFrame(pr::ErrorReply{pr::ErrorCode::kMalformedFrame, stream_.status().message()},
                  stream_.header().request_id, out_.pending);
      closing_ = true;
      break;
    }
    const auto& header = stream_.header();
    if (header.type == pr::MessageType::kHello) {
      pr::Hello hello;
      pr::HelloReply reply;
      reply.component = o.options_.component;
      if (Status s = pr::Decode(stream_.body(), hello); !s.ok()) {
        reply.reason = s.message();
      } else if (hello.protocol_version != pr::kProtocolVersion) {
        reply.reason =
            fmt::format("protocol version: {} has {}, {} has {}", hello.component,
                        hello.protocol_version, o.options_.component, pr::kProtocolVersion);
      } else if (hello.customers_total != o.options_.sizing.customers ||
                 hello.scale_factor != o.options_.sizing.scale_factor ||
                 hello.initial_trade_days != o.options_.sizing.initial_trade_days) {
        reply.reason = fmt::format(
            "sizing mismatch: {} has customers {}, scale factor {}, initial trade days {}; {} "
            "has customers {}, scale factor {}, initial trade days {}",
            hello.component, hello.customers_total, hello.scale_factor, hello.initial_trade_days,
            o.options_.component, o.options_.sizing.customers, o.options_.sizing.scale_factor,
            o.options_.sizing.initial_trade_days);
      } else {
        reply.accepted = true;
        hello_done_ = true;
        spdlog::info("Brokerage House {} ({}) connected", peer_, hello.component);
      }
      if (!reply.accepted) {
        spdlog::warn("Brokerage House {}: hello refused: {}", peer_, reply.reason);
        closing_ = true;
      }
      AppendFrame(reply, header.request_id, out_.pending);
      if (closing_) break;
      continue;
    }
    if (!hello_done_) {
      AppendFrame(pr::ErrorReply{pr::ErrorCode::kUnexpectedMessage,
                                 "a hello with the run's sizing must come first"},
                  header.request_id, out_.pending);
      closing_ = true;
      break;
    }
    if (header.type != pr::MessageType::kMarketTradeRequest) {
      AppendFrame(pr::ErrorReply{pr::ErrorCode::kUnexpectedMessage,
                                 fmt::format("the market emulator takes MarketTradeRequest, not {}",
                                             pr::MessageTypeName(header.type))},
                  header.request_id, out_.pending);
      continue;
    }
    if (Status s = pr::Decode(stream_.body(), request); !s.ok()) {
      if (!std::exchange(warned_, true)) {
        spdlog::warn(
            "Brokerage House {}: {} (further bad orders on this connection are answered, "
            "not logged)",
            peer_, s.message());
      }
      AppendFrame(pr::ErrorReply{pr::ErrorCode::kMalformedFrame, s.message()}, header.request_id,
                  out_.pending);
      continue;
    }
    o.OnOrder(*this, request, header.request_id, out_.pending);
  }
  Flush();
  o.ArmBookTimer();
  o.RefreshGauges();
  o.Pump();
}

void MarketEmulator::Impl::Session::Flush() {
  if (out_.busy) return;
  if (out_.pending.empty()) {
    if (closing_) Close();
    return;
  }
  out_.busy = true;
  std::swap(out_.pending, out_.writing);
  out_.pending.clear();
  asio::async_write(socket_, asio::buffer(out_.writing),
                    [self = shared_from_this()](error_code ec, size_t) {
                      self->out_.busy = false;
                      self->out_.writing.clear();
                      if (ec) {
                        self->Close();
                        return;
                      }
                      self->Flush();
                      if (self->paused_ && !self->closing_ && self->Unsent() <= kMaxUnsentBytes) {
                        self->paused_ = false;
                        self->Read();
                      }
                    });
}

void MarketEmulator::Impl::OnOrder(Session&, const pr::MarketTradeRequest& request,
                                   uint64_t request_id, std::vector<uint8_t>& out) {
  stats_.orders_received.fetch_add(1, std::memory_order_relaxed);
  if (stopping_) {
    AppendFrame(pr::ErrorReply{pr::ErrorCode::kShuttingDown, "the market emulator is stopping"},
                request_id, out);
    stats_.orders_refused.fetch_add(1, std::memory_order_relaxed);
    Fail(request.trade_id, "TR", "refused: the market emulator is stopping");
    return;
  }
  SubmitResult r = floor_.Submit(request, NowUs());
  if (r.outcome == SubmitOutcome::kQueued) {
    AppendFrame(pr::MarketTradeAck{request.trade_id}, request_id, out);
    return;
  }
  stats_.orders_refused.fetch_add(1, std::memory_order_relaxed);
  // error = lost work (docs/STYLE.md). Every trade id goes to the failed file; the log gets at most
  // one line a second, with the count of the refusals it did not show.
  const auto now = Clock::now();
  if (now - last_refusal_log_ >= std::chrono::seconds(1)) {
    spdlog::error(
        "order refused: {}{}", r.reason,
        refusals_unlogged_ > 0
            ? fmt::format(" (and {} more refusals since the last line)", refusals_unlogged_)
            : "");
    last_refusal_log_ = now;
    refusals_unlogged_ = 0;
  } else {
    ++refusals_unlogged_;
  }
  Fail(request.trade_id, "TR", "refused: " + r.reason);
  AppendFrame(
      pr::ErrorReply{r.outcome == SubmitOutcome::kRefusedFull ? pr::ErrorCode::kOverloaded
                                                              : pr::ErrorCode::kMalformedFrame,
                     r.reason},
      request_id, out);
}

void MarketEmulator::Impl::ArmBookTimer() {
  if (stopping_) return;
  auto next = floor_.NextDueUs();
  if (!next || (armed_due_us_ && *armed_due_us_ == *next)) return;
  armed_due_us_ = next;
  book_timer_.expires_at(base_ + std::chrono::microseconds(*next));
  book_timer_.async_wait([this](error_code ec) {
    if (ec) return;  // re-armed for an earlier order, or stopping
    armed_due_us_.reset();
    floor_.Advance(NowUs());
    ArmBookTimer();
    RefreshGauges();
    Pump();
  });
}

// ---------------------------------------------------------------------------------------------
// Deliveries to the Brokerage House.

void MarketEmulator::Impl::Connect(Link& link) {
  if (finished_) return;
  HostPort target = options_.bh;
  if (!target.is_unix() && !options_.bh_port_file.empty()) {
    std::ifstream in(options_.bh_port_file);
    int p = 0;
    if (!(in >> p) || p <= 0 || p > 65535) {
      RetryLater(link, std::chrono::seconds(1));
      return;
    }
    target.port = static_cast<uint16_t>(p);
  }
  auto endpoint = EndpointOf(io_, target, "--bh");
  if (!endpoint.ok()) {
    DropLink(link, endpoint.status().message());
    return;
  }
  link.state = Link::State::kConnecting;
  const uint64_t generation = link.generation;
  link.socket.async_connect(*endpoint, [this, &link, generation, target](error_code ec) {
    if (generation != link.generation) return;
    if (ec) {
      DropLink(link, fmt::format("cannot connect to the Brokerage House {}: {}", ToString(target),
                                 ec.message()));
      return;
    }
    SetNoDelay(link.socket);
    link.state = Link::State::kHello;
    pr::Hello hello{pr::kProtocolVersion, options_.component, options_.sizing.customers,
                    static_cast<int32_t>(options_.sizing.scale_factor),
                    static_cast<int32_t>(options_.sizing.initial_trade_days)};
    AppendFrame(hello, 0, link.out.pending);
    FlushLink(link);
    ReadLink(link);
  });
}

void MarketEmulator::Impl::ReadLink(Link& link) {
  auto space = link.stream.space();
  const uint64_t generation = link.generation;
  link.socket.async_read_some(
      asio::buffer(space.data(), space.size()), [this, &link, generation](error_code ec, size_t n) {
        if (generation != link.generation) return;
        if (ec) {
          DropLink(link,
                   fmt::format("Brokerage House connection {} lost: {}", link.index, ec.message()));
          return;
        }
        link.stream.Commit(n);
        for (;;) {
          auto state = link.stream.Next();
          if (state == FrameStream::State::kNeedMore) break;
          if (state == FrameStream::State::kBad) {
            DropLink(link,
                     "the Brokerage House sent a bad frame: " + link.stream.status().message());
            return;
          }
          OnReply(link, link.stream.header(), link.stream.body());
          if (generation != link.generation) return;  // dropped while handling
        }
        Pump();
        MaybeFinish();
        ReadLink(link);
      });
}

void MarketEmulator::Impl::OnReply(Link& link, const pr::FrameHeader& header,
                                   std::span<const uint8_t> body) {
  pr::Message reply;
  if (Status s = pr::DecodeMessage(header.type, body, reply); !s.ok()) {
    DropLink(link, "the Brokerage House sent an undecodable reply: " + s.message());
    return;
  }
  if (link.state == Link::State::kHello) {
    const auto* hello = std::get_if<pr::HelloReply>(&reply);
    if (hello == nullptr || !hello->accepted) {
      spdlog::error("the Brokerage House refused delivery connection {}: {}", link.index,
                    hello != nullptr ? hello->reason : "no HelloReply");
      DropLink(link, "hello refused");
      return;
    }
    link.state = Link::State::kReady;
    link.warned = false;
    stats_.links_up.fetch_add(1, std::memory_order_relaxed);
    spdlog::info("delivery connection {} to {} up", link.index, hello->component);
    return;
  }
  auto it = std::find_if(link.in_flight.begin(), link.in_flight.end(),
                         [&](const InFlight& f) { return f.request_id == header.request_id; });
  if (it == link.in_flight.end()) {
    spdlog::warn("delivery connection {}: a reply to request {} that is not in flight", link.index,
                 header.request_id);
    return;
  }
  InFlight f = std::move(*it);
  link.in_flight.erase(it);
  if (const auto* tr = std::get_if<pr::TradeResultOutput>(&reply)) {
    Delivered(link, f, tr->status);
  } else if (const auto* mf = std::get_if<pr::MarketFeedOutput>(&reply)) {
    Delivered(link, f, mf->status);
  } else if (const auto* err = std::get_if<pr::ErrorReply>(&reply);
             err != nullptr && (err->code == pr::ErrorCode::kOverloaded ||
                                err->code == pr::ErrorCode::kShuttingDown)) {
    // The BH did not run it: send it again a little later, on any connection.
    stats_.bh_busy.fetch_add(1, std::memory_order_relaxed);
    floor_.PushFrontDue(std::move(f.delivery));
    if (link.state == Link::State::kReady) {
      link.state = Link::State::kPaused;
      RetryLater(link, std::chrono::milliseconds(10));
    }
  } else {
    pr::ReplyStatus status;
    status.outcome = pr::Outcome::kNetError;
    status.detail = err != nullptr
                        ? err->text
                        : fmt::format("unexpected reply {}", pr::MessageTypeName(header.type));
    spdlog::warn("delivery connection {}: {}", link.index, status.detail);
    Delivered(link, f, status);
  }
}

void MarketEmulator::Impl::Delivered(Link& link, InFlight& f, const pr::ReplyStatus& status) {
  const bool is_tr = std::holds_alternative<pr::TradeResultInput>(f.delivery.message);
  MixRow row;
  row.start_us = f.sent_wall_us;
  row.SetCode(is_tr ? "TR" : "MF");
  row.spec_status = status.spec_status;
  row.outcome = static_cast<uint8_t>(status.outcome);
  row.response_us = NowUs() - f.sent_us;
  row.retries = status.retries;
  row.user = link.index;
  row.wait_us = f.sent_us - f.delivery.due_us;
  mix_->Append(row);
  CountRow(row, is_tr, /*reply=*/true);
  if (is_tr && status.outcome <= pr::Outcome::kWarning) tr_interval_.Record(row.response_us);
  if (status.outcome != pr::Outcome::kOk) {
    stats_.delivery_errors.fetch_add(1, std::memory_order_relaxed);
  }
  if (is_tr && status.outcome == pr::Outcome::kRetryExhausted && f.delivery.resends < kMaxResends &&
      !stopping_) {
    // The BH rolled the Trade-Result back after its own retries (serialization failures):
    // nothing was committed, so sending it again is safe, and the trade must complete. The
    // attempt keeps its mix row; the next one measures its wait from the same due time.
    stats_.resent.fetch_add(1, std::memory_order_relaxed);
    ++f.delivery.resends;
    floor_.PushFrontDue(std::move(f.delivery));
    return;
  }
  if (is_tr) {
    const auto& tr = std::get<pr::TradeResultInput>(f.delivery.message);
    stats_.trade_results_delivered.fetch_add(1, std::memory_order_relaxed);
    if (status.outcome != pr::Outcome::kOk && status.outcome != pr::Outcome::kNetError) {
      Fail(tr.trade_id, "TR",
           fmt::format("{}: {}", pr::OutcomeName(status.outcome), status.detail));
    }
    if (status.outcome == pr::Outcome::kNetError) Fail(tr.trade_id, "TR", status.detail);
    if (options_.on_trade_result) options_.on_trade_result(tr.trade_id, status);
  } else {
    stats_.market_feeds_delivered.fetch_add(1, std::memory_order_relaxed);
  }
}

void MarketEmulator::Impl::DropLink(Link& link, const std::string& why) {
  ++link.generation;
  error_code ec;
  link.socket.close(ec);
  if (link.state == Link::State::kReady || link.state == Link::State::kPaused) {
    stats_.links_up.fetch_sub(1, std::memory_order_relaxed);
  }
  link.state = Link::State::kDown;
  // clear(), not new objects: a cancelled read or write may still name the old memory.
  link.stream.Reset();
  link.out.pending.clear();
  link.out.writing.clear();
  link.out.busy = false;
  // Requests in flight may or may not have run: never sent twice, each logged as failed.
  const int64_t now = NowUs();
  for (auto& f : link.in_flight) {
    stats_.lost_in_flight.fetch_add(1, std::memory_order_relaxed);
    MixRow row;
    const bool is_tr = std::holds_alternative<pr::TradeResultInput>(f.delivery.message);
    row.start_us = f.sent_wall_us;
    row.SetCode(is_tr ? "TR" : "MF");
    row.outcome = static_cast<uint8_t>(pr::Outcome::kNetError);
    row.response_us = now - f.sent_us;
    row.user = link.index;
    row.wait_us = f.sent_us - f.delivery.due_us;
    mix_->Append(row);
    CountRow(row, is_tr, /*reply=*/false);
    const std::string reason = "lost in flight (" + why + ")";
    if (is_tr) {
      const auto& tr = std::get<pr::TradeResultInput>(f.delivery.message);
      spdlog::error("Trade-Result for trade {} {}", tr.trade_id, reason);
      Fail(tr.trade_id, "TR", reason);
    } else {
      Fail(0, "MF", reason);
    }
  }
  link.in_flight.clear();
  if (finished_) return;
  if (!link.warned) {
    link.warned = true;
    spdlog::warn("{}; due deliveries wait; retrying every second", why);
  }
  RetryLater(link, std::chrono::seconds(1));
}

void MarketEmulator::Impl::RetryLater(Link& link, std::chrono::milliseconds after) {
  const uint64_t generation = link.generation;
  link.retry.expires_after(after);
  link.retry.async_wait([this, &link, generation](error_code ec) {
    if (ec || finished_ || generation != link.generation) return;
    if (link.state == Link::State::kPaused) {
      link.state = Link::State::kReady;
      Pump();
    } else if (link.state == Link::State::kDown) {
      Connect(link);
    }
  });
}

void MarketEmulator::Impl::Pump() {
  if (finished_) return;
  const size_t max = static_cast<size_t>(options_.max_in_flight);
  // Fill the links round-robin, one request at a time, so that load spreads evenly.
  for (bool progress = true; progress && floor_.HasDue();) {
    progress = false;
    for (size_t i = 0; i < links_.size() && floor_.HasDue(); ++i) {
      Link& link = *links_[(next_link_ + i) % links_.size()];
      if (link.state != Link::State::kReady || link.in_flight.size() >= max) continue;
      InFlight f;
      f.request_id = next_request_id_++;
      f.delivery = floor_.PopDue();
      if (std::holds_alternative<pr::TradeResultInput>(f.delivery.message)) {
        stats_.trade_results_sent.fetch_add(1, std::memory_order_relaxed);
      }
      f.sent_us = NowUs();
      f.sent_wall_us = WallMicros();
      std::visit([&](const auto& m) { AppendFrame(m, f.request_id, link.out.pending); },
                 f.delivery.message);
      link.in_flight.push_back(std::move(f));
      progress = true;
    }
    next_link_ = (next_link_ + 1) % links_.size();
  }
  for (auto& link : links_) FlushLink(*link);
  RefreshGauges();
}

void MarketEmulator::Impl::FlushLink(Link& link) {
  if (link.out.busy || link.out.pending.empty() || link.state == Link::State::kDown ||
      link.state == Link::State::kConnecting) {
    return;
  }
  link.out.busy = true;
  std::swap(link.out.pending, link.out.writing);
  link.out.pending.clear();
  const uint64_t generation = link.generation;
  asio::async_write(
      link.socket, asio::buffer(link.out.writing),
      [this, &link, generation](error_code ec, size_t) {
        if (generation != link.generation) return;
        link.out.busy = false;
        link.out.writing.clear();
        if (ec) {
          DropLink(link, fmt::format("sending to the Brokerage House failed: {}", ec.message()));
          return;
        }
        FlushLink(link);
      });
}

// ---------------------------------------------------------------------------------------------
// The metrics endpoint (README, "Live metrics").

void MarketEmulator::Impl::CountRow(const MixRow& row, bool is_tr, bool reply) {
  const size_t type = is_tr ? 0 : 1;
  ++rows_by_type_[type];
  ++rows_by_outcome_[row.outcome];
  // As the customer emulator's: the response times of the replies that are not errors.
  const auto outcome = static_cast<pr::Outcome>(row.outcome);
  if (reply && outcome <= pr::Outcome::kInvalid) response_by_type_[type].Record(row.response_us);
}

// The family names the customer emulator uses too, so that a scraper adds the two up by type;
// then the market's own (brokerbench_mee_*). Read on the I/O thread that keeps the numbers.
std::string MarketEmulator::Impl::MetricsText() const {
  static constexpr std::string_view kTypes[] = {"TR", "MF"};
  static constexpr std::string_view kPhases[] = {"connecting", "delivering", "stopping"};
  OpenMetricsText text;
  text.Counter("brokerbench_transactions", "Transactions completed (mix log rows), by type");
  for (size_t t = 0; t < 2; ++t) text.Sample({{"type", kTypes[t]}}, rows_by_type_[t]);
  text.Counter("brokerbench_outcomes", "Transactions completed (mix log rows), by outcome");
  for (int o = 0; o <= pr::kMaxOutcome; ++o) {
    text.Sample({{"outcome", pr::OutcomeName(static_cast<pr::Outcome>(o))}}, rows_by_outcome_[o]);
  }
  text.Histogram("brokerbench_response_seconds",
                 "Response time (request sent to reply read) of the replies that are not errors, "
                 "by type");
  for (size_t t = 0; t < 2; ++t) text.HistogramSample({{"type", kTypes[t]}}, response_by_type_[t]);
  size_t in_flight = 0;
  for (const auto& l : links_) in_flight += l->in_flight.size();
  text.Gauge("brokerbench_in_flight", "Requests sent and not answered yet");
  text.Sample({}, static_cast<int64_t>(in_flight));
  // connecting: no delivery connection is up (at the start, or while the BH is away).
  const size_t phase = stopping_ ? 2 : stats_.links_up.load() == 0 ? 0 : 1;
  text.StateSet("brokerbench_phase", "Where the market emulator is in the run", kPhases, phase);
  text.Gauge("brokerbench_mee_due_orders", "Deliveries due and not sent yet");
  text.Sample({}, static_cast<int64_t>(floor_.due_count()));
  text.Gauge("brokerbench_mee_pending_orders",
             "Orders the market holds: in their completion delay, limit orders waiting for their "
             "price, deliveries due");
  text.Sample({}, static_cast<int64_t>(floor_.pending()));
  text.Counter("brokerbench_mee_trade_results_sent", "Trade-Results sent, re-sends included");
  text.Sample({}, stats_.trade_results_sent.load());
  text.Counter("brokerbench_mee_trade_results_completed",
               "Trade-Results the Brokerage House answered for the last time (any outcome)");
  text.Sample({}, stats_.trade_results_delivered.load());
  text.Counter("brokerbench_mee_orders_received", "Trade requests from the Brokerage House");
  text.Sample({}, stats_.orders_received.load());
  text.Counter("brokerbench_mee_orders_refused",
               "Trade requests refused (the pending cap, a bad symbol, stopping)");
  text.Sample({}, stats_.orders_refused.load());
  text.Gauge("brokerbench_mee_delivery_connections_up",
             "Delivery connections to the Brokerage House up");
  text.Sample({}, stats_.links_up.load());
  return text.Finish();
}

// ---------------------------------------------------------------------------------------------

MarketEmulator::MarketEmulator(EmulatorOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}
MarketEmulator::~MarketEmulator() = default;
Status MarketEmulator::Run() { return impl_->Run(); }
void MarketEmulator::Stop() { impl_->Stop(); }
uint16_t MarketEmulator::port() const { return impl_->port_.load(); }
uint16_t MarketEmulator::metrics_port() const { return impl_->metrics_port_.load(); }
std::string MarketEmulator::MetricsText() const { return impl_->MetricsText(); }
bool MarketEmulator::listening() const { return impl_->listening_.load(); }
const EmulatorStats& MarketEmulator::stats() const { return impl_->stats_; }

}  // namespace bb::mee
