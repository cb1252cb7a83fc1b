#include "common/workload/random.h"

#include <array>
#include <cassert>
#include <cmath>

namespace bb::workload {
namespace {

__extension__ using Uint128 = unsigned __int128;

// One entry per bit of the skip count: the affine map x -> mult·x + add that advances the
// generator 2^i steps. Composing the entries for the set bits of N advances it N steps.
struct AffineStep {
  uint64_t mult;
  uint64_t add;
};

constexpr std::array<AffineStep, 64> MakeSkipTable() {
  std::array<AffineStep, 64> table{};
  AffineStep step{Random::kMultiplier, Random::kIncrement};
  for (auto& entry : table) {
    entry = step;
    // Applying `step` twice: m·(m·x + a) + a = m²·x + a·(m + 1).
    step = AffineStep{step.mult * step.mult, step.add * (step.mult + 1)};
  }
  return table;
}

constexpr std::array<AffineStep, 64> kSkipTable = MakeSkipTable();

}  // namespace

RngSeed Random::NthElement(RngSeed start, uint64_t n) {
  uint64_t x = start;
  for (int bit = 0; n != 0; ++bit, n >>= 1) {
    if (n & 1) x = x * kSkipTable[bit].mult + kSkipTable[bit].add;
  }
  return x;
}

int64_t Random::Int64Range(int64_t min, int64_t max) {
  assert(min <= max);
  const uint64_t s = Next();
  const uint64_t range = static_cast<uint64_t>(max) - static_cast<uint64_t>(min) + 1;
  if (range == 0) return static_cast<int64_t>(s);  // the whole 64-bit range
  const auto high = static_cast<uint64_t>((static_cast<Uint128>(s) * range) >> 64);
  return static_cast<int64_t>(static_cast<uint64_t>(min) + high);
}

double Random::DoubleIncrRange(double min, double max, double increment) {
  const auto steps = static_cast<int64_t>(std::llround((max - min) / increment));
  return min + static_cast<double>(Int64Range(0, steps)) * increment;
}

double Random::NegExp(double mean) {
  constexpr int64_t kGrid = 1'000'000'000'000;  // u at 1e-12 granularity
  const double u = static_cast<double>(Int64Range(1, kGrid)) / static_cast<double>(kGrid);
  return -std::log(u) * mean;
}

int64_t Random::NURand(int64_t p, int64_t q, int64_t a, int shift) {
  const int64_t uniform = Int64Range(p, q);
  const int64_t skew = Int64Range(0, a);
  return ((uniform | (skew << shift)) % (q - p + 1)) + p;
}

}  // namespace bb::workload
