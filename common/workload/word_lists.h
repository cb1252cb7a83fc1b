// Word lists of our own for the generated world, as large as EGen's and weighted alike: first
// names, surnames, street names and suffixes, towns, e-mail domains, area codes, account-type
// names and company-name parts. Nothing here comes from EGen's input files: short lists are
// written out, long ones (surnames, streets, towns, area codes, company roots) are generated
// from syllables by code, deterministically.
//
// Ownership and thread-safety: each accessor returns a reference to an immutable list built on
// first use (C++ guarantees a thread-safe one-time initialisation); share them freely.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/workload/weighted_list.h"

namespace bb::workload {

// Frequency-weighted first names (at most 11 characters).
const WeightedList& MaleFirstNames();
const WeightedList& FemaleFirstNames();
// Frequency-weighted surnames (several thousand, at most 15 characters), built from syllables.
const WeightedList& Surnames();
// 1 000 distinct street names ("Maplewood", "Cedar Hill"...), without suffix.
const std::vector<std::string>& StreetNames();
// The 17 street suffixes.
std::span<const std::string_view> StreetSuffixes();
// A town name for a town index (any index >= 0; names repeat only after many thousands).
std::string TownName(int64_t town_index);
// The six e-mail domains, with the leading '@'.
std::span<const std::string_view> EmailDomains();
// 284 distinct three-digit area codes, weighted.
const WeightedList& AreaCodes();
// Account-type names for taxable and non-taxable accounts.
std::span<const std::string_view> TaxableAccountNames();
std::span<const std::string_view> NonTaxableAccountNames();
// Company names are root + " " + descriptor + legal form (market.h combines them).
const std::vector<std::string>& CompanyNameRoots();          // 250 distinct roots
std::span<const std::string_view> CompanyNameDescriptors();  // 20 words
std::span<const std::string_view> CompanyLegalForms();       // "Inc.", "Corp."...

}  // namespace bb::workload
