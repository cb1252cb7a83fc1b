// The customers part of a load unit (EGen's rules, clause 1.4.2): CUSTOMER, the customers'
// ADDRESS rows, CUSTOMER_TAXRATE, CUSTOMER_ACCOUNT, ACCOUNT_PERMISSION, WATCH_LIST and
// WATCH_ITEM. Every attribute comes from workload::CustomerModel and person.h, which the
// customer emulator shares; only the watch items are the loader's own draws.
#include <algorithm>
#include <vector>

#include "common/workload/customer.h"
#include "common/workload/ids.h"
#include "common/workload/market.h"
#include "common/workload/person.h"
#include "loader/table_generators.h"

namespace bb::loader {

namespace {

constexpr int kMinWatchItems = 50;
constexpr int kMaxWatchItems = 150;
// Per-customer draw budget of the watch items: the count, the items and rare repeats.
constexpr uint64_t kWatchItemDraws = 512;

}  // namespace

void GenerateCustomerTables(const workload::Sizing& sizing, int64_t load_unit, UnitOutput& out) {
  const workload::CustomerModel model(sizing);
  const workload::Market market(sizing);
  TableWriter& customer = out.Writer(Table::kCustomer);
  TableWriter& address = out.Writer(Table::kAddress);
  TableWriter& taxrate = out.Writer(Table::kCustomerTaxrate);
  TableWriter& account = out.Writer(Table::kCustomerAccount);
  TableWriter& permission = out.Writer(Table::kAccountPermission);
  TableWriter& watch_list = out.Writer(Table::kWatchList);
  TableWriter& watch_item = out.Writer(Table::kWatchItem);
  TimestampText time_text;
  std::vector<int64_t> items;
  items.reserve(kMaxWatchItems);

  const int64_t first = workload::FirstCustomerIdOfLoadUnit(load_unit);
  for (int64_t c_id = first; c_id < first + workload::kCustomersPerLoadUnit && out.ok(); ++c_id) {
    const int64_t ad_id = model.AddressId(c_id);
    CopyText& c = customer.text();
    c.Int(c_id)
        .Text(workload::TaxId(c_id))
        .Raw("ACTV")
        .Text(workload::LastName(c_id))
        .Text(workload::FirstName(c_id))
        .Text(std::string(1, workload::MiddleInitial(c_id)))
        .Text(std::string(1, workload::GenderCode(workload::GenderOf(c_id))))
        .Int(static_cast<int>(model.Tier(c_id)))
        .Raw(time_text.FormatDate(workload::DateOfBirth(c_id)))
        .Int(ad_id);
    for (int n = 0; n < workload::kPhonesPerCustomer; ++n) {
      const workload::Phone phone = workload::PhoneOf(c_id, n);
      c.Text(phone.country).Text(phone.area).Text(phone.local).Text(phone.extension);
    }
    c.Text(workload::Email(c_id, 0)).Text(workload::Email(c_id, 1));
    customer.EndRow();

    const workload::Address a = model.CustomerAddress(c_id);
    address.text().Int(ad_id).Text(a.line1).Text(a.line2).Text(a.zip().code).Text(a.country());
    address.EndRow();

    const workload::CustomerTaxRates rates = model.TaxRateChoice(c_id);
    taxrate.text().Text(rates.national->id).Int(c_id);
    taxrate.EndRow();
    taxrate.text().Text(rates.division->id).Int(c_id);
    taxrate.EndRow();

    for (const int64_t ca_id : model.AccountIds(c_id)) {
      account.text()
          .Int(ca_id)
          .Int(model.AccountBroker(ca_id))
          .Int(c_id)
          .Text(model.AccountName(ca_id))
          .Int(model.AccountTaxStatus(ca_id))
          .Fixed(model.AccountBalanceCents(ca_id), 2);
      account.EndRow();
      for (const workload::AccountPermission& ap : model.AccountPermissions(ca_id)) {
        permission.text()
            .Int(ca_id)
            .Text(ap.acl)
            .Text(workload::TaxId(ap.person_id))
            .Text(workload::LastName(ap.person_id))
            .Text(workload::FirstName(ap.person_id));
        permission.EndRow();
      }
    }

    // One watch list per customer with 50..150 distinct securities of the whole market.
    const int64_t wl_id = workload::WatchListId(c_id);
    watch_list.text().Int(wl_id).Int(c_id);
    watch_list.EndRow();
    workload::Random rng =
        workload::Random::ForKey(seeds::kWatchItems, static_cast<uint64_t>(c_id), kWatchItemDraws);
    const auto count = static_cast<size_t>(rng.IntRange(kMinWatchItems, kMaxWatchItems));
    items.clear();
    while (items.size() < count) {
      const int64_t s = rng.Int64Range(0, sizing.Securities() - 1);
      if (std::find(items.begin(), items.end(), s) == items.end()) items.push_back(s);
    }
    for (const int64_t s : items) {
      watch_item.text().Int(wl_id).Text(market.Symbol(s));
      watch_item.EndRow();
    }
  }
}

}  // namespace bb::loader
