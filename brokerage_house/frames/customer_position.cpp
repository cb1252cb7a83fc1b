// Customer-Position (reference §4.2, spec clause 3.3.2): a customer's profile, the cash and
// asset value of up to 10 of the customer's accounts and, on request, the recent trade history
// of one of them. Read-only, READ COMMITTED (§4.0, isolation level L1). Frame 1 always runs;
// then frame 2 (get_history) or frame 3 (commit only), which are mutually exclusive.
#include <string>
#include <string_view>

#include "brokerage_house/frame_runner.h"
#include "brokerage_house/frames/statements.h"

namespace bb::bh {
namespace {

constexpr std::string_view kCustomerById = "cp_f1_customer_by_id";
constexpr std::string_view kCustomerByTaxId = "cp_f1_customer_by_tax_id";
constexpr std::string_view kAccounts = "cp_f1_accounts";
constexpr std::string_view kHistory = "cp_f2_history";

// Frame 1 finds the customer by C_TAX_ID when no C_ID is given; reading the CUSTOMER row in the
// same statement is the spec's two selects in one. Tax ids are meant to be unique; the order
// makes the choice deterministic if they are not.
//
// Accounts (§7 quirk 2): the spec's pseudo-code puts LT_S_SYMB = HS_S_SYMB in the WHERE clause
// after the outer join, which drops every account without holdings although the select wraps
// the sum in coalesce(..., 0). We follow the evident intent instead: a true LEFT JOIN, so an
// account without holdings is listed with asset_total 0. The ca_id tie-break makes the order
// total.
//
// Frame 2 (§4.2): the 10 most recent trades of the account, then up to 30 of their
// TRADE_HISTORY rows, newest first.
//
// The customer row and the accounts are independent when cust_id is given (a candidate for
// pipelining).
constexpr db::PreparedStatement kStatements[] = {
    {kCustomerById, R"sql(
SELECT c_id, c_st_id, c_l_name, c_f_name, c_m_name, c_gndr, c_tier, c_dob, c_ad_id,
       c_ctry_1, c_area_1, c_local_1, c_ext_1, c_ctry_2, c_area_2, c_local_2, c_ext_2,
       c_ctry_3, c_area_3, c_local_3, c_ext_3, c_email_1, c_email_2
FROM customer WHERE c_id = $1)sql"},
    {kCustomerByTaxId, R"sql(
SELECT c_id, c_st_id, c_l_name, c_f_name, c_m_name, c_gndr, c_tier, c_dob, c_ad_id,
       c_ctry_1, c_area_1, c_local_1, c_ext_1, c_ctry_2, c_area_2, c_local_2, c_ext_2,
       c_ctry_3, c_area_3, c_local_3, c_ext_3, c_email_1, c_email_2
FROM customer WHERE c_tax_id = $1 ORDER BY c_id LIMIT 1)sql"},
    {kAccounts, R"sql(
SELECT ca_id, ca_bal, coalesce(sum(hs_qty * lt_price), 0) AS assets
FROM customer_account
LEFT JOIN holding_summary ON hs_ca_id = ca_id
LEFT JOIN last_trade ON lt_s_symb = hs_s_symb
WHERE ca_c_id = $1
GROUP BY ca_id, ca_bal
ORDER BY assets, ca_id
LIMIT 10)sql"},
    {kHistory, R"sql(
SELECT t.t_id, t.t_s_symb, t.t_qty, st_name, th_dts
FROM (SELECT t_id, t_s_symb, t_qty FROM trade WHERE t_ca_id = $1
      ORDER BY t_dts DESC, t_id DESC LIMIT 10) AS t
JOIN trade_history ON th_t_id = t.t_id
JOIN status_type ON st_id = th_st_id
ORDER BY th_dts DESC, t.t_id DESC, th_st_id
LIMIT 30)sql"},
};

void ReadCustomer(const db::QueryResult& row, protocol::CustomerPositionOutput& out) {
  out.cust_id = row.Int(0, 0);
  out.c_st_id = row.Text(0, 1);
  out.l_name = row.Text(0, 2);
  out.f_name = row.Text(0, 3);
  out.m_name = row.Text(0, 4);
  out.gender = row.Text(0, 5);
  out.tier = static_cast<int32_t>(row.Int(0, 6));
  out.dob = row.DateDays(0, 7);
  out.ad_id = row.Int(0, 8);
  for (int p = 0; p < 3; ++p) {
    const int col = 9 + 4 * p;
    out.phones[p] = {std::string(row.Text(0, col)), std::string(row.Text(0, col + 1)),
                     std::string(row.Text(0, col + 2)), std::string(row.Text(0, col + 3))};
  }
  out.email_1 = row.Text(0, 21);
  out.email_2 = row.Text(0, 22);
}

}  // namespace

std::span<const db::PreparedStatement> frames::CustomerPositionStatements(FrameMode mode) {
  return ForMode(mode, {}, kStatements);
}

protocol::CustomerPositionOutput FrameRunner::Run(const protocol::CustomerPositionInput& in) {
  protocol::CustomerPositionOutput out;
  int32_t status = 0;
  const db::TxnOutcome outcome =
      session_.Run(db::Isolation::kReadCommitted, options_.max_retries, [&](db::Transaction& tx) {
        out = {};
        status = 0;
        // Frame 1.
        const db::QueryResult customer = in.cust_id != 0 ? tx.Exec(kCustomerById, {in.cust_id})
                                                         : tx.Exec(kCustomerByTaxId, {in.tax_id});
        if (!customer.empty()) {
          ReadCustomer(customer, out);
          const db::QueryResult accounts = tx.Exec(kAccounts, {out.cust_id});
          out.accounts.reserve(accounts.size());
          for (std::size_t i = 0; i < accounts.size(); ++i) {
            out.accounts.push_back(
                {accounts.Int(i, 0), accounts.Cents(i, 1), accounts.Cents(i, 2)});
          }
        }
        // Harness check: acct_len < 1 or > max_acct_len (10) is invalid; an unknown customer
        // has no accounts and ends here too.
        if (out.accounts.empty() || out.accounts.size() > protocol::kMaxAccounts) {
          status = -211;
          return db::Finish::kRollback;
        }
        if (!in.get_history) return db::Finish::kCommit;  // frame 3
        // Frame 2. An index outside the account list names no account: the frame finds no
        // history, which the harness check below rejects as it would hist_len 0.
        if (in.acct_id_idx >= 0 && static_cast<std::size_t>(in.acct_id_idx) < out.accounts.size()) {
          const int64_t acct_id = out.accounts[static_cast<std::size_t>(in.acct_id_idx)].acct_id;
          const db::QueryResult history = tx.Exec(kHistory, {acct_id});
          out.history.reserve(history.size());
          for (std::size_t i = 0; i < history.size(); ++i) {
            out.history.push_back({history.Int(i, 0), std::string(history.Text(i, 1)),
                                   static_cast<int32_t>(history.Int(i, 2)),
                                   std::string(history.Text(i, 3)), history.TimestampMicros(i, 4)});
          }
        }
        // Harness check: hist_len < 10 or > max_hist_len (30) is invalid.
        if (out.history.size() < 10 || out.history.size() > protocol::kMaxPositionHistory) {
          status = -221;
          return db::Finish::kRollback;
        }
        return db::Finish::kCommit;
      });
  out.status = MakeReplyStatus(outcome, status);
  return out;
}

}  // namespace bb::bh
