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

}  // namespace bb
