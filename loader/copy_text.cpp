#include "loader/copy_text.h"

#include <charconv>
#include <cstdlib>

namespace bb::loader {

CopyText& CopyText::Int(int64_t value) {
  Separate();
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  buffer_.append(digits, end);
  return *this;
}

CopyText& CopyText::Fixed(int64_t scaled, int scale) {
  Separate();
  if (scaled < 0) buffer_.push_back('-');
  uint64_t magnitude = scaled < 0 ? 0 - static_cast<uint64_t>(scaled) : scaled;
  uint64_t divisor = 1;
  for (int i = 0; i < scale; ++i) divisor *= 10;
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, magnitude / divisor);
  buffer_.append(digits, end);
  if (scale > 0) {
    buffer_.push_back('.');
    uint64_t fraction = magnitude % divisor;
    for (uint64_t d = divisor / 10; d > 0; d /= 10) {
      buffer_.push_back(static_cast<char>('0' + (fraction / d) % 10));
    }
  }
  return *this;
}

CopyText& CopyText::Text(std::string_view value) {
  Separate();
  for (char c : value) {
    switch (c) {
      case '\\':
        buffer_.append("\\\\");
        break;
      case '\t':
        buffer_.append("\\t");
        break;
      case '\n':
        buffer_.append("\\n");
        break;
      case '\r':
        buffer_.append("\\r");
        break;
      default:
        buffer_.push_back(c);
    }
  }
  return *this;
}

}  // namespace bb::loader
