#include "brokerage_house/reply_batcher.h"

namespace bb::bh {

// A batch's bytes beyond this (a burst of large replies) are given back once it is handed over.
constexpr std::size_t kKeepBatchBytes = 256 * 1024;

void ReplyBatcher::Push(std::shared_ptr<ReplyTarget>&& target, std::span<const uint8_t> frame) {
  bool first = false;
  {
    std::lock_guard lock(mutex_);
    first = queued_.entries.empty();
    queued_.entries.push_back({std::move(target), queued_.bytes.size(), frame.size()});
    queued_.bytes.insert(queued_.bytes.end(), frame.begin(), frame.end());
  }
  if (first) asio::post(io_, [this] { Drain(); });
}

void ReplyBatcher::Drain() {
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

}  // namespace bb::bh
