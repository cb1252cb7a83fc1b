// CopyText: builds rows in PostgreSQL's COPY text format (tab-separated, '\N' for NULL,
// backslash escapes) into a reusable buffer, without allocating per row once warm.
//
// Ownership: owns its buffer. Thread-safety: none; one per generating thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace bb::loader {

class CopyText {
 public:
  CopyText() { buffer_.reserve(kChunkBytes + 4096); }

  // Hand the buffer to a sink once it holds at least this many bytes.
  static constexpr std::size_t kChunkBytes = 256 * 1024;

  CopyText& Int(int64_t value);
  // A fixed-point number with `scale` decimals from its scaled integer: Fixed(12345, 2) is
  // "123.45", Fixed(-5, 2) is "-0.05".
  CopyText& Fixed(int64_t scaled, int scale);
  CopyText& Bool(bool value) { return Raw(value ? "t" : "f"); }
  // Text, escaped for COPY (backslash, tab, newline, carriage return).
  CopyText& Text(std::string_view value);
  CopyText& Null() { return Raw("\\N"); }
  // Pre-formatted text known to need no escaping (dates, timestamps, numbers).
  CopyText& Raw(std::string_view value) {
    Separate();
    buffer_.append(value);
    return *this;
  }
  // Ends the current row.
  void EndRow() {
    buffer_.push_back('\n');
    at_row_start_ = true;
  }

  bool Full() const { return buffer_.size() >= kChunkBytes; }
  bool empty() const { return buffer_.empty(); }
  std::string_view view() const { return buffer_; }
  void Clear() {
    buffer_.clear();
    at_row_start_ = true;
  }

 private:
  void Separate() {
    if (!at_row_start_) buffer_.push_back('\t');
    at_row_start_ = false;
  }

  std::string buffer_;
  bool at_row_start_ = true;
};

}  // namespace bb::loader
