// The trades part of a load unit: the initial trades (EGen's rules, restated in the steps below)
// with the tables they fill (TRADE, TRADE_HISTORY, SETTLEMENT, CASH_TRANSACTION, HOLDING_HISTORY,
// and at the end HOLDING, HOLDING_SUMMARY and the LU's BROKER rows with their trade counts and
// commission totals, consistency conditions 1-2 of clause 7.3.2).
//
// Trades are initiated along a timeline of work time (ms since the start of initial trading,
// 8-hour business days back to back), evenly spaced with a jitter; each takes the T_ID of its
// initiation ordinal, and ordinals ≡ 51 (mod 101) are skipped (emulated Trade-Order
// rollbacks). A trade completes a few seconds (market) or up to one price period (limit)
// later; completions wait in a priority queue and are applied, in completion order, to the
// account's lots before the next initiation that follows them. Memory is bounded by the
// queue (about one price period of trades) and the open lots of the LU.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/workload/calendar.h"
#include "common/workload/customer.h"
#include "common/workload/customer_selection.h"
#include "common/workload/ids.h"
#include "common/workload/market.h"
#include "common/workload/person.h"
#include "common/workload/price_curve.h"
#include "loader/table_generators.h"
#include "loader/trade_rules.h"

namespace bb::loader {

namespace {

__extension__ using Int128 = __int128;

using workload::Random;

// Step 4: the load mix in percent, in TradeType order (TMB, TMS, TSL, TLS, TLB).
constexpr std::array<int, kTradeTypeCount> kTradeTypePercent = {30, 30, 10, 10, 20};
constexpr int kLifoPercent = 35;
constexpr int kCashBuyPercent = 84;
constexpr std::array<int, 4> kQuantities = {100, 200, 400, 800};
// Step 5, in milliseconds.
constexpr int64_t kInTheMoneyMinMs = 500;
constexpr int64_t kInTheMoneyMaxMs = 1500;
constexpr double kMeanCompletionDelayS = 1.0;
constexpr int64_t kMaxCompletionDelayMs = 5000;
constexpr int64_t kCompletionExtraMs = 1000;
constexpr int kSettlementDays = 2;
// The trades of LU ℓ draw from one stream positioned at ℓ·2^40: far more than the draws of
// the largest LU (about 12 per initiated trade).
constexpr int kLoadUnitStreamShift = 40;
// How often (in initiated trades) the loop looks for a failed sink.
constexpr int64_t kCheckEvery = 4096;

std::string EscapedCopyText(std::string_view value) {
  CopyText text;
  text.Text(value);
  return std::string(text.view());
}

struct Lot {
  int64_t t_id;
  int64_t dts_ms;  // work time of the opening trade's completion
  int32_t qty;     // > 0 long, < 0 short
  int32_t price;   // cents
};

// A security some account of the LU trades.
struct SecurityInfo {
  std::string symbol;
  std::string name;  // S_NAME, escaped for COPY text
  int exchange;
  workload::PriceCurve curve;
};

struct AccountInfo {
  int64_t ca_id;
  int32_t customer;  // 0..999 in the LU
  int32_t tax_rate_e5;
  int8_t broker;  // 0..9 in the LU
  int8_t tax_status;
  int8_t tier;
  uint8_t basket_size;
  std::array<uint32_t, workload::kMaxBasketSize> basket;  // indexes into the SecurityInfo list
};

struct CustomerInfo {
  int32_t first_account;
  int32_t account_count;
  std::string exec_name;  // T_EXEC_NAME, escaped
};

// An initiated trade waiting for its completion.
struct PendingTrade {
  int64_t complete_ms;
  int64_t t_id;
  int64_t pending_ms;  // order time; PNDG of limit orders
  int64_t submit_ms;
  int32_t account;
  int32_t bid;    // cents
  int32_t price;  // cents
  int16_t qty;
  uint8_t position;  // in the account's basket
  TradeType type;
  bool is_cash;
  bool lifo;
};

// Orders the heap so that the earliest completion (then the lowest T_ID) is on top.
struct CompletesLater {
  bool operator()(const PendingTrade& a, const PendingTrade& b) const {
    if (a.complete_ms != b.complete_ms) return a.complete_ms > b.complete_ms;
    return a.t_id > b.t_id;
  }
};

class TradeGenerator {
 public:
  TradeGenerator(const workload::Sizing& sizing, int64_t load_unit, UnitOutput& out)
      : sizing_(sizing),
        load_unit_(load_unit),
        out_(out),
        trade_(out.Writer(Table::kTrade)),
        history_(out.Writer(Table::kTradeHistory)),
        settlement_(out.Writer(Table::kSettlement)),
        cash_(out.Writer(Table::kCashTransaction)),
        holding_history_(out.Writer(Table::kHoldingHistory)) {}

  void Run() {
    Prepare();
    Timeline();
    if (!out_.ok()) return;
    WriteHoldings();
    WriteBrokers();
  }

 private:
  void Prepare();
  void Timeline();
  PendingTrade Initiate(Random& rng, int64_t t_id, int64_t order_ms, int32_t account, int position);
  void Complete(const PendingTrade& t);
  void WriteHoldings();
  void WriteBrokers();

  std::vector<Lot>& LotsOf(int32_t account, int position) {
    return lots_[static_cast<size_t>(account) * workload::kMaxBasketSize +
                 static_cast<size_t>(position)];
  }
  void HoldingHistory(int64_t lot_t_id, int64_t t_id, int32_t before, int32_t after) {
    holding_history_.text().Int(lot_t_id).Int(t_id).Int(before).Int(after);
    holding_history_.EndRow();
  }

  const workload::Sizing& sizing_;
  const int64_t load_unit_;
  UnitOutput& out_;
  TableWriter& trade_;
  TableWriter& history_;
  TableWriter& settlement_;
  TableWriter& cash_;
  TableWriter& holding_history_;

  std::vector<SecurityInfo> securities_;
  std::vector<AccountInfo> accounts_;
  std::vector<CustomerInfo> customers_;
  std::vector<std::vector<Lot>> lots_;  // account × basket position
  std::vector<PendingTrade> queue_;     // a heap by CompletesLater
  std::array<int64_t, workload::kBrokersPerLoadUnit> broker_trades_{};
  std::array<int64_t, workload::kBrokersPerLoadUnit> broker_commission_{};

  WorkClock clock_;
  TimestampText complete_text_;
  TimestampText submit_text_;
  TimestampText pending_text_;
  TimestampText due_text_;
  std::string cash_name_;
};

void TradeGenerator::Prepare() {
  const workload::CustomerModel model(sizing_);
  const workload::Market market(sizing_);
  const int64_t first_c_id = workload::FirstCustomerIdOfLoadUnit(load_unit_);
  const int64_t first_broker = workload::BrokerIdOfLoadUnit(load_unit_, 0);
  std::unordered_map<int64_t, uint32_t> security_slot;
  customers_.reserve(workload::kCustomersPerLoadUnit);
  accounts_.reserve(workload::kAccountsPerLoadUnit);
  for (int64_t c = 0; c < workload::kCustomersPerLoadUnit; ++c) {
    const int64_t c_id = first_c_id + c;
    const workload::CustomerTaxRates rates = model.TaxRateChoice(c_id);
    const std::vector<int64_t> account_ids = model.AccountIds(c_id);
    customers_.push_back({static_cast<int32_t>(accounts_.size()),
                          static_cast<int32_t>(account_ids.size()),
                          EscapedCopyText(workload::FullName(c_id))});
    for (const int64_t ca_id : account_ids) {
      AccountInfo a{};
      a.ca_id = ca_id;
      a.customer = static_cast<int32_t>(c);
      a.tax_rate_e5 = rates.national->rate_e5 + rates.division->rate_e5;
      a.broker = static_cast<int8_t>(model.AccountBroker(ca_id) - first_broker);
      a.tax_status = static_cast<int8_t>(model.AccountTaxStatus(ca_id));
      a.tier = static_cast<int8_t>(model.Tier(c_id));
      const std::vector<int64_t> basket = model.Basket(ca_id);
      a.basket_size = static_cast<uint8_t>(basket.size());
      for (size_t p = 0; p < basket.size(); ++p) {
        const int64_t s = basket[p];
        auto [it, inserted] =
            security_slot.try_emplace(s, static_cast<uint32_t>(securities_.size()));
        if (inserted) {
          securities_.push_back({market.Symbol(s), EscapedCopyText(market.SecurityName(s)),
                                 market.SecurityExchange(s), workload::PriceCurve(s)});
        }
        a.basket[p] = it->second;
      }
      accounts_.push_back(a);
    }
  }
  lots_.resize(accounts_.size() * workload::kMaxBasketSize);
}

void TradeGenerator::Timeline() {
  const workload::CustomerSelector selector(sizing_);
  const int64_t block = sizing_.TradeIdBlockSize();
  const int64_t trades = sizing_.TradesPerLoadUnit();
  const int64_t first_ordinal = workload::TradeOrdinalsOfLoadUnit(sizing_, load_unit_).first;
  const int64_t total_ms = sizing_.initial_trade_days * workload::kMillisPerBusinessDay;
  const int64_t gap_ms = total_ms / block;
  const int64_t first_c_id = workload::FirstCustomerIdOfLoadUnit(load_unit_);
  Random rng =
      Random::ForKey(seeds::kTrades, static_cast<uint64_t>(load_unit_) << kLoadUnitStreamShift);
  queue_.reserve(4096);
  int64_t generated = 0;
  // Enough ordinals remain in the block for every trade: the block holds 1.01× the trades
  // and at most one in 101 ordinals is skipped.
  for (int64_t i = 0; i < block && generated < trades; ++i) {
    const int64_t ordinal = first_ordinal + i;
    if (workload::IsAbortedTradeOrdinal(ordinal)) continue;
    ++generated;
    // Evenly spaced initiations with a jitter below the gap, so order times increase.
    const int64_t order_ms = static_cast<int64_t>(static_cast<Int128>(i) * total_ms / block) +
                             (gap_ms > 1 ? rng.Int64Range(0, gap_ms - 1) : 0);
    // Every later trade completes after its own order time, so whatever completes by now
    // is final.
    while (!queue_.empty() && queue_.front().complete_ms <= order_ms) {
      std::pop_heap(queue_.begin(), queue_.end(), CompletesLater());
      Complete(queue_.back());
      queue_.pop_back();
    }
    // Customer by the tier-weighted selector in the LU, account uniform, security uniform
    // from the account's basket (step 3).
    const int64_t c = selector.SelectInLoadUnit(rng, load_unit_) - first_c_id;
    const CustomerInfo& customer = customers_[static_cast<size_t>(c)];
    const int32_t account = customer.first_account + rng.IntRange(0, customer.account_count - 1);
    const int position = rng.IntRange(0, accounts_[static_cast<size_t>(account)].basket_size - 1);
    queue_.push_back(
        Initiate(rng, workload::TradeIdFromOrdinal(ordinal), order_ms, account, position));
    std::push_heap(queue_.begin(), queue_.end(), CompletesLater());
    if (generated % kCheckEvery == 0 && !out_.ok()) return;
  }
  while (!queue_.empty()) {
    std::pop_heap(queue_.begin(), queue_.end(), CompletesLater());
    Complete(queue_.back());
    queue_.pop_back();
  }
}

// Steps 4-5: type, quantity, flags, and the times and prices along the security's curve.
PendingTrade TradeGenerator::Initiate(Random& rng, int64_t t_id, int64_t order_ms, int32_t account,
                                      int position) {
  PendingTrade t{};
  t.t_id = t_id;
  t.account = account;
  t.position = static_cast<uint8_t>(position);
  const AccountInfo& a = accounts_[static_cast<size_t>(account)];
  const SecurityInfo& security = securities_[a.basket[static_cast<size_t>(position)]];

  int point = rng.IntRange(1, 100);
  int type = 0;
  while (type + 1 < kTradeTypeCount && point > kTradeTypePercent[static_cast<size_t>(type)]) {
    point -= kTradeTypePercent[static_cast<size_t>(type)];
    ++type;
  }
  t.type = static_cast<TradeType>(type);
  const TradeTypeRow& tt = TradeTypeOf(t.type);
  t.qty = static_cast<int16_t>(kQuantities[static_cast<size_t>(rng.IntRange(0, 3))]);
  t.lifo = rng.Percent(kLifoPercent);
  t.is_cash = tt.is_sell || rng.Percent(kCashBuyPercent);

  t.pending_ms = order_ms;
  if (tt.is_market) {
    t.submit_ms = order_ms;
    t.bid = static_cast<int32_t>(security.curve.PriceCentsAt(order_ms));
  } else {
    const int64_t limit = rng.Int64Range(workload::kPriceLowCents, workload::kPriceHighCents);
    t.bid = static_cast<int32_t>(limit);
    const int64_t now = security.curve.PriceCentsAt(order_ms);
    const bool in_the_money = t.type == TradeType::kLimitSell ? now >= limit : now <= limit;
    if (in_the_money) {
      t.submit_ms = order_ms + rng.Int64Range(kInTheMoneyMinMs, kInTheMoneyMaxMs);
    } else {
      // The limit lies in [20.00, 30.00], so the curve reaches it within one period.
      t.submit_ms = security.curve.NextTimeAtPrice(order_ms, limit).value_or(order_ms);
    }
  }
  const int64_t delay_ms =
      std::min(static_cast<int64_t>(std::llround(rng.NegExp(kMeanCompletionDelayS) * 1000.0)),
               kMaxCompletionDelayMs);
  const int64_t price_ms = t.submit_ms + delay_ms;
  int64_t price = security.curve.PriceCentsAt(price_ms);
  if (t.type == TradeType::kLimitBuy) price = std::min<int64_t>(price, t.bid);
  if (t.type == TradeType::kLimitSell) price = std::max<int64_t>(price, t.bid);
  t.price = static_cast<int32_t>(price);
  t.complete_ms = price_ms + kCompletionExtraMs;
  return t;
}

// Steps 6-10 for one completed trade, as Trade-Result would apply it.
void TradeGenerator::Complete(const PendingTrade& t) {
  const AccountInfo& a = accounts_[static_cast<size_t>(t.account)];
  const SecurityInfo& security = securities_[a.basket[t.position]];
  const TradeTypeRow& tt = TradeTypeOf(t.type);
  std::vector<Lot>& lots = LotsOf(t.account, t.position);

  // Step 9: a sell closes long lots, a buy closes short lots (newest first if LIFO), and any
  // remainder opens a lot the other way. buy/sell values (cents) feed the tax.
  int64_t buy_value = 0;
  int64_t sell_value = 0;
  int32_t needed = t.qty;
  const int32_t sign = tt.is_sell ? 1 : -1;  // the sign of the lots this trade closes
  if (!lots.empty() && (lots.front().qty > 0) == tt.is_sell) {
    while (needed > 0 && !lots.empty()) {
      Lot& lot = t.lifo ? lots.back() : lots.front();
      const int32_t held = lot.qty * sign;  // > 0
      const int32_t closed = std::min(held, needed);
      const int32_t after = (held - closed) * sign;
      HoldingHistory(lot.t_id, t.t_id, lot.qty, after);
      const int64_t open_value = int64_t{closed} * lot.price;
      const int64_t close_value = int64_t{closed} * t.price;
      buy_value += tt.is_sell ? open_value : close_value;
      sell_value += tt.is_sell ? close_value : open_value;
      needed -= closed;
      if (after == 0) {
        if (t.lifo) {
          lots.pop_back();
        } else {
          lots.erase(lots.begin());
        }
      } else {
        lot.qty = after;
      }
    }
  }
  if (needed > 0) {
    const int32_t qty = -needed * sign;
    HoldingHistory(t.t_id, t.t_id, 0, qty);
    lots.push_back({t.t_id, t.complete_ms, qty, t.price});
  }

  // Step 6: charge, commission, tax.
  const int64_t value = int64_t{t.qty} * t.price;
  const int64_t charge = kChargeCents[static_cast<size_t>(t.type)][static_cast<size_t>(a.tier - 1)];
  const int64_t rate = CommissionRateHundredths(a.tier, security.exchange, t.qty);
  const int64_t commission = (value * rate + 5000) / 10000;
  int64_t tax = 0;
  if (a.tax_status != 0 && sell_value > buy_value) {
    tax = ((sell_value - buy_value) * a.tax_rate_e5 + 50000) / 100000;
  }
  // Step 8: the settlement amount; tax is withheld only for tax status 1.
  int64_t amount = tt.is_sell ? value - charge - commission : -(value + charge + commission);
  if (a.tax_status == 1) amount -= tax;

  const workload::Timestamp completed = clock_.ToTimestamp(t.complete_ms);
  const std::string_view complete_text = complete_text_.Format(completed);
  trade_.text()
      .Int(t.t_id)
      .Raw(complete_text)
      .Raw("CMPT")
      .Raw(tt.id)
      .Bool(t.is_cash)
      .Raw(security.symbol)
      .Int(t.qty)
      .Fixed(t.bid, 2)
      .Int(a.ca_id)
      .Raw(customers_[static_cast<size_t>(a.customer)].exec_name)
      .Fixed(t.price, 2)
      .Fixed(charge, 2)
      .Fixed(commission, 2)
      .Fixed(tax, 2)
      .Bool(t.lifo);
  trade_.EndRow();

  // Step 7: PNDG (limit orders), SBMT, CMPT.
  if (!tt.is_market) {
    history_.text()
        .Int(t.t_id)
        .Raw(pending_text_.Format(clock_.ToTimestamp(t.pending_ms)))
        .Raw("PNDG");
    history_.EndRow();
  }
  history_.text().Int(t.t_id).Raw(submit_text_.Format(clock_.ToTimestamp(t.submit_ms))).Raw("SBMT");
  history_.EndRow();
  history_.text().Int(t.t_id).Raw(complete_text).Raw("CMPT");
  history_.EndRow();

  settlement_.text()
      .Int(t.t_id)
      .Raw(t.is_cash ? "Cash Account" : "Margin")
      .Raw(due_text_.FormatDate(workload::AddDays(workload::DateOf(completed), kSettlementDays)))
      .Fixed(amount, 2);
  settlement_.EndRow();

  if (t.is_cash) {
    cash_name_.assign(tt.name);
    cash_name_.push_back(' ');
    cash_name_.append(t.qty == 100 ? "100" : t.qty == 200 ? "200" : t.qty == 400 ? "400" : "800");
    cash_name_.append(" shares of ");
    cash_name_.append(security.name);
    cash_.text().Int(t.t_id).Raw(complete_text).Fixed(amount, 2).Raw(cash_name_);
    cash_.EndRow();
  }

  // Step 10.
  ++broker_trades_[static_cast<size_t>(a.broker)];
  broker_commission_[static_cast<size_t>(a.broker)] += commission;
}

// Step 9, after the last trade: the open lots and their sums per account and security.
void TradeGenerator::WriteHoldings() {
  TableWriter& holding = out_.Writer(Table::kHolding);
  TableWriter& summary = out_.Writer(Table::kHoldingSummary);
  TimestampText dts_text;
  for (size_t acc = 0; acc < accounts_.size() && out_.ok(); ++acc) {
    const AccountInfo& a = accounts_[acc];
    for (int p = 0; p < a.basket_size; ++p) {
      const std::vector<Lot>& lots = LotsOf(static_cast<int32_t>(acc), p);
      if (lots.empty()) continue;
      const SecurityInfo& security = securities_[a.basket[static_cast<size_t>(p)]];
      int64_t sum = 0;
      for (const Lot& lot : lots) {
        holding.text()
            .Int(lot.t_id)
            .Int(a.ca_id)
            .Raw(security.symbol)
            .Raw(dts_text.Format(clock_.ToTimestamp(lot.dts_ms)))
            .Fixed(lot.price, 2)
            .Int(lot.qty);
        holding.EndRow();
        sum += lot.qty;
      }
      summary.text().Int(a.ca_id).Raw(security.symbol).Int(sum);
      summary.EndRow();
    }
  }
}

// The LU's brokers with the count and commission total of their accounts' trades.
void TradeGenerator::WriteBrokers() {
  TableWriter& broker = out_.Writer(Table::kBroker);
  for (int64_t j = 0; j < workload::kBrokersPerLoadUnit; ++j) {
    const int64_t b_id = workload::BrokerIdOfLoadUnit(load_unit_, j);
    broker.text()
        .Int(b_id)
        .Raw("ACTV")
        .Text(workload::FullNameWithInitial(workload::BrokerPersonId(b_id)))
        .Int(broker_trades_[static_cast<size_t>(j)])
        .Fixed(broker_commission_[static_cast<size_t>(j)], 2);
    broker.EndRow();
  }
}

}  // namespace

void GenerateTradeTables(const workload::Sizing& sizing, int64_t load_unit, UnitOutput& out) {
  TradeGenerator(sizing, load_unit, out).Run();
}

}  // namespace bb::loader
