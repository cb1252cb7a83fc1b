// LatencyHistogram: a fixed-size log-linear histogram of microsecond values: the Customer
// Emulator's summary (response times per type, dispatch lateness) and the market emulator's
// Trade-Result 90th percentile per summary interval. Recording is an increment, never an
// allocation, so it is cheap per transaction; percentiles are read at the end (15 KiB: reset
// it by assigning a new one).
//
// Buckets: values below 64 µs have one bucket each; above, every power of two is split into
// 32 equal buckets, so a reported percentile is within 1/32 (about 3 %) of the true value. The
// upper bound of the bucket that holds the percentile is reported (never under-states).
//
// Ownership and thread-safety: a value; one writer; not safe to share between threads.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

namespace bb {

class LatencyHistogram {
 public:
  void Record(int64_t micros) {
    if (micros < 0) micros = 0;
    ++counts_[Index(static_cast<uint64_t>(micros))];
    ++count_;
    sum_ += micros;
    if (micros > max_) max_ = micros;
  }

  int64_t count() const { return count_; }
  int64_t max() const { return max_; }
  double Mean() const { return count_ == 0 ? 0.0 : static_cast<double>(sum_) / count_; }

  // The smallest bucket bound below which at least `fraction` (0..1) of the values lie.
  int64_t Percentile(double fraction) const {
    if (count_ == 0) return 0;
    auto wanted = static_cast<int64_t>(fraction * static_cast<double>(count_) + 0.999999);
    if (wanted < 1) wanted = 1;
    int64_t seen = 0;
    for (int i = 0; i < kBuckets; ++i) {
      seen += counts_[i];
      if (seen >= wanted) {
        int64_t upper = UpperBound(i);
        return upper < max_ ? upper : max_;
      }
    }
    return max_;
  }

  void Merge(const LatencyHistogram& other) {
    for (int i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
    count_ += other.count_;
    sum_ += other.sum_;
    if (other.max_ > max_) max_ = other.max_;
  }

 private:
  static constexpr int kLinear = 64;  // values 0..63 exactly
  static constexpr int kSubBits = 5;  // 32 buckets per power of two above
  static constexpr int kPowers = 58;  // up to 2^63
  static constexpr int kBuckets = kLinear + kPowers * (1 << kSubBits);

  static int Index(uint64_t v) {
    if (v < kLinear) return static_cast<int>(v);
    int msb = 63 - std::countl_zero(v);  // >= 6
    int sub = static_cast<int>((v >> (msb - kSubBits)) & ((1u << kSubBits) - 1));
    return kLinear + (msb - 6) * (1 << kSubBits) + sub;
  }
  static int64_t UpperBound(int index) {
    if (index < kLinear) return index;
    int power = (index - kLinear) >> kSubBits;
    int sub = (index - kLinear) & ((1 << kSubBits) - 1);
    int msb = power + 6;
    uint64_t base = uint64_t{1} << msb;
    uint64_t step = uint64_t{1} << (msb - kSubBits);
    return static_cast<int64_t>(base + step * (sub + 1) - 1);
  }

  std::array<int64_t, kBuckets> counts_{};
  int64_t count_ = 0;
  int64_t sum_ = 0;
  int64_t max_ = 0;
};

}  // namespace bb
