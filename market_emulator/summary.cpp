// The market emulator's reports: the periodic summary line, the metrics endpoint's exposition,
// the failed and pending trade files, the end-of-run record and the final line (emulator.h).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/util/metrics_text.h"
#include "market_emulator/emulator_impl.h"

namespace bb::mee {

// What the market holds at the end: orders it has not finished with are pending (written whole
// to pending-trades.csv), a Trade-Result due but not delivered is a failure; then the final line.
void MarketEmulator::Impl::WriteUnfinished() {
  // Orders the market has not finished with are pending, not failed; a Trade-Result due but not
  // delivered is a failure.
  std::string pending = "trade_id,code,state\n";
  std::array<int64_t, 3> by_state{};
  for (const auto& u : floor_.TakeUnfinished()) {
    ++by_state[static_cast<size_t>(u.state)];
    if (IsPending(u.state)) {
      fmt::format_to(std::back_inserter(pending), "{},TR,{}\n", u.trade_id,
                     UnfinishedName(u.state));
    } else {
      Fail(u.trade_id, "TR", UnfinishedName(u.state));
    }
  }
  const int64_t armed = by_state[static_cast<size_t>(Unfinished::kLimitTriggerArmed)];
  const int64_t completing = by_state[static_cast<size_t>(Unfinished::kInCompletionDelay)];
  const int64_t unsent = by_state[static_cast<size_t>(Unfinished::kTradeResultNotSent)];
  stats_.pending_at_stop.store(armed + completing);
  stats_.unfinished_at_stop.store(armed + completing + unsent);
  RefreshGauges();
  pending_written_ = WritePending(pending);
  if (unsent > 0) {
    spdlog::error("{} Trade-Results were due but not sent at stop: failed, in {}/{}", unsent,
                  options_.out_dir, kFailedName);
  }
  spdlog::info(
      "stopped: {} orders received ({} limit orders triggered into the ticker), {} refused, {} "
      "Trade-Results and {} Market-Feeds delivered, {} lost in flight; pending at stop {} ({} "
      "limit triggers armed, {} in their completion delay; in {}); {} lines in {}",
      stats_.orders_received.load(), floor_.limits_triggered(), stats_.orders_refused.load(),
      stats_.trade_results_delivered.load(), stats_.market_feeds_delivered.load(),
      stats_.lost_in_flight.load(), armed + completing, armed, completing, kPendingName,
      failed_.lines(), kFailedName);
}

// The end-of-run record (postprocess/MIXLOG.md): the final line's figures, for the programs that
// account for the orders; the line is for people and nothing parses it.
EndOfRunRecord MarketEmulator::Impl::EndRecord(const Status& result) const {
  EndOfRunRecord r;
  r.Add("program", "bb-market-emulator");
  r.Add("mix_log", kMixLogName);
  r.Add("stop", !result.ok() ? "error" : signalled_ ? "signal" : "request");
  if (!result.ok()) r.Add("error", result.message());
  r.Add("orders_received", stats_.orders_received.load());
  r.Add("limit_orders_triggered", floor_.limits_triggered());
  r.Add("orders_refused", stats_.orders_refused.load());
  r.Add("trade_results_sent", stats_.trade_results_sent.load());
  r.Add("trade_results_delivered", stats_.trade_results_delivered.load());
  r.Add("market_feeds_delivered", stats_.market_feeds_delivered.load());
  r.Add("delivery_errors", stats_.delivery_errors.load());
  r.Add("resent", stats_.resent.load());
  r.Add("lost_in_flight", stats_.lost_in_flight.load());
  r.Add("in_flight", static_cast<int64_t>(InFlightCount()));
  r.Add("pending", stats_.pending_at_stop.load());
  r.Add("unsent_at_stop", stats_.unfinished_at_stop.load() - stats_.pending_at_stop.load());
  r.Add("failed_lines", failed_.lines());
  return r;
}

void MarketEmulator::Impl::Fail(int64_t trade_id, std::string_view code, std::string_view reason) {
  // Line-buffered, so a full disk shows here at once. Posted: our caller may be in the middle of
  // a delivery that the stop would tear down.
  if (Status s = failed_.Append(trade_id, code, reason); !s.ok()) {
    asio::post(io_, [this, s] { StopOnError(s); });
  }
}

// Written whole and renamed into place: the file exists only once the emulator has reached its
// end, so a reader tells "nothing pending" from "the emulator never got there" (killed).
Status MarketEmulator::Impl::WritePending(const std::string& text) {
  const std::string path = options_.out_dir + "/" + kPendingName;
  const std::string part = path + ".part";
  std::ofstream out(part, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out || std::rename(part.c_str(), path.c_str()) != 0) {
    Status s = Status::IoError(fmt::format("{}: {}", path, std::strerror(errno)));
    spdlog::error("{}", s.message());
    return s;
  }
  return {};
}

void MarketEmulator::Impl::Summary() {
  if (options_.summary_seconds <= 0 || stopping_) return;
  summary_timer_.expires_after(std::chrono::seconds(options_.summary_seconds));
  summary_timer_.async_wait([this](error_code ec) {
    if (ec) return;
    const auto now = Clock::now();
    const double seconds = std::chrono::duration<double>(now - last_summary_).count();
    const int64_t mf = stats_.market_feeds_delivered.load();
    const size_t in_flight = InFlightCount();
    // For people: nothing parses this line (the controller's progress line scrapes the metrics
    // endpoint, the report reads the end-of-run record).
    spdlog::info(
        "pending {} (timers {}, triggers {}), due-unsent {}, in flight {}, TR/s {:.1f}, TR p90 {}, "
        "MF/s {:.1f}, received {}, refused {}, errors {}, lost in flight {}, busy {}, re-sent {}, "
        "links up {}/{}",
        floor_.pending(), floor_.armed_count(), floor_.trigger_count(), floor_.due_count(),
        in_flight, static_cast<double>(tr_interval_.count()) / seconds,
        tr_interval_.count() > 0
            ? fmt::format("{:.1f} ms", static_cast<double>(tr_interval_.Percentile(0.9)) / 1000)
            : std::string("-"),
        (mf - last_mf_) / seconds, stats_.orders_received.load(), stats_.orders_refused.load(),
        stats_.delivery_errors.load(), stats_.lost_in_flight.load(), stats_.bh_busy.load(),
        stats_.resent.load(), stats_.links_up.load(), slots_.size());
    last_summary_ = now;
    tr_interval_ = {};
    last_mf_ = mf;
    Summary();
  });
}

// // The metrics endpoint (README, "Live metrics").

void MarketEmulator::Impl::CountRow(const MixRow& row, bool is_tr, bool reply) {
  const size_t type = is_tr ? 0 : 1;
  ++rows_by_type_[type];
  ++rows_by_outcome_[row.outcome];
  // As the customer emulator's: the response times of the replies that are not errors.
  const auto outcome = static_cast<pr::Outcome>(row.outcome);
  if (reply && outcome <= pr::Outcome::kInvalid) response_by_type_[type].Record(row.response_us);
}

// The family names the customer emulator uses too, so that a scraper adds the two up by type;
// then the market's own (brokerbench_mee_*). Read on the I/O thread that keeps the numbers.
std::string MarketEmulator::Impl::MetricsText() const {
  static constexpr std::string_view kTypes[] = {"TR", "MF"};
  static constexpr std::string_view kPhases[] = {"connecting", "delivering", "stopping"};
  OpenMetricsText text;
  text.Counter("brokerbench_transactions", "Transactions completed (mix log rows), by type");
  for (size_t t = 0; t < 2; ++t) text.Sample({{"type", kTypes[t]}}, rows_by_type_[t]);
  text.Counter("brokerbench_outcomes", "Transactions completed (mix log rows), by outcome");
  for (int o = 0; o <= pr::kMaxOutcome; ++o) {
    text.Sample({{"outcome", pr::OutcomeName(static_cast<pr::Outcome>(o))}}, rows_by_outcome_[o]);
  }
  text.Histogram("brokerbench_response_seconds",
                 "Response time (request sent to reply read) of the replies that are not errors, "
                 "by type");
  for (size_t t = 0; t < 2; ++t) text.HistogramSample({{"type", kTypes[t]}}, response_by_type_[t]);
  const size_t in_flight = InFlightCount();
  text.Gauge("brokerbench_in_flight", "Requests sent and not answered yet");
  text.Sample({}, static_cast<int64_t>(in_flight));
  // connecting: no delivery connection is up (at the start, or while the BH is away).
  const size_t phase = stopping_ ? 2 : stats_.links_up.load() == 0 ? 0 : 1;
  text.StateSet("brokerbench_phase", "Where the market emulator is in the run", kPhases, phase);
  text.Gauge("brokerbench_mee_due_orders", "Deliveries due and not sent yet");
  text.Sample({}, static_cast<int64_t>(floor_.due_count()));
  text.Gauge("brokerbench_mee_pending_orders",
             "Orders the market holds: in their completion delay, limit orders waiting for their "
             "price, deliveries due");
  text.Sample({}, static_cast<int64_t>(floor_.pending()));
  text.Counter("brokerbench_mee_trade_results_sent", "Trade-Results sent, re-sends included");
  text.Sample({}, stats_.trade_results_sent.load());
  text.Counter("brokerbench_mee_trade_results_completed",
               "Trade-Results the Brokerage House answered for the last time (any outcome)");
  text.Sample({}, stats_.trade_results_delivered.load());
  text.Counter("brokerbench_mee_orders_received", "Trade requests from the Brokerage House");
  text.Sample({}, stats_.orders_received.load());
  text.Counter("brokerbench_mee_orders_refused",
               "Trade requests refused (the pending cap, a bad symbol, stopping)");
  text.Sample({}, stats_.orders_refused.load());
  text.Gauge("brokerbench_mee_delivery_connections_up",
             "Delivery connections to the Brokerage House up");
  text.Sample({}, stats_.links_up.load());
  return text.Finish();
}

}  // namespace bb::mee
