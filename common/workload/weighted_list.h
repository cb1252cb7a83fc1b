// WeightedList: a list of words with integer weights and a draw that picks a word with
// probability weight / total weight (cumulative weights and a binary search, no floating
// point). The name lists (word_lists.h) are frequency-weighted.
//
// Ownership and thread-safety: owns its words; immutable after construction, so one list may
// be shared by any number of threads.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/workload/random.h"

namespace bb::workload {

class WeightedList {
 public:
  WeightedList() = default;
  WeightedList(std::vector<std::string> words, const std::vector<uint32_t>& weights)
      : words_(std::move(words)) {
    assert(words_.size() == weights.size());
    cumulative_.reserve(weights.size());
    uint64_t total = 0;
    for (uint32_t w : weights) {
      total += w;
      cumulative_.push_back(total);
    }
  }

  size_t size() const { return words_.size(); }
  const std::string& operator[](size_t i) const { return words_[i]; }
  const std::vector<std::string>& words() const { return words_; }
  uint64_t total_weight() const { return cumulative_.empty() ? 0 : cumulative_.back(); }
  uint64_t weight(size_t i) const { return cumulative_[i] - (i == 0 ? 0 : cumulative_[i - 1]); }

  // The index whose weight interval holds `point` (0 <= point < total_weight()).
  size_t IndexAt(uint64_t point) const {
    return static_cast<size_t>(std::upper_bound(cumulative_.begin(), cumulative_.end(), point) -
                               cumulative_.begin());
  }
  // One draw from `rng`.
  size_t PickIndex(Random& rng) const {
    return IndexAt(
        static_cast<uint64_t>(rng.Int64Range(0, static_cast<int64_t>(total_weight()) - 1)));
  }
  const std::string& Pick(Random& rng) const { return words_[PickIndex(rng)]; }

 private:
  std::vector<std::string> words_;
  std::vector<uint64_t> cumulative_;
};

}  // namespace bb::workload
