// Private to the codec (codec.cpp, codec_text.cpp): the field visitors. Each message's field
// list is written once (message_fields.h) and walked by EncodeVisitor (const message) and
// DecodeVisitor (mutable message), so the two sides cannot disagree on order or width. Both
// visitors check the same limits.
//
// In an unnamed namespace on purpose, though a header: each of the two files gets copies of its
// own with internal linkage, as when this lived in codec.cpp, so GCC inlines the visitors into
// every Encode and Decode exactly as before (with external linkage it keeps more of them out of
// line: a call per field on the hot path). Include it from those two files only.
#pragma once

#include <array>
#include <cassert>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/protocol/codec.h"

namespace bb::protocol {
namespace {

constexpr size_t kMaxU16 = 0xFFFF;

// Where the visitor is, for error messages: "TradeLookupOutput.trades[3].history[1]".
class FieldPath {
 public:
  explicit FieldPath(const char* root) : root_(root) {}

  void Push(const char* name, size_t index) {
    assert(depth_ < parts_.size());
    parts_[depth_++] = {name, index};
  }
  void Pop() { --depth_; }

  std::string Describe(const char* leaf) const {
    std::string out = root_;
    for (size_t i = 0; i < depth_; ++i) {
      out += '.';
      out += parts_[i].name;
      if (parts_[i].index != kNoIndex)
        fmt::format_to(std::back_inserter(out), "[{}]", parts_[i].index);
    }
    if (leaf != nullptr) {
      out += '.';
      out += leaf;
    }
    return out;
  }

  static constexpr size_t kNoIndex = static_cast<size_t>(-1);

 private:
  struct Part {
    const char* name = nullptr;
    size_t index = kNoIndex;
  };
  const char* root_;
  std::array<Part, 4> parts_{};
  size_t depth_ = 0;
};

class VisitorBase {
 public:
  explicit VisitorBase(const char* root) : path_(root) {}

  bool failed() const { return !status_.ok(); }
  Status TakeStatus() { return std::move(status_); }

  template <typename F>
  void Nested(const char* name, F&& visit_fields) {
    if (failed()) return;
    path_.Push(name, FieldPath::kNoIndex);
    visit_fields();
    path_.Pop();
  }

 protected:
  void Fail(const char* leaf, const std::string& what) {
    if (failed()) return;
    status_ = Status::InvalidArgument(path_.Describe(leaf) + ": " + what);
  }

  template <typename E>
  bool CheckEnum(const char* name, E e, uint8_t lo, uint8_t hi) {
    const auto v = static_cast<uint8_t>(e);
    if (v >= lo && v <= hi) return true;
    Fail(name, fmt::format("{} is not {}..{}", v, lo, hi));
    return false;
  }

  bool CheckRange(const char* name, int32_t v, int32_t lo, int32_t hi) {
    if (v >= lo && v <= hi) return true;
    Fail(name, fmt::format("{} is not {}..{}", v, lo, hi));
    return false;
  }

  bool CheckLength(const char* name, size_t length, size_t max) {
    if (length <= max) return true;
    Fail(name, fmt::format("length {} exceeds {}", length, max));
    return false;
  }

  bool CheckCount(const char* name, size_t count, size_t max) {
    if (count <= max) return true;
    Fail(name, fmt::format("count {} exceeds {}", count, max));
    return false;
  }

  FieldPath path_;
  Status status_;
};

class EncodeVisitor : public VisitorBase {
 public:
  EncodeVisitor(const char* root, Writer& w) : VisitorBase(root), w_(w) {}

  void I32(const char*, int32_t v) { w_.PutI32(v); }
  void I64(const char*, int64_t v) { w_.PutI64(v); }
  void U16(const char*, uint16_t v) { w_.PutU16(v); }
  void U32(const char*, uint32_t v) { w_.PutU32(v); }
  void F64(const char*, double v) { w_.PutF64(v); }
  void Bool(const char*, bool v) { w_.PutU8(v ? 1 : 0); }

  void OptionalI64(const char*, const std::optional<int64_t>& v) {
    w_.PutU8(v.has_value() ? 1 : 0);
    if (v.has_value()) w_.PutI64(*v);
  }

  // An int32 that must lie in [lo, hi], e.g. a frame number.
  void I32In(const char* name, int32_t v, int32_t lo, int32_t hi) {
    if (CheckRange(name, v, lo, hi)) w_.PutI32(v);
  }

  template <typename E>
  void Enum(const char* name, E v, uint8_t lo, uint8_t hi) {
    if (CheckEnum(name, v, lo, hi)) w_.PutU8(static_cast<uint8_t>(v));
  }

  void Str(const char* name, const std::string& s, size_t max) {
    if (failed() || !CheckLength(name, s.size(), max)) return;
    if (max <= kMaxU16) {
      w_.PutU16(static_cast<uint16_t>(s.size()));
    } else {
      w_.PutU32(static_cast<uint32_t>(s.size()));
    }
    w_.PutBytes(s.data(), s.size());
  }

  template <typename T, typename F>
  void Array(const char* name, const std::vector<T>& items, size_t max, F&& visit_item) {
    if (failed() || !CheckCount(name, items.size(), max)) return;
    w_.PutU16(static_cast<uint16_t>(items.size()));
    for (size_t i = 0; i < items.size() && !failed(); ++i) {
      path_.Push(name, i);
      visit_item(items[i]);
      path_.Pop();
    }
  }

 private:
  Writer& w_;
};

class DecodeVisitor : public VisitorBase {
 public:
  DecodeVisitor(const char* root, Reader& r) : VisitorBase(root), r_(r) {}

  void I32(const char* name, int32_t& v) {
    if (!failed() && !r_.GetI32(v)) Truncated(name, 4);
  }
  void I64(const char* name, int64_t& v) {
    if (!failed() && !r_.GetI64(v)) Truncated(name, 8);
  }
  void U16(const char* name, uint16_t& v) {
    if (!failed() && !r_.GetU16(v)) Truncated(name, 2);
  }
  void U32(const char* name, uint32_t& v) {
    if (!failed() && !r_.GetU32(v)) Truncated(name, 4);
  }
  void F64(const char* name, double& v) {
    if (!failed() && !r_.GetF64(v)) Truncated(name, 8);
  }

  void Bool(const char* name, bool& v) {
    uint8_t b = 0;
    if (!GetFlag(name, b)) return;
    v = b == 1;
  }

  void OptionalI64(const char* name, std::optional<int64_t>& v) {
    uint8_t present = 0;
    if (!GetFlag(name, present)) return;
    if (present == 0) {
      v.reset();
      return;
    }
    int64_t x = 0;
    if (!r_.GetI64(x)) return Truncated(name, 8);
    v = x;
  }

  void I32In(const char* name, int32_t& v, int32_t lo, int32_t hi) {
    int32_t x = 0;
    if (failed()) return;
    if (!r_.GetI32(x)) return Truncated(name, 4);
    if (CheckRange(name, x, lo, hi)) v = x;
  }

  template <typename E>
  void Enum(const char* name, E& v, uint8_t lo, uint8_t hi) {
    uint8_t x = 0;
    if (failed()) return;
    if (!r_.GetU8(x)) return Truncated(name, 1);
    if (CheckEnum(name, x, lo, hi)) v = static_cast<E>(x);
  }

  void Str(const char* name, std::string& s, size_t max) {
    if (failed()) return;
    size_t length = 0;
    if (max <= kMaxU16) {
      uint16_t n = 0;
      if (!r_.GetU16(n)) return Truncated(name, 2);
      length = n;
    } else {
      uint32_t n = 0;
      if (!r_.GetU32(n)) return Truncated(name, 4);
      length = n;
    }
    if (!CheckLength(name, length, max)) return;
    const uint8_t* data = nullptr;
    if (!r_.GetBytes(length, data)) {
      return Fail(name, fmt::format("length {} but only {} bytes remain", length, r_.remaining()));
    }
    s.assign(reinterpret_cast<const char*>(data), length);
  }

  template <typename T, typename F>
  void Array(const char* name, std::vector<T>& items, size_t max, F&& visit_item) {
    if (failed()) return;
    uint16_t count = 0;
    if (!r_.GetU16(count)) return Truncated(name, 2);
    if (!CheckCount(name, count, max)) return;
    // Every item takes at least one byte: a cheap bound before resizing.
    if (count > r_.remaining()) {
      return Fail(name, fmt::format("count {} but only {} bytes remain", count, r_.remaining()));
    }
    items.resize(count);
    for (size_t i = 0; i < items.size() && !failed(); ++i) {
      path_.Push(name, i);
      visit_item(items[i]);
      path_.Pop();
    }
  }

 private:
  bool GetFlag(const char* name, uint8_t& b) {
    if (failed()) return false;
    if (!r_.GetU8(b)) {
      Truncated(name, 1);
      return false;
    }
    if (b > 1) {
      Fail(name, fmt::format("{} is not 0 or 1", b));
      return false;
    }
    return true;
  }

  void Truncated(const char* name, size_t need) {
    Fail(name, fmt::format("truncated: needs {} bytes, {} remain", need, r_.remaining()));
  }

  Reader& r_;
};

}  // namespace
}  // namespace bb::protocol
