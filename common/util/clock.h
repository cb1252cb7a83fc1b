// Clocks for measurement. Response times come from the monotonic clock (immune to NTP
// steps); rows are stamped with wall-clock time. Both in microseconds (docs/ARCHITECTURE.md,
// "Customer Emulator"; spec 6.5 asks for at least 0.01 s resolution).
#pragma once

#include <chrono>
#include <cstdint>

namespace bb {

// Microseconds since the Unix epoch, for stamping log rows.
inline int64_t WallMicros() {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

// Microseconds on a monotonic clock with an arbitrary origin, for measuring intervals.
inline int64_t MonotonicMicros() {
  using namespace std::chrono;
  return duration_cast<microseconds>(steady_clock::now().time_since_epoch()).count();
}

// Wall-clock stamps read off the monotonic clock: an origin pair (both clocks) read once, then
// wall = origin wall + (monotonic - origin monotonic). A stamp taken this way keeps the order
// and spacing of the monotonic readings it comes from, and costs no second clock read; two
// separate reads do not (a thread preempted between them stamps its row milliseconds late,
// which made a user's consecutive requests seem to overlap under load). NTP's frequency
// corrections slew both clocks alike; a step of the wall clock after the origin is not
// followed, so the rows of one run stay consistent with each other.
//
// Ownership and thread-safety: a value; read-only after construction.
class WallFromMonotonic {
 public:
  WallFromMonotonic() {
    // The pair whose two monotonic reads are closest bracket the wall read best.
    int64_t best = INT64_MAX;
    for (int i = 0; i < 5; ++i) {
      const int64_t before = MonotonicMicros();
      const int64_t wall = WallMicros();
      const int64_t after = MonotonicMicros();
      if (after - before < best) {
        best = after - before;
        origin_wall_ = wall;
        origin_mono_ = before + (after - before) / 2;
      }
    }
  }
  int64_t Wall(int64_t monotonic_us) const { return origin_wall_ + (monotonic_us - origin_mono_); }

 private:
  int64_t origin_wall_ = 0;
  int64_t origin_mono_ = 0;
};

}  // namespace bb
