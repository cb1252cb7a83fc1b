#include "common/workload/market.h"

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "common/workload/industries.h"
#include "common/workload/person.h"
#include "common/workload/random.h"
#include "common/workload/word_lists.h"

namespace bb::workload {

namespace {

constexpr std::array<Exchange, kExchangeCount> kExchanges = {{
    {"NYSE", "New York Stock Exchange"},
    {"NASDAQ", "NASDAQ (National Association of Security Dealers and Quotations)"},
    {"AMEX", "American Stock Exchange"},
    {"PCX", "Pacific Exchange"},
}};

constexpr std::array<std::string_view, kIssueKinds> kIssueNames = {"COMMON", "PREF_A", "PREF_B",
                                                                   "PREF_C", "PREF_D"};
constexpr std::array<std::string_view, kIssueKinds> kIssueSymbolSuffix = {"", "PRA", "PRB", "PRC",
                                                                          "PRD"};

// Issues per company inside an LU: companies are ranked by r = (293·local + 17) mod 500; the
// first 400 ranks have 1 issue, the next 50 have 2, then 25 with 3, 15 with 4 and 10 with 5.
// The securities of issue k are the companies of rank >= kIssueRankStart[k], in rank order.
constexpr int64_t kRankMultiplier = 293;
constexpr int64_t kRankInverse = 157;  // 293·157 ≡ 1 (mod 500)
constexpr int64_t kRankOffset = 17;
constexpr std::array<int64_t, kIssueKinds> kIssueRankStart = {0, 400, 450, 475, 490};
// Security offsets inside an LU where each issue's block starts.
constexpr std::array<int64_t, kIssueKinds + 1> kIssueBlockStart = {0, 500, 600, 650, 675, 685};

int64_t RankOfCompany(int64_t local) { return (local * kRankMultiplier + kRankOffset) % 500; }
int64_t CompanyOfRank(int64_t rank) { return ((rank - kRankOffset + 500) * kRankInverse) % 500; }

// Base company b gets root and descriptor from a scrambled b, so neighbouring companies look
// different; every (root, descriptor) pair is used once, so the 5 000 names are distinct.
constexpr int64_t kNameScrambleMultiplier = 2377;
constexpr int64_t kNameScrambleOffset = 1234;

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

// Bijective base 26 in lower case: 1 -> "a", 26 -> "z", 27 -> "aa".
std::string CopySuffix(int64_t k) {
  std::string out;
  while (k > 0) {
    --k;
    out.insert(out.begin(), static_cast<char>('a' + k % 26));
    k /= 26;
  }
  return out;
}

std::optional<int64_t> ParseCopySuffix(std::string_view s) {
  if (s.empty() || s.size() > 8) return std::nullopt;
  int64_t k = 0;
  for (char c : s) {
    if (c < 'a' || c > 'z') return std::nullopt;
    k = k * 26 + (c - 'a' + 1);
  }
  return k;
}

}  // namespace

// The generated base list of 5 000 companies and 6 850 securities (10 LUs).
class MarketBaseList {
 public:
  MarketBaseList() {
    const auto& roots = CompanyNameRoots();
    const auto descriptors = CompanyNameDescriptors();
    const auto forms = CompanyLegalForms();
    const auto n_roots = static_cast<int64_t>(roots.size());
    company_names.reserve(kBaseCompanies);
    common_symbols.reserve(kBaseCompanies);
    std::unordered_set<std::string> used;
    for (int64_t b = 0; b < kBaseCompanies; ++b) {
      const int64_t scrambled =
          (b * kNameScrambleMultiplier + kNameScrambleOffset) % kBaseCompanies;
      const auto n_descriptors = static_cast<int64_t>(descriptors.size());
      const std::string& root = roots[static_cast<size_t>(scrambled / n_descriptors % n_roots)];
      const std::string_view descriptor =
          descriptors[static_cast<size_t>(scrambled % n_descriptors)];
      const std::string_view form =
          forms[static_cast<size_t>(b % static_cast<int64_t>(forms.size()))];
      company_names.push_back(fmt::format("{} {} {}", root, descriptor, form));
      common_symbols.push_back(PickSymbol(Upper(root), Upper(descriptor), used));
    }
    symbols.reserve(kBaseSecurities);
    for (int64_t s = 0; s < kBaseSecurities; ++s) {
      const int64_t lu = s / kSecuritiesPerLoadUnit;
      const int64_t local = s % kSecuritiesPerLoadUnit;
      int issue = 0;
      while (local >= kIssueBlockStart[static_cast<size_t>(issue) + 1]) ++issue;
      const int64_t company = lu * kCompaniesPerLoadUnit + LocalCompany(local, issue);
      symbols.push_back(common_symbols[static_cast<size_t>(company)] +
                        std::string(kIssueSymbolSuffix[static_cast<size_t>(issue)]));
      index_of_symbol.emplace(symbols.back(), s);
    }
  }

  // The company (0..499 in its LU) of security offset `local` whose issue is `issue`.
  static int64_t LocalCompany(int64_t local, int issue) {
    if (issue == 0) return local;
    const auto i = static_cast<size_t>(issue);
    return CompanyOfRank(kIssueRankStart[i] + (local - kIssueBlockStart[i]));
  }

  std::vector<std::string> company_names;
  std::vector<std::string> common_symbols;
  std::vector<std::string> symbols;
  std::unordered_map<std::string, int64_t> index_of_symbol;

 private:
  // 2-4 upper-case letters taken from the name where free (root prefixes combined with
  // descriptor letters), else the root's first letter and a free 3-letter tail. Commons have
  // at most 4 letters and preferred symbols (common + "PRx") at least 5, so the two never
  // collide.
  static std::string PickSymbol(const std::string& root, const std::string& descriptor,
                                std::unordered_set<std::string>& used) {
    for (size_t take = 3; take >= 1; --take) {
      for (size_t d = 0; d + (4 - take) <= descriptor.size(); ++d) {
        std::string c = root.substr(0, take) + descriptor.substr(d, 4 - take);
        if (used.insert(c).second) return c;
      }
    }
    for (std::string c : {root.substr(0, 4), root.substr(0, 3), root.substr(0, 2)}) {
      if (used.insert(c).second) return c;
    }
    // Tails in a scattered order, so fallbacks do not all read "xAAA", "xAAB"...
    constexpr int kTails = 26 * 26 * 26;
    for (int k = 0; k < kTails; ++k) {
      const int tail = (k * 7919 + static_cast<int>(root.size()) * 101) % kTails;
      std::string c = root.substr(0, 1);
      c += static_cast<char>('A' + tail / 676);
      c += static_cast<char>('A' + tail / 26 % 26);
      c += static_cast<char>('A' + tail % 26);
      if (used.insert(c).second) return c;
    }
    return {};  // unreachable: 17 576 tails per first letter, 5 000 companies
  }
};

namespace {

const MarketBaseList& BaseList() {
  static const MarketBaseList list;
  return list;
}

}  // namespace

std::span<const Exchange> Exchanges() { return kExchanges; }

std::string_view IssueName(Issue issue) { return kIssueNames[static_cast<size_t>(issue)]; }

Market::Market(const Sizing& sizing)
    : base_(BaseList()), companies_(sizing.Companies()), securities_(sizing.Securities()) {}

std::string Market::CompanyName(int64_t company_index) const {
  const std::string& base =
      base_.company_names[static_cast<size_t>(company_index % kBaseCompanies)];
  const int64_t copy = company_index / kBaseCompanies;
  if (copy == 0) return base;
  return fmt::format("{} #{}", base, copy);
}

int Market::CompanyIndustry(int64_t company_index) const {
  Random rng = Random::ForKey(seeds::kCompanyIndustry,
                              static_cast<uint64_t>(company_index % kBaseCompanies));
  return rng.IntRange(0, kIndustryCount - 1);
}

std::string_view Market::CompanySpRating(int64_t company_index) const {
  // Every string of 1-3 letters over {A, B, C}: 3 + 9 + 27 = 39 ratings.
  static constexpr std::array<std::string_view, kSpRatingCount> kRatings = {
      "A",   "B",   "C",   "AA",  "AB",  "AC",  "BA",  "BB",  "BC",  "CA",  "CB",  "CC",  "AAA",
      "AAB", "AAC", "ABA", "ABB", "ABC", "ACA", "ACB", "ACC", "BAA", "BAB", "BAC", "BBA", "BBB",
      "BBC", "BCA", "BCB", "BCC", "CAA", "CAB", "CAC", "CBA", "CBB", "CBC", "CCA", "CCB", "CCC"};
  Random rng =
      Random::ForKey(seeds::kCompanyRating, static_cast<uint64_t>(CompanyId(company_index)));
  return kRatings[static_cast<size_t>(rng.IntRange(0, kSpRatingCount - 1))];
}

std::string Market::CompanyCeo(int64_t company_index) const {
  return FullName(CeoPersonId(CompanyId(company_index)));
}

std::string Market::CompanyDescription(int64_t company_index) const {
  const Industry& industry = Industries()[static_cast<size_t>(CompanyIndustry(company_index))];
  return fmt::format("{}: {} company", CompanyName(company_index), industry.name);
}

int Market::CompanyIssueCount(int64_t company_index) const {
  const int64_t rank = RankOfCompany(company_index % kCompaniesPerLoadUnit);
  int issues = 1;
  while (issues < kIssueKinds && rank >= kIssueRankStart[static_cast<size_t>(issues)]) ++issues;
  return issues;
}

int64_t Market::CompanySecurity(int64_t company_index, Issue issue) const {
  const int64_t lu = company_index / kCompaniesPerLoadUnit;
  const int64_t local = company_index % kCompaniesPerLoadUnit;
  const auto i = static_cast<size_t>(issue);
  const int64_t offset =
      i == 0 ? local : kIssueBlockStart[i] + RankOfCompany(local) - kIssueRankStart[i];
  return lu * kSecuritiesPerLoadUnit + offset;
}

std::string Market::Symbol(int64_t security_index) const {
  const std::string& base = base_.symbols[static_cast<size_t>(security_index % kBaseSecurities)];
  const int64_t copy = security_index / kBaseSecurities;
  if (copy == 0) return base;
  return base + "-" + CopySuffix(copy);
}

Issue Market::SecurityIssue(int64_t security_index) const {
  const int64_t local = security_index % kSecuritiesPerLoadUnit;
  int issue = 0;
  while (local >= kIssueBlockStart[static_cast<size_t>(issue) + 1]) ++issue;
  return static_cast<Issue>(issue);
}

int64_t Market::SecurityCompany(int64_t security_index) const {
  const int64_t lu = security_index / kSecuritiesPerLoadUnit;
  const int64_t local = security_index % kSecuritiesPerLoadUnit;
  return lu * kCompaniesPerLoadUnit +
         MarketBaseList::LocalCompany(local, static_cast<int>(SecurityIssue(security_index)));
}

int Market::SecurityExchange(int64_t security_index) const {
  Random rng = Random::ForKey(seeds::kSecurityExchange,
                              static_cast<uint64_t>(security_index % kBaseSecurities));
  return rng.IntRange(0, kExchangeCount - 1);
}

std::string Market::SecurityName(int64_t security_index) const {
  return fmt::format("{} of {}", IssueName(SecurityIssue(security_index)),
                     CompanyName(SecurityCompany(security_index)));
}

std::optional<int64_t> Market::SecurityIndex(std::string_view symbol) const {
  const size_t dash = symbol.find('-');
  const std::string base(symbol.substr(0, dash));
  const auto it = base_.index_of_symbol.find(base);
  if (it == base_.index_of_symbol.end()) return std::nullopt;
  int64_t copy = 0;
  if (dash != std::string_view::npos) {
    const auto parsed = ParseCopySuffix(symbol.substr(dash + 1));
    if (!parsed) return std::nullopt;
    copy = *parsed;
  }
  const int64_t index = copy * kBaseSecurities + it->second;
  if (index >= securities_) return std::nullopt;
  return index;
}

std::array<int64_t, kExchangeCount> Market::ExchangeSecurityCounts() const {
  std::array<int64_t, kExchangeCount> counts{};
  // The exchange depends on the base row only: count one base list, then scale.
  const int64_t full_copies = securities_ / kBaseSecurities;
  const int64_t rest = securities_ % kBaseSecurities;
  for (int64_t b = 0; b < kBaseSecurities; ++b) {
    const int64_t times = full_copies + (b < rest ? 1 : 0);
    counts[static_cast<size_t>(SecurityExchange(b))] += times;
  }
  return counts;
}

}  // namespace bb::workload
