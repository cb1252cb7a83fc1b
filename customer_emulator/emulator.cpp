// The Customer Emulator's run: start, connect, stop (emulator.h has the design; the other jobs
// are in files of their own, emulator_impl.h).
#include "customer_emulator/emulator.h"

#include <algorithm>
#include <csignal>
#include <optional>
#include <utility>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/util/clock.h"
#include "common/util/stream_socket.h"
#include "common/workload/customer_selection.h"
#include "customer_emulator/connection.h"
#include "customer_emulator/emulator_impl.h"

namespace bb::ce {

Status ValidateOptions(const EmulatorOptions& o) {
  if (Status s = o.sizing.Validate(); !s.ok()) return s;
  if (o.users < 1 || o.users > 1'000'000) {
    return Status::InvalidArgument(fmt::format("--users: '{}' is not 1..1000000", o.users));
  }
  if (o.connections < 0 || o.connections > 4096) {
    return Status::InvalidArgument(
        fmt::format("--connections: '{}' is not 1..4096", o.connections));
  }
  if (o.pacing.count() < 0) {
    return Status::InvalidArgument("--pacing: must not be negative");
  }
  if (o.mix_log.empty()) return Status::InvalidArgument("--mix-log: no file given");
  if (o.partition_first != 0 || o.partition_customers != 0) {
    auto selector =
        wl::CustomerSelector::ForPartition(o.sizing, o.partition_first, o.partition_customers);
    if (!selector.ok()) return selector.status();
  }
  return Status::Ok();
}

Emulator::Impl::Impl(EmulatorOptions options)
    : options_(std::move(options)),
      scheduler_timer_(io_),
      dm_timer_(io_),
      duration_timer_(io_),
      stop_timer_(io_),
      progress_timer_(io_),
      connect_timer_(io_),
      signals_(io_),
      summary_(std::make_unique<RunSummary>()) {}

Request& Emulator::Impl::RequestOf(uint32_t slot) {
  if (slot < users_.size()) return users_[slot].request;
  return slot == dm_slot() ? dm_ : tc_;
}

Connection* Emulator::Impl::FirstLiveConnection() {
  for (auto& c : connections_) {
    if (c->ready()) return c.get();
  }
  return nullptr;
}

int Emulator::Impl::LiveConnections() const {
  int n = 0;
  for (const auto& c : connections_) n += c->ready() ? 1 : 0;
  return n;
}

Status Emulator::Impl::Run() {
  if (Status s = ValidateOptions(options_); !s.ok()) return s;
  const auto& o = options_;
  // A mix log that cannot be written (a full disk) ends the run at once: its rows are lost.
  auto log =
      MixLog::Open(o.mix_log, [this](const Status& s) { asio::post(io_, [this, s] { Fail(s); }); });
  if (!log.ok()) return log.status();
  log_ = std::move(log).value();

  // Streams: 0 deals the emulator's deck, 1 draws the DM's inputs, 2 the users' inputs.
  // A partitioned CE offsets its streams by its first LU so that CEs sharing a run and a
  // seed do not replay each other's decks and inputs.
  std::optional<wl::CustomerSelector> selector;
  uint64_t stream_base = 0;
  if (o.partition_first != 0 || o.partition_customers != 0) {
    auto s = wl::CustomerSelector::ForPartition(o.sizing, o.partition_first, o.partition_customers);
    if (!s.ok()) return s.status();
    selector = *s;
    stream_base = static_cast<uint64_t>(s->partition_first_load_unit()) << 32;
  }
  deck_.emplace(wl::StreamSeed(o.seed, stream_base));
  const wl::RngSeed input_seed = wl::StreamSeed(o.seed, stream_base + 2);
  inputs_ = selector ? std::make_unique<wl::InputGenerator>(o.sizing, input_seed, *selector)
                     : std::make_unique<wl::InputGenerator>(o.sizing, input_seed);
  users_.resize(static_cast<size_t>(o.users));
  dm_inputs_ =
      std::make_unique<wl::InputGenerator>(o.sizing, wl::StreamSeed(o.seed, stream_base + 1));
  {
    std::vector<Due> storage;
    storage.reserve(users_.size());
    due_ = decltype(due_)(std::greater<>(), std::move(storage));
  }

  const int connections =
      o.connections > 0 ? o.connections : std::min(o.users, kDefaultMaxConnections);
  for (int i = 0; i < o.users; ++i) {
    users_[i].request.connection = static_cast<uint32_t>(i % connections);
  }

  auto found = EndpointOf(io_, o.bh, "--bh");
  if (!found.ok()) {
    (void)log_->Close();
    return Status::Unavailable(found.status().message());
  }
  const StreamProtocol::endpoint endpoint = *found;
  if (o.metrics_listen) {
    metrics_ = std::make_unique<MetricsServer>(io_, [this] { return MetricsText(); });
    if (Status s = metrics_->Start(*o.metrics_listen, o.metrics_port_file); !s.ok()) {
      (void)log_->Close();
      return s;
    }
    metrics_port_.store(metrics_->port());
  }

  run_start_us_ = MonotonicMicros();
  progress_last_us_ = run_start_us_;
  for (int i = 0; i < connections; ++i) {
    connections_.push_back(std::make_shared<Connection>(*this, static_cast<uint32_t>(i)));
  }
  for (auto& c : connections_) c->Connect(endpoint);
  connect_timer_.expires_after(o.connect_timeout);
  connect_timer_.async_wait([this](const error_code& e) {
    if (e || finished_ || phase_ != Phase::kConnecting) return;
    Fail(Status::Unavailable(fmt::format(
        "the Brokerage House at {} did not answer the hello on all {} connections within {} ms",
        ToString(options_.bh), connections_.size(), options_.connect_timeout.count())));
  });
  if (o.handle_signals) {
    signals_.add(SIGTERM);
    signals_.add(SIGINT);
    WaitForSignal();
  }
  if (o.progress_seconds > 0) ArmProgress();
  if (stop_requested_.load()) asio::post(io_, [this] { BeginStop(); });

  io_.run();

  Status closed = log_->Close();
  if (status_.ok() && !closed.ok()) status_ = closed;
  // Last, once every row is on disk: a record says its mix log is whole.
  const std::string record = EndOfRunRecord::PathFor(o.mix_log);
  if (Status written = EndRecord().Write(record); !written.ok()) {
    spdlog::error("{}", written.message());
    if (status_.ok()) status_ = written;
  }
  return status_;
}

void Emulator::Impl::Stop() {
  stop_requested_.store(true);
  asio::post(io_, [this] { BeginStop(); });
}

void Emulator::Impl::WaitForSignal() {
  signals_.async_wait([this](const error_code& ec, int signal) {
    if (ec || finished_) return;
    if (stopping_) {
      spdlog::warn("signal {} again: not waiting for the outstanding replies", signal);
      TimeoutOutstanding();
      Finish();
      return;
    }
    spdlog::info("signal {}: stopping", signal);
    signalled_ = true;
    BeginStop();
    // A second signal cuts the wait short; none is awaited once the run is over (Finish may
    // have run inside BeginStop), or io_.run() would never return.
    if (!finished_) WaitForSignal();
  });
}

void Emulator::Impl::Fail(Status s) {
  if (status_.ok()) status_ = std::move(s);
  stopping_ = true;
  Finish();
}

void Emulator::Impl::OnHelloReply(Connection&, const std::string& component) {
  if (finished_) return;
  if (++hellos_accepted_ == static_cast<int>(connections_.size())) {
    connect_timer_.cancel();
    spdlog::info("connected to {} at {} on {} connections", component, ToString(options_.bh),
                 connections_.size());
    if (stopping_) {
      Finish();
      return;
    }
    StartTradeCleanup();
  }
}

void Emulator::Impl::OnConnectionLost(Connection& c, const Status& lost) {
  if (finished_) return;
  if (phase_ == Phase::kConnecting) {
    // A refused hello keeps its code (kInvalidArgument): retrying cannot help.
    Fail(lost.WithContext(
        fmt::format("the Brokerage House at {}: connection {}", ToString(options_.bh), c.index())));
    return;
  }
  const std::string& why = lost.message();
  spdlog::error("connection {} to the Brokerage House lost: {}", c.index(), why);
  const int64_t now = MonotonicMicros();
  bool tc_lost = false;
  for (uint32_t slot = 0; slot <= tc_slot(); ++slot) {
    Request& r = RequestOf(slot);
    if (!r.outstanding || r.connection != c.index()) continue;
    tc_lost = tc_lost || slot == tc_slot();
    EndRequest(slot, pr::Outcome::kNetError, 0, 0, now, /*reply=*/false);
  }
  for (auto& user : users_) {
    if (user.request.connection == c.index() && !user.started) ++users_never_started_;
  }
  if (LiveConnections() == 0) {
    if (status_.ok()) {
      status_ = Status::Unavailable(
          fmt::format("lost every connection to the Brokerage House at {} (last: {})",
                      ToString(options_.bh), why));
    }
    BeginStop();
    return;
  }
  if (tc_lost && !stopping_) StartUsers();
  if (phase_ == Phase::kRunning) MaybeMarkStart();
  if (stopping_ && outstanding_ == 0) Finish();
}

void Emulator::Impl::BeginStop() {
  if (stopping_ || finished_) return;
  stopping_ = true;
  const int64_t now = MonotonicMicros();
  if (summary_->started) summary_->measured_seconds = (now - start_marker_us_) / 1e6;
  scheduler_timer_.cancel();
  dm_timer_.cancel();
  duration_timer_.cancel();
  if (phase_ == Phase::kConnecting || outstanding_ == 0) {
    Finish();
    return;
  }
  spdlog::info("stopping: waiting up to {} ms for {} outstanding replies",
               options_.stop_wait.count(), outstanding_);
  stop_timer_.expires_after(options_.stop_wait);
  stop_timer_.async_wait([this](const error_code& ec) {
    if (ec || finished_) return;
    spdlog::warn("{} replies still outstanding after {} ms: logged as timeouts", outstanding_,
                 options_.stop_wait.count());
    TimeoutOutstanding();
    Finish();
  });
}

void Emulator::Impl::TimeoutOutstanding() {
  const int64_t now = MonotonicMicros();
  for (uint32_t slot = 0; slot <= tc_slot() && outstanding_ > 0; ++slot) {
    if (RequestOf(slot).outstanding) {
      EndRequest(slot, pr::Outcome::kTimeout, 0, 0, now, /*reply=*/false);
    }
  }
}

void Emulator::Impl::Finish() {
  if (finished_) return;
  finished_ = true;
  stopping_ = true;
  if (phase_ != Phase::kConnecting) log_->Mark("STOP");
  if (summary_->started && summary_->measured_seconds == 0) {
    summary_->measured_seconds = (MonotonicMicros() - start_marker_us_) / 1e6;
  }
  scheduler_timer_.cancel();
  dm_timer_.cancel();
  duration_timer_.cancel();
  stop_timer_.cancel();
  progress_timer_.cancel();
  connect_timer_.cancel();
  error_code ignored;
  signals_.cancel(ignored);
  for (auto& c : connections_) c->Close();
  if (metrics_) metrics_->Close();
}

// ---------------------------------------------------------------------------------------------

Emulator::Emulator(EmulatorOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Emulator::~Emulator() = default;
Status Emulator::Run() { return impl_->Run(); }
void Emulator::Stop() { impl_->Stop(); }
const RunSummary& Emulator::summary() const { return impl_->summary(); }
std::string Emulator::MetricsText() const { return impl_->MetricsText(); }
uint16_t Emulator::metrics_port() const { return impl_->metrics_port(); }

}  // namespace bb::ce
