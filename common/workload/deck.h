// Deck: choices dealt like cards, so that their shares are exact rather than drawn (clause
// 6.3.1's card deck; inputs.h deals the input variants of clause 6.4.1 the same way).
//
// A deck holds each kind of card as many times as its count. Each deal picks a card uniformly
// among those not yet dealt in the current pass and swaps it to the front (an incremental
// Fisher-Yates shuffle); after a whole pass the next starts over the permuted deck. So every
// pass holds each kind exactly its count, and any run of consecutive deals, of whatever length
// and wherever it starts, holds each kind less than twice its count away from its exact share
// (the run is whole passes and at most two partial ones), where independent draws stray by the
// square root of the run's length.
//
// Ownership and thread-safety: a small value (a byte a card and a position); the generator is
// the caller's, so decks that share one are dealt in the caller's order. Not safe to share
// between threads.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <utility>

#include "common/workload/random.h"

namespace bb::workload {

// The kinds are 0, 1, ... in the order of `Counts`: Deck<3, 3, 2, 1, 1> deals kind 0 three
// times in ten.
template <int... Counts>
class Deck {
 public:
  static constexpr int kSize = (Counts + ...);
  static_assert(((Counts >= 0) && ...) && kSize > 0 && sizeof...(Counts) <= 256,
                "card counts of at most 256 kinds, one card at least");

  constexpr Deck() {
    std::size_t next = 0;
    uint8_t kind = 0;
    for (const int count : {Counts...}) {
      for (int i = 0; i < count; ++i) cards_[next++] = kind;
      ++kind;
    }
  }

  // The next card's kind; one draw of `rng`, no allocation.
  int Deal(Random& rng) {
    const int pick = rng.IntRange(position_, kSize - 1);
    std::swap(cards_[static_cast<std::size_t>(position_)], cards_[static_cast<std::size_t>(pick)]);
    const int kind = cards_[static_cast<std::size_t>(position_)];
    position_ = position_ + 1 == kSize ? 0 : position_ + 1;
    return kind;
  }
  // Deals made in the current pass, 0..kSize-1: a pass that ends at 0 held each kind exactly
  // its count.
  int position() const { return position_; }

 private:
  std::array<uint8_t, kSize> cards_{};
  int position_ = 0;
};

}  // namespace bb::workload
