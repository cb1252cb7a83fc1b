// Data-Maintenance (clause 3.3.11): once a minute the driver names one table of
// a fixed rotation, and the frame changes it in a way that toggles or cycles, so that the
// database stays within its generated domain however long a run lasts. Each change is one
// statement. READ COMMITTED (L1, clause 7.4.1.3). The spec defines no status codes: a call
// whose key finds no row changes nothing and succeeds. Server-side: sql/data_maintenance.sql.
#include <string_view>

#include "brokerage_house/frame_runner.h"
#include "brokerage_house/frames/statements.h"

namespace bb::bh {

namespace {

// ACCOUNT_PERMISSION (clause 3.3.11.3's pseudo-code): the account's first AP_ACL ordered
// descending, i.e. its highest, and every row of the account that holds it, get ACL "1111", or
// "0011" if that ACL already is "1111". max() orders as ORDER BY ap_acl DESC does.
constexpr db::PreparedStatement kAccountPermission{
    "dm_account_permission",
    "UPDATE account_permission SET ap_acl = CASE WHEN ap_acl = '1111' THEN '0011' ELSE '1111' "
    "END WHERE ap_ca_id = $1 AND ap_acl = (SELECT max(ap_acl) FROM account_permission "
    "WHERE ap_ca_id = $1)"};

// ADDRESS of a customer or of a company: AD_LINE2 toggles "Apt. 10C" / "Apt. 22".
constexpr db::PreparedStatement kCustomerAddress{
    "dm_customer_address",
    "UPDATE address SET ad_line2 = CASE WHEN ad_line2 = 'Apt. 10C' THEN 'Apt. 22' ELSE "
    "'Apt. 10C' END WHERE ad_id = (SELECT c_ad_id FROM customer WHERE c_id = $1)"};
constexpr db::PreparedStatement kCompanyAddress{
    "dm_company_address",
    "UPDATE address SET ad_line2 = CASE WHEN ad_line2 = 'Apt. 10C' THEN 'Apt. 22' ELSE "
    "'Apt. 10C' END WHERE ad_id = (SELECT co_ad_id FROM company WHERE co_id = $1)"};

// COMPANY: CO_SP_RATE toggles "ABA" / "AAA".
constexpr db::PreparedStatement kCompany{
    "dm_company",
    "UPDATE company SET co_sp_rate = CASE WHEN co_sp_rate = 'ABA' THEN 'AAA' ELSE 'ABA' END "
    "WHERE co_id = $1"};

// CUSTOMER: the domain of C_EMAIL_2 toggles "@mindspring.com" / "@earthlink.com".
constexpr db::PreparedStatement kCustomer{
    "dm_customer",
    "UPDATE customer SET c_email_2 = split_part(c_email_2, '@', 1) || CASE WHEN c_email_2 LIKE "
    "'%@mindspring.com' THEN '@earthlink.com' ELSE '@mindspring.com' END WHERE c_id = $1"};

// CUSTOMER_TAXRATE: the customer's national rate moves to the next bracket, US1..US5 or
// CN1..CN4, cyclically. Naming the ids lets the primary key (cx_tx_id, cx_c_id) find the row.
constexpr db::PreparedStatement kCustomerTaxrate{
    "dm_customer_taxrate",
    "UPDATE customer_taxrate SET cx_tx_id = CASE cx_tx_id WHEN 'US5' THEN 'US1' WHEN 'CN4' THEN "
    "'CN1' ELSE substr(cx_tx_id, 1, 2) || (substr(cx_tx_id, 3)::int + 1)::text END WHERE "
    "cx_c_id = $1 AND cx_tx_id IN ('US1', 'US2', 'US3', 'US4', 'US5', 'CN1', 'CN2', 'CN3', "
    "'CN4')"};

// DAILY_MARKET: DM_VOL += vol_incr on the symbol's days with the given day of the month.
constexpr db::PreparedStatement kDailyMarket{
    "dm_daily_market",
    "UPDATE daily_market SET dm_vol = dm_vol + $3 WHERE dm_s_symb = $1 AND "
    "extract(day FROM dm_date) = $2"};

// EXCHANGE: every EX_DESC ends with " LAST UPDATED <now>", appended or refreshed. The time is
// written to the microsecond, always in the same form, whoever formats it.
constexpr db::PreparedStatement kExchange{
    "dm_exchange",
    "UPDATE exchange SET ex_desc = CASE WHEN strpos(ex_desc, ' LAST UPDATED ') > 0 THEN "
    "left(ex_desc, strpos(ex_desc, ' LAST UPDATED ') - 1) ELSE coalesce(ex_desc, '') END || "
    "' LAST UPDATED ' || to_char($1::timestamp, 'YYYY-MM-DD HH24:MI:SS.US')"};

// FINANCIAL: the company's quarter start dates move from the 1st of the month to the 2nd, or
// back to the 1st if none is on the 1st.
constexpr db::PreparedStatement kFinancial{
    "dm_financial",
    "UPDATE financial SET fi_qtr_start_date = fi_qtr_start_date + CASE WHEN EXISTS (SELECT 1 "
    "FROM financial WHERE fi_co_id = $1 AND extract(day FROM fi_qtr_start_date) = 1) THEN 1 "
    "ELSE -1 END WHERE fi_co_id = $1"};

// NEWS_ITEM: the company's news items move a day later.
constexpr db::PreparedStatement kNewsItem{
    "dm_news_item",
    "UPDATE news_item SET ni_dts = ni_dts + interval '1 day' WHERE ni_id IN (SELECT nx_ni_id "
    "FROM news_xref WHERE nx_co_id = $1)"};

// SECURITY: S_EXCH_DATE moves a day later.
constexpr db::PreparedStatement kSecurity{
    "dm_security", "UPDATE security SET s_exch_date = s_exch_date + 1 WHERE s_symb = $1"};

// TAXRATE: TX_NAME toggles " Tax " / " tax ".
constexpr db::PreparedStatement kTaxrate{
    "dm_taxrate",
    "UPDATE taxrate SET tx_name = CASE WHEN tx_name LIKE '% Tax %' THEN replace(tx_name, "
    "' Tax ', ' tax ') ELSE replace(tx_name, ' tax ', ' Tax ') END WHERE tx_id = $1"};

// WATCH_ITEM: in the customer's (first) watch list, the middle item by symbol order is
// replaced by the next symbol after it that the list does not hold yet.
constexpr db::PreparedStatement kWatchItem{
    "dm_watch_item",
    "WITH wl AS (SELECT wl_id FROM watch_list WHERE wl_c_id = $1 ORDER BY wl_id LIMIT 1), "
    "items AS (SELECT wi_s_symb, row_number() OVER (ORDER BY wi_s_symb) AS n, count(*) OVER () "
    "AS cnt FROM watch_item WHERE wi_wl_id = (SELECT wl_id FROM wl)), old AS (SELECT wi_s_symb "
    "FROM items WHERE n = (cnt + 1) / 2), new AS (SELECT s_symb FROM security WHERE s_symb > "
    "(SELECT wi_s_symb FROM old) AND s_symb NOT IN (SELECT wi_s_symb FROM items) ORDER BY s_symb "
    "LIMIT 1) UPDATE watch_item SET wi_s_symb = (SELECT s_symb FROM new) WHERE wi_wl_id = "
    "(SELECT wl_id FROM wl) AND wi_s_symb = (SELECT wi_s_symb FROM old) AND EXISTS (SELECT 1 "
    "FROM new)"};

constexpr db::PreparedStatement kStatements[] = {
    kAccountPermission, kCustomerAddress, kCompanyAddress, kCompany,   kCustomer,
    kCustomerTaxrate,   kDailyMarket,     kExchange,       kFinancial, kNewsItem,
    kSecurity,          kTaxrate,         kWatchItem};

// The server-side frame: one call of sql/data_maintenance.sql's function, which takes the
// spec's table_name. Its one column is the status.
constexpr std::string_view kCall = "dm_call";
constexpr db::PreparedStatement kServerStatements[] = {
    {kCall, "SELECT * FROM bb_data_maintenance($1, $2, $3, $4, $5, $6, $7, $8, $9)"}};

}  // namespace

std::span<const db::PreparedStatement> frames::DataMaintenanceStatements(FrameMode mode) {
  return ForMode(mode, kServerStatements, kStatements);
}

bool frames::Prepare(const protocol::DataMaintenanceInput& in, ServerCall& call,
                     protocol::DataMaintenanceOutput&) {
  call.isolation = db::Isolation::kReadCommitted;
  call.finish = db::Finish::kCommit;
  call.statement = kCall;
  call.params.assign({protocol::MaintenanceTableName(in.table), in.acct_id, in.c_id, in.co_id,
                      in.symbol, in.day_of_month, in.vol_incr, in.tx_id});
  AppendNow(call);
  return true;
}

protocol::DataMaintenanceOutput frames::Read(const protocol::DataMaintenanceInput&,
                                             const db::TxnOutcome& outcome,
                                             const db::QueryResult& row,
                                             std::vector<protocol::MarketTradeRequest>&) {
  protocol::DataMaintenanceOutput out;
  out.status = MakeReplyStatus(outcome, frames::CallStatus(outcome, row));
  return out;
}

protocol::DataMaintenanceOutput FrameRunner::Run(const protocol::DataMaintenanceInput& in) {
  using protocol::MaintenanceTable;
  if (on_server()) {
    std::vector<protocol::MarketTradeRequest> none;
    return frames::RunServerCall(session_, options_.max_retries, in, none);
  }
  protocol::DataMaintenanceOutput out;
  const db::TxnOutcome outcome =
      session_.Run(db::Isolation::kReadCommitted, options_.max_retries, [&](db::Transaction& tx) {
        switch (in.table) {
          case MaintenanceTable::kAccountPermission:
            tx.Exec(kAccountPermission.name, {in.acct_id});
            break;
          case MaintenanceTable::kAddress:
            // The driver sends a customer (67 %) or a company (33 %).
            if (in.c_id != 0) {
              tx.Exec(kCustomerAddress.name, {in.c_id});
            } else {
              tx.Exec(kCompanyAddress.name, {in.co_id});
            }
            break;
          case MaintenanceTable::kCompany:
            tx.Exec(kCompany.name, {in.co_id});
            break;
          case MaintenanceTable::kCustomer:
            tx.Exec(kCustomer.name, {in.c_id});
            break;
          case MaintenanceTable::kCustomerTaxrate:
            tx.Exec(kCustomerTaxrate.name, {in.c_id});
            break;
          case MaintenanceTable::kDailyMarket:
            tx.Exec(kDailyMarket.name, {in.symbol, in.day_of_month, in.vol_incr});
            break;
          case MaintenanceTable::kExchange:
            tx.Exec(kExchange.name, {db::Param::Timestamp(Now())});
            break;
          case MaintenanceTable::kFinancial:
            tx.Exec(kFinancial.name, {in.co_id});
            break;
          case MaintenanceTable::kNewsItem:
            tx.Exec(kNewsItem.name, {in.co_id});
            break;
          case MaintenanceTable::kSecurity:
            tx.Exec(kSecurity.name, {in.symbol});
            break;
          case MaintenanceTable::kTaxrate:
            tx.Exec(kTaxrate.name, {in.tx_id});
            break;
          case MaintenanceTable::kWatchItem:
            tx.Exec(kWatchItem.name, {in.c_id});
            break;
        }
        return db::Finish::kCommit;
      });
  out.status = MakeReplyStatus(outcome, 0);
  return out;
}

}  // namespace bb::bh
