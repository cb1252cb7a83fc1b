#include "brokerage_house/client_connection.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/protocol/message_type.h"
#include "common/protocol/reply.h"

namespace bb::bh {

namespace pr = protocol;

ClientConnection::ClientConnection(StreamSocket socket, Dispatcher& dispatcher, Stats& stats,
                                   const ServerIdentity& identity)
    : Link(std::move(socket), identity, "client"), dispatcher_(dispatcher), stats_(stats) {}

void ClientConnection::Start() {
  stats_.clients.fetch_add(1, std::memory_order_relaxed);
  Accept();
}

void ClientConnection::OnReady(const std::string& peer_component) {
  spdlog::info("{}: {} connected", name(), peer_component);
}

void ClientConnection::OnBadHeader(const Status&) {
  stats_.malformed_frames.fetch_add(1, std::memory_order_relaxed);
}

void ClientConnection::OnClosed(const Status&) {
  stats_.clients.fetch_sub(1, std::memory_order_relaxed);
}

void ClientConnection::OnFrame(const pr::FrameHeader& header, std::span<const uint8_t> body) {
  const uint64_t id = header.request_id;
  if (!pr::IsTransactionRequest(header.type)) {
    return AnswerError(id, pr::ErrorCode::kUnexpectedMessage,
                       fmt::format("{} is not a request a Brokerage House serves",
                                   pr::MessageTypeName(header.type)));
  }
  auto decoded = pr::DecodeMessage(header.type, body);
  if (!decoded.ok()) {
    stats_.malformed_frames.fetch_add(1, std::memory_order_relaxed);
    WarnOnce(decoded.status().message());
    return AnswerError(id, pr::ErrorCode::kMalformedFrame, decoded.status().message());
  }
  Owe();  // before Submit: the dispatcher may reply at once, from within it
  auto self = std::static_pointer_cast<ClientConnection>(shared_from_this());
  if (!dispatcher_.Submit(
          Job{std::move(self), id, header.type, std::move(decoded).value(), read_us()})) {
    Repaid();
    stats_.overloaded.fetch_add(1, std::memory_order_relaxed);
    AnswerError(id, pr::ErrorCode::kOverloaded, "the request queue is full");
  }
}

// Each call is the reply to one job the dispatcher took.
void ClientConnection::Queue(std::span<const uint8_t> frame) {
  Repaid();
  if (!closed()) out().insert(out().end(), frame.begin(), frame.end());
}

}  // namespace bb::bh
