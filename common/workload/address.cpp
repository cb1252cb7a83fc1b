#include "common/workload/address.h"

#include <fmt/format.h>

#include "common/workload/random.h"
#include "common/workload/word_lists.h"

namespace bb::workload {
namespace {

constexpr uint64_t kAddressDraws = 6;

}  // namespace

size_t AddressZipIndex(int64_t ad_id) {
  Random rng = Random::ForKey(seeds::kZipChoice, static_cast<uint64_t>(ad_id));
  return ZipCodes().PickIndex(rng);
}

Address MakeAddress(int64_t ad_id, bool customer) {
  Random rng = Random::ForKey(seeds::kAddress, static_cast<uint64_t>(ad_id), kAddressDraws);
  Address address;
  address.id = ad_id;
  const int number = rng.IntRange(100, 25'000);
  const auto& streets = StreetNames();
  const std::string& street =
      streets[static_cast<size_t>(rng.IntRange(0, static_cast<int>(streets.size()) - 1))];
  const auto suffixes = StreetSuffixes();
  const std::string_view suffix =
      suffixes[static_cast<size_t>(rng.IntRange(0, static_cast<int>(suffixes.size()) - 1))];
  address.line1 = fmt::format("{} {} {}", number, street, suffix);
  if (customer && !rng.Percent(60)) {
    if (rng.Percent(75)) {
      address.line2 = fmt::format("Apt. {}", rng.IntRange(1, 1000));
    } else {
      address.line2 = fmt::format("Suite {}", rng.IntRange(1, 500));
    }
  }
  address.zip_index = AddressZipIndex(ad_id);
  return address;
}

}  // namespace bb::workload
