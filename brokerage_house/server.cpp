#include "brokerage_house/server.h"

#include <csignal>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/util/port_file.h"

namespace bb::bh {

Server::Server(ServerOptions options, RunnerFactory factory)
    : Server(std::move(options), MakeWorkerLanes(std::move(factory))) {}

Server::Server(ServerOptions options, LanesFactory factory)
    : options_(std::move(options)),
      factory_(std::move(factory)),
      acceptor_(io_),
      accept_(acceptor_, [this](StreamSocket&& socket) { Accepted(std::move(socket)); }),
      signals_(io_, SIGINT, SIGTERM),
      summary_timer_(io_) {}

Server::~Server() {
  if (drainer_.joinable()) drainer_.join();
}

Status Server::Run() {
  if (options_.market) {
    market_ = std::make_unique<MarketClient>(io_, *options_.market, options_.market_connections,
                                             options_.identity, stats_);
  }
  MarketSink sink = [this](std::vector<protocol::MarketTradeRequest>& requests) {
    if (market_) {
      market_->Send(requests);
    } else {
      stats_.market_failed.fetch_add(requests.size(), std::memory_order_relaxed);
      requests.clear();
    }
  };
  dispatcher_ =
      std::make_unique<Dispatcher>(io_, replies_, stats_, std::move(sink),
                                   DispatcherSettings{options_.workers, options_.queue_capacity});
  if (Status started = dispatcher_->Start(factory_); !started.ok()) return started;

  if (Status listened = Listen(acceptor_, options_.listen, "--listen"); !listened.ok()) {
    dispatcher_.reset();  // nothing was taken; the I/O loop never ran
    return listened;
  }
  port_ = BoundPort(acceptor_);
  listening_ = true;
  spdlog::info("listening on {} with {} DB workers",
               options_.listen.is_unix() ? ToString(options_.listen)
                                         : fmt::format("{}:{}", options_.listen.host, port_.load()),
               options_.workers);
  if (!options_.port_file.empty() && !options_.listen.is_unix()) {
    if (Status written = WritePortFile(options_.port_file, port_.load()); !written.ok()) {
      dispatcher_.reset();  // as above: nothing was taken, the I/O loop never ran
      return written;
    }
  }
  if (market_) market_->Start();
  signals_.async_wait([this](error_code e, int signal) {
    if (!e) {
      spdlog::info("signal {}: stopping gracefully", signal);
      BeginShutdown();
    }
  });
  last_summary_ = std::chrono::steady_clock::now();
  Summary();
  accept_.Start();
  io_.run();
  spdlog::info("stopped: {}", stats_.SummaryLine(0));
  if (!options_.stats_file.empty()) return stats_.WriteCsv(options_.stats_file);
  return Status::Ok();
}

void Server::Stop() {
  asio::post(io_, [this] { BeginShutdown(); });
}

// The socket has the acceptor's executor, io_'s own: no strand (see the class comment).
void Server::Accepted(StreamSocket&& socket) {
  auto client = std::make_shared<ClientConnection>(std::move(socket), *dispatcher_, stats_,
                                                   options_.identity);
  client->Start();
  std::erase_if(clients_, [](const auto& w) { return w.expired(); });
  clients_.push_back(client);
}

void Server::Summary() {
  if (shutting_down_ || options_.summary_seconds <= 0) return;
  summary_timer_.expires_after(std::chrono::seconds(options_.summary_seconds));
  summary_timer_.async_wait([this](error_code ec) {
    if (ec) return;
    auto now = std::chrono::steady_clock::now();
    spdlog::info("{}",
                 stats_.SummaryLine(std::chrono::duration<double>(now - last_summary_).count()));
    last_summary_ = now;
    Summary();
  });
}

// Stops the I/O loop once every client has closed (their last replies written), or at the
// deadline: a peer that never reads cannot hold the server up.
void Server::WaitForClients(std::chrono::steady_clock::time_point deadline) {
  std::erase_if(clients_, [](const auto& w) { return w.expired(); });
  if (clients_.empty() || std::chrono::steady_clock::now() >= deadline) {
    io_.stop();
    return;
  }
  summary_timer_.expires_after(std::chrono::milliseconds(50));
  summary_timer_.async_wait([this, deadline](error_code ec) {
    if (!ec) WaitForClients(deadline);
  });
}

void Server::BeginShutdown() {
  if (shutting_down_) return;
  shutting_down_ = true;
  stopping_guard_.emplace(io_.get_executor());
  error_code ec;
  acceptor_.close(ec);
  accept_.Stop();
  signals_.cancel(ec);
  summary_timer_.cancel();
  // Draining blocks, so it runs off the I/O thread; the I/O thread keeps delivering replies
  // until the queue is empty, then closes everything.
  drainer_ = std::thread([this] {
    dispatcher_->Stop();
    asio::post(io_, [this] {
      for (auto& weak : clients_) {
        if (auto client = weak.lock()) client->Stop();
      }
      if (market_) market_->Stop();
      WaitForClients(std::chrono::steady_clock::now() + std::chrono::seconds(10));
    });
  });
}

}  // namespace bb::bh
