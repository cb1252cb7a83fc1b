// Customer-Position (clause 3.3.2): a customer's profile, the cash and
// asset value of up to 10 of the customer's accounts and, on request, the recent trade history
// of one of them. Read-only, READ COMMITTED (L1, clause 7.4.1.3). Frame 1 always runs;
// then frame 2 (get_history) or frame 3 (commit only), which are mutually exclusive.
// Server-side: sql/customer_position.sql.
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
// Accounts (a spec ambiguity): the spec's pseudo-code puts LT_S_SYMB = HS_S_SYMB in the WHERE
// clause after the outer join, which drops every account without holdings although the select wraps
// the sum in coalesce(..., 0). We follow the evident intent instead: a true LEFT JOIN, so an
// account without holdings is listed with asset_total 0. The ca_id tie-break makes the order
// total.
//
// Frame 2 (clause 3.3.2): the 10 most recent trades of the account, then up to 30 of their
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

// The customer's columns, C_ID to C_EMAIL_2 as the frame 1 statements select them, from column
// `first` of row 0 on.
void ReadCustomer(const db::QueryResult& row, int first, protocol::CustomerPositionOutput& out) {
  out.cust_id = row.Int(0, first);
  out.c_st_id = row.Text(0, first + 1);
  out.l_name = row.Text(0, first + 2);
  out.f_name = row.Text(0, first + 3);
  out.m_name = row.Text(0, first + 4);
  out.gender = row.Text(0, first + 5);
  out.tier = static_cast<int32_t>(row.Int(0, first + 6));
  out.dob = row.DateDays(0, first + 7);
  out.ad_id = row.Int(0, first + 8);
  for (int p = 0; p < 3; ++p) {
    const int col = first + 9 + 4 * p;
    out.phones[p] = {std::string(row.Text(0, col)), std::string(row.Text(0, col + 1)),
                     std::string(row.Text(0, col + 2)), std::string(row.Text(0, col + 3))};
  }
  out.email_1 = row.Text(0, first + 21);
  out.email_2 = row.Text(0, first + 22);
}

// The server-side frames: one call of sql/customer_position.sql's function. Its columns: the
// status, then the customer's columns in the order of the frame 1 statements (so ReadCustomer
// reads them, shifted by one), then the lists.
enum CallColumn : int {
  kStatus,
  kCustId,                  // the first of the 23 customer columns; NULL for an unknown customer
  kAcctIds = kCustId + 23,  // then cash_bals and asset_totals, parallel to it
  kHistTradeIds = kAcctIds + 3,  // then the other history columns, as in PositionHistoryRow
};
constexpr std::string_view kCall = "cp_call";
constexpr db::PreparedStatement kServerStatements[] = {
    {kCall, "SELECT * FROM bb_customer_position($1, $2, $3, $4)"}};

}  // namespace

std::span<const db::PreparedStatement> frames::CustomerPositionStatements(FrameMode mode) {
  return ForMode(mode, kServerStatements, kStatements);
}

bool frames::Prepare(const protocol::CustomerPositionInput& in, ServerCall& call,
                     protocol::CustomerPositionOutput&) {
  call.isolation = db::Isolation::kReadCommitted;
  call.finish = db::Finish::kCommit;
  call.statement = kCall;
  call.params.assign({in.cust_id, in.tax_id, in.get_history, in.acct_id_idx});
  return true;
}

protocol::CustomerPositionOutput frames::Read(const protocol::CustomerPositionInput&,
                                              const db::TxnOutcome& outcome,
                                              const db::QueryResult& row,
                                              std::vector<protocol::MarketTradeRequest>&) {
  protocol::CustomerPositionOutput out;
  if (outcome.end == db::TxnEnd::kCommitted && row.size() == 1 && !row.IsNull(0, kCustId)) {
    ReadCustomer(row, kCustId, out);
    auto [ids, cash, assets] = frames::Lists<3>(row, kAcctIds);
    while (ids.Next()) {
      cash.Next();
      assets.Next();
      out.accounts.push_back({ids.Int(), cash.Cents(), assets.Cents()});
    }
    auto lists = frames::Lists<5>(row, kHistTradeIds);
    auto& [trade_ids, symbols, qtys, statuses, dts] = lists;
    while (trade_ids.Next()) {
      for (std::size_t i = 1; i < lists.size(); ++i) lists[i].Next();
      out.history.push_back({trade_ids.Int(), std::string(symbols.value()),
                             static_cast<int32_t>(qtys.Int()), std::string(statuses.value()),
                             dts.TimestampMicros()});
    }
  }
  out.status = MakeReplyStatus(outcome, frames::CallStatus(outcome, row));
  return out;
}

protocol::CustomerPositionOutput FrameRunner::Run(const protocol::CustomerPositionInput& in) {
  if (on_server()) {
    std::vector<protocol::MarketTradeRequest> none;
    return frames::RunServerCall(session_, options_.max_retries, in, none);
  }
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
          ReadCustomer(customer, 0, out);
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
