#include "common/workload/word_lists.h"

#include <array>
#include <unordered_set>

#include "common/workload/random.h"

namespace bb::workload {
namespace {

// Zipf-like weights by rank: the first name of a list is about 4 % of draws.
std::vector<uint32_t> RankWeights(size_t n) {
  std::vector<uint32_t> weights;
  weights.reserve(n);
  for (size_t rank = 0; rank < n; ++rank) {
    weights.push_back(static_cast<uint32_t>(40000 / (rank + 20)));
  }
  return weights;
}

WeightedList RankWeightedList(std::span<const std::string_view> names) {
  std::vector<std::string> words(names.begin(), names.end());
  return WeightedList(std::move(words), RankWeights(names.size()));
}

constexpr std::array<std::string_view, 104> kMaleNames = {
    "James",     "John",     "Robert",  "Michael",   "William", "David",   "Richard", "Joseph",
    "Thomas",    "Charles",  "Daniel",  "Matthew",   "Anthony", "Mark",    "Donald",  "Steven",
    "Paul",      "Andrew",   "Joshua",  "Kenneth",   "Kevin",   "Brian",   "George",  "Timothy",
    "Ronald",    "Edward",   "Jason",   "Jeffrey",   "Ryan",    "Jacob",   "Gary",    "Nicholas",
    "Eric",      "Jonathan", "Stephen", "Larry",     "Justin",  "Scott",   "Brandon", "Benjamin",
    "Samuel",    "Gregory",  "Frank",   "Alexander", "Raymond", "Patrick", "Jack",    "Dennis",
    "Jerry",     "Tyler",    "Aaron",   "Jose",      "Adam",    "Henry",   "Nathan",  "Douglas",
    "Zachary",   "Peter",    "Kyle",    "Walter",    "Ethan",   "Jeremy",  "Harold",  "Keith",
    "Christian", "Roger",    "Noah",    "Gerald",    "Carl",    "Terry",   "Sean",    "Austin",
    "Arthur",    "Lawrence", "Jesse",   "Dylan",     "Bryan",   "Joe",     "Jordan",  "Billy",
    "Bruce",     "Albert",   "Willie",  "Gabriel",   "Logan",   "Alan",    "Juan",    "Wayne",
    "Roy",       "Ralph",    "Randy",   "Eugene",    "Vincent", "Russell", "Elijah",  "Louis",
    "Bobby",     "Philip",   "Johnny",  "Howard",    "Martin",  "Victor",  "Oscar",   "Hugo"};

constexpr std::array<std::string_view, 120> kFemaleNames = {
    "Mary",      "Patricia", "Jennifer", "Linda",     "Elizabeth",  "Barbara",   "Susan",
    "Jessica",   "Sarah",    "Karen",    "Lisa",      "Nancy",      "Betty",     "Margaret",
    "Sandra",    "Ashley",   "Kimberly", "Emily",     "Donna",      "Michelle",  "Carol",
    "Amanda",    "Dorothy",  "Melissa",  "Deborah",   "Stephanie",  "Rebecca",   "Sharon",
    "Laura",     "Cynthia",  "Kathleen", "Amy",       "Angela",     "Shirley",   "Anna",
    "Brenda",    "Pamela",   "Emma",     "Nicole",    "Helen",      "Samantha",  "Katherine",
    "Christine", "Debra",    "Rachel",   "Carolyn",   "Janet",      "Catherine", "Maria",
    "Heather",   "Diane",    "Ruth",     "Julie",     "Olivia",     "Joyce",     "Virginia",
    "Victoria",  "Kelly",    "Lauren",   "Christina", "Joan",       "Evelyn",    "Judith",
    "Megan",     "Andrea",   "Cheryl",   "Hannah",    "Jacqueline", "Martha",    "Gloria",
    "Teresa",    "Ann",      "Sara",     "Madison",   "Frances",    "Kathryn",   "Janice",
    "Jean",      "Abigail",  "Alice",    "Julia",     "Judy",       "Sophia",    "Grace",
    "Denise",    "Amber",    "Doris",    "Marilyn",   "Danielle",   "Beverly",   "Isabella",
    "Theresa",   "Diana",    "Natalie",  "Brittany",  "Charlotte",  "Marie",     "Kayla",
    "Alexis",    "Lori",     "Rose",     "Irene",     "Claire",     "Lucy",      "Nora",
    "Vera",      "Ella",     "Ivy",      "Hazel",     "Ruby",       "Stella",    "Violet",
    "Paula",     "Monica",   "Erin",     "Tina",      "Wendy",      "Gwen",      "Leah",
    "Iris"};

// Surnames: start + middle + ending, kept when new (several thousand distinct).
constexpr std::array<std::string_view, 40> kSurnameStarts = {
    "Ash",  "Bar",  "Bel",   "Brad", "Cal",   "Car", "Chad", "Dal",  "Dun",  "El",
    "Fair", "Fen",  "Gar",   "Gold", "Hal",   "Har", "Hol",  "Kel",  "King", "Lan",
    "Lind", "Mar",  "Mor",   "Nor",  "Old",   "Pem", "Pres", "Red",  "Ros",  "Sal",
    "Shel", "Stan", "Stock", "Tal",  "Thorn", "Wal", "Wes",  "Whit", "Wil",  "Yar"};
constexpr std::array<std::string_view, 15> kSurnameMiddles = {
    "", "a", "e", "i", "o", "er", "en", "in", "ing", "ley", "bor", "ham", "lin", "ton", "ver"};
constexpr std::array<std::string_view, 25> kSurnameEnds = {
    "son",  "ton",  "ford", "well",  "man",   "field", "wood", "berg", "ley",
    "by",   "dale", "more", "worth", "stead", "ridge", "land", "shaw", "ham",
    "cott", "ster", "wick", "mont",  "lock",  "brook", "hurst"};

constexpr std::array<std::string_view, 40> kStreetFirsts = {
    "Oak",     "Maple",  "Cedar",    "Pine",     "Elm",      "Willow",  "Birch",  "Spruce",
    "Hill",    "Lake",   "River",    "Park",     "Mill",     "Church",  "Spring", "Meadow",
    "Valley",  "Ridge",  "Forest",   "Sunset",   "Highland", "Harbor",  "Garden", "Orchard",
    "Stone",   "Cherry", "Walnut",   "Chestnut", "Aspen",    "Hickory", "Laurel", "Magnolia",
    "Juniper", "Poplar", "Sycamore", "Cypress",  "Holly",    "Fox",     "Rose",   "Heron"};
constexpr std::array<std::string_view, 25> kStreetSeconds = {
    "",       "wood",  "view",    "field", "brook", "crest",   "dale",   "gate",   "haven",
    "land",   "mont",  "side",    "ton",   "vale",  " Hill",   " Creek", " Ridge", " Grove",
    " Point", " Glen", " Meadow", " Run",  " Bend", " Hollow", " Trace"};

constexpr std::array<std::string_view, 17> kStreetSuffixes = {
    "Street", "Road",  "Court", "Boulevard", "Way",  "Lane", "Crescent", "Park", "Avenue",
    "Rue",    "Drive", "South", "North",     "West", "East", "Upper",    "Lower"};

constexpr std::array<std::string_view, 8> kTownQualifiers = {"",       "North ", "East ", "West ",
                                                             "South ", "New ",   "Lake ", "Port "};
constexpr std::array<std::string_view, 50> kTownStarts = {
    "Ab",   "Bel",  "Bran", "Clar",  "Dor", "Ed",    "Fal",   "Glen", "Hamp",  "Ire",
    "Jas",  "Kent", "Lor",  "Mel",   "Nor", "Ol",    "Pax",   "Quar", "Riv",   "Sel",
    "Tam",  "Ur",   "Val",  "Wen",   "Yor", "Ash",   "Brook", "Cam",  "Dun",   "Elk",
    "Fair", "Gran", "Hart", "Ives",  "Jef", "Kings", "Lang",  "Mar",  "New",   "Oak",
    "Pel",  "Rad",  "Sum",  "Thorn", "Ux",  "Ver",   "Whit",  "Brad", "Crest", "Dray"};
constexpr std::array<std::string_view, 20> kTownEnds = {
    "ville", "ton",  "burg",    "field", "port",  "ford", "wood", "dale", "haven",  "mont",
    "view",  "bury", "chester", "ley",   "stead", "wick", "more", "land", "bridge", "springs"};

constexpr std::array<std::string_view, 6> kEmailDomains = {
    "@msn.com", "@hotmail.com", "@rr.com", "@netzero.com", "@earthlink.com", "@attbi.com"};

constexpr std::array<std::string_view, 13> kTaxableAccountNames = {
    "Emergency Expenses", "Vacation Account",   "Healthcare Fund", "New Car Account",
    "House Money",        "Individual Account", "Family Trust",    "Custodial Account",
    "Joint Account",      "Business Account",   "College Fund",    "Savings Account",
    "Play Money"};
constexpr std::array<std::string_view, 11> kNonTaxableAccountNames = {
    "Traditional IRA",   "Roth IRA",       "IRA-SEP",          "401(k)",
    "Pension Account",   "Rollover IRA",   "Retirement Fund",  "Roth 401(K)",
    "Flexible Spending", "Health Savings", "Non-Taxable Trust"};

constexpr std::array<std::string_view, 25> kCompanyRootStarts = {
    "Al",  "Bri", "Cor", "Dal",  "Ev",  "Fen", "Gor", "Hal", "Ix",  "Jor", "Kel", "Lum", "Mar",
    "Nov", "Ost", "Pel", "Quin", "Ros", "Sol", "Tor", "Ul",  "Ver", "Wex", "Xan", "Zen"};
constexpr std::array<std::string_view, 10> kCompanyRootEnds = {"tex", "ova", "ion", "ara", "ent",
                                                               "ix",  "on",  "ica", "eon", "ium"};
constexpr std::array<std::string_view, 20> kCompanyDescriptors = {
    "Systems",   "Industries", "Technologies", "Holdings",  "Partners",    "Energy",     "Foods",
    "Pharma",    "Logistics",  "Materials",    "Networks",  "Capital",     "Motors",     "Brands",
    "Resources", "Dynamics",   "Labs",         "Solutions", "Enterprises", "Instruments"};
constexpr std::array<std::string_view, 6> kCompanyLegalForms = {"Inc.", "Corp.", "Co.",
                                                                "Ltd.", "Group", "LLC"};

std::string Concat(std::string_view a, std::string_view b, std::string_view c = {}) {
  std::string out;
  out.reserve(a.size() + b.size() + c.size());
  out.append(a).append(b).append(c);
  return out;
}

WeightedList BuildSurnames() {
  std::vector<std::string> words;
  std::unordered_set<std::string> seen;
  // Walk the combinations in an order that mixes starts and endings early, so the heavily
  // weighted first entries do not all share one start.
  for (std::string_view middle : kSurnameMiddles) {
    for (size_t e = 0; e < kSurnameEnds.size(); ++e) {
      for (size_t s = 0; s < kSurnameStarts.size(); ++s) {
        std::string_view start = kSurnameStarts[(s + e * 7) % kSurnameStarts.size()];
        std::string name = Concat(start, middle, kSurnameEnds[e]);
        if (seen.insert(name).second) words.push_back(std::move(name));
      }
    }
  }
  // Heavy-tailed weights: weight = 1 + 10000/u with u uniform in [1, 1000], so the most
  // common surname is about 1 % of draws and most are rare.
  std::vector<uint32_t> weights;
  weights.reserve(words.size());
  Random rng(seeds::kWordLists);
  for (size_t i = 0; i < words.size(); ++i) {
    weights.push_back(static_cast<uint32_t>(1 + 10000 / rng.IntRange(1, 1000)));
  }
  return WeightedList(std::move(words), weights);
}

std::vector<std::string> BuildStreetNames() {
  std::vector<std::string> names;
  names.reserve(kStreetFirsts.size() * kStreetSeconds.size());
  for (std::string_view second : kStreetSeconds) {
    for (std::string_view first : kStreetFirsts) names.push_back(Concat(first, second));
  }
  return names;
}

WeightedList BuildAreaCodes() {
  constexpr size_t kCount = 284;
  std::vector<std::string> codes;
  std::vector<uint32_t> weights;
  std::unordered_set<int> seen;
  Random rng(Random::NthElement(seeds::kWordLists, 1'000'000));
  while (codes.size() < kCount) {
    // North American style: first digit 2-9, not N11, middle digit not 9.
    const int code = rng.IntRange(201, 989);
    if (code % 100 == 11 || code / 10 % 10 == 9 || !seen.insert(code).second) continue;
    codes.push_back(std::to_string(code));
    weights.push_back(static_cast<uint32_t>(1 + 1000 / rng.IntRange(1, 100)));
  }
  return WeightedList(std::move(codes), weights);
}

std::vector<std::string> BuildCompanyRoots() {
  std::vector<std::string> roots;
  for (std::string_view end : kCompanyRootEnds) {
    for (std::string_view start : kCompanyRootStarts) roots.push_back(Concat(start, end));
  }
  return roots;
}

}  // namespace

const WeightedList& MaleFirstNames() {
  static const WeightedList list = RankWeightedList(kMaleNames);
  return list;
}

const WeightedList& FemaleFirstNames() {
  static const WeightedList list = RankWeightedList(kFemaleNames);
  return list;
}

const WeightedList& Surnames() {
  static const WeightedList list = BuildSurnames();
  return list;
}

const std::vector<std::string>& StreetNames() {
  static const std::vector<std::string> names = BuildStreetNames();
  return names;
}

std::span<const std::string_view> StreetSuffixes() { return kStreetSuffixes; }

std::string TownName(int64_t town_index) {
  const auto i = static_cast<uint64_t>(town_index);
  const uint64_t n_start = kTownStarts.size();
  const uint64_t n_end = kTownEnds.size();
  const uint64_t n_qual = kTownQualifiers.size();
  return Concat(kTownQualifiers[(i / (n_start * n_end)) % n_qual], kTownStarts[i % n_start],
                kTownEnds[(i / n_start) % n_end]);
}

std::span<const std::string_view> EmailDomains() { return kEmailDomains; }

const WeightedList& AreaCodes() {
  static const WeightedList list = BuildAreaCodes();
  return list;
}

std::span<const std::string_view> TaxableAccountNames() { return kTaxableAccountNames; }
std::span<const std::string_view> NonTaxableAccountNames() { return kNonTaxableAccountNames; }

const std::vector<std::string>& CompanyNameRoots() {
  static const std::vector<std::string> roots = BuildCompanyRoots();
  return roots;
}

std::span<const std::string_view> CompanyNameDescriptors() { return kCompanyDescriptors; }
std::span<const std::string_view> CompanyLegalForms() { return kCompanyLegalForms; }

}  // namespace bb::workload
