// The market emulator's deliveries (emulator.h): a pool of connections to the Brokerage House,
// each a net::Link (common/net: it says hello with our sizing); due Trade-Results and
// Market-Feeds go out with at most --max-in-flight per connection, each reply writes a mix row,
// and a broken connection is retried every second.
#include <algorithm>
#include <fstream>
#include <utility>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/util/clock.h"
#include "market_emulator/emulator_impl.h"

namespace bb::mee {
namespace {
// Re-sends of a Trade-Result that the BH gave up on (retry_exhausted), per trade.
constexpr int32_t kMaxResends = 3;
}  // namespace

class MarketEmulator::Impl::DeliveryLink : public net::Link {
 public:
  DeliveryLink(Impl& owner, Slot& slot, const HostPort& target)
      : Link(StreamSocket(owner.io_), owner.Identity(), "Brokerage House"),
        owner_(owner),
        slot_(slot),
        target_(ToString(target)) {}
  // The slot is done with it: closed, and no more reports.
  void Detach() {
    detached_ = true;
    Close();
  }
  bool was_ready = false;

 private:
  void OnReady(const std::string& component) override {
    was_ready = true;
    owner_.LinkUp(slot_, component);
  }
  void OnFrame(const pr::FrameHeader& header, std::span<const uint8_t> body) override {
    if (!detached_) owner_.OnReply(slot_, header, body);
  }
  void OnReadDone() override {
    if (detached_) return;
    owner_.Pump();
    owner_.MaybeFinish();
  }
  void OnClosed(const Status& why) override {
    if (std::exchange(detached_, true)) return;
    if (!was_ready) {
      owner_.DropLink(slot_, fmt::format("cannot connect to the Brokerage House {}: {}", target_,
                                         why.message()));
    } else {
      owner_.DropLink(slot_, fmt::format("Brokerage House connection {} lost: {}", slot_.index,
                                         why.message()));
    }
  }

  Impl& owner_;
  Slot& slot_;
  std::string target_;
  bool detached_ = false;
};

void MarketEmulator::Impl::LinkUp(Slot& link, const std::string& component) {
  link.state = Slot::State::kReady;
  link.warned = false;
  stats_.links_up.fetch_add(1, std::memory_order_relaxed);
  spdlog::info("delivery connection {} to {} up", link.index, component);
}

void MarketEmulator::Impl::Connect(Slot& link) {
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
  link.state = Slot::State::kConnecting;
  link.link = std::make_shared<DeliveryLink>(*this, link, target);
  link.link->Connect(*endpoint);
}

void MarketEmulator::Impl::OnReply(Slot& link, const pr::FrameHeader& header,
                                   std::span<const uint8_t> body) {
  pr::Message reply;
  if (Status s = pr::DecodeMessage(header.type, body, reply); !s.ok()) {
    DropLink(link, "the Brokerage House sent an undecodable reply: " + s.message());
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
    if (link.state == Slot::State::kReady) {
      link.state = Slot::State::kPaused;
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

void MarketEmulator::Impl::Delivered(Slot& link, InFlight& f, const pr::ReplyStatus& status) {
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
  if (is_tr) row.trade_id = std::get<pr::TradeResultInput>(f.delivery.message).trade_id;
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

void MarketEmulator::Impl::DropLink(Slot& link, const std::string& why) {
  if (auto old = std::exchange(link.link, nullptr)) old->Detach();
  if (link.state == Slot::State::kReady || link.state == Slot::State::kPaused) {
    stats_.links_up.fetch_sub(1, std::memory_order_relaxed);
  }
  link.state = Slot::State::kDown;
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
    if (is_tr) row.trade_id = std::get<pr::TradeResultInput>(f.delivery.message).trade_id;
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

void MarketEmulator::Impl::RetryLater(Slot& link, std::chrono::milliseconds after) {
  link.retry.expires_after(after);
  link.retry.async_wait([this, &link](error_code ec) {
    if (ec || finished_) return;
    if (link.state == Slot::State::kPaused) {
      link.state = Slot::State::kReady;
      Pump();
    } else if (link.state == Slot::State::kDown) {
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
    for (size_t i = 0; i < slots_.size() && floor_.HasDue(); ++i) {
      Slot& link = *slots_[(next_slot_ + i) % slots_.size()];
      if (link.state != Slot::State::kReady || link.in_flight.size() >= max) continue;
      InFlight f;
      f.request_id = next_request_id_++;
      f.delivery = floor_.PopDue();
      if (std::holds_alternative<pr::TradeResultInput>(f.delivery.message)) {
        stats_.trade_results_sent.fetch_add(1, std::memory_order_relaxed);
      }
      f.sent_us = NowUs();
      f.sent_wall_us = WallMicros();
      std::visit([&](const auto& m) { link.link->Append(m, f.request_id); }, f.delivery.message);
      link.in_flight.push_back(std::move(f));
      progress = true;
    }
    next_slot_ = (next_slot_ + 1) % slots_.size();
  }
  for (auto& slot : slots_) {
    if (slot->link) slot->link->Flush();
  }
  RefreshGauges();
}

}  // namespace bb::mee
