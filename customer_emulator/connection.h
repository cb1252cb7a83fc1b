// Connection: one connection of the customer emulator to the Brokerage House, a net::Link
// (common/net/link.h: connect, the hello with the run's sizing, batched writes, frames cut out of
// a reused buffer). It adds the request bookkeeping the response time needs: each frame appended
// is registered with its requester's slot (Commit), and when a batch starts to be written (the
// moment the first byte of each of its requests goes out, spec 6.5) every slot in it is stamped
// with that time; a reply's end is the time of the read that delivered it.
//
// Ownership: shared (its pending operations hold it); Emulator::Impl keeps one per connection
// and outlives every handler (they run inside io_.run(), and every connection is closed before
// it returns). Thread-safety: the I/O thread only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/net/link.h"
#include "common/util/clock.h"
#include "customer_emulator/emulator_impl.h"

namespace bb::ce {

class Connection : public net::Link {
 public:
  Connection(Emulator::Impl& owner, uint32_t index)
      : Link(StreamSocket(owner.io()), IdentityOf(owner.options()), "Brokerage House"),
        owner_(owner),
        index_(index) {}

  uint32_t index() const { return index_; }
  // The buffer the next request frame is appended to; Commit after appending.
  std::vector<uint8_t>& next_buffer() { return out(); }
  // Registers the frame just appended for `slot` and writes it if no write is in flight;
  // otherwise it goes out with the next batch.
  void Commit(uint32_t slot) {
    next_slots_.push_back(slot);
    Flush();
  }
  // Closes and reports the loss to the owner (which logs the outstanding requests).
  void Lose(const std::string& why) {
    if (closed()) return;
    lost_ = Status::Unavailable(why);
    Close();
  }

 private:
  static net::Identity IdentityOf(const EmulatorOptions& o) {
    return {o.component, o.sizing.customers, static_cast<int32_t>(o.sizing.scale_factor),
            static_cast<int32_t>(o.sizing.initial_trade_days)};
  }
  void OnReady(const std::string& component) override { owner_.OnHelloReply(*this, component); }
  void OnFrame(const protocol::FrameHeader& header, std::span<const uint8_t> body) override {
    owner_.OnReply(*this, header, body, read_us());
  }
  void OnSending() override {
    const int64_t mono = MonotonicMicros();
    for (uint32_t slot : next_slots_) owner_.OnWriteStarted(slot, mono);
    next_slots_.clear();
  }
  // A close the owner asked for (the run is over) is not reported.
  void OnClosed(const Status& why) override {
    const Status& lost = why.ok() ? lost_ : why;
    if (!lost.ok()) owner_.OnConnectionLost(*this, lost);
  }

  Emulator::Impl& owner_;
  uint32_t index_;
  std::vector<uint32_t> next_slots_;  // requesters of the frames not yet being written
  Status lost_;
};

}  // namespace bb::ce
