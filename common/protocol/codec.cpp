#include "common/protocol/codec.h"

#include <array>
#include <bit>
#include <cassert>
#include <concepts>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

namespace bb::protocol {

// ---------------------------------------------------------------------------------------------
// Writer and Reader.

uint8_t* Writer::Extend(size_t size) {
  if (vector_ != nullptr) {
    const size_t old = vector_->size();
    vector_->resize(old + size);
    return vector_->data() + old;
  }
  if (overflowed_ || size > fixed_.size() - fixed_size_) {
    overflowed_ = true;
    return nullptr;
  }
  uint8_t* p = fixed_.data() + fixed_size_;
  fixed_size_ += size;
  return p;
}

void Writer::Put(uint64_t v, size_t width) {
  uint8_t* p = Extend(width);
  if (p == nullptr) return;
  for (size_t i = 0; i < width; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

void Writer::PutF64(double v) { PutU64(std::bit_cast<uint64_t>(v)); }

void Writer::PutBytes(const void* data, size_t size) {
  if (size == 0) return;
  uint8_t* p = Extend(size);
  if (p != nullptr) std::memcpy(p, data, size);
}

void Writer::Truncate(size_t size) {
  if (vector_ != nullptr) {
    if (size < vector_->size()) vector_->resize(size);
  } else if (size <= fixed_size_) {
    fixed_size_ = size;
    overflowed_ = false;
  }
}

void Writer::Overwrite(size_t offset, std::span<const uint8_t> bytes) {
  assert(offset + bytes.size() <= size());
  uint8_t* base = vector_ != nullptr ? vector_->data() : fixed_.data();
  std::memcpy(base + offset, bytes.data(), bytes.size());
}

std::span<const uint8_t> Writer::bytes() const {
  if (vector_ != nullptr) return {vector_->data(), vector_->size()};
  return {fixed_.data(), fixed_size_};
}

bool Reader::GetBytes(size_t size, const uint8_t*& data) {
  if (size > remaining()) return false;
  data = bytes_.data() + position_;
  position_ += size;
  return true;
}

namespace {

template <typename U>
bool GetLE(Reader& r, U& v) {
  const uint8_t* p = nullptr;
  if (!r.GetBytes(sizeof(U), p)) return false;
  U x = 0;
  for (size_t i = 0; i < sizeof(U); ++i) x |= static_cast<U>(static_cast<U>(p[i]) << (8 * i));
  v = x;
  return true;
}

}  // namespace

bool Reader::GetU8(uint8_t& v) { return GetLE(*this, v); }
bool Reader::GetU16(uint16_t& v) { return GetLE(*this, v); }
bool Reader::GetU32(uint32_t& v) { return GetLE(*this, v); }
bool Reader::GetU64(uint64_t& v) { return GetLE(*this, v); }
bool Reader::GetI32(int32_t& v) {
  uint32_t u = 0;
  if (!GetU32(u)) return false;
  v = static_cast<int32_t>(u);
  return true;
}
bool Reader::GetI64(int64_t& v) {
  uint64_t u = 0;
  if (!GetU64(u)) return false;
  v = static_cast<int64_t>(u);
  return true;
}
bool Reader::GetF64(double& v) {
  uint64_t u = 0;
  if (!GetU64(u)) return false;
  v = std::bit_cast<double>(u);
  return true;
}

namespace {

// ---------------------------------------------------------------------------------------------
// Field visitors. Each message's field list is written once, as a Fields() template below, and
// walked by EncodeVisitor (const message) and DecodeVisitor (mutable message), so the two sides
// cannot disagree on order or width. Both visitors check the same limits.

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

// ---------------------------------------------------------------------------------------------
// Field lists. M is T or const T; the order here is the wire order (PROTOCOL.md).

template <typename M, typename T>
concept Is = std::same_as<std::remove_const_t<M>, T>;

template <typename V, Is<ReplyStatus> M>
void Fields(V& v, M& m) {
  v.I32("spec_status", m.spec_status);
  v.Enum("outcome", m.outcome, 0, kMaxOutcome);
  v.U32("retries", m.retries);
  v.I64("server_micros", m.server_micros);
  v.Str("detail", m.detail, width::kDetail);
}

template <typename V, Is<Hello> M>
void Fields(V& v, M& m) {
  v.U16("protocol_version", m.protocol_version);
  v.Str("component", m.component, width::kComponentName);
  v.I64("customers_total", m.customers_total);
  v.I32("scale_factor", m.scale_factor);
  v.I32("initial_trade_days", m.initial_trade_days);
}

template <typename V, Is<HelloReply> M>
void Fields(V& v, M& m) {
  v.Bool("accepted", m.accepted);
  v.Str("component", m.component, width::kComponentName);
  v.Str("reason", m.reason, width::kReason);
}

template <typename V, Is<ErrorReply> M>
void Fields(V& v, M& m) {
  v.Enum("code", m.code, kMinErrorCode, kMaxErrorCode);
  v.Str("text", m.text, width::kReason);
}

template <typename V, Is<MarketTradeRequest> M>
void Fields(V& v, M& m) {
  v.I64("trade_id", m.trade_id);
  v.Str("symbol", m.symbol, width::kSymbol);
  v.I32("trade_qty", m.trade_qty);
  v.I64("price", m.price);
  v.Str("trade_type_id", m.trade_type_id, width::kTradeTypeId);
  v.Enum("action", m.action, 0, kMaxMarketAction);
  v.I64("sent_at", m.sent_at);
}

template <typename V, Is<MarketTradeAck> M>
void Fields(V& v, M& m) {
  v.I64("trade_id", m.trade_id);
}

// Broker-Volume.
template <typename V, Is<BrokerVolumeInput> M>
void Fields(V& v, M& m) {
  v.Array("broker_list", m.broker_list, kMaxBrokerList,
          [&v](auto& name) { v.Str(nullptr, name, width::kBrokerName); });
  v.Str("sector_name", m.sector_name, width::kSectorName);
}

template <typename V, Is<BrokerVolumeRow> M>
void Fields(V& v, M& m) {
  v.Str("broker_name", m.broker_name, width::kBrokerName);
  v.I64("volume", m.volume);
}

template <typename V, Is<BrokerVolumeOutput> M>
void Fields(V& v, M& m) {
  v.Nested("status", [&] { Fields(v, m.status); });
  v.Array("brokers", m.brokers, kMaxBrokerList, [&v](auto& row) { Fields(v, row); });
}

// Customer-Position.
template <typename V, Is<CustomerPositionInput> M>
void Fields(V& v, M& m) {
  v.I64("cust_id", m.cust_id);
  v.Str("tax_id", m.tax_id, width::kTaxId);
  v.Bool("get_history", m.get_history);
  v.I32("acct_id_idx", m.acct_id_idx);
}

template <typename V, Is<Phone> M>
void Fields(V& v, M& m) {
  v.Str("country", m.country, width::kPhoneCountry);
  v.Str("area", m.area, width::kPhoneArea);
  v.Str("local", m.local, width::kPhoneLocal);
  v.Str("ext", m.ext, width::kPhoneExt);
}

template <typename V, Is<CustomerAccountPosition> M>
void Fields(V& v, M& m) {
  v.I64("acct_id", m.acct_id);
  v.I64("cash_bal", m.cash_bal);
  v.I64("asset_total", m.asset_total);
}

template <typename V, Is<PositionHistoryRow> M>
void Fields(V& v, M& m) {
  v.I64("trade_id", m.trade_id);
  v.Str("symbol", m.symbol, width::kSymbol);
  v.I32("qty", m.qty);
  v.Str("trade_status", m.trade_status, width::kStatusName);
  v.I64("hist_dts", m.hist_dts);
}

template <typename V, Is<CustomerPositionOutput> M>
void Fields(V& v, M& m) {
  v.Nested("status", [&] { Fields(v, m.status); });
  v.I64("cust_id", m.cust_id);
  v.Str("c_st_id", m.c_st_id, width::kStatusId);
  v.Str("l_name", m.l_name, width::kLastName);
  v.Str("f_name", m.f_name, width::kFirstName);
  v.Str("m_name", m.m_name, width::kMiddleName);
  v.Str("gender", m.gender, width::kGender);
  v.I32("tier", m.tier);
  v.I32("dob", m.dob);
  v.I64("ad_id", m.ad_id);
  v.Nested("phones[0]", [&] { Fields(v, m.phones[0]); });
  v.Nested("phones[1]", [&] { Fields(v, m.phones[1]); });
  v.Nested("phones[2]", [&] { Fields(v, m.phones[2]); });
  v.Str("email_1", m.email_1, width::kEmail);
  v.Str("email_2", m.email_2, width::kEmail);
  v.Array("accounts", m.accounts, kMaxAccounts, [&v](auto& row) { Fields(v, row); });
  v.Array("history", m.history, kMaxPositionHistory, [&v](auto& row) { Fields(v, row); });
}

// Market-Feed.
template <typename V, Is<TickerEntry> M>
void Fields(V& v, M& m) {
  v.Str("symbol", m.symbol, width::kSymbol);
  v.I64("price_quote", m.price_quote);
  v.I32("trade_qty", m.trade_qty);
}

template <typename V, Is<MarketFeedInput> M>
void Fields(V& v, M& m) {
  v.Array("entries", m.entries, kMaxFeedEntries, [&v](auto& e) { Fields(v, e); });
  v.Str("status_submitted", m.status_submitted, width::kStatusId);
  v.Str("type_limit_buy", m.type_limit_buy, width::kTradeTypeId);
  v.Str("type_limit_sell", m.type_limit_sell, width::kTradeTypeId);
  v.Str("type_stop_loss", m.type_stop_loss, width::kTradeTypeId);
  v.I32("unique_symbols", m.unique_symbols);
}

template <typename V, Is<MarketFeedOutput> M>
void Fields(V& v, M& m) {
  v.Nested("status", [&] { Fields(v, m.status); });
  v.I32("num_updated", m.num_updated);
  v.I32("send_len", m.send_len);
}

// Market-Watch.
template <typename V, Is<MarketWatchInput> M>
void Fields(V& v, M& m) {
  v.I64("acct_id", m.acct_id);
  v.I64("cust_id", m.cust_id);
  v.Str("industry_name", m.industry_name, width::kIndustryName);
  v.I64("starting_co_id", m.starting_co_id);
  v.I64("ending_co_id", m.ending_co_id);
  v.I32("start_date", m.start_date);
}

template <typename V, Is<MarketWatchOutput> M>
void Fields(V& v, M& m) {
  v.Nested("status", [&] { Fields(v, m.status); });
  v.F64("pct_change", m.pct_change);
}

// Security-Detail.
template <typename V, Is<SecurityDetailInput> M>
void Fields(V& v, M& m) {
  v.Str("symbol", m.symbol, width::kSymbol);
  v.I32("max_rows_to_return", m.max_rows_to_return);
  v.I32("start_day", m.start_day);
  v.Bool("access_lob_flag", m.access_lob_flag);
}

template <typename V, Is<PostalAddress> M>
void Fields(V& v, M& m) {
  v.Str("line1", m.line1, width::kAddressLine);
  v.Str("line2", m.line2, width::kAddressLine);
  v.Str("town", m.town, width::kTown);
  v.Str("division", m.division, width::kDivision);
  v.Str("zip", m.zip, width::kZipCode);
  v.Str("country", m.country, width::kCountry);
}

template <typename V, Is<Competitor> M>
void Fields(V& v, M& m) {
  v.Str("co_name", m.co_name, width::kCompanyName);
  v.Str("in_name", m.in_name, width::kIndustryName);
}

template <typename V, Is<FinancialRow> M>
void Fields(V& v, M& m) {
  v.I32("year", m.year);
  v.I32("qtr", m.qtr);
  v.I32("qtr_start_date", m.qtr_start_date);
  v.I64("revenue", m.revenue);
  v.I64("net_earn", m.net_earn);
  v.I64("basic_eps", m.basic_eps);
  v.I64("dilut_eps", m.dilut_eps);
  v.I64("margin", m.margin);
  v.I64("invent", m.invent);
  v.I64("assets", m.assets);
  v.I64("liability", m.liability);
  v.I64("out_basic", m.out_basic);
  v.I64("out_dilut", m.out_dilut);
}

template <typename V, Is<DailyMarketRow> M>
void Fields(V& v, M& m) {
  v.I32("date", m.date);
  v.I64("close", m.close);
  v.I64("high", m.high);
  v.I64("low", m.low);
  v.I64("vol", m.vol);
}

template <typename V, Is<NewsRow> M>
void Fields(V& v, M& m) {
  v.Str("item", m.item, width::kNewsItem);
  v.I64("dts", m.dts);
  v.Str("src", m.src, width::kNewsSource);
  v.Str("auth", m.auth, width::kNewsAuthor);
  v.Str("headline", m.headline, width::kNewsHeadline);
  v.Str("summary", m.summary, width::kNewsSummary);
}

template <typename V, Is<SecurityDetailOutput> M>
void Fields(V& v, M& m) {
  v.Nested("status", [&] { Fields(v, m.status); });
  v.Str("s_name", m.s_name, width::kSecurityName);
  v.I64("num_out", m.num_out);
  v.I32("start_date", m.start_date);
  v.I32("exch_date", m.exch_date);
  v.I64("pe_ratio", m.pe_ratio);
  v.I64("wk52_high", m.wk52_high);
  v.I32("wk52_high_date", m.wk52_high_date);
  v.I64("wk52_low", m.wk52_low);
  v.I32("wk52_low_date", m.wk52_low_date);
  v.I64("divid", m.divid);
  v.I64("yield", m.yield);
  v.Str("co_name", m.co_name, width::kCompanyName);
  v.Str("sp_rate", m.sp_rate, width::kSpRate);
  v.Str("ceo_name", m.ceo_name, width::kCeoName);
  v.Str("co_desc", m.co_desc, width::kCompanyDesc);
  v.I32("open_date", m.open_date);
  v.Str("co_st_id", m.co_st_id, width::kStatusId);
  v.Nested("co_address", [&] { Fields(v, m.co_address); });
  v.Str("ex_name", m.ex_name, width::kExchangeName);
  v.Str("ex_desc", m.ex_desc, width::kExchangeDesc);
  v.I32("ex_open", m.ex_open);
  v.I32("ex_close", m.ex_close);
  v.I32("ex_num_symb", m.ex_num_symb);
  v.Nested("ex_address", [&] { Fields(v, m.ex_address); });
  v.Array("competitors", m.competitors, kMaxCompetitors, [&v](auto& row) { Fields(v, row); });
  v.Array("financials", m.financials, kMaxFinancials, [&v](auto& row) { Fields(v, row); });
  v.Array("days", m.days, kMaxDayRows, [&v](auto& row) { Fields(v, row); });
  v.I64("last_price", m.last_price);
  v.I64("last_open", m.last_open);
  v.I64("last_vol", m.last_vol);
  v.Array("news", m.news, kMaxNews, [&v](auto& row) { Fields(v, row); });
}

// Trade-Lookup and Trade-Update.
template <typename V, Is<TradeHistoryEntry> M>
void Fields(V& v, M& m) {
  v.I64("dts", m.dts);
  v.Str("status_id", m.status_id, width::kStatusId);
}

template <typename V, Is<TradeInfo> M>
void Fields(V& v, M& m) {
  v.I64("trade_id", m.trade_id);
  v.I64("acct_id", m.acct_id);
  v.Str("exec_name", m.exec_name, width::kExecName);
  v.Bool("is_cash", m.is_cash);
  v.Bool("is_market", m.is_market);
  v.I64("bid_price", m.bid_price);
  v.OptionalI64("trade_price", m.trade_price);
  v.I32("quantity", m.quantity);
  v.I64("trade_dts", m.trade_dts);
  v.Str("trade_type", m.trade_type, width::kTradeTypeId);
  v.Str("s_name", m.s_name, width::kSecurityName);
  v.Str("type_name", m.type_name, width::kTradeTypeName);
  v.I64("settlement_amount", m.settlement_amount);
  v.I32("settlement_cash_due_date", m.settlement_cash_due_date);
  v.Str("settlement_cash_type", m.settlement_cash_type, width::kCashType);
  v.I64("cash_transaction_amount", m.cash_transaction_amount);
  v.I64("cash_transaction_dts", m.cash_transaction_dts);
  v.Str("cash_transaction_name", m.cash_transaction_name, width::kCashTxnName);
  v.Array("history", m.history, kMaxTradeHistory, [&v](auto& row) { Fields(v, row); });
}

template <typename V, Is<HoldingHistoryRow> M>
void Fields(V& v, M& m) {
  v.I64("holding_trade_id", m.holding_trade_id);
  v.I64("trade_id", m.trade_id);
  v.I32("before_qty", m.before_qty);
  v.I32("after_qty", m.after_qty);
}

template <typename V, Is<TradeLookupInput> M>
void Fields(V& v, M& m) {
  v.I32In("frame", m.frame, 1, 4);
  v.I32("max_trades", m.max_trades);
  v.Array("trade_ids", m.trade_ids, kMaxTradesPerFrame, [&v](auto& id) { v.I64(nullptr, id); });
  v.I64("acct_id", m.acct_id);
  v.Str("symbol", m.symbol, width::kSymbol);
  v.I64("start_trade_dts", m.start_trade_dts);
  v.I64("end_trade_dts", m.end_trade_dts);
  v.I64("max_acct_id", m.max_acct_id);
}

template <typename V, Is<TradeLookupOutput> M>
void Fields(V& v, M& m) {
  v.Nested("status", [&] { Fields(v, m.status); });
  v.I32In("frame", m.frame, 1, 4);
  v.Array("trades", m.trades, kMaxTradesPerFrame, [&v](auto& row) { Fields(v, row); });
  v.I32("num_trades_found", m.num_trades_found);
  v.I64("trade_id", m.trade_id);
  v.Array("holding_history", m.holding_history, kMaxHoldingHistory,
          [&v](auto& row) { Fields(v, row); });
}

template <typename V, Is<TradeUpdateInput> M>
void Fields(V& v, M& m) {
  v.I32In("frame", m.frame, 1, 3);
  v.I32("max_trades", m.max_trades);
  v.I32("max_updates", m.max_updates);
  v.Array("trade_ids", m.trade_ids, kMaxTradesPerFrame, [&v](auto& id) { v.I64(nullptr, id); });
  v.I64("acct_id", m.acct_id);
  v.Str("symbol", m.symbol, width::kSymbol);
  v.I64("start_trade_dts", m.start_trade_dts);
  v.I64("end_trade_dts", m.end_trade_dts);
  v.I64("max_acct_id", m.max_acct_id);
}

template <typename V, Is<TradeUpdateOutput> M>
void Fields(V& v, M& m) {
  v.Nested("status", [&] { Fields(v, m.status); });
  v.I32In("frame", m.frame, 1, 3);
  v.I32("num_updated", m.num_updated);
  v.Array("trades", m.trades, kMaxTradesPerFrame, [&v](auto& row) { Fields(v, row); });
}

// Trade-Order.
template <typename V, Is<TradeOrderInput> M>
void Fields(V& v, M& m) {
  v.I64("acct_id", m.acct_id);
  v.Str("exec_f_name", m.exec_f_name, width::kFirstName);
  v.Str("exec_l_name", m.exec_l_name, width::kLastName);
  v.Str("exec_tax_id", m.exec_tax_id, width::kTaxId);
  v.Str("symbol", m.symbol, width::kSymbol);
  v.Str("co_name", m.co_name, width::kCompanyName);
  v.Str("issue", m.issue, width::kIssue);
  v.Str("trade_type_id", m.trade_type_id, width::kTradeTypeId);
  v.I32("trade_qty", m.trade_qty);
  v.I64("requested_price", m.requested_price);
  v.Bool("is_lifo", m.is_lifo);
  v.Bool("type_is_margin", m.type_is_margin);
  v.Bool("roll_it_back", m.roll_it_back);
  v.Str("st_pending_id", m.st_pending_id, width::kStatusId);
  v.Str("st_submitted_id", m.st_submitted_id, width::kStatusId);
}

template <typename V, Is<TradeOrderOutput> M>
void Fields(V& v, M& m) {
  v.Nested("status", [&] { Fields(v, m.status); });
  v.I64("trade_id", m.trade_id);
  v.I64("buy_value", m.buy_value);
  v.I64("sell_value", m.sell_value);
  v.I64("tax_amount", m.tax_amount);
}

// Trade-Result.
template <typename V, Is<TradeResultInput> M>
void Fields(V& v, M& m) {
  v.I64("trade_id", m.trade_id);
  v.I64("trade_price", m.trade_price);
}

template <typename V, Is<TradeResultOutput> M>
void Fields(V& v, M& m) {
  v.Nested("status", [&] { Fields(v, m.status); });
  v.I64("acct_id", m.acct_id);
  v.I64("acct_bal", m.acct_bal);
  v.I32("load_unit", m.load_unit);
}

// Trade-Status.
template <typename V, Is<TradeStatusInput> M>
void Fields(V& v, M& m) {
  v.I64("acct_id", m.acct_id);
}

template <typename V, Is<TradeStatusRow> M>
void Fields(V& v, M& m) {
  v.I64("trade_id", m.trade_id);
  v.I64("trade_dts", m.trade_dts);
  v.Str("status_name", m.status_name, width::kStatusName);
  v.Str("type_name", m.type_name, width::kTradeTypeName);
  v.Str("symbol", m.symbol, width::kSymbol);
  v.I32("trade_qty", m.trade_qty);
  v.Str("exec_name", m.exec_name, width::kExecName);
  v.I64("charge", m.charge);
  v.Str("s_name", m.s_name, width::kSecurityName);
  v.Str("ex_name", m.ex_name, width::kExchangeName);
}

template <typename V, Is<TradeStatusOutput> M>
void Fields(V& v, M& m) {
  v.Nested("status", [&] { Fields(v, m.status); });
  v.Str("cust_l_name", m.cust_l_name, width::kLastName);
  v.Str("cust_f_name", m.cust_f_name, width::kFirstName);
  v.Str("broker_name", m.broker_name, width::kBrokerName);
  v.Array("trades", m.trades, kMaxTradeStatus, [&v](auto& row) { Fields(v, row); });
}

// Data-Maintenance.
template <typename V, Is<DataMaintenanceInput> M>
void Fields(V& v, M& m) {
  v.Enum("table", m.table, 0, kMaxMaintenanceTable);
  v.I64("acct_id", m.acct_id);
  v.I64("c_id", m.c_id);
  v.I64("co_id", m.co_id);
  v.Str("symbol", m.symbol, width::kSymbol);
  v.I32("day_of_month", m.day_of_month);
  v.I32("vol_incr", m.vol_incr);
  v.Str("tx_id", m.tx_id, width::kTaxRateId);
}

template <typename V, Is<DataMaintenanceOutput> M>
void Fields(V& v, M& m) {
  v.Nested("status", [&] { Fields(v, m.status); });
}

// Trade-Cleanup.
template <typename V, Is<TradeCleanupInput> M>
void Fields(V& v, M& m) {
  v.Str("st_canceled_id", m.st_canceled_id, width::kStatusId);
  v.Str("st_pending_id", m.st_pending_id, width::kStatusId);
  v.Str("st_submitted_id", m.st_submitted_id, width::kStatusId);
  v.I64("start_trade_id", m.start_trade_id);
}

template <typename V, Is<TradeCleanupOutput> M>
void Fields(V& v, M& m) {
  v.Nested("status", [&] { Fields(v, m.status); });
}

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

// ---------------------------------------------------------------------------------------------

template <typename M>
Status EncodeBody(const M& m, Writer& w) {
  const size_t start = w.size();
  EncodeVisitor v(MessageTypeName(M::kType), w);
  Fields(v, m);
  if (v.failed()) {
    w.Truncate(start);
    return v.TakeStatus();
  }
  return Status::Ok();
}

template <typename M>
Status DecodeBody(std::span<const uint8_t> body, M& out) {
  Reader r(body);
  DecodeVisitor v(MessageTypeName(M::kType), r);
  Fields(v, out);
  if (v.failed()) return v.TakeStatus();
  if (r.remaining() != 0) {
    return Status::InvalidArgument(fmt::format("{}: {} trailing bytes after the message",
                                               MessageTypeName(M::kType), r.remaining()));
  }
  return Status::Ok();
}

// Calls f(std::type_identity<M>{}) for the message type numbered `type`; false if unknown.
template <typename F>
bool WithMessageType(MessageType type, F&& f) {
  bool found = false;
  [&]<size_t... I>(std::index_sequence<I...>) {
    ((std::variant_alternative_t<I, Message>::kType == type
          ? (f(std::type_identity<std::variant_alternative_t<I, Message>>{}), found = true)
          : false) ||
     ...);
  }
  (std::make_index_sequence<std::variant_size_v<Message>>{});
  return found;
}

}  // namespace

Status Encode(const Hello& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const HelloReply& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const ErrorReply& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const MarketTradeRequest& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const MarketTradeAck& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const BrokerVolumeInput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const BrokerVolumeOutput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const CustomerPositionInput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const CustomerPositionOutput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const MarketFeedInput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const MarketFeedOutput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const MarketWatchInput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const MarketWatchOutput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const SecurityDetailInput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const SecurityDetailOutput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const TradeLookupInput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const TradeLookupOutput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const TradeOrderInput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const TradeOrderOutput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const TradeResultInput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const TradeResultOutput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const TradeStatusInput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const TradeStatusOutput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const TradeUpdateInput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const TradeUpdateOutput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const DataMaintenanceInput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const DataMaintenanceOutput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const TradeCleanupInput& m, Writer& w) { return EncodeBody(m, w); }
Status Encode(const TradeCleanupOutput& m, Writer& w) { return EncodeBody(m, w); }

Status Decode(std::span<const uint8_t> b, Hello& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, HelloReply& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, ErrorReply& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, MarketTradeRequest& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, MarketTradeAck& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, BrokerVolumeInput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, BrokerVolumeOutput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, CustomerPositionInput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, CustomerPositionOutput& out) {
  return DecodeBody(b, out);
}
Status Decode(std::span<const uint8_t> b, MarketFeedInput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, MarketFeedOutput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, MarketWatchInput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, MarketWatchOutput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, SecurityDetailInput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, SecurityDetailOutput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, TradeLookupInput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, TradeLookupOutput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, TradeOrderInput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, TradeOrderOutput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, TradeResultInput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, TradeResultOutput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, TradeStatusInput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, TradeStatusOutput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, TradeUpdateInput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, TradeUpdateOutput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, DataMaintenanceInput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, DataMaintenanceOutput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, TradeCleanupInput& out) { return DecodeBody(b, out); }
Status Decode(std::span<const uint8_t> b, TradeCleanupOutput& out) { return DecodeBody(b, out); }

MessageType TypeOf(const Message& message) {
  return std::visit([](const auto& m) { return std::decay_t<decltype(m)>::kType; }, message);
}

Status DecodeMessage(MessageType type, std::span<const uint8_t> body, Message& out) {
  Status status;
  const bool known = WithMessageType(type, [&]<typename M>(std::type_identity<M>) {
    M* target = std::get_if<M>(&out);
    if (target == nullptr) target = &out.emplace<M>();
    status = Decode(body, *target);
  });
  if (!known) {
    return Status::InvalidArgument(
        fmt::format("message type: {} is not a known message type", static_cast<uint16_t>(type)));
  }
  return status;
}

Result<Message> DecodeMessage(MessageType type, std::span<const uint8_t> body) {
  Message out;
  if (Status s = DecodeMessage(type, body, out); !s.ok()) return s;
  return out;
}

size_t BeginFrame(Writer& w) {
  const size_t start = w.size();
  const std::array<uint8_t, kFrameHeaderBytes> zeros{};
  w.PutBytes(zeros.data(), zeros.size());
  return start;
}

Status FinishFrame(Writer& w, size_t start, MessageType type, uint64_t request_id) {
  if (w.overflowed()) {
    w.Truncate(start);
    return Status::InvalidArgument(
        fmt::format("{}: the frame does not fit in the writer's buffer", MessageTypeName(type)));
  }
  const size_t body = w.size() - start - kFrameHeaderBytes;
  if (body > kMaxBodyBytes) {
    w.Truncate(start);
    return Status::InvalidArgument(fmt::format("{}: body of {} bytes exceeds kMaxBodyBytes {}",
                                               MessageTypeName(type), body, kMaxBodyBytes));
  }
  FrameHeader header;
  header.type = type;
  header.request_id = request_id;
  header.body_length = static_cast<uint32_t>(body);
  std::array<uint8_t, kFrameHeaderBytes> bytes{};
  WriteFrameHeader(header, bytes);
  w.Overwrite(start, bytes);
  return Status::Ok();
}

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

Status EncodeFrame(const Message& message, uint64_t request_id, Writer& w) {
  return std::visit([&](const auto& m) { return EncodeFrame(m, request_id, w); }, message);
}

Result<Frame> DecodeFrame(std::span<const uint8_t> bytes) {
  ParsedHeader parsed = ParseFrameHeader(bytes);
  if (parsed.state == FrameHeaderParser::State::kNeedMore) {
    return Status::InvalidArgument(fmt::format("frame: {} bytes is shorter than the {}-byte header",
                                               bytes.size(), kFrameHeaderBytes));
  }
  if (parsed.state == FrameHeaderParser::State::kBad) return parsed.status;
  const size_t available = bytes.size() - kFrameHeaderBytes;
  if (available != parsed.header.body_length) {
    return Status::InvalidArgument(fmt::format("frame header body_length: {} but {} bytes follow",
                                               parsed.header.body_length, available));
  }
  Frame frame{parsed.header, Message{}};
  if (Status s = DecodeMessage(parsed.header.type, bytes.subspan(kFrameHeaderBytes), frame.message);
      !s.ok()) {
    return s;
  }
  return frame;
}

}  // namespace bb::protocol
