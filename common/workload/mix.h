// The transaction types of a run and the Customer Emulator's transaction mix (spec clause
// 6.3.1).
//
// The CE draws its next transaction from a deck (deck.h) of 890 cards that holds each of its
// eight transaction types as many times as the type's weight (BV 49, CP 130, MW 180, SD 140,
// TL 80, TO 101, TS 190, TU 20). So every pass of 890 consecutive draws holds the exact mix, and
// the order inside a pass is random. Market-Feed and Trade-Result come from the
// MEE, Data-Maintenance and Trade-Cleanup from the CE's own timers: they have codes for the mix
// log but no cards.
//
// Ownership and thread-safety: MixDeck is a small value (its generator and 890 one-byte cards);
// one per emulator (or per thread); not safe to share between threads.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

#include "common/workload/deck.h"
#include "common/workload/random.h"

namespace bb::workload {

// Every transaction of a run, in the order of their two-letter codes (the mix log's codes).
enum class TransactionType : uint8_t {
  kBrokerVolume = 0,      // BV
  kCustomerPosition = 1,  // CP
  kMarketFeed = 2,        // MF (MEE)
  kMarketWatch = 3,       // MW
  kSecurityDetail = 4,    // SD
  kTradeLookup = 5,       // TL
  kTradeOrder = 6,        // TO
  kTradeResult = 7,       // TR (MEE)
  kTradeStatus = 8,       // TS
  kTradeUpdate = 9,       // TU
  kDataMaintenance = 10,  // DM (CE timer, once a minute)
  kTradeCleanup = 11,     // TC (CE, once before the run)
};
inline constexpr int kTransactionTypeCount = 12;

// "BV", "CP", "MF", "MW", "SD", "TL", "TO", "TR", "TS", "TU", "DM", "TC".
std::string_view TransactionCode(TransactionType type);
// "Broker-Volume", "Customer-Position", ..., "Trade-Cleanup".
std::string_view TransactionName(TransactionType type);
// The type of a two-letter code (upper case, as TransactionCode writes it), or nothing.
std::optional<TransactionType> TransactionTypeFromCode(std::string_view code);

// The eight types the CE draws from its deck, with their cards (clause 6.3.1); they add up to 890.
struct DeckWeight {
  TransactionType type;
  int cards;
};
inline constexpr int kDeckSize = 890;
inline constexpr std::array<DeckWeight, 8> kDeckWeights = {{
    {TransactionType::kBrokerVolume, 49},
    {TransactionType::kCustomerPosition, 130},
    {TransactionType::kMarketWatch, 180},
    {TransactionType::kSecurityDetail, 140},
    {TransactionType::kTradeLookup, 80},
    {TransactionType::kTradeOrder, 101},
    {TransactionType::kTradeStatus, 190},
    {TransactionType::kTradeUpdate, 20},
}};
// The cards of a type in the deck: 0 for the types the CE does not draw.
int DeckCards(TransactionType type);

class MixDeck {
 public:
  // The deck's order follows from the seed alone.
  explicit MixDeck(RngSeed seed) : rng_(seed) {}

  // The next transaction type; draws without allocating.
  TransactionType Next();
  // Draws made in the current pass, 0..889: a pass that ends at 0 held the exact mix.
  int position() const { return cards_.position(); }

 private:
  // Kind i is kDeckWeights[i].type.
  template <std::size_t... I>
  static Deck<kDeckWeights[I].cards...> CardsOf(std::index_sequence<I...>);
  using Cards = decltype(CardsOf(std::make_index_sequence<kDeckWeights.size()>()));
  static_assert(Cards::kSize == kDeckSize);

  Random rng_;
  Cards cards_;
};

}  // namespace bb::workload
