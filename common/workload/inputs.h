// InputGenerator: the inputs of every transaction the Customer Emulator sends (spec clause
// 6.4.1, with EGen's rules where the spec leaves the details to it): the eight mix transactions,
// Data-Maintenance and Trade-Cleanup, filled into the protocol's input structs.
//
// The driver must not read the database (4.4.1), so everything a generated input names is
// derived from the deterministic world of common/workload, exactly as the loader wrote it:
//  * customers, their tiers and accounts (CustomerSelector, CustomerModel, ids.h);
//  * tax ids, names of owners and of the extra executors of ACCOUNT_PERMISSION (person.h,
//    the account's permission draws);
//  * the security basket of an account (the holdings Trade-Order trades from), symbols,
//    company names and issues (Market), sectors and industries, division tax rates;
//  * broker names, rebuilt from B_ID as the loader builds B_NAME;
//  * the loaded trade ids (the per-LU ordinal blocks, the aborted ordinals) and the time span
//    of the initial trades (calendar.h).
// Nothing here depends on what happened during a run (new trades, Data-Maintenance's changes),
// which the spec's inputs never need.
//
// Allocation: a call allocates only the strings and vectors of the struct it returns.
//
// Input variants (clause 6.4.1): every choice the clause gives a required share is dealt from a
// deck of its own (deck.h; the decks and the reasons are at VariantDecks below), never drawn
// independently, so the shares hold over everything one generator deals. Which customer,
// account, security or trade an input names stays a draw (NURand or uniform, as the spec says).
//
// Ownership and thread-safety: a value holding a Sizing, its customer selectors, its generator
// and its decks; copy it freely (a copy deals on from the same state, independently); never use
// one from two threads at once. Use one for all the users of an emulator: the shares are exact
// over its decks' passes, not over one user's few transactions. The same sizing, seed,
// partition and sequence of calls give the same inputs.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "common/protocol/transactions.h"
#include "common/util/status.h"
#include "common/workload/customer.h"
#include "common/workload/customer_selection.h"
#include "common/workload/deck.h"
#include "common/workload/random.h"
#include "common/workload/sizing.h"
#include "common/workload/spec.h"

namespace bb::workload {

// A seed for stream `stream` of a run (a user's deck, a user's inputs, the DM thread...):
// the run's seed skipped by stream × 2^40 draws, so no two streams of a run ever overlap.
RngSeed StreamSeed(RngSeed run_seed, uint64_t stream);

// The run's seed when none is fixed: clause 5.8.2 wants a driver's run-time
// generators seeded from the time of day, a fixed seed being for engineering (replaying a run).
// The tenth of a second since the Unix epoch in the low 40 bits, the instance (a process id)
// in the 23 above, so two emulators started in the same tenth still differ; the result is at
// most INT64_MAX, so `--seed` with it replays the run.
RngSeed TimeOfDaySeed(int64_t unix_tenths, uint32_t instance);
// The same for now and this process: the emulators' seed when no --seed fixes it.
RngSeed TimeOfDaySeed();

// True when the loader wrote a TRADE row with this ordinal: the first TradesPerLoadUnit()
// ordinals of each LU's block that are not aborted (≡ 51 mod 101). The tail of a block stays
// unused when the block holds more than that (only for scale factors that make
// TradesPerLoadUnit() not a multiple of 100).
bool IsLoadedTradeOrdinal(const Sizing& sizing, int64_t ordinal);

// The choices of one generated input that clause 6.4.1 gives required shares, as
// the mix log's `inputs` column writes them (postprocess/MIXLOG.md, v2): tokens separated by
// single spaces, a choice among several always (Trade-Order's trade type and quantity, CP's
// customer key, MW's mode, TL's and TU's frame), a flag only when it is set:
//   CP  cust | tax, [hist]                     MW  industry | watch | acct
//   SD  [lob]                                  TL  f1 | f2 | f3 | f4     TU  f1 | f2 | f3
//   TO  TMB | TMS | TLB | TLS | TSL, q100 | q200 | q400 | q800, [name] [tp] [margin] [lifo] [rb]
//   BV, TS  (nothing: no share of their inputs is required)
// e.g. "TLB q200 name lifo". The longest, "TMB q800 name tp margin lifo rb", fits kCapacity.
// A fixed-size value: recording one allocates nothing.
class InputVariant {
 public:
  static constexpr std::size_t kCapacity = 39;

  std::string_view view() const { return {text_.data(), size_}; }

 private:
  friend class InputGenerator;
  void Clear() { size_ = 0; }
  void Add(std::string_view token);

  std::array<char, kCapacity> text_{};
  std::size_t size_ = 0;
};

class InputGenerator {
 public:
  // Draws customers from the whole configured range.
  InputGenerator(const Sizing& sizing, RngSeed seed);
  // Draws customers with `selector` (CustomerSelector::ForPartition for a CE that owns a
  // partition, clause 6.4.2), which must be made for the same sizing. Data-Maintenance always draws
  // from the whole range.
  InputGenerator(const Sizing& sizing, RngSeed seed, const CustomerSelector& selector);
  // A generator for a CE that owns `count` customers from customer ordinal `first_ordinal`
  // (1-based); the error names the option at fault.
  static Result<InputGenerator> ForPartition(const Sizing& sizing, RngSeed seed,
                                             int64_t first_ordinal, int64_t count);

  const Sizing& sizing() const { return sizing_; }
  const CustomerSelector& selector() const { return customers_; }

  // --- the eight mix transactions (clause 6.4.1) ---
  protocol::BrokerVolumeInput BrokerVolume();
  protocol::CustomerPositionInput CustomerPosition();
  protocol::MarketWatchInput MarketWatch();
  protocol::SecurityDetailInput SecurityDetail();
  protocol::TradeLookupInput TradeLookup();
  protocol::TradeOrderInput TradeOrder();
  protocol::TradeStatusInput TradeStatus();
  protocol::TradeUpdateInput TradeUpdate();
  // The variant of the input the last of the eight calls above returned.
  const InputVariant& variant() const { return variant_; }

  // --- timer-driven ---
  // The caller owns the rotation of tables (clause 3.3.11); this fills the inputs that table needs.
  protocol::DataMaintenanceInput DataMaintenance(protocol::MaintenanceTable table);
  // The run's Trade-Cleanup (clause 3.3.12): no random draw.
  protocol::TradeCleanupInput TradeCleanup() const;

 private:
  int64_t AccountOf(int64_t c_id);
  int64_t NonUniformTradeId();
  void FillTradeIds(std::vector<int64_t>& ids);
  int64_t StartTradeMicros(int64_t back_off_ms);
  int64_t UniformSecurity();

  // The decks of the choices clause 6.4.1 gives required shares, one a choice, each with the
  // fewest cards that make its shares exact (the fewer the cards, the closer any run of deals
  // stays to the shares). EGen draws each choice independently, so a 2-hour interval of a small
  // database (14 545 Trade-Orders at 1000 customers) misses the clause's narrower ranges by
  // chance most of the time (a 10 % variant strays by 0.25 points, 2.5 times the range's
  // half-width); dealt, each share is within two passes' cards of exact over any run of
  // transactions, whatever the length of the run, the number of users or of emulators.
  // The choices stay independent of one another: each deck is shuffled by its own deals.
  struct VariantDecks {
    Deck<1, 1> cp_by_tax_id;       // by tax id, by customer id: 50 / 50 %
    Deck<1, 1> cp_history;         // get_history: 50 %
    Deck<1, 12, 7> mw_mode;        // by industry, watch list, account: 5 / 60 / 35 %
    Deck<1, 99> sd_lob;            // access_lob: 1 %
    Deck<3, 3, 3, 1> tl_frame;     // frames 1-4: 30 / 30 / 30 / 10 %
    Deck<33, 33, 34> tu_frame;     // frames 1-3: 33 / 33 / 34 %
    Deck<3, 3, 2, 1, 1> to_type;   // TMB, TMS, TLB, TLS, TSL: 30 / 30 / 20 / 10 / 10 %
    Deck<1, 1, 1, 1> to_quantity;  // 100, 200, 400, 800: 25 % each
    Deck<2, 3> to_by_name;         // security by company name and issue: 40 %
    Deck<1, 9> to_third_party;     // an executor other than the owner: 10 %
    // Dealt for buys only (a sell is never on margin): 16 % of the buys, which are exactly half
    // of every pass of to_type, is 8 % of all Trade-Orders.
    Deck<4, 21> to_margin;
    Deck<7, 13> to_lifo;                        // 35 %
    Deck<1, spec::kRollbackOneIn - 1> to_roll;  // roll_it_back: 1 in 101
  };

  Sizing sizing_;
  CustomerModel model_;
  CustomerSelector customers_;      // the CE's customers (maybe a partition)
  CustomerSelector all_customers_;  // Data-Maintenance's
  Random rng_;
  int64_t initial_trade_ms_;       // ITD business days of work time in ms
  int64_t end_of_initial_trades_;  // µs, EndOfInitialTradesForInputs
  int64_t max_acct_id_;            // TL/TU frame 3's max_acct_id
  InputVariant variant_;           // of the last mix input
  VariantDecks decks_;
};

}  // namespace bb::workload
