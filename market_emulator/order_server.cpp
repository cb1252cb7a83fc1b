// The market emulator's order side (emulator.h): one Session per Brokerage House connection, a
// net::Link that answers the hello (common/net: one rule) and holds the hostile-input rules;
// here each MarketTradeRequest is acked when the TradingFloor queued it, or answered with an
// error naming why it was refused.
#include <chrono>
#include <utility>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "market_emulator/emulator_impl.h"

namespace bb::mee {

class MarketEmulator::Impl::Session : public net::Link {
 public:
  Session(Impl& owner, StreamSocket socket)
      : Link(std::move(socket), owner.Identity(), "Brokerage House"), owner_(owner) {}

 private:
  void OnReady(const std::string& component) override {
    spdlog::info("{} ({}) connected", name(), component);
  }
  void OnFrame(const pr::FrameHeader& header, std::span<const uint8_t> body) override {
    if (header.type != pr::MessageType::kMarketTradeRequest) {
      return Append(pr::ErrorReply{pr::ErrorCode::kUnexpectedMessage,
                                   fmt::format("the market emulator takes MarketTradeRequest, not {}",
                                               pr::MessageTypeName(header.type))},
                    header.request_id);
    }
    if (Status s = pr::Decode(body, request_); !s.ok()) {
      WarnOnce(s.message() + " (further bad orders on this connection are answered, not logged)");
      return Append(pr::ErrorReply{pr::ErrorCode::kMalformedFrame, s.message()}, header.request_id);
    }
    owner_.OnOrder(request_, header.request_id, *this);
  }
  // The orders of one read are in: their deliveries may be due.
  void OnReadDone() override { owner_.OrdersRead(); }

  Impl& owner_;
  pr::MarketTradeRequest request_;  // reused
};

void MarketEmulator::Impl::Accepted(StreamSocket&& socket) {
  auto session = std::make_shared<Session>(*this, std::move(socket));
  std::erase_if(sessions_, [](const auto& w) { return w.expired(); });
  sessions_.push_back(session);
  session->Accept();
}

void MarketEmulator::Impl::CloseSessions() {
  for (auto& weak : sessions_) {
    if (auto s = weak.lock()) s->Close();
  }
  sessions_.clear();
}

void MarketEmulator::Impl::OrdersRead() {
  ArmBookTimer();
  RefreshGauges();
  Pump();
}

void MarketEmulator::Impl::OnOrder(const pr::MarketTradeRequest& request, uint64_t request_id,
                                   net::Link& out) {
  stats_.orders_received.fetch_add(1, std::memory_order_relaxed);
  if (stopping_) {
    out.Append(pr::ErrorReply{pr::ErrorCode::kShuttingDown, "the market emulator is stopping"},
               request_id);
    stats_.orders_refused.fetch_add(1, std::memory_order_relaxed);
    Fail(request.trade_id, "TR", "refused: the market emulator is stopping");
    return;
  }
  SubmitResult r = floor_.Submit(request, NowUs());
  if (r.outcome == SubmitOutcome::kQueued) {
    out.Append(pr::MarketTradeAck{request.trade_id}, request_id);
    return;
  }
  stats_.orders_refused.fetch_add(1, std::memory_order_relaxed);
  // error = lost work (STYLE.md). Every trade id goes to the failed file; the log gets at most
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
  out.Append(pr::ErrorReply{r.outcome == SubmitOutcome::kRefusedFull ? pr::ErrorCode::kOverloaded
                                                                      : pr::ErrorCode::kMalformedFrame,
                            r.reason},
             request_id);
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

}  // namespace bb::mee
