#include "brokerage_house/reply_queue.h"

#include <string>

#include <spdlog/spdlog.h>

namespace bb::bh {

namespace pr = protocol;

// A batch's bytes beyond this (a burst of large replies) are given back once it is handed over.
constexpr std::size_t kKeepBatchBytes = 256 * 1024;

void ReplyQueue::Push(std::shared_ptr<ReplyTarget>&& target, std::span<const uint8_t> frame) {
  bool first = false;
  {
    std::lock_guard lock(mutex_);
    first = queued_.entries.empty();
    queued_.entries.push_back({std::move(target), queued_.bytes.size(), frame.size()});
    queued_.bytes.insert(queued_.bytes.end(), frame.begin(), frame.end());
  }
  if (first) asio::post(io_, [this] { Drain(); });
}

void ReplyQueue::Drain() {
  {
    std::lock_guard lock(mutex_);
    std::swap(queued_, draining_);
  }
  for (const Entry& e : draining_.entries) {
    e.target->Queue(std::span<const uint8_t>(draining_.bytes.data() + e.offset, e.size));
  }
  for (const Entry& e : draining_.entries) e.target->Flush();
  draining_.entries.clear();  // lets go of the targets
  draining_.bytes.clear();
  if (draining_.bytes.capacity() > kKeepBatchBytes) draining_.bytes.shrink_to_fit();
}

void StampServerTime(pr::Message& reply, int64_t micros) {
  std::visit(
      [&](auto& r) {
        if constexpr (requires { r.status.server_micros; }) r.status.server_micros = micros;
      },
      reply);
}

const pr::ReplyStatus* StatusOf(const pr::Message& reply) {
  return std::visit(
      [](const auto& r) -> const pr::ReplyStatus* {
        if constexpr (requires { r.status.outcome; }) {
          return &r.status;
        } else {
          return nullptr;
        }
      },
      reply);
}

void EncodeReply(const pr::Message& reply, uint64_t request_id, std::vector<uint8_t>& out) {
  pr::Writer w(out);
  Status s = pr::EncodeFrame(reply, request_id, w);  // on failure it appends nothing
  if (s.ok()) return;
  spdlog::error("cannot encode the reply to request {}: {}", request_id, s.message());
  std::string text =
      ("server could not encode its reply: " + s.message()).substr(0, pr::width::kReason);
  (void)pr::EncodeFrame(pr::ErrorReply{pr::ErrorCode::kInternal, text}, request_id, w);
}

}  // namespace bb::bh
