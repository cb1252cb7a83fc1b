#include "brokerage_house/market_client.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/net/link.h"
#include "common/util/clock.h"
#include "common/util/stream_socket.h"

namespace bb::bh {

namespace pr = protocol;

// Acks and errors are only counted by the emulator's own log: the BH reads and drops them.
class MarketClient::MarketLink : public net::Link {
 public:
  MarketLink(MarketClient& owner, Slot& slot)
      : Link(StreamSocket(owner.io_), owner.identity_, "market emulator"),
        owner_(owner),
        slot_(slot) {}
  void Detach() { detached_ = true; }

 private:
  void OnReady(const std::string&) override { was_ready_ = true; }
  void OnFrame(const pr::FrameHeader&, std::span<const uint8_t>) override {}
  void OnClosed(const Status& why) override {
    // A hello refused (or answered with something else) is not retried: the sizing differs.
    if (!detached_) owner_.Dropped(slot_, why, !was_ready_ && why.code() == StatusCode::kInvalidArgument);
  }
  MarketClient& owner_;
  Slot& slot_;
  bool detached_ = false;  // the client is done with it: no more reports
  bool was_ready_ = false;
};

struct MarketClient::Slot {
  explicit Slot(asio::io_context& io) : retry(io) {}
  asio::steady_timer retry;
  std::shared_ptr<MarketLink> link;
};

MarketClient::MarketClient(asio::io_context& io, HostPort market, int connections,
                           const ServerIdentity& identity, Stats& stats)
    : io_(io), market_(std::move(market)), identity_(identity), stats_(stats) {
  for (int i = 0; i < connections; ++i) slots_.push_back(std::make_unique<Slot>(io_));
}

MarketClient::~MarketClient() {
  for (auto& slot : slots_) {
    if (slot->link) slot->link->Detach();
  }
}

void MarketClient::Start() {
  asio::post(io_, [this] {
    for (auto& slot : slots_) Connect(*slot);
  });
}

void MarketClient::Stop() {
  asio::post(io_, [this] {
    stopped_ = true;
    for (auto& slot : slots_) {
      slot->retry.cancel();
      if (slot->link) {
        slot->link->Detach();
        slot->link->Close();
        slot->link.reset();
      }
    }
  });
}

void MarketClient::Connect(Slot& slot) {
  if (stopped_) return;
  // A name, not an address, is looked up here (once per attempt; not on a hot path).
  auto endpoint = EndpointOf(io_, market_, "--market");
  if (!endpoint.ok()) return Dropped(slot, endpoint.status(), false);
  slot.link = std::make_shared<MarketLink>(*this, slot);
  slot.link->Connect(*endpoint);
}

void MarketClient::WarnAtMostEvery10s(const std::string& what) {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_warning_ <= std::chrono::seconds(10)) return;
  last_warning_ = now;
  spdlog::warn("{}", what);
}

void MarketClient::Dropped(Slot& slot, const Status& why, bool hello_failed) {
  slot.link.reset();
  if (stopped_) return;
  if (hello_failed) {
    spdlog::error("the market emulator {} refused this Brokerage House: {}", ToString(market_),
                  why.message());
    stopped_ = true;  // retrying cannot help
    return;
  }
  WarnAtMostEvery10s(fmt::format(
      "market emulator {}: {}; trades not sent stay pending for Trade-Cleanup; retrying every "
      "second",
      ToString(market_), why.message()));
  slot.retry.expires_after(std::chrono::seconds(1));
  slot.retry.async_wait([this, &slot](error_code ec) {
    if (!ec) Connect(slot);
  });
}

void MarketClient::Enqueue(pr::MarketTradeRequest& request) {
  // Round-robin over the connections that are up.
  for (std::size_t tries = 0; tries < slots_.size(); ++tries) {
    auto& link = slots_[next_++ % slots_.size()]->link;
    if (!link || !link->ready() || link->unsent() >= net::Link::kMaxUnsentBytes) continue;
    request.sent_at = WallMicros();
    link->Append(request, next_request_id_++);  // Send flushes the batch
    stats_.market_sent.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  stats_.market_failed.fetch_add(1, std::memory_order_relaxed);
  WarnAtMostEvery10s(
      fmt::format("trade {} not sent: no connection to the market emulator {} is up or its "
                  "queue is full; it stays pending for Trade-Cleanup",
                  request.trade_id, ToString(market_)));
}

void MarketClient::Send(std::vector<pr::MarketTradeRequest>& requests) {
  asio::post(io_, [this, batch = std::move(requests)]() mutable {
    for (auto& r : batch) Enqueue(r);
    for (auto& slot : slots_) {
      if (slot->link) slot->link->Flush();
    }
  });
  requests.clear();
}

}  // namespace bb::bh
