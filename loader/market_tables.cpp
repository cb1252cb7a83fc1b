// The market part of a load unit (EGen's rules): COMPANY and the companies'
// ADDRESS rows, COMPANY_COMPETITOR, FINANCIAL, NEWS_ITEM, NEWS_XREF, SECURITY, DAILY_MARKET
// and LAST_TRADE. Names, symbols, issues, exchanges and industries come from workload::Market;
// the numbers (dates, prices, financials, news text) are the loader's own per-key draws.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "common/workload/address.h"
#include "common/workload/calendar.h"
#include "common/workload/ids.h"
#include "common/workload/industries.h"
#include "common/workload/market.h"
#include "common/workload/price_curve.h"
#include "common/workload/word_lists.h"
#include "loader/table_generators.h"

namespace bb::loader {

namespace {

using workload::Date;
using workload::Random;

constexpr int kCompetitorsPerCompany = 3;
// Per-key draw budgets, so that neighbouring keys never share a draw.
constexpr uint64_t kCompanyDraws = 4;
constexpr uint64_t kCompetitorDraws = 16;
constexpr uint64_t kFinancialDraws = 256;
constexpr uint64_t kSecurityDraws = 16;
constexpr uint64_t kDailyMarketDraws = 2 * workload::kDailyMarketDays;
constexpr uint64_t kNewsDraws = uint64_t{1} << 17;

// Picks a surname by weight with one draw, from a table of 2^16 equally likely slots (each
// slot is the surname at that quantile of the cumulative weights): the news text needs about
// 15 000 words per item, a binary search each would dominate the market part.
class NewsWords {
 public:
  NewsWords() : list_(workload::Surnames()) {
    const uint64_t total = list_.total_weight();
    for (size_t k = 0; k < kSlots; ++k) {
      const uint64_t point = (k * total + total / 2) / kSlots;
      slots_[k] = static_cast<uint32_t>(list_.IndexAt(point));
    }
  }
  const std::string& Pick(Random& rng) const {
    return list_[slots_[static_cast<size_t>(rng.Int64Range(0, kSlots - 1))]];
  }

 private:
  static constexpr size_t kSlots = size_t{1} << 16;
  const workload::WeightedList& list_;
  std::vector<uint32_t> slots_ = std::vector<uint32_t>(kSlots);
};

int64_t RoundCents(double value) { return std::llround(value * 100.0); }

void WriteCompanies(int64_t load_unit, const workload::Market& market, UnitOutput& out) {
  TableWriter& company = out.Writer(Table::kCompany);
  TableWriter& address = out.Writer(Table::kAddress);
  TableWriter& competitor = out.Writer(Table::kCompanyCompetitor);
  TimestampText text;
  const auto industries = workload::Industries();
  const Date open_first = workload::MakeDate(1800, 1, 1);
  const Date open_last = workload::MakeDate(2000, 1, 2);
  const int64_t first = load_unit * workload::kCompaniesPerLoadUnit;
  for (int64_t i = first; i < first + workload::kCompaniesPerLoadUnit; ++i) {
    const int64_t co_id = workload::CompanyId(i);
    const int64_t ad_id = workload::CompanyAddressId(i);
    const auto& industry = industries[static_cast<size_t>(market.CompanyIndustry(i))];
    Random rng = Random::ForKey(seeds::kCompany, static_cast<uint64_t>(co_id), kCompanyDraws);
    const Date open =
        workload::AddDays(open_first, rng.IntRange(0, open_last.days - open_first.days));
    company.text()
        .Int(co_id)
        .Raw("ACTV")
        .Text(market.CompanyName(i))
        .Text(industry.id)
        .Text(market.CompanySpRating(i))
        .Text(market.CompanyCeo(i))
        .Int(ad_id)
        .Text(market.CompanyDescription(i))
        .Raw(text.FormatDate(open));
    company.EndRow();

    const workload::Address a = workload::MakeAddress(ad_id, false);
    address.text().Int(ad_id).Text(a.line1).Text(a.line2).Text(a.zip().code).Text(a.country());
    address.EndRow();

    // Three distinct other companies of the same LU (clause 2.6); they compete in the company's own
    // industry.
    Random crng =
        Random::ForKey(seeds::kCompetitors, static_cast<uint64_t>(co_id), kCompetitorDraws);
    std::array<int64_t, kCompetitorsPerCompany> chosen{};
    for (int k = 0; k < kCompetitorsPerCompany; ++k) {
      int64_t other;
      do {
        other = first + crng.Int64Range(0, workload::kCompaniesPerLoadUnit - 2);
        if (other >= i) ++other;
      } while (std::find(chosen.begin(), chosen.begin() + k, other) != chosen.begin() + k);
      chosen[static_cast<size_t>(k)] = other;
      competitor.text().Int(co_id).Int(workload::CompanyId(other)).Text(industry.id);
      competitor.EndRow();
    }
  }
}

// 20 quarters of financials per company, each value drifting by a factor in
// [0.9, 1.15] per quarter.
void WriteFinancials(int64_t load_unit, UnitOutput& out) {
  TableWriter& financial = out.Writer(Table::kFinancial);
  TimestampText text;
  const int64_t first = load_unit * workload::kCompaniesPerLoadUnit;
  for (int64_t i = first; i < first + workload::kCompaniesPerLoadUnit; ++i) {
    const int64_t co_id = workload::CompanyId(i);
    Random rng = Random::ForKey(seeds::kFinancial, static_cast<uint64_t>(co_id), kFinancialDraws);
    double revenue = rng.DoubleIncrRange(1e5, 1.6e10, 0.01);
    double earnings = rng.DoubleIncrRange(-3e8, std::min(revenue, 3e9), 0.01);
    double shares = static_cast<double>(rng.Int64Range(400'000, 9'500'000'000));
    double inventory = rng.DoubleIncrRange(0, 2e9, 0.01);
    double assets = rng.DoubleIncrRange(1e5, 6.5e10, 0.01);
    double liabilities = rng.DoubleIncrRange(1e5, 3.5e10, 0.01);
    auto drift = [&rng] { return rng.DoubleIncrRange(0.9, 1.15, 0.0001); };
    for (int q = 0; q < workload::kFinancialQuarters; ++q) {
      if (q > 0) {
        revenue *= drift();
        earnings *= drift();
        shares = std::round(shares * drift());
        inventory *= drift();
        assets *= drift();
        liabilities *= drift();
        if (earnings >= revenue) earnings *= 0.9;
      }
      const double diluted = std::round(shares * 1.1);
      const int year = 2000 + q / 4;
      const int quarter = q % 4 + 1;
      financial.text()
          .Int(co_id)
          .Int(year)
          .Int(quarter)
          .Raw(text.FormatDate(workload::MakeDate(year, 3 * (quarter - 1) + 1, 1)))
          .Fixed(RoundCents(revenue), 2)
          .Fixed(RoundCents(earnings), 2)
          .Fixed(RoundCents(earnings / shares), 2)
          .Fixed(RoundCents(earnings / diluted), 2)
          .Fixed(RoundCents(earnings / revenue), 2)
          .Fixed(RoundCents(inventory), 2)
          .Fixed(RoundCents(assets), 2)
          .Fixed(RoundCents(liabilities), 2)
          .Int(static_cast<int64_t>(shares))
          .Int(static_cast<int64_t>(diluted));
      financial.EndRow();
    }
  }
}

// Two items per company of weighted surnames up to kNewsItemChars characters; NI_ITEM
// goes out as bytea hex ("\x4142..."; the backslash doubled for COPY text).
void WriteNews(const workload::Sizing& sizing, int64_t load_unit, UnitOutput& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  constexpr int kHeadlineChars = 80;
  constexpr int kSummaryChars = 255;
  constexpr int64_t kMaxDaysBack = 50;
  constexpr int64_t kMaxMillisBack = 86'400'000;
  TableWriter& news = out.Writer(Table::kNewsItem);
  TableWriter& xref = out.Writer(Table::kNewsXref);
  const NewsWords words;
  TimestampText text;
  const workload::Timestamp end = workload::EndOfInitialTrades(sizing);
  std::string item;
  item.reserve(kNewsItemChars + 64);
  std::string hex;
  hex.reserve(2 * kNewsItemChars + 4);
  const int64_t first = load_unit * workload::kCompaniesPerLoadUnit;
  for (int64_t i = first; i < first + workload::kCompaniesPerLoadUnit && out.ok(); ++i) {
    for (int k = 0; k < workload::kNewsItemsPerCompany; ++k) {
      const int64_t ni_id = workload::NewsItemId(i, k);
      Random rng = Random::ForKey(seeds::kNews, static_cast<uint64_t>(ni_id), kNewsDraws);
      const workload::Timestamp dts{end.micros -
                                    rng.Int64Range(0, kMaxDaysBack) * workload::kMicrosPerDay -
                                    rng.Int64Range(0, kMaxMillisBack) * 1000};
      const std::string& source = words.Pick(rng);
      const std::string& author = words.Pick(rng);
      item.clear();
      while (item.size() < static_cast<size_t>(kNewsItemChars)) {
        if (!item.empty()) item.push_back(' ');
        item += words.Pick(rng);
      }
      item.resize(kNewsItemChars);
      hex.resize(3 + 2 * item.size());
      char* p = hex.data();
      *p++ = '\\';
      *p++ = '\\';
      *p++ = 'x';
      for (const char c : item) {
        const auto b = static_cast<unsigned char>(c);
        *p++ = kHex[b >> 4];
        *p++ = kHex[b & 15];
      }
      const std::string_view view(item);
      news.text()
          .Int(ni_id)
          .Text(view.substr(0, kHeadlineChars))
          .Text(view.substr(0, kSummaryChars))
          .Raw(hex)
          .Raw(text.Format(dts))
          .Text(source)
          .Text(author);
      news.EndRow();
      xref.text().Int(ni_id).Int(workload::CompanyId(i));
      xref.EndRow();
    }
  }
}

// SECURITY, DAILY_MARKET and LAST_TRADE, by EGen's rules.
void WriteSecurities(const workload::Sizing& sizing, int64_t load_unit,
                     const workload::Market& market, UnitOutput& out) {
  TableWriter& security = out.Writer(Table::kSecurity);
  TableWriter& daily = out.Writer(Table::kDailyMarket);
  TableWriter& last_trade = out.Writer(Table::kLastTrade);
  const auto exchanges = workload::Exchanges();
  TimestampText text;
  const Date start_first = workload::MakeDate(1900, 1, 1);
  const Date start_last = workload::MakeDate(2000, 1, 2);
  const Date trading_start = workload::DateOf(workload::InitialTradeStart());
  const workload::Timestamp end = workload::EndOfInitialTrades(sizing);
  std::string end_text(text.Format(end));
  const int64_t trading_time_s = sizing.initial_trade_days * workload::kSecondsPerBusinessDay;

  // DAILY_MARKET's 1 305 weekdays from 2000-01-03, formatted once.
  std::vector<std::array<char, 10>> dates(workload::kDailyMarketDays);
  for (int d = 0; d < workload::kDailyMarketDays; ++d) {
    const std::string_view s =
        text.FormatDate(workload::AddBusinessDays(workload::DailyMarketBaseDate(), d));
    std::copy(s.begin(), s.end(), dates[static_cast<size_t>(d)].begin());
  }

  const int64_t first = load_unit * workload::kSecuritiesPerLoadUnit;
  for (int64_t s = first; s < first + workload::kSecuritiesPerLoadUnit && out.ok(); ++s) {
    const std::string symbol = market.Symbol(s);
    Random rng = Random::ForKey(seeds::kSecurity, static_cast<uint64_t>(s), kSecurityDraws);
    const int64_t num_out = rng.Int64Range(4'000'000, 9'500'000'000);
    const Date start =
        workload::AddDays(start_first, rng.IntRange(0, start_last.days - start_first.days));
    const Date exch = workload::AddDays(start, rng.IntRange(0, start_last.days - start.days));
    const int64_t pe = rng.Int64Range(100, 12'000);
    const int64_t high = rng.Int64Range(2500, 3000);
    const int64_t low = rng.Int64Range(2000, high);
    const Date high_date = workload::AddDays(trading_start, -rng.IntRange(1, 364));
    const Date low_date = workload::AddDays(trading_start, -rng.IntRange(1, 364));
    int64_t yield = 0;
    int64_t dividend = 0;
    if (rng.Percent(60)) {
      yield = rng.Int64Range(1, 12'000);
      dividend = rng.Int64Range(yield / 5, yield * 3 / 10);
    }
    CopyText& row = security.text();
    row.Raw(symbol)
        .Text(workload::IssueName(market.SecurityIssue(s)))
        .Raw("ACTV")
        .Text(market.SecurityName(s))
        .Text(exchanges[static_cast<size_t>(market.SecurityExchange(s))].id)
        .Int(workload::CompanyId(market.SecurityCompany(s)))
        .Int(num_out);
    row.Raw(text.FormatDate(start)).Raw(text.FormatDate(exch)).Fixed(pe, 2).Fixed(high, 2);
    row.Raw(text.FormatDate(high_date)).Fixed(low, 2).Raw(text.FormatDate(low_date));
    row.Fixed(dividend, 2).Fixed(yield, 2);
    security.EndRow();

    Random drng = Random::ForKey(seeds::kDailyMarket, static_cast<uint64_t>(s), kDailyMarketDraws);
    for (const auto& date : dates) {
      const int64_t close = drng.Int64Range(2000, 3000);
      const int64_t volume = drng.Int64Range(1000, 10'000);
      daily.text()
          .Raw(std::string_view(date.data(), date.size()))
          .Raw(symbol)
          .Fixed(close, 2)
          .Fixed((close * 105 + 50) / 100, 2)
          .Fixed((close * 92 + 50) / 100, 2)
          .Int(volume);
      daily.EndRow();
    }

    const int64_t price = workload::PriceCurve(s, trading_time_s).PriceCentsAt(0);
    last_trade.text().Raw(symbol).Raw(end_text).Fixed(price, 2).Fixed(price, 2).Int(0);
    last_trade.EndRow();
  }
}

}  // namespace

void GenerateMarketTables(const workload::Sizing& sizing, int64_t load_unit, UnitOutput& out) {
  const workload::Market market(sizing);
  WriteCompanies(load_unit, market, out);
  if (out.ok()) WriteFinancials(load_unit, out);
  if (out.ok()) WriteNews(sizing, load_unit, out);
  if (out.ok()) WriteSecurities(sizing, load_unit, market, out);
}

}  // namespace bb::loader
