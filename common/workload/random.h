// Random: the workload's random number generator, a 64-bit linear congruential generator
// with O(log N) skip-ahead (as EGen's), plus the draws built on it (integer ranges
// without floating point, percentages, doubles on a step grid, negative exponential) and the
// non-uniform NURand (EGen's, after TPC-C's).
//
// Skip-ahead is what lets the loader, the customer emulator and the market emulator agree on
// every derived attribute: an attribute of key k is drawn from a generator positioned at
// "base seed skipped by k" (ForKey), so nobody needs to read the database or replay a stream.
// A caller that draws more than once per key multiplies the key by a per-key draw budget, so
// the streams of neighbouring keys do not overlap.
//
// Ownership and thread-safety: a Random is a small value (one 64-bit state); copy it freely.
// It is not safe to share one generator between threads: give each thread its own.
#pragma once

#include <cstdint>

namespace bb::workload {

using RngSeed = uint64_t;

// Base seeds, one per purpose (EGen has one per purpose too; the values are our own).
// Changing a value changes the generated world: the loader and the drivers must agree.
namespace seeds {
inline constexpr RngSeed kDefault = 0x6a09e667f3bcc908ULL;
// Customers and persons.
inline constexpr RngSeed kGender = 0x243f6a8885a308d3ULL;
inline constexpr RngSeed kFirstName = 0x13198a2e03707344ULL;
inline constexpr RngSeed kMiddleInitial = 0xa4093822299f31d0ULL;
inline constexpr RngSeed kLastName = 0x082efa98ec4e6c89ULL;
inline constexpr RngSeed kTaxId = 0x452821e638d01377ULL;
inline constexpr RngSeed kDateOfBirth = 0xbe5466cf34e90c6cULL;
inline constexpr RngSeed kPhone = 0xc0ac29b7c97c50ddULL;
inline constexpr RngSeed kEmail = 0x3f84d5b5b5470917ULL;
// Addresses and tax rates.
inline constexpr RngSeed kAddress = 0x9216d5d98979fb1bULL;
inline constexpr RngSeed kZipChoice = 0xd1310ba698dfb5acULL;
inline constexpr RngSeed kTaxRateChoice = 0x2ffd72dbd01adfb7ULL;
// Accounts (clauses 1.4.2.2, 1.4.2.3).
inline constexpr RngSeed kAccountBroker = 0xb8e1afed6a267e96ULL;
inline constexpr RngSeed kAccountTaxStatus = 0xba7c9045f12c7f99ULL;
inline constexpr RngSeed kAccountBalance = 0x24a19947b3916cf7ULL;
inline constexpr RngSeed kAccountPermissions = 0x0801f2e2858efc16ULL;
inline constexpr RngSeed kAccountBasket = 0x636920d871574e69ULL;
// Market.
inline constexpr RngSeed kCompanyIndustry = 0xa458fea3f4933d7eULL;
inline constexpr RngSeed kCompanyRating = 0x0d95748f728eb658ULL;
inline constexpr RngSeed kSecurityExchange = 0x718bcd5882154aeeULL;
// Fixed lists built once from code (word lists, zip codes, tax rates).
inline constexpr RngSeed kWordLists = 0x7b54a41dc25a59b5ULL;
inline constexpr RngSeed kZipCodes = 0x9c30d5392af26013ULL;
inline constexpr RngSeed kTaxRates = 0xc5d1b023286085f0ULL;
}  // namespace seeds

class Random {
 public:
  // EGen's LCG (Knuth's MMIX constants).
  static constexpr uint64_t kMultiplier = 6364136223846793005ULL;
  static constexpr uint64_t kIncrement = 1;

  explicit Random(RngSeed seed = seeds::kDefault) : state_(seed) {}

  // The state reached from `start` after n steps, in O(log n) ("Nth element", as EGen does).
  static RngSeed NthElement(RngSeed start, uint64_t n);

  // A generator positioned at `base` skipped by key × draws_per_key: the per-key seeding of
  // EGen does the same. A caller that draws up to n times per key passes n, so neighbouring keys
  // never share a draw.
  static Random ForKey(RngSeed base, uint64_t key, uint64_t draws_per_key = 1) {
    return Random(NthElement(base, key * draws_per_key));
  }

  RngSeed state() const { return state_; }
  void Seed(RngSeed seed) { state_ = seed; }
  void Skip(uint64_t n) { state_ = NthElement(state_, n); }

  // Advances one step and returns the new state.
  uint64_t Next() {
    state_ = state_ * kMultiplier + kIncrement;
    return state_;
  }

  // Uniform in [min, max] (inclusive), from the high 64 bits of state × range: one step.
  int64_t Int64Range(int64_t min, int64_t max);
  int IntRange(int min, int max) { return static_cast<int>(Int64Range(min, max)); }

  // True with probability percent/100: a draw in [1, 100] is <= percent.
  bool Percent(int percent) { return IntRange(1, 100) <= percent; }

  // min + k·increment with k uniform in [0, round((max - min) / increment)].
  double DoubleIncrRange(double min, double max, double increment);

  // −ln(u)·mean with u uniform in (0, 1] at 1e-12 granularity.
  double NegExp(double mean);

  // NURand(P, Q, A, s) = ((U[P,Q] | (U[0,A] << s)) mod (Q−P+1)) + P.
  int64_t NURand(int64_t p, int64_t q, int64_t a, int shift);

 private:
  uint64_t state_;
};

}  // namespace bb::workload
