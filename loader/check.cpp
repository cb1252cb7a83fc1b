#include "loader/check.h"

#include <cmath>

#include <fmt/format.h>

#include "common/workload/ids.h"

namespace bb::loader {

namespace {

// A row count: exact when tolerance is 0, else within ±tolerance (a fraction) of expected.
struct CountRule {
  const char* table;
  double expected;
  double tolerance;
  const char* basis;  // where the expectation comes from
  bool load_only = false;
};

// A rule that a query counts the rows breaking; 0 means it holds.
struct ViolationRule {
  const char* name;
  const char* sql;
  bool load_only = false;
};

// Clause 7.3.2 and the invariants (check.h): each query returns the number of rows that break
// the rule.
constexpr ViolationRule kViolationRules[] = {
    {"7.3.2 condition 1: B_NUM_TRADES = completed trades of the broker's accounts",
     "SELECT count(*) FROM broker b LEFT JOIN (SELECT ca_b_id, count(*) AS n FROM trade "
     "JOIN customer_account ON ca_id = t_ca_id WHERE t_st_id = 'CMPT' GROUP BY ca_b_id) t "
     "ON t.ca_b_id = b.b_id WHERE b.b_num_trades <> coalesce(t.n, 0)"},
    {"7.3.2 condition 2: B_COMM_TOTAL = commission of those trades",
     "SELECT count(*) FROM broker b LEFT JOIN (SELECT ca_b_id, sum(t_comm) AS c FROM trade "
     "JOIN customer_account ON ca_id = t_ca_id WHERE t_st_id = 'CMPT' GROUP BY ca_b_id) t "
     "ON t.ca_b_id = b.b_id WHERE b.b_comm_total <> coalesce(t.c, 0)"},
    {"7.3.2 condition 3: HS_QTY = sum of H_QTY per account and symbol",
     "SELECT count(*) FROM holding_summary FULL JOIN (SELECT h_ca_id, h_s_symb, sum(h_qty) AS q "
     "FROM holding GROUP BY h_ca_id, h_s_symb) h ON h.h_ca_id = hs_ca_id AND h.h_s_symb = "
     "hs_s_symb WHERE hs_qty IS DISTINCT FROM h.q"},
    {"invariant: after a load every trade is completed",
     "SELECT count(*) FROM trade WHERE t_st_id <> 'CMPT'", true},
    {"invariant: completed <=> a trade price <=> exactly one settlement",
     "SELECT count(*) FROM trade LEFT JOIN settlement ON se_t_id = t_id WHERE (t_st_id = 'CMPT') "
     "<> (t_trade_price IS NOT NULL) OR (t_st_id = 'CMPT') <> (se_t_id IS NOT NULL)"},
    {"invariant: each trade's history fits its status (market: SBMT[, CMPT]; limit: PNDG[, SBMT[, "
     "CMPT]]; canceled: CNCL too)",
     "SELECT count(*) FROM trade JOIN trade_type ON tt_id = t_tt_id LEFT JOIN (SELECT th_t_id, "
     "string_agg(th_st_id, ',' ORDER BY th_st_id) AS s FROM trade_history GROUP BY th_t_id) h ON "
     "th_t_id = t_id WHERE h.s IS DISTINCT FROM (CASE t_st_id WHEN 'CMPT' THEN 'CMPT,' ELSE '' "
     "END || CASE t_st_id WHEN 'CNCL' THEN 'CNCL,' ELSE '' END || CASE WHEN tt_is_mrkt THEN '' "
     "ELSE 'PNDG' END || CASE WHEN t_st_id = 'PNDG' THEN '' WHEN tt_is_mrkt THEN 'SBMT' ELSE "
     "',SBMT' END)"},
    {"invariant: PNDG <=> a TRADE_REQUEST row that repeats the trade's type, symbol, quantity, "
     "price and broker",
     "SELECT count(*) FROM trade JOIN customer_account ON ca_id = t_ca_id FULL JOIN "
     "trade_request ON tr_t_id = t_id WHERE (t_st_id = 'PNDG') IS DISTINCT FROM (tr_t_id IS NOT "
     "NULL) OR (tr_t_id IS NOT NULL AND (tr_tt_id <> t_tt_id OR tr_s_symb <> t_s_symb OR "
     "tr_qty <> t_qty OR tr_bid_price <> t_bid_price OR tr_b_id <> ca_b_id))"},
    {"invariant: no tax, settlement or cash transaction before a trade completes",
     "SELECT count(*) FROM trade WHERE t_st_id <> 'CMPT' AND (t_tax <> 0 OR EXISTS (SELECT 1 "
     "FROM cash_transaction WHERE ct_t_id = t_id))"},
    {"invariant: a cash transaction exists exactly for completed cash trades, CT_AMT = SE_AMT",
     "SELECT count(*) FROM trade JOIN settlement ON se_t_id = t_id LEFT JOIN cash_transaction "
     "ON ct_t_id = t_id WHERE (t_is_cash AND (ct_t_id IS NULL OR ct_amt <> se_amt)) OR (NOT "
     "t_is_cash AND ct_t_id IS NOT NULL)"},
    // Trade-Update frame 2 toggles "Cash Account" <-> "Cash" and "Margin" <-> "Margin Account".
    {"invariant: SE_CASH_DUE_DATE = trade date + 2 days; cash type follows T_IS_CASH",
     "SELECT count(*) FROM trade JOIN settlement ON se_t_id = t_id WHERE se_cash_due_date <> "
     "t_dts::date + 2 OR CASE WHEN t_is_cash THEN se_cash_type NOT IN ('Cash Account', 'Cash') "
     "ELSE se_cash_type NOT IN ('Margin', 'Margin Account') END"},
    {"invariant: SE_AMT reproduces from quantity, price, charge, commission and tax (1 cent)",
     "SELECT count(*) FROM trade JOIN trade_type ON tt_id = t_tt_id JOIN customer_account ON "
     "ca_id = t_ca_id JOIN settlement ON se_t_id = t_id WHERE abs(se_amt - (CASE WHEN "
     "tt_is_sell THEN t_qty * t_trade_price - t_chrg - t_comm ELSE -(t_qty * t_trade_price + "
     "t_chrg + t_comm) END - CASE WHEN ca_tax_st = 1 THEN t_tax ELSE 0 END)) > 0.01"},
    {"invariant: T_CHRG = CHARGE for the customer's tier and the trade type",
     "SELECT count(*) FROM trade JOIN customer_account ON ca_id = t_ca_id JOIN customer ON "
     "c_id = ca_c_id JOIN charge ON ch_tt_id = t_tt_id AND ch_c_tier = c_tier WHERE t_chrg <> "
     "ch_chrg"},
    {"invariant: T_COMM = quantity x price x commission rate of the band (1 cent)",
     "SELECT count(*) FROM trade JOIN customer_account ON ca_id = t_ca_id JOIN customer ON "
     "c_id = ca_c_id JOIN security ON s_symb = t_s_symb JOIN commission_rate ON cr_c_tier = "
     "c_tier AND cr_tt_id = t_tt_id AND cr_ex_id = s_ex_id AND t_qty BETWEEN cr_from_qty AND "
     "cr_to_qty WHERE abs(t_comm - round(t_qty * t_trade_price * cr_rate / 100, 2)) > 0.01"},
    {"invariant: sells are cash; quantities are 100, 200, 400 or 800",
     "SELECT count(*) FROM trade JOIN trade_type ON tt_id = t_tt_id WHERE (tt_is_sell AND NOT "
     "t_is_cash) OR t_qty NOT IN (100, 200, 400, 800)"},
    {"invariant: non-taxable accounts pay no tax",
     "SELECT count(*) FROM trade JOIN customer_account ON ca_id = t_ca_id WHERE ca_tax_st = 0 "
     "AND t_tax <> 0"},
    {"clause 1.4.5.1: the lots of one account and symbol are all long or all short, none zero",
     "SELECT count(*) FROM (SELECT 1 FROM holding GROUP BY h_ca_id, h_s_symb HAVING min(h_qty) "
     "< 0 AND max(h_qty) > 0 OR bool_or(h_qty = 0)) x"},
    {"invariant: a lot belongs to a completed trade of the same account and symbol, at its price",
     "SELECT count(*) FROM holding LEFT JOIN trade ON t_id = h_t_id WHERE t_id IS NULL OR "
     "t_ca_id <> h_ca_id OR t_s_symb <> h_s_symb OR t_st_id <> 'CMPT' OR h_price <> "
     "t_trade_price"},
    {"invariant: every lot has its creation history row (before 0, after its first quantity)",
     "SELECT count(*) FROM holding WHERE NOT EXISTS (SELECT 1 FROM holding_history WHERE "
     "hh_h_t_id = h_t_id AND hh_t_id = h_t_id AND hh_before_qty = 0 AND hh_after_qty <> 0)"},
    {"invariant: the last history row of a live lot leaves it at H_QTY",
     "SELECT count(*) FROM holding JOIN LATERAL (SELECT hh_after_qty FROM holding_history JOIN "
     "trade ON t_id = hh_t_id WHERE hh_h_t_id = h_t_id ORDER BY t_dts DESC, hh_t_id DESC "
     "LIMIT 1) last ON true WHERE last.hh_after_qty <> h_qty"},
    {"invariant: no HOLDING_SUMMARY row without lots, none with HS_QTY = 0",
     "SELECT count(*) FROM holding_summary WHERE hs_qty = 0 OR NOT EXISTS (SELECT 1 FROM "
     "holding WHERE h_ca_id = hs_ca_id AND h_s_symb = hs_s_symb)"},
    {"invariant: LAST_TRADE prices lie on the curve's range 20.00-30.00",
     "SELECT count(*) FROM last_trade WHERE lt_price NOT BETWEEN 20 AND 30 OR lt_open_price "
     "NOT BETWEEN 20 AND 30"},
    {"invariant: LAST_TRADE volumes are 0 after a load",
     "SELECT count(*) FROM last_trade WHERE "
     "lt_vol <> 0",
     true},
    {"invariant: TRADE_REQUEST is empty after a load", "SELECT count(*) FROM trade_request", true},
    {"2.4.3: every foreign key is validated, so referential integrity is enforced",
     "SELECT count(*) FROM pg_constraint WHERE connamespace = current_schema()::regnamespace "
     "AND NOT convalidated"},
    {"clause 1.4.2.1: 20/60/20 % of customers in tiers 1/2/3 (exactly, per load unit)",
     "SELECT count(*) FROM (SELECT (c_id - 4300000001) / 1000 AS lu, c_tier, count(*) AS n FROM "
     "customer GROUP BY 1, 2) t WHERE n <> CASE c_tier WHEN 2 THEN 600 ELSE 200 END"},
};

Result<int64_t> Count(db::Connection& conn, const std::string& sql) {
  auto rows = conn.Query(sql);
  if (!rows.ok()) return rows.status();
  return std::stoll(rows->values.at(0).at(0).value_or("0"));
}

}  // namespace

Result<std::vector<CheckResult>> RunChecks(db::Connection& conn, const workload::Sizing& sizing) {
  const double customers = static_cast<double>(sizing.customers);
  const double companies = customers / 2;
  const double securities = customers * 685 / 1000;
  const double accounts = customers * 5;
  const double trades = static_cast<double>(sizing.TradesPerLoadUnit()) * customers / 1000;
  const std::vector<CountRule> counts = {
      {"status_type", 5, 0, "fixed"},
      {"trade_type", 5, 0, "fixed"},
      {"exchange", 4, 0, "fixed"},
      {"sector", 12, 0, "fixed"},
      {"industry", 102, 0, "fixed"},
      {"charge", 15, 0, "fixed"},
      {"commission_rate", 240, 0, "fixed"},
      {"taxrate", 320, 0, "fixed"},
      {"zip_code", 14741, 0, "fixed"},
      {"customer", customers, 0, "customers"},
      {"customer_account", accounts, 0, "5 x customers"},
      {"account_permission", accounts * 1.42, 0.03, "~1.42 x accounts"},
      {"customer_taxrate", customers * 2, 0, "2 x customers"},
      {"address", 4 + companies + customers, 0, "4 + companies + customers"},
      {"broker", customers / 100, 0, "customers / 100"},
      {"company", companies, 0, "500 per 1000 customers"},
      {"company_competitor", companies * 3, 0, "3 x companies"},
      {"security", securities, 0, "685 per 1000 customers"},
      {"last_trade", securities, 0, "1 x securities"},
      {"daily_market", securities * 1305, 0, "1305 x securities"},
      {"financial", companies * 20, 0, "20 x companies"},
      {"news_item", companies * 2, 0, "2 x companies"},
      {"news_xref", companies * 2, 0, "2 x companies"},
      {"watch_list", customers, 0, "1 x customers"},
      {"watch_item", customers * 100, 0.05, "~100 x customers"},
      {"trade", trades, 0, "ITD x 8 x 3600 x customers / SF", true},
      {"settlement", trades, 0, "1 x trades", true},
      {"trade_history", trades * 2.4, 0.02, "~2.4 x trades", true},
      {"cash_transaction", trades * 0.92, 0.02, "~0.92 x trades", true},
      {"trade_request", 0, 0, "empty after a load", true},
  };
  const int64_t start_id = workload::TradeCleanupStartId(sizing);
  auto run_trades =
      Count(conn, fmt::format("SELECT count(*) FROM trade WHERE t_id >= {}", start_id));
  if (!run_trades.ok()) return run_trades.status();
  const bool has_run = *run_trades > 0;
  auto skipped = [&](std::string name) {
    return CheckResult{std::move(name), true, true,
                       fmt::format("skipped: {} run-time trades since the load", *run_trades)};
  };

  std::vector<CheckResult> results;
  for (const auto& rule : counts) {
    std::string want = rule.tolerance == 0
                           ? fmt::format("{:.0f}", rule.expected)
                           : fmt::format("{:.0f} ±{:.0f}%", rule.expected, rule.tolerance * 100);
    std::string name = fmt::format("rows: {} = {} ({})", rule.table, want, rule.basis);
    if (rule.load_only && has_run) {
      results.push_back(skipped(std::move(name)));
      continue;
    }
    auto n = Count(conn, fmt::format("SELECT count(*) FROM {}", rule.table));
    if (!n.ok()) return n.status();
    double diff = std::abs(static_cast<double>(*n) - rule.expected);
    bool passed = rule.tolerance == 0 ? diff < 0.5 : diff <= rule.expected * rule.tolerance;
    results.push_back(CheckResult{std::move(name), passed, false, fmt::format("{} rows", *n)});
  }
  // EGen's HOLDING* ratios hold for ITD 300 only; below that, check they exist.
  for (const char* table : {"holding", "holding_history", "holding_summary"}) {
    auto n = Count(conn, fmt::format("SELECT count(*) FROM {}", table));
    if (!n.ok()) return n.status();
    results.push_back(
        CheckResult{fmt::format("rows: {} > 0", table), *n > 0, false, fmt::format("{} rows", *n)});
  }
  {
    // The next id the sequence hands out, read without consuming one.
    auto n = Count(conn,
                   "SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END "
                   "FROM seq_trade_id");
    if (!n.ok()) return n.status();
    auto max_id = Count(conn, "SELECT coalesce(max(t_id), 0) FROM trade");
    if (!max_id.ok()) return max_id.status();
    results.push_back(CheckResult{
        "trade ids: the trade-id sequence hands out ids past every trade, from the Trade-Cleanup "
        "start id on",
        *n >= start_id && *n > *max_id, false,
        fmt::format("next id {}, start id {}, largest id {}", *n, start_id, *max_id)});
  }
  {
    auto n = Count(conn, fmt::format("SELECT count(*) FROM trade WHERE t_id < {} AND (t_id - "
                                     "{}) % 101 = 51",
                                     start_id, workload::kTradeIdShift));
    if (!n.ok()) return n.status();
    results.push_back(CheckResult{
        "trade ids: no load trade id is one an aborted order consumed (ordinal = 51 mod 101)",
        *n == 0, false, *n == 0 ? "holds" : fmt::format("{} rows break it", *n)});
  }
  for (const auto& rule : kViolationRules) {
    if (rule.load_only && has_run) {
      results.push_back(skipped(rule.name));
      continue;
    }
    auto n = Count(conn, rule.sql);
    if (!n.ok()) return n.status().WithContext(rule.name);
    results.push_back(CheckResult{rule.name, *n == 0, false,
                                  *n == 0 ? "holds" : fmt::format("{} rows break it", *n)});
  }
  return results;
}

}  // namespace bb::loader
