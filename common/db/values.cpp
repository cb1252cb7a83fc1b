// Param, QueryResult and ArrayReader (session.h): the values of statements and rows in
// PostgreSQL's text form, and the parsers that read them.
#include <charconv>
#include <cstring>

#include <fmt/format.h>
#include <libpq-fe.h>

#include "common/db/session.h"
#include "common/db/session_internal.h"

namespace bb::db {

namespace {

constexpr int64_t kMicrosPerDay = 86'400'000'000LL;

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void CivilFromDays(int64_t z, int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp + (mp < 10 ? 3 : -9);
  y += m <= 2;
}

double ParseDouble(std::string_view s) {
  double v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

bool ParseBool(std::string_view s) { return !s.empty() && (s[0] == 't' || s[0] == '1'); }

// numeric text: [-]digits[.digits]; exact to the cent, half away from zero beyond.
int64_t ParseCents(std::string_view s) {
  bool negative = !s.empty() && s[0] == '-';
  if (negative) s.remove_prefix(1);
  auto dot = s.find('.');
  int64_t whole = ParseInt(s.substr(0, dot));
  int64_t cents = 0;
  if (dot != std::string_view::npos) {
    std::string_view frac = s.substr(dot + 1);
    for (int i = 0; i < 2; ++i)
      cents = cents * 10 + (i < static_cast<int>(frac.size()) ? frac[i] - '0' : 0);
    if (frac.size() > 2 && frac[2] >= '5') ++cents;
  }
  int64_t v = whole * 100 + cents;
  return negative ? -v : v;
}

// 'YYYY-MM-DD HH:MM:SS[.ffffff]' -> µs since the epoch.
int64_t ParseTimestamp(std::string_view s) {
  if (s.size() < 19) return 0;
  int64_t days =
      DaysFromCivil(ParseInt(s.substr(0, 4)), static_cast<unsigned>(ParseInt(s.substr(5, 2))),
                    static_cast<unsigned>(ParseInt(s.substr(8, 2))));
  int64_t micros = days * kMicrosPerDay + ParseInt(s.substr(11, 2)) * 3'600'000'000LL +
                   ParseInt(s.substr(14, 2)) * 60'000'000 + ParseInt(s.substr(17, 2)) * 1'000'000;
  if (s.size() > 20 && s[19] == '.') {
    std::string_view frac = s.substr(20, 6);
    int64_t f = ParseInt(frac);
    for (std::size_t i = frac.size(); i < 6; ++i) f *= 10;
    micros += f;
  }
  return micros;
}

// 'YYYY-MM-DD' -> days since the epoch.
int32_t ParseDate(std::string_view s) {
  if (s.size() < 10) return 0;
  return static_cast<int32_t>(DaysFromCivil(ParseInt(s.substr(0, 4)),
                                            static_cast<unsigned>(ParseInt(s.substr(5, 2))),
                                            static_cast<unsigned>(ParseInt(s.substr(8, 2)))));
}

}  // namespace

// ---- Param -----------------------------------------------------------------------------------

Param::Param(int64_t v) : text_(fmt::format("{}", v)) {}
Param::Param(double v) : text_(fmt::format("{}", v)) {}
Param::Param(bool v) : text_(v ? "t" : "f") {}
Param::Param(std::string_view v) : text_(v) {}

Param Param::Null() {
  Param p;
  p.null_ = true;
  return p;
}

Param Param::Cents(int64_t cents) {
  Param p;
  uint64_t magnitude = cents < 0 ? 0 - static_cast<uint64_t>(cents) : cents;
  p.text_ = fmt::format("{}{}.{:02}", cents < 0 ? "-" : "", magnitude / 100, magnitude % 100);
  return p;
}

Param Param::Timestamp(int64_t micros) {
  int64_t days =
      micros >= 0 ? micros / kMicrosPerDay : -((-micros + kMicrosPerDay - 1) / kMicrosPerDay);
  int64_t rest = micros - days * kMicrosPerDay;
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, y, m, d);
  Param p;
  p.text_ =
      fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:06}", y, m, d, rest / 3'600'000'000LL,
                  rest / 60'000'000 % 60, rest / 1'000'000 % 60, rest % 1'000'000);
  return p;
}

Param Param::Date(int32_t days) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, y, m, d);
  Param p;
  p.text_ = fmt::format("{:04}-{:02}-{:02}", y, m, d);
  return p;
}

std::size_t QueryResult::size() const {
  return impl_ ? static_cast<std::size_t>(PQntuples(impl_->result.get())) : 0;
}

int64_t QueryResult::affected_rows() const {
  return impl_ ? ParseInt(PQcmdTuples(impl_->result.get())) : 0;
}

bool QueryResult::IsNull(std::size_t row, int col) const {
  return PQgetisnull(impl_->result.get(), static_cast<int>(row), col) != 0;
}

std::string_view QueryResult::Text(std::size_t row, int col) const {
  const PGresult* r = impl_->result.get();
  return std::string_view(PQgetvalue(r, static_cast<int>(row), col),
                          static_cast<std::size_t>(PQgetlength(r, static_cast<int>(row), col)));
}

int64_t QueryResult::Int(std::size_t row, int col) const { return ParseInt(Text(row, col)); }
double QueryResult::Double(std::size_t row, int col) const { return ParseDouble(Text(row, col)); }
bool QueryResult::Bool(std::size_t row, int col) const { return ParseBool(Text(row, col)); }
int64_t QueryResult::Cents(std::size_t row, int col) const { return ParseCents(Text(row, col)); }
int64_t QueryResult::TimestampMicros(std::size_t row, int col) const {
  return ParseTimestamp(Text(row, col));
}
int32_t QueryResult::DateDays(std::size_t row, int col) const { return ParseDate(Text(row, col)); }

// ---- ArrayReader -----------------------------------------------------------------------------

ArrayReader::ArrayReader(std::string_view text) {
  // "{...}"; a NULL array reads as "" (no elements); so does "{}".
  if (text.size() >= 2 && text.front() == '{' && text.back() == '}') {
    rest_ = text.substr(1, text.size() - 2);
  }
}

namespace {
// The position of `c` in text[from, to), or `to`. memchr: the elements that matter (a bytea's
// 200 000 hex digits, clause 2.2.11's NI_ITEM) are long.
std::size_t FindIn(std::string_view text, char c, std::size_t from, std::size_t to) {
  if (from >= to) return to;
  const void* at = std::memchr(text.data() + from, c, to - from);
  return at == nullptr ? to : static_cast<std::size_t>(static_cast<const char*>(at) - text.data());
}
}  // namespace

bool ArrayReader::Next() {
  null_ = false;
  value_ = {};
  if (rest_.empty()) return false;
  if (rest_.front() == '"') {
    // Quoted: up to the closing quote; \" and \\ stand for " and \ (a backslash that ends the
    // text stands for itself). The runs between backslashes are copied whole.
    const std::size_t size = rest_.size();
    std::size_t from = 1;
    std::size_t quote = FindIn(rest_, '"', from, size);
    bool escaped = false;
    for (std::size_t slash; (slash = FindIn(rest_, '\\', from, quote)) < quote;) {
      if (!escaped) unescaped_.clear();
      escaped = true;
      unescaped_.append(rest_.data() + from, slash - from);
      if (slash + 1 == size) {  // the text ends with it
        unescaped_.push_back('\\');
        from = quote = size;
        break;
      }
      unescaped_.push_back(rest_[slash + 1]);
      from = slash + 2;
      if (slash + 1 == quote) quote = FindIn(rest_, '"', from, size);  // that quote was escaped
    }
    if (escaped) {
      unescaped_.append(rest_.data() + from, quote - from);
      value_ = unescaped_;
    } else {
      value_ = rest_.substr(1, quote - 1);
    }
    rest_.remove_prefix(std::min(quote + 1, size));
  } else {
    std::size_t comma = rest_.find(',');
    value_ = rest_.substr(0, comma);
    null_ = value_ == "NULL";
    if (null_) value_ = {};
    rest_.remove_prefix(comma == std::string_view::npos ? rest_.size() : comma);
  }
  if (!rest_.empty() && rest_.front() == ',') {
    rest_.remove_prefix(1);
    if (rest_.empty()) rest_ = "\"\"";  // "{a,}" cannot come from the server; read as ""
  }
  return true;
}

int64_t ArrayReader::Int() const { return ParseInt(value_); }
double ArrayReader::Double() const { return ParseDouble(value_); }
bool ArrayReader::Bool() const { return ParseBool(value_); }
int64_t ArrayReader::Cents() const { return ParseCents(value_); }
int64_t ArrayReader::TimestampMicros() const { return ParseTimestamp(value_); }
int32_t ArrayReader::DateDays() const { return ParseDate(value_); }
}  // namespace bb::db
