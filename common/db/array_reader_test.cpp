// ArrayReader on PostgreSQL's array text, no database: hand-written cases, long elements (a
// bytea's hex digits, as Security-Detail's news items arrive), and random texts read against a
// reader written the plain way, character by character.
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/db/session.h"

namespace bb::db {
namespace {

struct Element {
  std::string value;
  bool null;
  bool operator==(const Element&) const = default;
  friend void PrintTo(const Element& e, std::ostream* os) { *os << (e.null ? "NULL" : "'" + e.value + "'"); }
};

std::vector<Element> Read(std::string_view text) {
  std::vector<Element> out;
  for (ArrayReader a(text); a.Next();) out.push_back({std::string(a.value()), a.is_null()});
  return out;
}

// The rule, character by character: a quoted element runs to the first quote no backslash
// escapes; a backslash stands for the character after it, or for itself at the very end.
std::vector<Element> ReadPlainly(std::string_view text) {
  std::vector<Element> out;
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') return out;
  std::string_view rest = text.substr(1, text.size() - 2);
  while (!rest.empty()) {
    Element e{"", false};
    std::size_t i = 0;
    if (rest[0] == '"') {
      for (i = 1; i < rest.size() && rest[i] != '"'; ++i) {
        if (rest[i] == '\\' && i + 1 < rest.size()) ++i;
        e.value.push_back(rest[i]);
      }
      rest.remove_prefix(std::min(i + 1, rest.size()));
    } else {
      i = std::min(rest.find(','), rest.size());
      e.value = std::string(rest.substr(0, i));
      e.null = e.value == "NULL";
      if (e.null) e.value.clear();
      rest.remove_prefix(i);
    }
    out.push_back(e);
    if (!rest.empty() && rest[0] == ',') {
      rest.remove_prefix(1);
      if (rest.empty()) rest = "\"\"";
    }
  }
  return out;
}

TEST(ArrayReaderTest, QuotedEscapedAndPlainElements) {
  EXPECT_THAT(Read(R"({"a b",NULL,"q\"x","back\\slash","","NULL","{}","x,y",7})"),
              ::testing::ElementsAre(Element{"a b", false}, Element{"", true}, Element{"q\"x", false},
                                     Element{"back\\slash", false}, Element{"", false},
                                     Element{"NULL", false}, Element{"{}", false},
                                     Element{"x,y", false}, Element{"7", false}));
  EXPECT_THAT(Read(R"({"\"","\\",x"\\"})"),
              ::testing::ElementsAre(Element{"\"", false}, Element{"\\", false},
                                     Element{"x\"\\\\\"", false}));
  EXPECT_TRUE(Read("{}").empty());
  EXPECT_TRUE(Read("").empty());
}

TEST(ArrayReaderTest, UnterminatedTextReadsToItsEnd) {
  // Not what a server sends; read without running past the text.
  EXPECT_THAT(Read(R"({"abc})"), ::testing::ElementsAre(Element{"abc", false}));
  EXPECT_THAT(Read(R"({"ab\})"), ::testing::ElementsAre(Element{"ab\\", false}));
}

TEST(ArrayReaderTest, LongByteaElementsComeWhole) {
  // Two news items of 100 000 bytes, as bytea[] text: "\\x" and 200 000 hex digits each.
  std::string hex;
  for (int i = 0; i < 100'000; ++i) hex += "0123456789abcdef"[i % 16], hex += "fedcba9876543210"[i % 16];
  const std::string text = "{\"\\\\x" + hex + "\",\"\\\\x" + hex + "\"}";
  const auto elements = Read(text);
  ASSERT_EQ(elements.size(), 2u);
  EXPECT_EQ(elements[0].value, "\\x" + hex);
  EXPECT_EQ(elements[1].value, "\\x" + hex);
}

TEST(ArrayReaderTest, RandomTextsReadAsThePlainRuleReadsThem) {
  std::mt19937 rng(20261128);
  const std::string alphabet = "ab\\\",{} N";
  for (int n = 0; n < 20'000; ++n) {
    std::string inner;
    const int length = static_cast<int>(rng() % 24);
    for (int i = 0; i < length; ++i) inner += alphabet[rng() % alphabet.size()];
    const std::string text = "{" + inner + "}";
    ASSERT_EQ(Read(text), ReadPlainly(text)) << "text: " << text;
  }
}

}  // namespace
}  // namespace bb::db
