// The Customer Emulator against an in-process Brokerage House in --no-db mode (canned replies)
// on loopback: a short run's mix log (format, markers, Trade-Cleanup first, no row lost, the
// mix of the emulator's one deck, ramp-up, one request per user at a time), the input variant of
// every request in its row, and pacing from start to start.
#include "tests/ce_fixture.h"

namespace bb::ce_test {

TEST(CustomerEmulator, ShortRunLogsEveryReplyWithMarkersAndTheExactMix) {
  RunningBh bh(kSizing, RunningBh::Canned(), 2);
  ASSERT_NE(bh.port(), 0);
  const std::string path = TempLog("short");
  auto o = Options(bh.port(), path);
  o.users = 200;
  o.ramp_up = 2s;
  o.duration = 8s;
  ce::Emulator emulator(o);
  const auto t0 = std::chrono::steady_clock::now();
  Status s = RunBounded(emulator, 60s);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(s.ok()) << s.message();
  // START comes when the ramp-up is over and every user has sent: user i starts at i/users of
  // the 2 s ramp-up (shorter than the users' start spread), the last of 200 at 1.99 s, so
  // START is at 2 s at the earliest; the duration runs from START.
  EXPECT_GE(took, 2.0 * 199 / 200 + 8.0);
  EXPECT_LT(took, 20.0);
  const auto& sum = emulator.summary();
  const std::string text = emulator.SummaryText();
  std::fprintf(stderr, "%s", text.c_str());
  // Facts only: the report judges the mix over its measurement interval and the controller
  // prints that; a share or a verdict of the CE's own could disagree with it (issue 15).
  EXPECT_THAT(text,
              HasSubstr(fmt::format("{} user transactions in it", sum.measured_transactions)));
  EXPECT_THAT(text, HasSubstr(fmt::format("sent {}, rows {}, replies {}, errors 0", sum.sent,
                                          sum.rows, sum.replies)));
  // Every request sent ends in exactly one row (the report reconciles the two).
  EXPECT_EQ(sum.sent, sum.rows);
  for (const char* judged : {"mix", "range", "within", "spec"}) {
    EXPECT_THAT(text, Not(HasSubstr(judged))) << judged;
  }

  auto log = ReadMixLog(path);
  for (const auto& e : log.errors) ADD_FAILURE() << e;
  ASSERT_TRUE(log.errors.empty());
  // No row lost: every reply counted inside the CE is a row in the file, and nothing else.
  EXPECT_EQ(static_cast<int64_t>(log.rows.size()), sum.rows);
  EXPECT_EQ(sum.rows, sum.replies);
  EXPECT_EQ(sum.errors, 0);
  EXPECT_EQ(sum.unexpected_replies, 0);
  EXPECT_EQ(sum.users_started, 200);

  // Markers: START then STOP, once each, about the duration apart.
  ASSERT_EQ(log.markers.size(), 2u);
  EXPECT_EQ(log.markers[0].first, "START");
  EXPECT_EQ(log.markers[1].first, "STOP");
  const int64_t start = log.MarkerTime("START"), stop = log.MarkerTime("STOP");
  EXPECT_GE(stop - start, 8'000'000);
  EXPECT_LT(stop - start, 9'000'000);

  // Trade-Cleanup first (user -1), then one DM at the start of ramp-up; both answered ok.
  ASSERT_FALSE(log.rows.empty());
  EXPECT_EQ(log.rows.front().code, "TC");
  EXPECT_EQ(log.rows.front().user, -1);
  EXPECT_EQ(log.rows.front().outcome, "ok");
  int dm = 0, tc = 0;
  for (const auto& r : log.rows) {
    dm += r.code == "DM";
    tc += r.code == "TC";
    if (r.code == "DM" || r.code == "TC") {
      EXPECT_EQ(r.user, -1);
    }
    EXPECT_TRUE(r.outcome == "ok" || r.outcome == "rollback") << r.code << " " << r.outcome;
    EXPECT_GT(r.response_us, 0);
    EXPECT_EQ(r.wait_us, 0);
  }
  EXPECT_EQ(tc, 1);
  EXPECT_EQ(dm, 1);

  // Per user: requests one at a time (each starts after the previous reply), and the first
  // requests spread over the 2 s ramp-up; START after every user's first request.
  std::map<int64_t, std::vector<const cetest::LogRow*>> by_user;
  for (const auto& r : log.rows) {
    if (r.user >= 0) by_user[r.user].push_back(&r);
  }
  ASSERT_EQ(by_user.size(), 200u);
  int64_t first_min = INT64_MAX, first_max = 0, overlaps = 0;
  for (const auto& [user, rows] : by_user) {
    first_min = std::min(first_min, rows.front()->start_us);
    first_max = std::max(first_max, rows.front()->start_us);
    for (size_t i = 1; i < rows.size(); ++i) {
      // start_us and response_us come from one clock (WallFromMonotonic), so a user's next
      // request starts no earlier than its last reply ended, to the microsecond. (With two
      // clock reads per request, a thread preempted between them made rows overlap under load.)
      // That a user has one request in flight at most is also structural: a user has one
      // request slot, and its id names the slot (emulator.h).
      if (rows[i]->start_us < rows[i - 1]->start_us + rows[i - 1]->response_us) ++overlaps;
    }
  }
  EXPECT_EQ(overlaps, 0);
  EXPECT_GE(first_max - first_min, 1'900'000);
  EXPECT_LE(first_max - first_min, 2'500'000);
  EXPECT_GE(start, first_max);

  // The mix is the deck's (clause 6.3.1): every 890 consecutive draws of the emulator hold each
  // type as often as its cards, so each type's count is its cards in every whole pass plus at
  // most its cards (and at most the rest) of the pass the run stopped in, and nothing else.
  auto mix = cetest::MixOfTheDeck(log);
  std::fprintf(stderr, "deck: %lld passes + %lld cards\n", static_cast<long long>(mix.passes),
               static_cast<long long>(mix.rest));
  ASSERT_GE(mix.passes, 1) << "too slow to go once through the deck";
  int64_t deck_types = 0;
  for (const auto& w : workload::kDeckWeights) {
    const std::string code(workload::TransactionCode(w.type));
    EXPECT_GE(mix.count[code], mix.passes * w.cards) << code;
    EXPECT_LE(mix.count[code], mix.passes * w.cards + std::min<int64_t>(w.cards, mix.rest)) << code;
    ++deck_types;
  }
  EXPECT_EQ(static_cast<int64_t>(mix.count.size()), deck_types) << "a user row not in the deck";
  // Over all rows the mix is near the target: one partial pass moves the shares by at most its
  // cards' share of the rows; allow 0.5 points.
  std::map<std::string, int64_t> all;
  int64_t all_rows = 0;
  for (const auto& r : log.rows) {
    if (r.user >= 0) {
      ++all[r.code];
      ++all_rows;
    }
  }
  for (const auto& range : cetest::CustomerEmulatorRanges()) {
    const std::string code(workload::TransactionCode(range.type));
    const double pct = cetest::SpecPercent(all[code], all_rows);
    EXPECT_NEAR(pct, (range.low_pct + range.high_pct) / 2, 0.5) << code;
  }
  std::filesystem::remove(path);
}

// "CODE inputs" for a request of a type whose inputs have required shares (clause 6.4.1): the
// variant the customer emulator must log for it, rebuilt from the request itself
// (workload::InputVariant's vocabulary); nothing for the other types.
std::optional<std::string> VariantKey(const protocol::Message& m) {
  namespace pr = protocol;
  if (const auto* in = std::get_if<pr::CustomerPositionInput>(&m)) {
    return std::string("CP ") + (in->cust_id == 0 ? "tax" : "cust") +
           (in->get_history ? " hist" : "");
  }
  if (const auto* in = std::get_if<pr::MarketWatchInput>(&m)) {
    return std::string("MW ") + (!in->industry_name.empty() ? "industry"
                                 : in->cust_id != 0         ? "watch"
                                                            : "acct");
  }
  if (const auto* in = std::get_if<pr::SecurityDetailInput>(&m)) {
    return std::string("SD ") + (in->access_lob_flag ? "lob" : "");
  }
  if (const auto* in = std::get_if<pr::TradeLookupInput>(&m)) {
    return "TL f" + std::to_string(in->frame);
  }
  if (const auto* in = std::get_if<pr::TradeUpdateInput>(&m)) {
    return "TU f" + std::to_string(in->frame);
  }
  if (const auto* in = std::get_if<pr::TradeOrderInput>(&m)) {
    std::string v = "TO " + in->trade_type_id + " q" + std::to_string(in->trade_qty);
    if (!in->co_name.empty()) v += " name";
    if (in->exec_tax_id != workload::TaxId(workload::AccountOwner(in->acct_id))) v += " tp";
    if (in->type_is_margin) v += " margin";
    if (in->is_lifo) v += " lifo";
    if (in->roll_it_back) v += " rb";
    return v;
  }
  return std::nullopt;
}

TEST(CustomerEmulator, LogsTheInputVariantOfEveryRequestItSent) {
  std::mutex mutex;
  std::map<std::string, int64_t> received;
  RunningBh bh(kSizing, CannedObserving([&](const protocol::Message& request) {
                 if (auto key = VariantKey(request)) {
                   std::lock_guard lock(mutex);
                   ++received[*key];
                 }
               }),
               2);
  ASSERT_NE(bh.port(), 0);
  const std::string path = TempLog("inputs");
  auto o = Options(bh.port(), path);
  o.users = 50;
  o.ramp_up = 1s;
  o.duration = 3s;
  ce::Emulator emulator(o);
  Status s = RunBounded(emulator, 60s);
  ASSERT_TRUE(s.ok()) << s.message();
  bh.StopAndJoin();
  ASSERT_EQ(emulator.summary().errors, 0);

  auto log = ReadMixLog(path);
  for (const auto& e : log.errors) ADD_FAILURE() << e;
  // Every request was answered, so the log's variants are exactly the requests' variants;
  // the types without counted choices, Data-Maintenance and Trade-Cleanup log none.
  std::map<std::string, int64_t> logged;
  for (const auto& r : log.rows) {
    if (r.code == "BV" || r.code == "TS" || r.code == "DM" || r.code == "TC") {
      EXPECT_EQ(r.inputs, "") << r.code;
    } else {
      ++logged[r.code + " " + r.inputs];
    }
  }
  std::lock_guard lock(mutex);
  EXPECT_EQ(logged, received);
  // A run this short still shows the rarer choices.
  for (const char* v : {"MW industry", "MW watch", "MW acct", "TL f4", "TU f3"}) {
    EXPECT_GT(logged[v], 0) << v;
  }
  std::filesystem::remove(path);
}

// Pacing is start to start (emulator.h): with replies taking 40 ms and pacing 100 ms, a user's
// requests start 100 ms apart, not 140 (a delay after each reply); a reply slower than the
// pacing is followed at once.
TEST(CustomerEmulator, PacesFromStartToStartWhateverTheResponseTime) {
  // Replies take 40 ms (the handler's own delay, the response time under test) until the 24th
  // request (Trade-Cleanup, a DM and about eleven per user), then 150 ms, slower than the pacing.
  std::atomic<int> slow{40};
  std::atomic<int> requests{0};
  RunningBh bh(kSizing, CannedObserving([&](const protocol::Message&) {
                 if (++requests == 24) slow = 150;
                 std::this_thread::sleep_for(std::chrono::milliseconds(slow.load()));
               }),
               4);
  ASSERT_NE(bh.port(), 0);
  const std::string path = TempLog("pacing");
  auto o = Options(bh.port(), path);
  o.users = 2;
  o.pacing = 100ms;
  o.duration = 2s;
  ce::Emulator emulator(o);
  Status s = RunBounded(emulator, 30s);
  ASSERT_TRUE(s.ok()) << s.message();
  auto log = ReadMixLog(path);
  for (const auto& e : log.errors) ADD_FAILURE() << e;
  std::map<int64_t, std::vector<const cetest::LogRow*>> by_user;
  for (const auto& r : log.rows) {
    if (r.user >= 0) by_user[r.user].push_back(&r);
  }
  ASSERT_EQ(by_user.size(), 2u);
  int paced = 0, late = 0;
  int64_t paced_gaps = 0;
  for (const auto& [user, rows] : by_user) {
    for (std::size_t i = 1; i < rows.size(); ++i) {
      const int64_t gap = rows[i]->start_us - rows[i - 1]->start_us;
      const int64_t previous_end = rows[i - 1]->start_us + rows[i - 1]->response_us;
      if (rows[i - 1]->response_us < 90'000) {
        // Due 100 ms after the last one was due: a start written late (a busy machine's timer)
        // is followed by a shorter gap, but never by a burst.
        EXPECT_GE(gap, 30'000) << "user " << user << " row " << i;
        paced_gaps += gap;
        ++paced;
      } else {
        // Due at once after a reply later than the pacing: no extra 100 ms.
        EXPECT_LT(rows[i]->start_us - previous_end, 25'000) << "user " << user << " row " << i;
        ++late;
      }
    }
  }
  // A delay after each reply would make these 140 ms apart on average.
  ASSERT_GT(paced, 0);
  EXPECT_NEAR(static_cast<double>(paced_gaps) / paced, 100'000, 8'000);
  EXPECT_GE(paced, 12);
  EXPECT_GE(late, 4);
  std::filesystem::remove(path);
}

}  // namespace bb::ce_test
