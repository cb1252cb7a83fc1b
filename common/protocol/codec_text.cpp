// ToText (codec.h): a message as "name: value" lines for people.
#include <optional>
#include <string>

#include <fmt/format.h>

#include "common/protocol/codec.h"
#include "common/protocol/field_visitors.h"
#include "common/protocol/message_fields.h"

namespace bb::protocol {

namespace {

// Writes "name: value" lines, indented by nesting, for people (bb-txn, logs). It walks the same
// field lists as the encoder and decoder, so it never disagrees with the wire.
class TextVisitor : public VisitorBase {
 public:
  explicit TextVisitor(std::string& out) : VisitorBase(""), out_(out) {}

  void I32(const char* name, int32_t v) { Line(name, fmt::format("{}", v)); }
  void I64(const char* name, int64_t v) { Line(name, fmt::format("{}", v)); }
  void U16(const char* name, uint16_t v) { Line(name, fmt::format("{}", v)); }
  void U32(const char* name, uint32_t v) { Line(name, fmt::format("{}", v)); }
  void F64(const char* name, double v) { Line(name, fmt::format("{}", v)); }
  void Bool(const char* name, bool v) { Line(name, v ? "true" : "false"); }
  void OptionalI64(const char* name, const std::optional<int64_t>& v) {
    Line(name, v ? fmt::format("{}", *v) : "null");
  }
  void I32In(const char* name, int32_t v, int32_t, int32_t) { I32(name, v); }
  template <typename E>
  void Enum(const char* name, E v, uint8_t, uint8_t) {
    Line(name, fmt::format("{}", static_cast<int>(v)));
  }
  void Str(const char* name, const std::string& s, size_t) {
    constexpr size_t kShown = 72;
    Line(name, s.size() <= kShown ? fmt::format("'{}'", s)
                                  : fmt::format("'{}...' ({} bytes)", s.substr(0, kShown), s.size()));
  }
  template <typename F>
  void Nested(const char* name, F&& visit_fields) {
    Line(name, "");
    ++depth_;
    visit_fields();
    --depth_;
  }
  template <typename T, typename F>
  void Array(const char* name, const std::vector<T>& items, size_t, F&& visit_item) {
    Line(name, fmt::format("{} item{}", items.size(), items.size() == 1 ? "" : "s"));
    ++depth_;
    for (size_t i = 0; i < items.size(); ++i) {
      index_ = i;
      visit_item(items[i]);
    }
    index_.reset();
    --depth_;
  }

 private:
  void Line(const char* name, const std::string& value) {
    out_.append(2 * depth_, ' ');
    if (name != nullptr) {
      out_ += name;
    } else if (index_) {
      out_ += fmt::format("[{}]", *index_);  // a scalar item of an array
    }
    if (!value.empty()) out_ += ": " + value;
    out_ += '\n';
  }

  std::string& out_;
  int depth_ = 0;
  std::optional<size_t> index_;
};

}  // namespace

std::string ToText(const Message& message) {
  std::string out;
  std::visit(
      [&](const auto& m) {
        out = std::string(MessageTypeName(TypeOf(message))) + "\n";
        TextVisitor v(out);
        Fields(v, m);
      },
      message);
  return out;
}

}  // namespace bb::protocol
