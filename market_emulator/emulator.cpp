// The market emulator's start and stop (emulator.h); the order side, the deliveries and the
// summaries are in files of their own (emulator_impl.h).
#include "market_emulator/emulator.h"

#include <utility>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/util/port_file.h"
#include "market_emulator/emulator_impl.h"

namespace bb::mee {

MarketEmulator::Impl::Impl(EmulatorOptions options)
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
    slots_.push_back(std::make_unique<Slot>(io_, i));
  }
}

size_t MarketEmulator::Impl::InFlightCount() const {
  size_t n = 0;
  for (const auto& s : slots_) n += s->in_flight.size();
  return n;
}

Status MarketEmulator::Impl::Run() {
  auto mix = MixLog::Open(options_.out_dir + "/" + kMixLogName, [this](const Status& s) {
    asio::post(io_, [this, s] { StopOnError(s); });
  });
  if (!mix.ok()) return mix.status();
  mix_ = std::move(mix).value();
  if (Status s = failed_.Open(options_.out_dir + "/" + kFailedName); !s.ok()) return s;
  if (Status listened = Listen(acceptor_, options_.listen, "--listen"); !listened.ok()) {
    (void)mix_->Close();
    return listened;
  }
  port_.store(BoundPort(acceptor_));
  listening_.store(true);
  if (!options_.port_file.empty() && !options_.listen.is_unix()) {
    if (Status written = WritePortFile(options_.port_file, port_.load()); !written.ok()) {
      (void)mix_->Close();
      return written;
    }
  }
  if (options_.metrics_listen) {
    metrics_ = std::make_unique<MetricsServer>(io_, [this] { return MetricsText(); });
    if (Status s = metrics_->Start(*options_.metrics_listen, options_.metrics_port_file); !s.ok()) {
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
  for (auto& slot : slots_) Connect(*slot);
  signals_.async_wait([this](error_code ec, int signo) {
    if (ec) return;
    spdlog::info("signal {}: stopping", signo);
    signalled_ = true;
    BeginShutdown();
  });
  last_summary_ = Clock::now();
  Summary();
  io_.run();

  Status result = mix_->Close();
  if (!failure_.ok()) result = failure_;  // the error that stopped the run comes first
  if (Status closed = failed_.Close(); !closed.ok() && result.ok()) result = closed;
  if (result.ok()) result = pending_written_;
  // Last, once every file is closed: a record says the others are whole. Not when the run never
  // reached its end (the I/O loop cannot stop otherwise, but a record must not claim it).
  if (finished_) {
    const std::string record = EndOfRunRecord::PathFor(options_.out_dir + "/" + kMixLogName);
    if (Status written = EndRecord(result).Write(record); !written.ok()) {
      spdlog::error("{}", written.message());
      if (result.ok()) result = written;
    }
  }
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
  CloseSessions();
  spdlog::info(
      "stopping: {} due and {} in flight get up to {} s to be delivered", floor_.due_count(),
      InFlightCount(),
      options_.drain_seconds);
  drain_timer_.expires_after(std::chrono::seconds(options_.drain_seconds));
  drain_timer_.async_wait([this](error_code e) {
    if (!e) Finish();
  });
  MaybeFinish();
}

void MarketEmulator::Impl::MaybeFinish() {
  if (!stopping_ || finished_ || floor_.HasDue()) return;
  if (InFlightCount() > 0) return;
  Finish();
}

void MarketEmulator::Impl::Finish() {
  if (finished_) return;
  finished_ = true;
  drain_timer_.cancel();
  if (metrics_) metrics_->Close();
  for (auto& slot : slots_) {
    DropLink(*slot, "the market emulator is stopping");
    slot->retry.cancel();
  }
  WriteUnfinished();
  mix_->Mark("STOP");
}

// A file that cannot be written ends the run at once, without the drain: what would still be
// delivered could not be logged. Run returns `why`.
void MarketEmulator::Impl::StopOnError(Status why) {
  if (!failure_.ok()) return;
  failure_ = std::move(why);
  BeginShutdown();
  Finish();
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
