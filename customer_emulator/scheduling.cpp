// The Customer Emulator's scheduling (emulator.h): Trade-Cleanup first, then the users' ramp-up
// and pacing on one timer, the Data-Maintenance period, START, and the pairing of each reply with
// its request by request id.
#include <algorithm>
#include <functional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/protocol/reply.h"
#include "common/util/clock.h"
#include "customer_emulator/connection.h"
#include "customer_emulator/emulator_impl.h"

namespace bb::ce {
namespace {

pr::MessageType RequestTypeOf(TT type) {
  switch (type) {
    case TT::kBrokerVolume:
      return pr::MessageType::kBrokerVolumeInput;
    case TT::kCustomerPosition:
      return pr::MessageType::kCustomerPositionInput;
    case TT::kMarketFeed:
      return pr::MessageType::kMarketFeedInput;
    case TT::kMarketWatch:
      return pr::MessageType::kMarketWatchInput;
    case TT::kSecurityDetail:
      return pr::MessageType::kSecurityDetailInput;
    case TT::kTradeLookup:
      return pr::MessageType::kTradeLookupInput;
    case TT::kTradeOrder:
      return pr::MessageType::kTradeOrderInput;
    case TT::kTradeResult:
      return pr::MessageType::kTradeResultInput;
    case TT::kTradeStatus:
      return pr::MessageType::kTradeStatusInput;
    case TT::kTradeUpdate:
      return pr::MessageType::kTradeUpdateInput;
    case TT::kDataMaintenance:
      return pr::MessageType::kDataMaintenanceInput;
    case TT::kTradeCleanup:
      return pr::MessageType::kTradeCleanupInput;
  }
  return pr::MessageType::kTradeStatusInput;
}

// Draws the inputs of a deck transaction and appends its frame.
Status EncodeDeckRequest(TT type, wl::InputGenerator& inputs, uint64_t id, pr::Writer& w) {
  switch (type) {
    case TT::kBrokerVolume:
      return pr::EncodeFrame(inputs.BrokerVolume(), id, w);
    case TT::kCustomerPosition:
      return pr::EncodeFrame(inputs.CustomerPosition(), id, w);
    case TT::kMarketWatch:
      return pr::EncodeFrame(inputs.MarketWatch(), id, w);
    case TT::kSecurityDetail:
      return pr::EncodeFrame(inputs.SecurityDetail(), id, w);
    case TT::kTradeLookup:
      return pr::EncodeFrame(inputs.TradeLookup(), id, w);
    case TT::kTradeOrder:
      return pr::EncodeFrame(inputs.TradeOrder(), id, w);
    case TT::kTradeStatus:
      return pr::EncodeFrame(inputs.TradeStatus(), id, w);
    case TT::kTradeUpdate:
      return pr::EncodeFrame(inputs.TradeUpdate(), id, w);
    default:
      return Status::InvalidArgument(
          fmt::format("{} is not a deck transaction", wl::TransactionCode(type)));
  }
}

}  // namespace

void Emulator::Impl::StartTradeCleanup() {
  phase_ = Phase::kCleanup;
  if (!options_.trade_cleanup) {
    StartUsers();
    return;
  }
  Connection* c = FirstLiveConnection();
  pr::Writer w(c->next_buffer());
  tc_.seq++;
  if (Status s = pr::EncodeFrame(dm_inputs_->TradeCleanup(), RequestId(tc_slot(), tc_.seq), w);
      !s.ok()) {
    Fail(s.WithContext("Trade-Cleanup"));
    return;
  }
  tc_.type = TT::kTradeCleanup;
  tc_.connection = c->index();
  tc_.outstanding = true;
  tc_.written = false;
  tc_.ready_us = MonotonicMicros();
  ++outstanding_;
  ++summary_->sent;
  spdlog::info("Trade-Cleanup");
  c->Commit(tc_slot());
}

void Emulator::Impl::StartUsers() {
  if (stopping_) return;
  phase_ = Phase::kRunning;
  const int64_t now = MonotonicMicros();
  // Users start within the ramp-up's first minute (user_start_spread); the rest of it runs at
  // full load, so that the pending limit orders (each waits up to 15 min for its price,
  // market_emulator/trading_floor.h) near their steady level before the measurement interval:
  // a backlog still growing in it holds back Trade-Results, which the mix and TRTPS would show.
  const auto ramp_up = std::chrono::duration_cast<std::chrono::microseconds>(options_.ramp_up);
  const int64_t spread_us = std::min<int64_t>(
      ramp_up.count(),
      std::chrono::duration_cast<std::chrono::microseconds>(options_.user_start_spread).count());
  spdlog::info("starting {} users over {} ms; measuring from {} ms", users_.size(),
               spread_us / 1000, ramp_up.count() / 1000);
  for (uint32_t i = 0; i < users_.size(); ++i) {
    Schedule(i, now + spread_us * i / static_cast<int64_t>(users_.size()));
  }
  ArmScheduler();
  duration_timer_.expires_after(ramp_up);
  duration_timer_.async_wait([this](const error_code& ec) {
    if (ec || finished_) return;
    ramp_up_over_ = true;
    MaybeMarkStart();
  });
  if (options_.dm_interval.count() > 0) {
    dm_due_us_ = now;
    SendDataMaintenance();
  }
}

void Emulator::Impl::Schedule(uint32_t user, int64_t due_us) { due_.emplace(due_us, user); }

// One timer serves every waiting user: it is armed for the earliest due time; a generation
// number makes a wait that was re-armed in the meantime do nothing.

void Emulator::Impl::ArmScheduler() {
  if (due_.empty() || stopping_) return;
  const int64_t earliest = due_.top().first;
  if (earliest >= scheduler_armed_for_) return;  // the armed wait comes first anyway
  scheduler_armed_for_ = earliest;
  const uint64_t generation = ++scheduler_generation_;
  scheduler_timer_.expires_at(SteadyAt(earliest));
  scheduler_timer_.async_wait([this, generation](const error_code& ec) {
    if (ec || finished_) return;
    OnScheduler(generation);
  });
}

void Emulator::Impl::OnScheduler(uint64_t generation) {
  if (generation != scheduler_generation_ || stopping_) return;
  scheduler_armed_for_ = INT64_MAX;
  const int64_t now = MonotonicMicros();
  while (!due_.empty() && due_.top().first <= now && !stopping_) {
    auto [due, user] = due_.top();
    due_.pop();
    Dispatch(user, due);
  }
  ArmScheduler();
}

void Emulator::Impl::Dispatch(uint32_t u, int64_t ready_us) {
  User& user = users_[u];
  Request& r = user.request;
  Connection& c = *connections_[r.connection];
  if (!c.ready()) return;  // its connection is gone: the user has stopped
  const TT type = deck_->Next();
  pr::Writer w(c.next_buffer());
  const uint32_t seq = r.seq + 1;
  if (Status s = EncodeDeckRequest(type, *inputs_, RequestId(u, seq), w); !s.ok()) {
    // A generated input the codec refuses is a bug in the generator: stop this user, loudly.
    spdlog::error("user {}: cannot encode {}: {}", u, wl::TransactionCode(type), s.message());
    return;
  }
  r.seq = seq;
  r.type = type;
  r.inputs = inputs_->variant();
  r.outstanding = true;
  r.written = false;
  r.ready_us = ready_us;
  ++outstanding_;
  ++summary_->sent;
  c.Commit(u);
}

void Emulator::Impl::OnWriteStarted(uint32_t slot, int64_t mono_us) {
  Request& r = RequestOf(slot);
  r.written = true;
  r.sent_us = mono_us;
  if (slot >= users_.size()) return;
  summary_->dispatch_lateness.Record(mono_us - r.ready_us);
  User& user = users_[slot];
  if (!user.started) {
    user.started = true;
    ++summary_->users_started;
    MaybeMarkStart();
  }
}

// START once the ramp-up's time is over and every user has sent (or its connection is gone).

void Emulator::Impl::MaybeMarkStart() {
  if (summary_->started || stopping_ || !ramp_up_over_ || summary_->users_started == 0 ||
      summary_->users_started + users_never_started_ != static_cast<int>(users_.size())) {
    return;
  }
  log_->Mark("START");
  summary_->started = true;
  start_marker_us_ = MonotonicMicros();
  spdlog::info("START: {} users running; measuring for {} ms", summary_->users_started,
               options_.duration.count());
  duration_timer_.expires_after(options_.duration);
  duration_timer_.async_wait([this](const error_code& ec) {
    if (ec || finished_) return;
    BeginStop();
  });
}

void Emulator::Impl::SendDataMaintenance() {
  if (stopping_ || finished_) return;
  Connection* c = FirstLiveConnection();
  if (dm_.outstanding) {
    spdlog::warn("Data-Maintenance: the previous one has not answered yet; this one is skipped");
  } else if (c != nullptr) {
    const auto table = static_cast<pr::MaintenanceTable>(dm_next_table_);
    dm_next_table_ = (dm_next_table_ + 1) % (pr::kMaxMaintenanceTable + 1);
    pr::Writer w(c->next_buffer());
    const uint32_t seq = dm_.seq + 1;
    if (Status s =
            pr::EncodeFrame(dm_inputs_->DataMaintenance(table), RequestId(dm_slot(), seq), w);
        !s.ok()) {
      spdlog::error("Data-Maintenance {}: {}", pr::MaintenanceTableName(table), s.message());
    } else {
      dm_.seq = seq;
      dm_.type = TT::kDataMaintenance;
      dm_.connection = c->index();
      dm_.outstanding = true;
      dm_.written = false;
      dm_.ready_us = dm_due_us_;
      ++outstanding_;
      ++summary_->sent;
      c->Commit(dm_slot());
    }
  }
  // A steady 60 s period from the first one: the interval between DMs stays 60 s (58-62 s,
  // clause 6.3.3) however long each takes.
  dm_due_us_ += std::chrono::duration_cast<std::chrono::microseconds>(options_.dm_interval).count();
  dm_timer_.expires_at(SteadyAt(dm_due_us_));
  dm_timer_.async_wait([this](const error_code& ec) {
    if (ec || finished_) return;
    SendDataMaintenance();
  });
}

void Emulator::Impl::OnReply(Connection& c, const pr::FrameHeader& header,
                             std::span<const uint8_t> body, int64_t end_us) {
  if (finished_) return;
  const auto slot = static_cast<uint32_t>(header.request_id & 0xffffffffu);
  const auto seq = static_cast<uint32_t>(header.request_id >> 32);
  if (slot > tc_slot() || !RequestOf(slot).outstanding || RequestOf(slot).seq != seq ||
      RequestOf(slot).connection != c.index()) {
    ++summary_->unexpected_replies;
    if (warnings_++ < kMaxWarnings) {
      spdlog::warn("connection {}: a {} with request id {} answers no outstanding request",
                   c.index(), pr::MessageTypeName(header.type), header.request_id);
    }
    return;
  }
  Request& r = RequestOf(slot);
  if (header.type == pr::MessageType::kErrorReply) {
    pr::ErrorReply error;
    Status s = pr::Decode(body, error);
    if (warnings_++ < kMaxWarnings) {
      spdlog::warn("{} answered with an error: {}", wl::TransactionCode(r.type),
                   s.ok() ? error.text : s.message());
    }
    EndRequest(slot, pr::Outcome::kNetError, 0, 0, end_us, /*reply=*/true);
    AfterReply(slot, end_us);
    return;
  }
  if (!pr::IsReplyTo(header.type, RequestTypeOf(r.type))) {
    c.Lose(fmt::format("a {} answers a {} request", pr::MessageTypeName(header.type),
                       pr::MessageTypeName(RequestTypeOf(r.type))));
    return;
  }
  // Only the reply's leading status is read, which is all a mix row needs (no allocation).
  pr::ReplyHead head;
  if (Status s = pr::DecodeReplyHead(header.type, body, head); !s.ok()) {
    c.Lose(s.message());
    return;
  }
  EndRequest(slot, head.outcome, head.spec_status, head.retries, end_us, /*reply=*/true,
             head.trade_id);
  AfterReply(slot, end_us);
}

void Emulator::Impl::AfterReply(uint32_t slot, int64_t end_us) {
  if (slot == tc_slot()) {
    spdlog::info("Trade-Cleanup done in {} ms", (end_us - tc_.sent_us) / 1000);
    StartUsers();
  } else if (slot < users_.size() && !stopping_) {
    if (options_.pacing.count() == 0) {
      Dispatch(slot, end_us);
    } else {
      // Start to start (emulator.h): the next request is due P after this one was.
      Schedule(slot, std::max(end_us, users_[slot].request.ready_us + options_.pacing.count()));
      ArmScheduler();
    }
  }
  if (stopping_ && outstanding_ == 0) Finish();
}

}  // namespace bb::ce
