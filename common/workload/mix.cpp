#include "common/workload/mix.h"

namespace bb::workload {
namespace {

struct TypeNames {
  std::string_view code;
  std::string_view name;
};
// Indexed by TransactionType.
constexpr std::array<TypeNames, kTransactionTypeCount> kNames = {{
    {"BV", "Broker-Volume"},
    {"CP", "Customer-Position"},
    {"MF", "Market-Feed"},
    {"MW", "Market-Watch"},
    {"SD", "Security-Detail"},
    {"TL", "Trade-Lookup"},
    {"TO", "Trade-Order"},
    {"TR", "Trade-Result"},
    {"TS", "Trade-Status"},
    {"TU", "Trade-Update"},
    {"DM", "Data-Maintenance"},
    {"TC", "Trade-Cleanup"},
}};

constexpr int SumOfDeckWeights() {
  int sum = 0;
  for (const DeckWeight& w : kDeckWeights) sum += w.cards;
  return sum;
}
static_assert(SumOfDeckWeights() == kDeckSize, "the clause 6.3.1 weights add up to 890 cards");

}  // namespace

std::string_view TransactionCode(TransactionType type) {
  return kNames[static_cast<size_t>(type)].code;
}

std::string_view TransactionName(TransactionType type) {
  return kNames[static_cast<size_t>(type)].name;
}

std::optional<TransactionType> TransactionTypeFromCode(std::string_view code) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i].code == code) return static_cast<TransactionType>(i);
  }
  return std::nullopt;
}

int DeckCards(TransactionType type) {
  for (const DeckWeight& w : kDeckWeights) {
    if (w.type == type) return w.cards;
  }
  return 0;
}

TransactionType MixDeck::Next() {
  // Clause 6.3.1: the card deck.
  return kDeckWeights[static_cast<size_t>(cards_.Deal(rng_))].type;
}

}  // namespace bb::workload
