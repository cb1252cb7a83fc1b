#include "loader/load_plan.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/util/cli.h"

namespace bb::loader {

std::string_view LoadPhaseName(LoadPhase phase) {
  switch (phase) {
    case LoadPhase::kAll:
      return "all";
    case LoadPhase::kPrepare:
      return "prepare";
    case LoadPhase::kData:
      return "data";
    case LoadPhase::kFinish:
      return "finish";
  }
  return "unknown";
}

Result<LoadPhase> ParseLoadPhase(std::string_view option, std::string_view text) {
  for (LoadPhase p : {LoadPhase::kAll, LoadPhase::kPrepare, LoadPhase::kData, LoadPhase::kFinish}) {
    if (text == LoadPhaseName(p)) return p;
  }
  return Status::InvalidArgument(
      fmt::format("{}: '{}' is not one of prepare, data, finish, all", option, text));
}

Result<LoadUnitRange> ParseLoadUnitRange(std::string_view option, std::string_view text) {
  // The largest load unit a valid sizing has is kMaxCustomers / 1000 - 1; anything beyond is
  // refused here already, so the arithmetic below never overflows.
  const int64_t max = workload::kMaxCustomers / workload::kCustomersPerLoadUnit - 1;
  const auto bad = [&](std::string_view why) {
    return Status::InvalidArgument(fmt::format("{}: '{}' {}", option, text, why));
  };
  const std::string_view kForm =
      "is not a range of load units FIRST-LAST (e.g. 0-3) or one load unit N";
  const size_t dash = text.find('-');
  const std::string_view first_text = text.substr(0, dash);
  const std::string_view last_text = dash == std::string_view::npos ? text : text.substr(dash + 1);
  if (first_text.empty() || last_text.empty() ||
      !std::all_of(first_text.begin(), first_text.end(),
                   [](char c) { return c >= '0' && c <= '9'; }) ||
      !std::all_of(last_text.begin(), last_text.end(),
                   [](char c) { return c >= '0' && c <= '9'; })) {
    return bad(kForm);
  }
  auto first = ParseInt(option, first_text, 0, max);
  auto last = ParseInt(option, last_text, 0, max);
  if (!first.ok() || !last.ok()) {
    return bad(fmt::format("names a load unit past {}, the last one of the largest database", max));
  }
  if (*last < *first) return bad("ends before it starts");
  return LoadUnitRange{*first, *last};
}

std::string ToString(const LoadUnitRange& range) {
  return fmt::format("{}-{}", range.first, range.last);
}

LoadUnitRange AllLoadUnits(const workload::Sizing& sizing) {
  return LoadUnitRange{0, sizing.LoadUnits() - 1};
}

Status CheckLoadUnitRange(std::string_view option, const LoadUnitRange& range,
                          const workload::Sizing& sizing) {
  const LoadUnitRange all = AllLoadUnits(sizing);
  if (range.first < all.first || range.last > all.last) {
    return Status::InvalidArgument(
        fmt::format("{}: '{}' is outside the load units of {} customers, which are {}", option,
                    ToString(range), sizing.customers, ToString(all)));
  }
  return Status::Ok();
}

std::vector<WorkUnit> WorkUnitsOf(const workload::Sizing& sizing, const LoadUnitRange& range) {
  std::vector<WorkUnit> units;
  for (const WorkUnit& unit : WorkUnits(sizing)) {
    const bool in = unit.part == UnitPart::kFixed
                        ? range.first == 0
                        : unit.load_unit >= range.first && unit.load_unit <= range.last;
    if (in) units.push_back(unit);
  }
  return units;
}

Result<std::vector<LoadUnitRange>> SplitLoadUnits(
    int64_t load_units, const std::vector<std::optional<LoadUnitRange>>& requested) {
  const int64_t loaders = static_cast<int64_t>(requested.size());
  if (loaders == 0) return Status::InvalidArgument("no loaders to split the load units among");
  if (load_units < 1) {
    return Status::InvalidArgument(fmt::format("{} load units: nothing to split", load_units));
  }
  const auto given = std::count_if(requested.begin(), requested.end(),
                                   [](const auto& r) { return r.has_value(); });
  std::vector<LoadUnitRange> shares;
  if (given == 0) {
    if (loaders > load_units) {
      return Status::InvalidArgument(fmt::format(
          "{} loaders for {} load units ({} customers): each loader needs at least one load unit",
          loaders, load_units, load_units * workload::kCustomersPerLoadUnit));
    }
    int64_t first = 0;
    for (int64_t i = 0; i < loaders; ++i) {
      const int64_t count = load_units / loaders + (i < load_units % loaders ? 1 : 0);
      shares.push_back(LoadUnitRange{first, first + count - 1});
      first += count;
    }
    return shares;
  }
  if (given != loaders) {
    for (int64_t i = 0; i < loaders; ++i) {
      if (!requested[i]) {
        const auto named = std::find_if(requested.begin(), requested.end(),
                                        [](const auto& r) { return r.has_value(); });
        return Status::InvalidArgument(fmt::format(
            "loader {} names no load units but loader {} does: name them for every loader or "
            "for none (then they are split evenly)",
            i + 1, named - requested.begin() + 1));
      }
    }
  }
  std::vector<int64_t> order(loaders);
  for (int64_t i = 0; i < loaders; ++i) {
    order[i] = i;
    const LoadUnitRange& r = *requested[i];
    if (r.last >= load_units) {
      return Status::InvalidArgument(fmt::format(
          "loader {}: load units {} go past the last load unit, {} ({} customers)", i + 1,
          ToString(r), load_units - 1, load_units * workload::kCustomersPerLoadUnit));
    }
    shares.push_back(r);
  }
  std::sort(order.begin(), order.end(),
            [&](int64_t a, int64_t b) { return shares[a].first < shares[b].first; });
  int64_t next = 0;  // the first load unit not yet covered
  for (size_t k = 0; k < order.size(); ++k) {
    const LoadUnitRange& r = shares[order[k]];
    if (r.first < next) {
      return Status::InvalidArgument(fmt::format("loader {}'s load units {} overlap loader {}'s {}",
                                                 order[k] + 1, ToString(r), order[k - 1] + 1,
                                                 ToString(shares[order[k - 1]])));
    }
    if (r.first > next) {
      return Status::InvalidArgument(
          fmt::format("no loader has load units {}", ToString({next, r.first - 1})));
    }
    next = r.last + 1;
  }
  if (next < load_units) {
    return Status::InvalidArgument(
        fmt::format("no loader has load units {}", ToString({next, load_units - 1})));
  }
  return shares;
}

Result<std::vector<std::optional<LoadUnitRange>>> ParseShareList(std::string_view option,
                                                                 std::string_view text) {
  std::vector<std::optional<LoadUnitRange>> entries;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string_view entry =
        text.substr(start, comma == std::string_view::npos ? comma : comma - start);
    if (entry == "auto") {
      entries.emplace_back();
    } else {
      auto range = ParseLoadUnitRange(
          fmt::format("{} (entry {}, of '{}')", option, entries.size() + 1, text), entry);
      if (!range.ok()) return range.status();
      entries.emplace_back(*range);
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return entries;
}

}  // namespace bb::loader
