#include "common/workload/industries.h"

#include <array>

namespace bb::workload {
namespace {

constexpr std::array<Sector, kSectorCount> kSectors = {{
    {"BM", "Basic Materials"},
    {"CG", "Capital Goods"},
    {"CO", "Conglomerates"},
    {"CC", "Consumer Cyclical"},
    {"CN", "Consumer Non-Cyclical"},
    {"EN", "Energy"},
    {"FN", "Financial"},
    {"HC", "Healthcare"},
    {"SV", "Services"},
    {"TC", "Technology"},
    {"TR", "Transportation"},
    {"UT", "Utilities"},
}};

// Ids are letter pairs in list order: AA, AB, ... AZ, BA, ...
constexpr std::array<Industry, kIndustryCount> kIndustries = {{
    // Basic Materials (11)
    {"AA", "Commodity Chemicals", "BM"},
    {"AB", "Specialty Chemicals", "BM"},
    {"AC", "Timber & Forest Products", "BM"},
    {"AD", "Gold & Silver Mining", "BM"},
    {"AE", "Iron & Steel", "BM"},
    {"AF", "Copper & Base Metals", "BM"},
    {"AG", "Industrial Minerals", "BM"},
    {"AH", "Paper Products", "BM"},
    {"AI", "Aluminum", "BM"},
    {"AJ", "Agricultural Chemicals", "BM"},
    {"AK", "Plastics & Rubber", "BM"},
    // Consumer Cyclical (12)
    {"AL", "Apparel & Accessories", "CC"},
    {"AM", "Footwear", "CC"},
    {"AN", "Automobiles", "CC"},
    {"AO", "Auto Parts", "CC"},
    {"AP", "Tires", "CC"},
    {"AQ", "Home Furnishings", "CC"},
    {"AR", "Household Appliances", "CC"},
    {"AS", "Leisure Products", "CC"},
    {"AT", "Toys & Games", "CC"},
    {"AU", "Recreational Vehicles", "CC"},
    {"AV", "Jewelry", "CC"},
    {"AW", "Textiles", "CC"},
    // Capital Goods (7)
    {"AX", "Aerospace & Defense", "CG"},
    {"AY", "Construction Services", "CG"},
    {"AZ", "Construction Materials", "CG"},
    {"BA", "Industrial Machinery", "CG"},
    {"BB", "Electrical Equipment", "CG"},
    {"BC", "Farm Machinery", "CG"},
    {"BD", "Tools & Hardware", "CG"},
    // Consumer Non-Cyclical (8)
    {"BE", "Soft Drinks", "CN"},
    {"BF", "Brewers & Distillers", "CN"},
    {"BG", "Packaged Foods", "CN"},
    {"BH", "Meat & Poultry", "CN"},
    {"BI", "Tobacco", "CN"},
    {"BJ", "Personal Care Products", "CN"},
    {"BK", "Household Products", "CN"},
    {"BL", "Crops & Farming", "CN"},
    // Conglomerates (1)
    {"BM", "Conglomerates", "CO"},
    // Energy (4)
    {"BN", "Oil & Gas Exploration", "EN"},
    {"BO", "Integrated Oil & Gas", "EN"},
    {"BP", "Oil Well Services", "EN"},
    {"BQ", "Coal", "EN"},
    // Financial (10)
    {"BR", "Consumer Banking", "FN"},
    {"BS", "Regional Banks", "FN"},
    {"BT", "Investment Services", "FN"},
    {"BU", "Life Insurance", "FN"},
    {"BV", "Property Insurance", "FN"},
    {"BW", "Accident & Health Insurance", "FN"},
    {"BX", "Consumer Lending", "FN"},
    {"BY", "Savings Institutions", "FN"},
    {"BZ", "Asset Management", "FN"},
    {"CA", "Real Estate Investment Trusts", "FN"},
    // Healthcare (4)
    {"CB", "Biotechnology", "HC"},
    {"CC", "Pharmaceuticals", "HC"},
    {"CD", "Medical Equipment", "HC"},
    {"CE", "Health Care Facilities", "HC"},
    // Services (25)
    {"CF", "Advertising", "SV"},
    {"CG", "Broadcasting", "SV"},
    {"CH", "Business Services", "SV"},
    {"CI", "Casinos & Gaming", "SV"},
    {"CJ", "Communications Services", "SV"},
    {"CK", "Department Stores", "SV"},
    {"CL", "Grocery Stores", "SV"},
    {"CM", "Home Improvement Retail", "SV"},
    {"CN", "Hotels & Motels", "SV"},
    {"CO", "Motion Pictures", "SV"},
    {"CP", "Personal Services", "SV"},
    {"CQ", "Printing & Publishing", "SV"},
    {"CR", "Real Estate Operations", "SV"},
    {"CS", "Recreational Activities", "SV"},
    {"CT", "Rental & Leasing", "SV"},
    {"CU", "Restaurants", "SV"},
    {"CV", "Apparel Retail", "SV"},
    {"CW", "Catalog & Mail Order Retail", "SV"},
    {"CX", "Drug Stores", "SV"},
    {"CY", "Specialty Retail", "SV"},
    {"CZ", "Electronics Retail", "SV"},
    {"DA", "Schools & Education", "SV"},
    {"DB", "Security Services", "SV"},
    {"DC", "Waste Management", "SV"},
    {"DD", "Staffing Services", "SV"},
    // Technology (11)
    {"DE", "Communications Equipment", "TC"},
    {"DF", "Computer Hardware", "TC"},
    {"DG", "Computer Networks", "TC"},
    {"DH", "Computer Peripherals", "TC"},
    {"DI", "Computer Services", "TC"},
    {"DJ", "Electronic Instruments", "TC"},
    {"DK", "Office Equipment", "TC"},
    {"DL", "Scientific Instruments", "TC"},
    {"DM", "Semiconductors", "TC"},
    {"DN", "Software", "TC"},
    {"DO", "Wireless Communications", "TC"},
    // Transportation (6)
    {"DP", "Air Travel", "TR"},
    {"DQ", "Air Cargo", "TR"},
    {"DR", "Railroads", "TR"},
    {"DS", "Shipping", "TR"},
    {"DT", "Trucking", "TR"},
    {"DU", "Other Transportation", "TR"},
    // Utilities (3)
    {"DV", "Electric Utilities", "UT"},
    {"DW", "Natural Gas Utilities", "UT"},
    {"DX", "Water Utilities", "UT"},
}};

}  // namespace

std::span<const Sector> Sectors() { return kSectors; }
std::span<const Industry> Industries() { return kIndustries; }

}  // namespace bb::workload
