#include "brokerage_house/market_client.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/protocol/codec.h"
#include "common/protocol/frame.h"
#include "common/util/clock.h"

namespace bb::bh {

namespace pr = protocol;

struct MarketClient::Link {
  explicit Link(asio::strand<asio::io_context::executor_type>& strand)
      : socket(strand), retry(strand) {}
  StreamSocket socket;
  asio::steady_timer retry;
  bool ready = false;  // connected and hello accepted
  bool connecting = false;
  bool writing = false;
  std::deque<std::vector<uint8_t>> queue;  // encoded frames
  std::array<uint8_t, pr::kFrameHeaderBytes> header{};
  std::vector<uint8_t> body;
};

MarketClient::MarketClient(asio::io_context& io, HostPort market, int connections,
                           const ServerIdentity& identity, Stats& stats)
    : io_(io),
      strand_(asio::make_strand(io)),
      market_(std::move(market)),
      identity_(identity),
      stats_(stats) {
  for (int i = 0; i < connections; ++i) links_.push_back(std::make_unique<Link>(strand_));
}

MarketClient::~MarketClient() = default;

void MarketClient::Start() {
  asio::post(strand_, [this] {
    for (auto& link : links_) Connect(*link);
  });
}

void MarketClient::Stop() {
  asio::post(strand_, [this] {
    stopped_ = true;
    for (auto& link : links_) {
      error_code ec;
      link->retry.cancel();
      link->socket.close(ec);
      link->ready = false;
    }
  });
}

void MarketClient::Connect(Link& link) {
  if (stopped_ || link.connecting) return;
  link.connecting = true;
  // A name, not an address, is looked up here (once per attempt; not on a hot path).
  auto endpoint = EndpointOf(io_, market_, "--market");
  if (!endpoint.ok()) {
    link.connecting = false;
    Drop(link, endpoint.status().message());
    return;
  }
  link.socket.async_connect(*endpoint, [this, &link](error_code ec) {
    link.connecting = false;
    if (ec) {
      Drop(link, fmt::format("cannot connect to the market emulator {}: {}", ToString(market_),
                             ec.message()));
      return;
    }
    SetNoDelay(link.socket);
    pr::Hello hello{pr::kProtocolVersion, identity_.component, identity_.customers_total,
                    identity_.scale_factor, identity_.initial_trade_days};
    std::vector<uint8_t> frame;
    pr::Writer w(frame);
    (void)pr::EncodeFrame(hello, 0, w);
    link.queue.push_front(std::move(frame));  // before anything queued meanwhile
    link.ready = true;
    Write(link);
    ReadAcks(link);
  });
}

void MarketClient::Drop(Link& link, const std::string& why) {
  error_code ec;
  link.socket.close(ec);
  link.ready = false;
  link.writing = false;
  if (!link.queue.empty()) {
    stats_.market_failed.fetch_add(link.queue.size(), std::memory_order_relaxed);
    link.queue.clear();
  }
  auto now = std::chrono::steady_clock::now();
  if (now - last_warning_ > std::chrono::seconds(10)) {
    last_warning_ = now;
    spdlog::warn("{}; trades not sent stay pending for Trade-Cleanup; retrying every second", why);
  }
  if (stopped_) return;
  link.retry.expires_after(std::chrono::seconds(1));
  link.retry.async_wait([this, &link](error_code ec) {
    if (!ec) Connect(link);
  });
}

void MarketClient::ReadAcks(Link& link) {
  asio::async_read(
      link.socket, asio::buffer(link.header), [this, &link](error_code ec, std::size_t) {
        if (ec) {
          if (!stopped_)
            Drop(link, fmt::format("market emulator connection lost: {}", ec.message()));
          return;
        }
        auto parsed = pr::ParseFrameHeader(link.header);
        if (parsed.state != pr::FrameHeaderParser::State::kGood) {
          Drop(link, "market emulator sent a bad frame: " + parsed.status.message());
          return;
        }
        link.body.resize(parsed.header.body_length);
        asio::async_read(
            link.socket, asio::buffer(link.body),
            [this, &link, type = parsed.header.type](error_code ec, std::size_t) {
              if (ec) {
                if (!stopped_)
                  Drop(link, fmt::format("market emulator connection lost: {}", ec.message()));
                return;
              }
              if (type == pr::MessageType::kHelloReply) {
                pr::HelloReply reply;
                if (pr::Decode(link.body, reply).ok() && !reply.accepted) {
                  spdlog::error("the market emulator refused this Brokerage House: {}",
                                reply.reason);
                  stopped_ = true;  // retrying cannot help: the sizing differs
                  Drop(link, "market emulator refused the hello");
                  return;
                }
              }
              ReadAcks(link);  // acks and errors are only counted by the emulator's own log
            });
      });
}

void MarketClient::Write(Link& link) {
  if (link.writing || link.queue.empty() || !link.ready) return;
  link.writing = true;
  asio::async_write(
      link.socket, asio::buffer(link.queue.front()), [this, &link](error_code ec, std::size_t) {
        link.writing = false;
        if (ec) {
          if (!stopped_)
            Drop(link, fmt::format("sending to the market emulator failed: {}", ec.message()));
          return;
        }
        link.queue.pop_front();
        stats_.market_sent.fetch_add(1, std::memory_order_relaxed);
        Write(link);
      });
}

void MarketClient::Enqueue(pr::MarketTradeRequest& request) {
  // Round-robin over the connections that are up.
  for (std::size_t tries = 0; tries < links_.size(); ++tries) {
    Link& link = *links_[next_++ % links_.size()];
    if (!link.ready || link.queue.size() >= kMaxQueuedPerConnection) continue;
    request.sent_at = WallMicros();
    std::vector<uint8_t> frame;
    pr::Writer w(frame);
    if (!pr::EncodeFrame(request, next_request_id_++, w).ok()) break;
    link.queue.push_back(std::move(frame));
    Write(link);
    return;
  }
  stats_.market_failed.fetch_add(1, std::memory_order_relaxed);
  auto now = std::chrono::steady_clock::now();
  if (now - last_warning_ > std::chrono::seconds(10)) {
    last_warning_ = now;
    spdlog::warn(
        "trade {} not sent: no connection to the market emulator {} is up or its "
        "queue is full; it stays pending for Trade-Cleanup",
        request.trade_id, ToString(market_));
  }
}

void MarketClient::Send(std::vector<pr::MarketTradeRequest>& requests) {
  asio::post(strand_, [this, batch = std::move(requests)]() mutable {
    for (auto& r : batch) Enqueue(r);
  });
  requests.clear();
}

}  // namespace bb::bh
