#include "common/util/metrics_server.h"

#include <algorithm>
#include <array>
#include <utility>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/util/metrics_request.h"
#include "common/util/metrics_text.h"
#include "common/util/port_file.h"

namespace bb {

namespace {

constexpr std::string_view kPath = "/metrics";
constexpr std::string_view kPlainText = "text/plain; charset=utf-8";
// What a connection beyond the limit is told, written at once without waiting.
constexpr std::string_view kBusy =
    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
    "Content-Length: 32\r\nConnection: close\r\n\r\ntoo many connections; try again\n";
static_assert(kBusy.size() - kBusy.find("\r\n\r\n") - 4 == 32);

}  // namespace

// One scraper's connection: read the request head (bounded), answer once, then read until
// the client closes (so that its unread bytes do not turn our close into a reset that could
// destroy the answer in flight), all within the deadline. Lives while an operation is pending.
class MetricsServer::Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(StreamSocket socket, std::shared_ptr<const Render> render,
             const MetricsServerLimits& limits)
      : socket_(std::move(socket)),
        deadline_(socket_.get_executor()),
        render_(std::move(render)),
        in_(limits.max_request_bytes) {
    deadline_.expires_after(limits.deadline);
  }

  void Start() {
    deadline_.async_wait([self = shared_from_this()](const error_code& ec) {
      if (!ec) self->Close();
    });
    Read();
  }

  void Close() {
    error_code ignored;
    socket_.close(ignored);
    deadline_.cancel();
  }

 private:
  void Read() {
    socket_.async_read_some(asio::buffer(in_.data() + filled_, in_.size() - filled_),
                            [self = shared_from_this()](const error_code& ec, size_t n) {
                              if (ec) {
                                self->Close();
                                return;
                              }
                              self->filled_ += n;
                              self->OnRead();
                            });
  }

  void OnRead() {
    const RequestHead head = ParseRequestHead(std::string_view(in_.data(), filled_));
    switch (head.state) {
      case RequestHead::State::kIncomplete:
        if (filled_ < in_.size()) {
          Read();
        } else {
          Answer("431 Request Header Fields Too Large", kPlainText,
                 fmt::format("the request head is over {} bytes\n", in_.size()));
        }
        return;
      case RequestHead::State::kBad:
        Answer("400 Bad Request", kPlainText,
               fmt::format("not an HTTP/1.x request: {}\n", head.why));
        return;
      case RequestHead::State::kGood:
        break;
    }
    const std::string_view path = head.target.substr(0, head.target.find('?'));
    if (path != kPath) {
      Answer("404 Not Found", kPlainText, "only /metrics is served here\n");
    } else if (head.method != "GET") {
      Answer("405 Method Not Allowed", kPlainText, "/metrics takes GET only\n", "Allow: GET\r\n");
    } else {
      Answer("200 OK", OpenMetricsText::kContentType, (*render_)());
    }
  }

  void Answer(std::string_view status, std::string_view content_type, std::string body,
              std::string_view extra_headers = {}) {
    body_ = std::move(body);
    head_ = fmt::format(
        "HTTP/1.1 {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n{}Connection: close\r\n\r\n",
        status, content_type, body_.size(), extra_headers);
    const std::array<asio::const_buffer, 2> buffers{asio::buffer(head_), asio::buffer(body_)};
    asio::async_write(socket_, buffers, [self = shared_from_this()](const error_code& ec, size_t) {
      if (ec) {
        self->Close();
        return;
      }
      error_code ignored;
      self->socket_.shutdown(StreamSocket::shutdown_send, ignored);
      self->Drain();
    });
  }

  // After the answer: discard what the client still sends until it closes (or the deadline).
  void Drain() {
    socket_.async_read_some(asio::buffer(in_),
                            [self = shared_from_this()](const error_code& ec, size_t) {
                              if (ec) {
                                self->Close();
                                return;
                              }
                              self->Drain();
                            });
  }

  StreamSocket socket_;
  asio::steady_timer deadline_;
  std::shared_ptr<const Render> render_;
  std::vector<char> in_;  // the request head, at most max_request_bytes
  size_t filled_ = 0;
  std::string head_, body_;  // the answer, while it is written
};

MetricsServer::MetricsServer(asio::io_context& io, Render render, MetricsServerLimits limits)
    : render_(std::make_shared<const Render>(std::move(render))),
      limits_(limits),
      acceptor_(io),
      accept_retry_(io) {}

MetricsServer::~MetricsServer() { Close(); }

Status MetricsServer::Start(const HostPort& address, const std::string& port_file) {
  if (Status s = Listen(acceptor_, address, "--metrics-listen"); !s.ok()) return s;
  port_ = BoundPort(acceptor_);
  if (address.is_unix()) {
    spdlog::info("metrics on {}: GET /metrics", ToString(address));
  } else {
    if (!port_file.empty()) {
      if (Status s = WritePortFile(port_file, port_, "--metrics-port-file"); !s.ok()) return s;
    }
    spdlog::info("metrics on http://{}/metrics", ToString(HostPort(address.host, port_)));
  }
  Accept();
  return Status::Ok();
}

void MetricsServer::Accept() {
  acceptor_.async_accept([this](const error_code& ec, StreamSocket socket) {
    if (closed_) return;
    if (ec) {
      // Out of file descriptors, say: try again a little later rather than spin.
      spdlog::warn("metrics endpoint: accept: {}", ec.message());
      accept_retry_.expires_after(std::chrono::milliseconds(100));
      accept_retry_.async_wait([this](const error_code& e) {
        if (!e && !closed_) Accept();
      });
      return;
    }
    std::erase_if(connections_, [](const auto& c) { return c.expired(); });
    if (static_cast<int>(connections_.size()) >= limits_.max_connections) {
      // A fresh socket's send buffer takes these few bytes at once: no wait, nothing pending.
      error_code ignored;
      socket.non_blocking(true, ignored);
      socket.write_some(asio::buffer(kBusy), ignored);
      socket.shutdown(StreamSocket::shutdown_send, ignored);
      socket.close(ignored);
    } else {
      auto connection = std::make_shared<Connection>(std::move(socket), render_, limits_);
      connections_.push_back(connection);
      connection->Start();
    }
    Accept();
  });
}

void MetricsServer::Close() {
  if (closed_) return;
  closed_ = true;
  error_code ignored;
  acceptor_.close(ignored);
  accept_retry_.cancel();
  for (auto& weak : connections_) {
    if (auto c = weak.lock()) c->Close();
  }
  connections_.clear();
}

}  // namespace bb
