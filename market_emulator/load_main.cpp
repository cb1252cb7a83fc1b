// bb-mee-load: offers trade requests to a market emulator at a fixed rate, as a Brokerage
// House would after Trade-Order commits, for the `bench mee` benchmark (controller/bench-mee).
// The market emulator itself never generates load; this tool is the load.
//
// It opens --connections connections, says hello with the sizing, then every millisecond sends
// as many MarketTradeRequest frames as the schedule (rate × elapsed time) asks, spread over
// the connections, for --seconds; then it waits up to 10 s for the replies and prints one line
// of key=value figures: offered, sent, acked, refused, and the achieved send rate.
//
// Ownership: everything lives in main's Load object. Thread-safety: one I/O thread.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/net/link.h"
#include "common/protocol/codec.h"
#include "common/util/asio.h"
#include "common/util/cli_app.h"
#include "common/util/clock.h"
#include "common/util/stream_socket.h"
#include "common/workload/market.h"
#include "common/workload/random.h"
#include "common/workload/sizing_options.h"

namespace {

namespace pr = bb::protocol;
using bb::Status;
using tcp = bb::asio::ip::tcp;
using Clock = std::chrono::steady_clock;

constexpr const char* kAbout =
    "Offers MarketTradeRequest frames to a market emulator at a fixed rate, as a Brokerage "
    "House.\n";

struct Options {
  bb::HostPort mee;
  int64_t rate = 0;
  int64_t seconds = 0;
  int connections = 4;
  int limit_percent = 0;
  int64_t first_trade_id = 1;
  bb::workload::Sizing sizing{.customers = 1000, .scale_factor = 500, .initial_trade_days = 10};
  uint64_t seed = 1;
};

void DefineOptions(CLI::App& app, Options& o) {
  namespace cli = bb::cli;
  using cli::Range;
  cli::Configure(app);
  cli::AddAddress(app, "--mee", o.mee, "the market emulator")->required();
  app.add_option("--rate", o.rate, "orders per second (1..1000000)")
      ->required()
      ->check(Range(1, 1'000'000));
  app.add_option("--seconds", o.seconds, "how long to offer them, in seconds (1..3600)")
      ->required()
      ->check(Range(1, 3600));
  app.add_option("--connections", o.connections, "connections, 1..256 (default 4)")
      ->check(Range(1, 256));
  app.add_option("--limit-percent", o.limit_percent,
                 "share of limit orders (kSetLimitTrigger), 0..100 (default 0)")
      ->check(Range(0, 100));
  app.add_option("--first-trade-id", o.first_trade_id, "trade ids start here (default 1)")
      ->check(Range(1, INT64_MAX / 2));
  bb::workload::AddSizingOptions(app, o.sizing.customers, o.sizing.scale_factor,
                                 o.sizing.initial_trade_days, "the sizing sent in the hello");
  app.add_option("--seed", o.seed, "seed of symbols, types and quantities (default 1)")
      ->check(Range(0, INT64_MAX));
  cli::CheckAfterParse(app, [&o] { return o.sizing.Validate(); });
}

class Load {
 public:
  explicit Load(const Options& o)
      : o_(o), market_(o.sizing), random_(o.seed), tick_(io_), next_trade_id_(o.first_trade_id) {}

  Status Run() {
    bb::error_code ec;
    tcp::endpoint ep(bb::asio::ip::make_address(o_.mee.host, ec), o_.mee.port);
    if (ec) return Status::InvalidArgument(fmt::format("--mee {}: {}", o_.mee.host, ec.message()));
    for (int i = 0; i < o_.connections; ++i) {
      bb::StreamSocket socket(io_);
      socket.connect(bb::StreamProtocol::endpoint(ep), ec);
      if (ec) {
        return Status::Unavailable(
            fmt::format("--mee {}:{}: {}", o_.mee.host, o_.mee.port, ec.message()));
      }
      links_.push_back(std::make_shared<Link>(*this, std::move(socket)));
      links_.back()->Connected();
    }
    start_ = Clock::now();
    Tick();
    io_.run();
    return status_;
  }

  void Report() const {
    const double secs = std::chrono::duration<double>(sent_end_ - start_).count();
    fmt::print(
        "offered_rate={} seconds={} sent={} acked={} refused={} other_replies={} "
        "send_rate={:.1f}\n",
        o_.rate, o_.seconds, sent_, acked_, refused_, other_, secs > 0 ? sent_ / secs : 0.0);
  }

 private:
  // One connection (common/net: it says hello with the sizing); acks and errors are counted.
  class Link : public bb::net::Link {
   public:
    Link(Load& load, bb::StreamSocket socket)
        : bb::net::Link(std::move(socket), load.Identity(), "market emulator"), load_(load) {}

   private:
    void OnFrame(const pr::FrameHeader& header, std::span<const uint8_t>) override {
      switch (header.type) {
        case pr::MessageType::kMarketTradeAck:
          ++load_.acked_;
          break;
        case pr::MessageType::kErrorReply:
          ++load_.refused_;
          break;
        default:
          ++load_.other_;
      }
    }
    void OnReadDone() override { load_.MaybeDone(); }
    void OnClosed(const Status& why) override {
      if (!load_.closed_) load_.Fail(why.message());
    }
    Load& load_;
  };

  bb::net::Identity Identity() const {
    return {"bb-mee-load", o_.sizing.customers, static_cast<int32_t>(o_.sizing.scale_factor),
            static_cast<int32_t>(o_.sizing.initial_trade_days)};
  }

  void Tick() {
    const auto now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    if (elapsed >= static_cast<double>(o_.seconds)) {
      sent_end_ = now;
      sending_done_ = true;
      // Wait for the replies, at most 10 s.
      tick_.expires_after(std::chrono::seconds(10));
      tick_.async_wait([this](bb::error_code ec) {
        if (!ec) CloseAll();
      });
      MaybeDone();
      return;
    }
    const auto target = static_cast<int64_t>(elapsed * static_cast<double>(o_.rate));
    while (sent_ < target) {
      Link& l = *links_[static_cast<size_t>(sent_) % links_.size()];
      pr::MarketTradeRequest r;
      r.trade_id = next_trade_id_++;
      r.symbol = market_.Symbol(random_.Int64Range(0, market_.securities() - 1));
      r.trade_qty = static_cast<int32_t>(random_.Int64Range(1, 8) * 100);
      const bool limit = random_.Percent(o_.limit_percent);
      const bool buy = random_.Percent(50);
      r.trade_type_id = limit ? (buy ? "TLB" : "TLS") : (buy ? "TMB" : "TMS");
      r.action = limit ? pr::MarketAction::kSetLimitTrigger : pr::MarketAction::kProcessOrder;
      r.price = random_.Int64Range(2000, 3000);
      r.sent_at = bb::WallMicros();
      l.Append(r, static_cast<uint64_t>(r.trade_id));
      ++sent_;
    }
    for (auto& l : links_) l->Flush();
    tick_.expires_at(now + std::chrono::milliseconds(1));
    tick_.async_wait([this](bb::error_code ec) {
      if (!ec) Tick();
    });
  }

  void MaybeDone() {
    if (sending_done_ && acked_ + refused_ + other_ >= sent_) CloseAll();
  }
  void Fail(const std::string& why) {
    if (status_.ok()) status_ = Status::IoError(why);
    CloseAll();
  }
  void CloseAll() {
    if (closed_) return;
    closed_ = true;
    if (sent_end_ == Clock::time_point{}) sent_end_ = Clock::now();
    tick_.cancel();
    for (auto& l : links_) l->Close();
  }

  Options o_;
  bb::asio::io_context io_;
  bb::workload::Market market_;
  bb::workload::Random random_;
  bb::asio::steady_timer tick_;
  std::vector<std::shared_ptr<Link>> links_;
  int64_t next_trade_id_;
  int64_t sent_ = 0, acked_ = 0, refused_ = 0, other_ = 0;
  Clock::time_point start_, sent_end_;
  bool sending_done_ = false;
  bool closed_ = false;
  Status status_;
};

}  // namespace

int main(int argc, char** argv) {
  Options options;
  CLI::App app(kAbout, "bb-mee-load");
  DefineOptions(app, options);
  bb::cli::ParseOrExit(app, argc, argv);
  Load load(options);
  Status s = load.Run();
  load.Report();
  if (!s.ok()) {
    fmt::print(stderr, "bb-mee-load: {}\n", s.message());
    return 1;
  }
  return 0;
}
