#include "common/workload/inputs.h"

#include <algorithm>
#include <chrono>
#include <string_view>

#include <unistd.h>

#include "common/workload/calendar.h"
#include "common/workload/ids.h"
#include "common/workload/industries.h"
#include "common/workload/market.h"
#include "common/workload/person.h"
#include "common/workload/price_curve.h"
#include "common/workload/spec.h"
#include "common/workload/tax_rates.h"
#include "common/workload/zip_codes.h"

namespace bb::workload {
namespace {

namespace pb = bb::protocol;

constexpr uint64_t kDrawsPerStream = uint64_t{1} << 40;

constexpr int64_t kMsPerMinute = 60'000;
constexpr int64_t kMsPerHour = 60 * kMsPerMinute;

// Status ids of STATUS_TYPE (clause 2.6).
constexpr std::string_view kPending = "PNDG";
constexpr std::string_view kSubmitted = "SBMT";
constexpr std::string_view kCanceled = "CNCL";

// --- clause 6.4.1, one block per transaction. The choices with required shares are dealt from
// the decks of inputs.h (VariantDecks); what is left here is drawn. ---

// Broker-Volume: 20..40 brokers (3.2.1.2), capped at the configured brokers.
constexpr int kBrokerListMin = 20;
constexpr int kBrokerListMax = 40;

// Market-Watch.
constexpr int64_t kIndustryWindowCompanies = 5000;
// start_date: week NURand(0, 255, 255, 0) + 5 and a weekday by these cumulative percentages.
constexpr int kWeekA = 255;
constexpr int kWeekMax = 255;
constexpr int kFirstWeek = 5;
constexpr std::array<int, 5> kWeekdayUpTo = {20, 27, 33, 40, 100};  // Mon 20 .. Fri 60

// Security-Detail.
constexpr int kDayRowsMin = 5;
constexpr int kDayRowsMax = 20;

// Trade-Lookup and Trade-Update.
constexpr int kMaxTrades = 20;  // max_trades and max_updates (3.2.1.2)
constexpr int64_t kTradeIdA = 65535;
constexpr int kTradeIdBitShift = 7;
constexpr int64_t kStartTimeA = 4095;
constexpr int kStartTimeShift = 16;
constexpr int64_t kLookupFrame2BackOffMs = 32 * kMsPerHour;
constexpr int64_t kLookupFrame3BackOffMs = 200 * kMsPerMinute;
constexpr int64_t kLookupFrame4BackOffMs = 500 * kMsPerMinute;
constexpr int64_t kUpdateFrame2BackOffMs = 32 * kMsPerHour;
constexpr int64_t kUpdateFrame3BackOffMs = 200 * kMsPerMinute;

// Trade-Order.
// EGen's executor: the owner for accounts without extra executors, else the owner 75 % of the
// time ((90 − 60) / 40: 40 % of the accounts have extras), which makes 10 % third parties.
constexpr int kExecIsOwnerPercent = 75;
// Draws of a customer and account that fit the dealt third-party card (TradeOrder): at most
// this many, which 40 % of the accounts having extra executors makes ample (0.6^64 ≈ 6e-15).
constexpr int kMaxAccountDraws = 64;
// The kinds of VariantDecks::to_type, in its order.
constexpr std::array<std::string_view, 5> kTradeTypes = {"TMB", "TMS", "TLB", "TLS", "TSL"};
constexpr std::array<int32_t, 4> kTradeQuantities = {100, 200, 400, 800};
constexpr std::array<std::string_view, 4> kQuantityTokens = {"q100", "q200", "q400", "q800"};

// Data-Maintenance.
constexpr int kAddressOfCustomerPercent = 67;
constexpr int kVolumeIncrementMin = -2;
constexpr int kVolumeIncrementMax = 3;
constexpr int kVolumeIncrementForZero = -3;

// The input-variant token of a Trade-Lookup or Trade-Update frame (1..4).
std::string_view FrameToken(int32_t frame) {
  constexpr std::array<std::string_view, 5> kTokens = {"", "f1", "f2", "f3", "f4"};
  return frame >= 1 && frame <= 4 ? kTokens[static_cast<size_t>(frame)] : "";
}

int64_t AbortedOrdinalsUpTo(int64_t n) {
  return n >= kAbortedTradeResidue ? (n - kAbortedTradeResidue) / kAbortedTradeModulus + 1 : 0;
}

}  // namespace

void InputVariant::Add(std::string_view token) {
  const std::size_t separator = size_ > 0 ? 1 : 0;
  // The tokens are this file's constants and the longest list fits (inputs_test checks it);
  // were one not to fit, it is left out whole rather than cut.
  if (token.empty() || size_ + separator + token.size() > kCapacity) return;
  if (separator) text_[size_++] = ' ';
  std::copy(token.begin(), token.end(), text_.begin() + static_cast<std::ptrdiff_t>(size_));
  size_ += token.size();
}

RngSeed StreamSeed(RngSeed run_seed, uint64_t stream) {
  return Random::ForKey(run_seed, stream, kDrawsPerStream).state();
}

RngSeed TimeOfDaySeed(int64_t unix_tenths, uint32_t instance) {
  constexpr uint64_t kTenthsBits = 40, kInstanceMask = (uint64_t{1} << 23) - 1;
  return (static_cast<uint64_t>(instance) & kInstanceMask) << kTenthsBits |
         (static_cast<uint64_t>(unix_tenths) & ((uint64_t{1} << kTenthsBits) - 1));
}

RngSeed TimeOfDaySeed() {
  using Tenths = std::chrono::duration<int64_t, std::deci>;
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return TimeOfDaySeed(std::chrono::duration_cast<Tenths>(now).count(),
                       static_cast<uint32_t>(::getpid()));
}

bool IsLoadedTradeOrdinal(const Sizing& sizing, int64_t ordinal) {
  if (ordinal < 1 || ordinal > sizing.InitiatedTrades() || IsAbortedTradeOrdinal(ordinal)) {
    return false;
  }
  const int64_t block = sizing.TradeIdBlockSize();
  const int64_t first = (ordinal - 1) / block * block + 1;
  const int64_t rank =
      ordinal - first + 1 - (AbortedOrdinalsUpTo(ordinal) - AbortedOrdinalsUpTo(first - 1));
  return rank <= sizing.TradesPerLoadUnit();
}

InputGenerator::InputGenerator(const Sizing& sizing, RngSeed seed)
    : InputGenerator(sizing, seed, CustomerSelector(sizing)) {}

InputGenerator::InputGenerator(const Sizing& sizing, RngSeed seed, const CustomerSelector& selector)
    : sizing_(sizing),
      model_(sizing),
      customers_(selector),
      all_customers_(sizing),
      rng_(seed),
      initial_trade_ms_(sizing.initial_trade_days * kMillisPerBusinessDay),
      end_of_initial_trades_(EndOfInitialTradesForInputs(sizing).micros),
      // The highest CA_ID any configured customer can own (clause 6.4.1: (customers + shift) · 10).
      max_acct_id_(
          AccountId(CustomerIdFromOrdinal(sizing.customers), kMaxAccountsPerCustomer - 1)) {}

Result<InputGenerator> InputGenerator::ForPartition(const Sizing& sizing, RngSeed seed,
                                                    int64_t first_ordinal, int64_t count) {
  Result<CustomerSelector> selector = CustomerSelector::ForPartition(sizing, first_ordinal, count);
  if (!selector.ok()) return selector.status();
  return InputGenerator(sizing, seed, *selector);
}

// --- helpers ---

int64_t InputGenerator::AccountOf(int64_t c_id) {
  return AccountId(c_id, rng_.IntRange(0, model_.AccountCount(c_id) - 1));
}

int64_t InputGenerator::NonUniformTradeId() {
  // EGen's rule, shared with the loader (ids.h): NURand over every load ordinal; an aborted ordinal
  // becomes the next one. A draw the loader never wrote (the unused tail of a block, see
  // IsLoadedTradeOrdinal) is drawn again: the frame would not find it.
  for (;;) {
    const int64_t ordinal = SkipAbortedTradeOrdinal(
        rng_.NURand(1, MaxInitialTradeOrdinal(sizing_), kTradeIdA, kTradeIdBitShift));
    if (IsLoadedTradeOrdinal(sizing_, ordinal)) return TradeIdFromOrdinal(ordinal);
  }
}

void InputGenerator::FillTradeIds(std::vector<int64_t>& ids) {
  // Sizing::Validate() leaves at least 28 loaded trades per LU, so 20 distinct ids exist.
  ids.reserve(kMaxTrades);
  while (ids.size() < static_cast<size_t>(kMaxTrades)) {
    const int64_t id = NonUniformTradeId();
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
}

int64_t InputGenerator::StartTradeMicros(int64_t back_off_ms) {
  // A work-time offset from the start of initial trading, NURand-skewed (EGen's NURand; the spec's
  // text says uniform), at least `back_off_ms` before the end of the initial trades so the window
  // holds trades.
  const int64_t latest = std::max<int64_t>(1, initial_trade_ms_ - back_off_ms);
  return WorkTimeToTimestamp(rng_.NURand(1, latest, kStartTimeA, kStartTimeShift)).micros;
}

int64_t InputGenerator::UniformSecurity() { return rng_.Int64Range(0, sizing_.Securities() - 1); }

// --- the mix transactions ---

pb::BrokerVolumeInput InputGenerator::BrokerVolume() {
  const int64_t brokers = sizing_.Brokers();
  const auto length =
      static_cast<int>(std::min<int64_t>(rng_.IntRange(kBrokerListMin, kBrokerListMax), brokers));
  // Floyd's sampling: `length` distinct broker indexes, every subset equally likely, exactly
  // `length` draws.
  std::array<int64_t, kBrokerListMax> chosen{};
  const auto begin = chosen.begin();
  auto end = begin;
  for (int64_t j = brokers - length; j < brokers; ++j) {
    const int64_t t = rng_.Int64Range(0, j);
    const bool taken = std::find(begin, end, t) != end;
    *end = taken ? j : t;
    ++end;
  }
  pb::BrokerVolumeInput in;
  in.broker_list.reserve(static_cast<size_t>(length));
  for (auto it = begin; it != end; ++it) {
    in.broker_list.push_back(FullNameWithInitial(BrokerPersonId(BrokerId(*it))));
  }
  in.sector_name = Sectors()[static_cast<size_t>(rng_.IntRange(0, kSectorCount - 1))].name;
  variant_.Clear();
  return in;
}

pb::CustomerPositionInput InputGenerator::CustomerPosition() {
  const int64_t c_id = customers_.Select(rng_);
  pb::CustomerPositionInput in;
  variant_.Clear();
  if (decks_.cp_by_tax_id.Deal(rng_) == 0) {
    in.cust_id = 0;
    in.tax_id = TaxId(c_id);
    variant_.Add("tax");
  } else {
    in.cust_id = c_id;
    variant_.Add("cust");
  }
  in.get_history = decks_.cp_history.Deal(rng_) == 0;
  if (in.get_history) variant_.Add("hist");
  in.acct_id_idx = rng_.IntRange(0, model_.AccountCount(c_id) - 1);
  return in;
}

pb::MarketWatchInput InputGenerator::MarketWatch() {
  pb::MarketWatchInput in;
  variant_.Clear();
  const int mode = decks_.mw_mode.Deal(rng_);
  if (mode == 0) {
    variant_.Add("industry");
    in.industry_name = Industries()[static_cast<size_t>(rng_.IntRange(0, kIndustryCount - 1))].name;
    const int64_t companies = sizing_.Companies();
    if (companies <= kIndustryWindowCompanies) {
      in.starting_co_id = CompanyId(0);
      in.ending_co_id = CompanyId(companies - 1);
    } else {
      in.starting_co_id = CompanyId(rng_.Int64Range(0, companies - kIndustryWindowCompanies));
      in.ending_co_id = in.starting_co_id + kIndustryWindowCompanies - 1;
    }
  } else if (mode == 1) {
    variant_.Add("watch");
    in.cust_id = customers_.Select(rng_);
  } else {
    variant_.Add("acct");
    in.acct_id = AccountOf(customers_.Select(rng_));
  }
  const int64_t week = rng_.NURand(0, kWeekMax, kWeekA, 0) + kFirstWeek;
  const int point = rng_.IntRange(1, 100);
  int weekday = 0;
  while (point > kWeekdayUpTo[static_cast<size_t>(weekday)]) ++weekday;
  in.start_date = AddDays(DailyMarketBaseDate(), 7 * week + weekday).days;
  return in;
}

pb::SecurityDetailInput InputGenerator::SecurityDetail() {
  pb::SecurityDetailInput in;
  in.symbol = Market(sizing_).Symbol(UniformSecurity());
  in.access_lob_flag = decks_.sd_lob.Deal(rng_) == 0;
  variant_.Clear();
  if (in.access_lob_flag) variant_.Add("lob");
  in.max_rows_to_return = rng_.IntRange(kDayRowsMin, kDayRowsMax);
  // Quirk 4: we follow the spec's prose, a trading day from 2000-01-03 up to max_rows trading
  // days before the last DAILY_MARKET row, so the frame always finds max_rows rows.
  in.start_day = AddBusinessDays(DailyMarketBaseDate(),
                                 rng_.IntRange(0, kDailyMarketDays - in.max_rows_to_return))
                     .days;
  return in;
}

pb::TradeLookupInput InputGenerator::TradeLookup() {
  pb::TradeLookupInput in;
  in.frame = decks_.tl_frame.Deal(rng_) + 1;
  if (in.frame == 1) {
    in.max_trades = kMaxTrades;
    FillTradeIds(in.trade_ids);
  } else if (in.frame == 2) {
    in.max_trades = kMaxTrades;
    in.acct_id = AccountOf(customers_.Select(rng_));
    in.start_trade_dts = StartTradeMicros(kLookupFrame2BackOffMs);
    in.end_trade_dts = end_of_initial_trades_;
  } else if (in.frame == 3) {
    in.max_trades = kMaxTrades;
    in.symbol = Market(sizing_).Symbol(UniformSecurity());
    in.start_trade_dts = StartTradeMicros(kLookupFrame3BackOffMs);
    in.end_trade_dts = end_of_initial_trades_;
    in.max_acct_id = max_acct_id_;
  } else {
    in.acct_id = AccountOf(customers_.Select(rng_));
    in.start_trade_dts = StartTradeMicros(kLookupFrame4BackOffMs);
  }
  variant_.Clear();
  variant_.Add(FrameToken(in.frame));
  return in;
}

pb::TradeOrderInput InputGenerator::TradeOrder() {
  const Market market(sizing_);
  pb::TradeOrderInput in;

  // The third-party card is dealt first, then the customer and account drawn to fit it: for a
  // third party one with extra executors, for the owner one without, or with them kept 75 % of
  // the time (kExecIsOwnerPercent). So, given the card, the account follows EGen's law given
  // its executor, and its law over all orders is EGen's as long as 40 % of the accounts have
  // extras (3.10), while the share of third parties is the deck's. An executor other than the
  // owner is the extra person: the only one if one, the second if two (a person the account
  // permits, F2). Should no account of a partition have extras, a third-party card goes to the
  // owner after kMaxAccountDraws draws, and the share falls short where the report shows it.
  const bool third_party_card = decks_.to_third_party.Deal(rng_) == 0;
  int64_t c_id = 0;
  AccountExecutors extra;
  for (int draws = 1;; ++draws) {
    c_id = customers_.Select(rng_);
    in.acct_id = AccountOf(c_id);
    extra = model_.ExtraExecutors(in.acct_id);
    const bool fits =
        third_party_card ? extra.count > 0 : extra.count == 0 || rng_.Percent(kExecIsOwnerPercent);
    if (fits || draws == kMaxAccountDraws) break;
  }
  const bool third_party = third_party_card && extra.count > 0;
  const int64_t executor = third_party ? extra.persons[static_cast<size_t>(extra.count - 1)] : c_id;
  in.exec_f_name = FirstName(executor);
  in.exec_l_name = LastName(executor);
  in.exec_tax_id = TaxId(executor);

  const AccountBasket basket = model_.BasketOf(in.acct_id);
  const int64_t security =
      basket.securities[static_cast<size_t>(rng_.IntRange(0, basket.size - 1))];
  const bool by_name = decks_.to_by_name.Deal(rng_) == 0;
  if (by_name) {
    in.co_name = market.CompanyName(market.SecurityCompany(security));
    in.issue = IssueName(market.SecurityIssue(security));
  } else {
    in.symbol = market.Symbol(security);
  }

  const auto quantity = static_cast<size_t>(decks_.to_quantity.Deal(rng_));
  in.trade_qty = kTradeQuantities[quantity];
  // Drawn for every order as EGen does; Trade-Order F3 replaces it with the market price for
  // market orders.
  in.requested_price = rng_.Int64Range(kPriceLowCents, kPriceHighCents);
  const std::string_view type = kTradeTypes[static_cast<size_t>(decks_.to_type.Deal(rng_))];
  in.trade_type_id = type;
  const bool is_buy = type == "TMB" || type == "TLB";
  in.type_is_margin = is_buy && decks_.to_margin.Deal(rng_) == 0;
  in.is_lifo = decks_.to_lifo.Deal(rng_) == 0;
  in.roll_it_back = decks_.to_roll.Deal(rng_) == 0;
  in.st_pending_id = kPending;
  in.st_submitted_id = kSubmitted;
  variant_.Clear();
  variant_.Add(type);
  variant_.Add(kQuantityTokens[quantity]);
  if (by_name) variant_.Add("name");
  if (third_party) variant_.Add("tp");
  if (in.type_is_margin) variant_.Add("margin");
  if (in.is_lifo) variant_.Add("lifo");
  if (in.roll_it_back) variant_.Add("rb");
  return in;
}

pb::TradeStatusInput InputGenerator::TradeStatus() {
  pb::TradeStatusInput in;
  in.acct_id = AccountOf(customers_.Select(rng_));
  variant_.Clear();
  return in;
}

pb::TradeUpdateInput InputGenerator::TradeUpdate() {
  pb::TradeUpdateInput in;
  in.max_trades = kMaxTrades;
  in.max_updates = kMaxTrades;
  in.frame = decks_.tu_frame.Deal(rng_) + 1;
  if (in.frame == 1) {
    FillTradeIds(in.trade_ids);
  } else if (in.frame == 2) {
    in.acct_id = AccountOf(customers_.Select(rng_));
    in.start_trade_dts = StartTradeMicros(kUpdateFrame2BackOffMs);
    in.end_trade_dts = end_of_initial_trades_;
  } else {
    in.symbol = Market(sizing_).Symbol(UniformSecurity());
    in.start_trade_dts = StartTradeMicros(kUpdateFrame3BackOffMs);
    in.end_trade_dts = end_of_initial_trades_;
    in.max_acct_id = max_acct_id_;
  }
  variant_.Clear();
  variant_.Add(FrameToken(in.frame));
  return in;
}

// --- timer-driven ---

pb::DataMaintenanceInput InputGenerator::DataMaintenance(pb::MaintenanceTable table) {
  using T = pb::MaintenanceTable;
  pb::DataMaintenanceInput in;
  in.table = table;
  const auto uniform_company = [&] {
    return CompanyId(rng_.Int64Range(0, sizing_.Companies() - 1));
  };
  switch (table) {
    case T::kAccountPermission:
      // Not a customer-initiated transaction: the whole range even for a partitioned CE.
      in.acct_id = AccountOf(all_customers_.Select(rng_));
      break;
    case T::kAddress:
      if (rng_.Percent(kAddressOfCustomerPercent)) {
        in.c_id = all_customers_.SelectUniform(rng_);
      } else {
        in.co_id = uniform_company();
      }
      break;
    case T::kCompany:
    case T::kFinancial:
    case T::kNewsItem:
      in.co_id = uniform_company();
      break;
    case T::kCustomer:
    case T::kCustomerTaxrate:
    case T::kWatchItem:
      in.c_id = all_customers_.SelectUniform(rng_);
      break;
    case T::kDailyMarket:
      in.symbol = Market(sizing_).Symbol(UniformSecurity());
      in.day_of_month = rng_.IntRange(1, 31);
      in.vol_incr = rng_.IntRange(kVolumeIncrementMin, kVolumeIncrementMax);
      if (in.vol_incr == 0) in.vol_incr = kVolumeIncrementForZero;
      break;
    case T::kExchange:
      break;
    case T::kSecurity:
      in.symbol = Market(sizing_).Symbol(UniformSecurity());
      break;
    case T::kTaxrate: {
      const auto rates = TaxRates().OfDivision(rng_.IntRange(0, kDivisionCount - 1));
      in.tx_id =
          rates[static_cast<size_t>(rng_.IntRange(0, static_cast<int>(rates.size()) - 1))].id;
      break;
    }
  }
  return in;
}

pb::TradeCleanupInput InputGenerator::TradeCleanup() const {
  pb::TradeCleanupInput in;
  in.st_canceled_id = kCanceled;
  in.st_pending_id = kPending;
  in.st_submitted_id = kSubmitted;
  in.start_trade_id = TradeCleanupStartId(sizing_);
  return in;
}

}  // namespace bb::workload
