// The schema against the spec (clause 2.2): every table's columns with their types and NOT
// NULL, the primary keys, foreign keys and secondary indexes, and CHECK constraints proved by
// behaviour: a row that breaks one is refused, the same row with a valid value is accepted.
// Removing or loosening any constraint in loader/sql/ makes a test here fail.
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/db/connection.h"
#include "loader/schema.h"
#include "tests/support/test_cluster.h"

namespace bb {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// Columns as "name type [NN]" in table order, from the table definitions of clause 2.2 with the
// type mapping of clauses 2.2.1-2.2.2 (CHAR(n) -> varchar(n), IDENT_T/TRADE_T -> bigint, S_PRICE_T
// -> numeric(8,2), VALUE_T -> numeric(10,2), BALANCE_T -> numeric(12,2), FIN_AGG_T ->
// numeric(15,2), S_QTY_T -> integer, S_COUNT_T -> bigint, NUM(1) -> smallint).
const std::map<std::string, std::string> kColumns = {
    {"account_permission",
     "ap_ca_id bigint NN, ap_acl varchar(4) NN, ap_tax_id varchar(20) NN, ap_l_name varchar(25) "
     "NN, ap_f_name varchar(20) NN"},
    {"address",
     "ad_id bigint NN, ad_line1 varchar(80), ad_line2 varchar(80), ad_zc_code varchar(12) NN, "
     "ad_ctry varchar(80)"},
    {"broker",
     "b_id bigint NN, b_st_id varchar(4) NN, b_name varchar(49) NN, b_num_trades integer NN, "
     "b_comm_total numeric(12,2) NN"},
    {"cash_transaction",
     "ct_t_id bigint NN, ct_dts timestamp NN, ct_amt numeric(10,2) NN, ct_name varchar(100)"},
    {"charge", "ch_tt_id varchar(3) NN, ch_c_tier smallint NN, ch_chrg numeric(10,2) NN"},
    {"commission_rate",
     "cr_c_tier smallint NN, cr_tt_id varchar(3) NN, cr_ex_id varchar(6) NN, cr_from_qty integer "
     "NN, cr_to_qty integer NN, cr_rate numeric(5,2) NN"},
    {"company",
     "co_id bigint NN, co_st_id varchar(4) NN, co_name varchar(60) NN, co_in_id varchar(2) NN, "
     "co_sp_rate varchar(4) NN, co_ceo varchar(46) NN, co_ad_id bigint NN, co_desc varchar(150) "
     "NN, co_open_date date NN"},
    {"company_competitor", "cp_co_id bigint NN, cp_comp_co_id bigint NN, cp_in_id varchar(2) NN"},
    {"customer",
     "c_id bigint NN, c_tax_id varchar(20) NN, c_st_id varchar(4) NN, c_l_name varchar(25) NN, "
     "c_f_name varchar(20) NN, c_m_name varchar(1), c_gndr varchar(1), c_tier smallint NN, c_dob "
     "date NN, c_ad_id bigint NN, c_ctry_1 varchar(3), c_area_1 varchar(3), c_local_1 varchar(10), "
     "c_ext_1 varchar(5), c_ctry_2 varchar(3), c_area_2 varchar(3), c_local_2 varchar(10), c_ext_2 "
     "varchar(5), c_ctry_3 varchar(3), c_area_3 varchar(3), c_local_3 varchar(10), c_ext_3 "
     "varchar(5), c_email_1 varchar(50), c_email_2 varchar(50)"},
    {"customer_account",
     "ca_id bigint NN, ca_b_id bigint NN, ca_c_id bigint NN, ca_name varchar(50), ca_tax_st "
     "smallint NN, ca_bal numeric(12,2) NN"},
    {"customer_taxrate", "cx_tx_id varchar(4) NN, cx_c_id bigint NN"},
    {"daily_market",
     "dm_date date NN, dm_s_symb varchar(15) NN, dm_close numeric(8,2) NN, dm_high numeric(8,2) "
     "NN, dm_low numeric(8,2) NN, dm_vol bigint NN"},
    {"exchange",
     "ex_id varchar(6) NN, ex_name varchar(100) NN, ex_num_symb integer NN, ex_open smallint NN, "
     "ex_close smallint NN, ex_desc varchar(150), ex_ad_id bigint NN"},
    {"financial",
     "fi_co_id bigint NN, fi_year smallint NN, fi_qtr smallint NN, fi_qtr_start_date date NN, "
     "fi_revenue numeric(15,2) NN, fi_net_earn numeric(15,2) NN, fi_basic_eps numeric(10,2) NN, "
     "fi_dilut_eps numeric(10,2) NN, fi_margin numeric(10,2) NN, fi_inventory numeric(15,2) NN, "
     "fi_assets numeric(15,2) NN, fi_liability numeric(15,2) NN, fi_out_basic bigint NN, "
     "fi_out_dilut bigint NN"},
    {"holding",
     "h_t_id bigint NN, h_ca_id bigint NN, h_s_symb varchar(15) NN, h_dts timestamp NN, h_price "
     "numeric(8,2) NN, h_qty integer NN"},
    {"holding_history",
     "hh_h_t_id bigint NN, hh_t_id bigint NN, hh_before_qty integer NN, hh_after_qty integer NN"},
    {"holding_summary", "hs_ca_id bigint NN, hs_s_symb varchar(15) NN, hs_qty integer NN"},
    {"industry", "in_id varchar(2) NN, in_name varchar(50) NN, in_sc_id varchar(2) NN"},
    {"last_trade",
     "lt_s_symb varchar(15) NN, lt_dts timestamp NN, lt_price numeric(8,2) NN, lt_open_price "
     "numeric(8,2) NN, lt_vol bigint NN"},
    {"news_item",
     "ni_id bigint NN, ni_headline varchar(80) NN, ni_summary varchar(255) NN, ni_item bytea NN, "
     "ni_dts timestamp NN, ni_source varchar(30) NN, ni_author varchar(30)"},
    {"news_xref", "nx_ni_id bigint NN, nx_co_id bigint NN"},
    {"sector", "sc_id varchar(2) NN, sc_name varchar(30) NN"},
    {"security",
     "s_symb varchar(15) NN, s_issue varchar(6) NN, s_st_id varchar(4) NN, s_name varchar(70) NN, "
     "s_ex_id varchar(6) NN, s_co_id bigint NN, s_num_out bigint NN, s_start_date date NN, "
     "s_exch_date date NN, s_pe numeric(10,2) NN, s_52wk_high numeric(8,2) NN, s_52wk_high_date "
     "date NN, s_52wk_low numeric(8,2) NN, s_52wk_low_date date NN, s_dividend numeric(10,2) NN, "
     "s_yield numeric(5,2) NN"},
    {"settlement",
     "se_t_id bigint NN, se_cash_type varchar(40) NN, se_cash_due_date date NN, se_amt "
     "numeric(10,2) NN"},
    {"status_type", "st_id varchar(4) NN, st_name varchar(10) NN"},
    {"taxrate", "tx_id varchar(4) NN, tx_name varchar(50) NN, tx_rate numeric(6,5) NN"},
    {"trade",
     "t_id bigint NN, t_dts timestamp NN, t_st_id varchar(4) NN, t_tt_id varchar(3) NN, t_is_cash "
     "boolean NN, t_s_symb varchar(15) NN, t_qty integer NN, t_bid_price numeric(8,2) NN, t_ca_id "
     "bigint NN, t_exec_name varchar(49) NN, t_trade_price numeric(8,2), t_chrg numeric(10,2) NN, "
     "t_comm numeric(10,2) NN, t_tax numeric(10,2) NN, t_lifo boolean NN"},
    {"trade_history", "th_t_id bigint NN, th_dts timestamp NN, th_st_id varchar(4) NN"},
    {"trade_request",
     "tr_t_id bigint NN, tr_tt_id varchar(3) NN, tr_s_symb varchar(15) NN, tr_qty integer NN, "
     "tr_bid_price numeric(8,2) NN, tr_b_id bigint NN"},
    {"trade_type",
     "tt_id varchar(3) NN, tt_name varchar(12) NN, tt_is_sell boolean NN, tt_is_mrkt boolean NN"},
    {"watch_item", "wi_wl_id bigint NN, wi_s_symb varchar(15) NN"},
    {"watch_list", "wl_id bigint NN, wl_c_id bigint NN"},
    {"zip_code", "zc_code varchar(12) NN, zc_town varchar(80) NN, zc_div varchar(80) NN"},
};

// Primary keys (clause 2.2).
const std::map<std::string, std::string> kPrimaryKeys = {
    {"account_permission", "ap_ca_id, ap_tax_id"},
    {"address", "ad_id"},
    {"broker", "b_id"},
    {"cash_transaction", "ct_t_id"},
    {"charge", "ch_tt_id, ch_c_tier"},
    {"commission_rate", "cr_c_tier, cr_tt_id, cr_ex_id, cr_from_qty"},
    {"company", "co_id"},
    {"company_competitor", "cp_co_id, cp_comp_co_id, cp_in_id"},
    {"customer", "c_id"},
    {"customer_account", "ca_id"},
    {"customer_taxrate", "cx_c_id, cx_tx_id"},
    {"daily_market", "dm_s_symb, dm_date"},
    {"exchange", "ex_id"},
    {"financial", "fi_co_id, fi_year, fi_qtr"},
    {"holding", "h_t_id"},
    {"holding_history", "hh_h_t_id, hh_t_id"},
    {"holding_summary", "hs_ca_id, hs_s_symb"},
    {"industry", "in_id"},
    {"last_trade", "lt_s_symb"},
    {"news_item", "ni_id"},
    {"news_xref", "nx_co_id, nx_ni_id"},
    {"sector", "sc_id"},
    {"security", "s_symb"},
    {"settlement", "se_t_id"},
    {"status_type", "st_id"},
    {"taxrate", "tx_id"},
    {"trade", "t_id"},
    {"trade_history", "th_t_id, th_st_id"},
    {"trade_request", "tr_t_id"},
    {"trade_type", "tt_id"},
    {"watch_item", "wi_wl_id, wi_s_symb"},
    {"watch_list", "wl_id"},
    {"zip_code", "zc_code"},
};

// Foreign keys as "table(columns) -> referenced table(columns)" (clause 2.2).
const std::set<std::string> kForeignKeys = {
    "account_permission(ap_ca_id) -> customer_account(ca_id)",
    "address(ad_zc_code) -> zip_code(zc_code)",
    "broker(b_st_id) -> status_type(st_id)",
    "cash_transaction(ct_t_id) -> trade(t_id)",
    "charge(ch_tt_id) -> trade_type(tt_id)",
    "commission_rate(cr_ex_id) -> exchange(ex_id)",
    "commission_rate(cr_tt_id) -> trade_type(tt_id)",
    "company(co_ad_id) -> address(ad_id)",
    "company(co_in_id) -> industry(in_id)",
    "company(co_st_id) -> status_type(st_id)",
    "company_competitor(cp_co_id) -> company(co_id)",
    "company_competitor(cp_comp_co_id) -> company(co_id)",
    "company_competitor(cp_in_id) -> industry(in_id)",
    "customer(c_ad_id) -> address(ad_id)",
    "customer(c_st_id) -> status_type(st_id)",
    "customer_account(ca_b_id) -> broker(b_id)",
    "customer_account(ca_c_id) -> customer(c_id)",
    "customer_taxrate(cx_c_id) -> customer(c_id)",
    "customer_taxrate(cx_tx_id) -> taxrate(tx_id)",
    "daily_market(dm_s_symb) -> security(s_symb)",
    "exchange(ex_ad_id) -> address(ad_id)",
    "financial(fi_co_id) -> company(co_id)",
    "holding(h_ca_id, h_s_symb) -> holding_summary(hs_ca_id, hs_s_symb)",
    "holding(h_t_id) -> trade(t_id)",
    "holding_history(hh_h_t_id) -> trade(t_id)",
    "holding_history(hh_t_id) -> trade(t_id)",
    "holding_summary(hs_ca_id) -> customer_account(ca_id)",
    "holding_summary(hs_s_symb) -> security(s_symb)",
    "industry(in_sc_id) -> sector(sc_id)",
    "last_trade(lt_s_symb) -> security(s_symb)",
    "news_xref(nx_co_id) -> company(co_id)",
    "news_xref(nx_ni_id) -> news_item(ni_id)",
    "security(s_co_id) -> company(co_id)",
    "security(s_ex_id) -> exchange(ex_id)",
    "security(s_st_id) -> status_type(st_id)",
    "settlement(se_t_id) -> trade(t_id)",
    "trade(t_ca_id) -> customer_account(ca_id)",
    "trade(t_s_symb) -> security(s_symb)",
    "trade(t_st_id) -> status_type(st_id)",
    "trade(t_tt_id) -> trade_type(tt_id)",
    "trade_history(th_st_id) -> status_type(st_id)",
    "trade_history(th_t_id) -> trade(t_id)",
    "trade_request(tr_b_id) -> broker(b_id)",
    "trade_request(tr_s_symb) -> security(s_symb)",
    "trade_request(tr_t_id) -> trade(t_id)",
    "trade_request(tr_tt_id) -> trade_type(tt_id)",
    "watch_item(wi_s_symb) -> security(s_symb)",
    "watch_item(wi_wl_id) -> watch_list(wl_id)",
    "watch_list(wl_c_id) -> customer(c_id)",
};

// Secondary indexes as "table(columns)": those the frames need. The frames' lookups of
// customer_taxrate by customer, daily_market by symbol and news_xref by company are served by
// those tables' primary keys, which list that column first (kPrimaryKeys).
const std::set<std::string> kIndexes = {
    "company(co_name)",
    "customer(c_tax_id)",
    "customer_account(ca_c_id)",
    "holding(h_ca_id, h_s_symb, h_dts)",
    "holding_history(hh_t_id)",
    "security(s_co_id, s_issue)",
    "trade(t_ca_id, t_dts)",
    "trade(t_s_symb, t_dts)",
    "trade_request(tr_s_symb)",
    "watch_list(wl_c_id)",
    // Ours, beyond the frames' own list (loader/sql/3-indexes.sql says what each fixed):
    "broker(b_name)",
    "company(co_in_id)",  // Broker-Volume and Market-Watch by industry
    "trade(t_id)",        // hash: Trade-Result's lookup under SERIALIZABLE
    "trade_request(tr_b_id)",
};

// One CHECK constraint of the spec's, proved by behaviour: a row with `valid` values is
// accepted, the same row with `column` = `bad` is refused.
struct CheckCase {
  std::string table;
  std::map<std::string, std::string> valid;  // overrides of the per-type defaults
  std::string column;
  std::string bad;
};

void PrintTo(const CheckCase& c, std::ostream* os) {
  *os << c.table << "." << c.column << " = " << c.bad;
}

const std::vector<CheckCase> kCheckCases = {
    {"taxrate", {}, "tx_rate", "-0.00001"},
    {"customer", {}, "c_tier", "0"},
    {"customer", {}, "c_tier", "4"},
    {"customer_account", {{"ca_tax_st", "2"}}, "ca_tax_st", "3"},
    {"holding", {}, "h_price", "0"},
    {"charge", {}, "ch_c_tier", "4"},
    {"charge", {{"ch_chrg", "0"}}, "ch_chrg", "-0.01"},
    {"commission_rate", {{"cr_from_qty", "0"}, {"cr_to_qty", "200"}}, "cr_c_tier", "0"},
    {"commission_rate", {{"cr_from_qty", "0"}, {"cr_to_qty", "200"}}, "cr_from_qty", "-1"},
    {"commission_rate", {{"cr_from_qty", "201"}, {"cr_to_qty", "202"}}, "cr_to_qty", "201"},
    {"commission_rate",
     {{"cr_from_qty", "0"}, {"cr_to_qty", "200"}, {"cr_rate", "0"}},
     "cr_rate",
     "-0.01"},
    {"trade", {}, "t_qty", "0"},
    {"trade", {}, "t_bid_price", "0"},
    {"trade", {{"t_chrg", "0"}}, "t_chrg", "-0.01"},
    {"trade", {{"t_comm", "0"}}, "t_comm", "-0.01"},
    {"trade", {{"t_tax", "0"}}, "t_tax", "-0.01"},
    {"trade_request", {}, "tr_qty", "0"},
    {"trade_request", {}, "tr_bid_price", "-1"},
    {"financial", {{"fi_qtr", "4"}}, "fi_qtr", "5"},
};

std::unique_ptr<db::Connection> Connect(const std::string& conninfo) {
  auto conn = db::Connection::Open(conninfo);
  EXPECT_TRUE(conn.ok()) << conn.status().message();
  return conn.ok() ? std::move(conn).value() : nullptr;
}

std::string Text(const std::optional<std::string>& value) { return value.value_or("NULL"); }

// Column -> type for a table, e.g. "t_qty" -> "integer".
std::map<std::string, std::string> ColumnTypes(db::Connection& conn, const std::string& table) {
  auto rows =
      conn.Query(fmt::format("SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute "
                             "WHERE attrelid = '{}'::regclass AND attnum > 0 AND NOT attisdropped",
                             table));
  EXPECT_TRUE(rows.ok()) << rows.status().message();
  std::map<std::string, std::string> types;
  if (rows.ok()) {
    for (const auto& r : rows->values) types[Text(r[0])] = Text(r[1]);
  }
  return types;
}

// A literal that fits a column of this type and meets every check of the spec.
std::string DefaultLiteral(const std::string& type) {
  if (type == "boolean") return "true";
  if (type == "date") return "'2005-01-03'";
  if (type.starts_with("timestamp")) return "'2005-01-03 09:00:00'";
  if (type == "bytea") return "'\\x00'";
  if (type.starts_with("character varying")) return "'A'";
  return "1";  // numbers: 1 satisfies every tier, quarter and positivity check
}

std::string InsertStatement(db::Connection& conn, const std::string& table,
                            const std::map<std::string, std::string>& values) {
  std::string names, literals;
  for (const auto& [column, type] : ColumnTypes(conn, table)) {
    auto it = values.find(column);
    names += (names.empty() ? "" : ", ") + column;
    literals +=
        (literals.empty() ? "" : ", ") + (it != values.end() ? it->second : DefaultLiteral(type));
  }
  return fmt::format("INSERT INTO {} ({}) VALUES ({})", table, names, literals);
}

// A database with every phase of the schema applied.
class SchemaTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto conninfo = testing::CreateDatabase("schema");
    ASSERT_TRUE(conninfo.ok()) << conninfo.status().message();
    conninfo_ = *conninfo;
    auto conn = Connect(conninfo_);
    ASSERT_NE(conn, nullptr);
    for (auto phase : loader::kSchemaPhases) {
      Status s = loader::ApplySchemaPhase(*conn, phase);
      ASSERT_TRUE(s.ok()) << s.message();
    }
  }

  void SetUp() override {
    conn_ = Connect(conninfo_);
    ASSERT_NE(conn_, nullptr);
  }

  std::vector<std::vector<std::optional<std::string>>> Query(const std::string& sql) {
    auto rows = conn_->Query(sql);
    EXPECT_TRUE(rows.ok()) << rows.status().message();
    return rows.ok() ? rows->values : decltype(rows->values){};
  }

  static inline std::string conninfo_;
  std::unique_ptr<db::Connection> conn_;
};

TEST_F(SchemaTest, EveryTableHasTheColumnsOfTheReference) {
  std::map<std::string, std::string> actual;
  for (const auto& r : Query(R"(
      SELECT c.relname, string_agg(a.attname || ' ' ||
               replace(replace(format_type(a.atttypid, a.atttypmod), 'character varying',
                               'varchar'), 'timestamp without time zone', 'timestamp') ||
               CASE WHEN a.attnotnull THEN ' NN' ELSE '' END, ', ' ORDER BY a.attnum)
      FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0
      WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r'
      GROUP BY c.relname)")) {
    actual[Text(r[0])] = Text(r[1]);
  }
  EXPECT_EQ(actual.size(), 33u);
  for (const auto& [table, columns] : kColumns) {
    EXPECT_EQ(actual[table], columns) << "table " << table;
  }
  EXPECT_EQ(actual.size(), kColumns.size());
}

TEST_F(SchemaTest, PrimaryKeysAreThoseOfTheReference) {
  std::map<std::string, std::string> actual;
  for (const auto& r : Query(R"(
      SELECT c.relname, string_agg(a.attname, ', ' ORDER BY k.ord)
      FROM pg_constraint p JOIN pg_class c ON c.oid = p.conrelid
      CROSS JOIN LATERAL unnest(p.conkey) WITH ORDINALITY AS k(attnum, ord)
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
      WHERE p.contype = 'p' AND c.relnamespace = 'public'::regnamespace
      GROUP BY c.relname)")) {
    actual[Text(r[0])] = Text(r[1]);
  }
  EXPECT_EQ(actual, kPrimaryKeys);
}

TEST_F(SchemaTest, ForeignKeysAreThoseOfTheReference) {
  std::set<std::string> actual;
  for (const auto& r : Query(R"(
      SELECT c.relname || '(' ||
               (SELECT string_agg(a.attname, ', ' ORDER BY k.ord)
                FROM unnest(p.conkey) WITH ORDINALITY AS k(attnum, ord)
                JOIN pg_attribute a ON a.attrelid = p.conrelid AND a.attnum = k.attnum) ||
             ') -> ' || f.relname || '(' ||
               (SELECT string_agg(a.attname, ', ' ORDER BY k.ord)
                FROM unnest(p.confkey) WITH ORDINALITY AS k(attnum, ord)
                JOIN pg_attribute a ON a.attrelid = p.confrelid AND a.attnum = k.attnum) || ')'
      FROM pg_constraint p JOIN pg_class c ON c.oid = p.conrelid
      JOIN pg_class f ON f.oid = p.confrelid
      WHERE p.contype = 'f' AND c.relnamespace = 'public'::regnamespace)")) {
    actual.insert(Text(r[0]));
  }
  EXPECT_EQ(actual, kForeignKeys);
}

TEST_F(SchemaTest, SecondaryIndexesAreThoseOfTheReference) {
  std::set<std::string> actual;
  for (const auto& r : Query(R"(
      SELECT c.relname || '(' || string_agg(a.attname, ', ' ORDER BY k.ord) || ')'
      FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
      CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
      WHERE NOT i.indisprimary AND c.relnamespace = 'public'::regnamespace
      GROUP BY i.indexrelid, c.relname)")) {
    actual.insert(Text(r[0]));
  }
  EXPECT_EQ(actual, kIndexes);
}

// Columns carried in an index beside its key, for index-only reads (2-primary-keys.sql).
TEST_F(SchemaTest, IncludedColumnsAreMarketWatchs) {
  std::map<std::string, std::string> actual;
  for (const auto& r : Query(R"(
      SELECT ic.relname, string_agg(a.attname, ', ' ORDER BY k.ord)
      FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
      CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
      JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
      WHERE k.ord > i.indnkeyatts AND ic.relnamespace = 'public'::regnamespace
      GROUP BY ic.relname)")) {
    actual[Text(r[0])] = Text(r[1]);
  }
  EXPECT_EQ(actual, (std::map<std::string, std::string>{{"daily_market_pkey", "dm_close"},
                                                        {"security_pkey", "s_num_out"}}));
}

TEST_F(SchemaTest, TradeIdSequenceExists) {
  auto rows = Query(
      "SELECT data_type FROM information_schema.sequences "
      "WHERE sequence_name = 'seq_trade_id'");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(Text(rows[0][0]), "bigint");
}

// Check constraints are tested on tables without foreign keys, so that a refused row can be
// refused for one reason only.
class CheckConstraintTest : public ::testing::TestWithParam<CheckCase> {
 protected:
  static void SetUpTestSuite() {
    auto conninfo = testing::CreateDatabase("checks");
    ASSERT_TRUE(conninfo.ok()) << conninfo.status().message();
    conninfo_ = *conninfo;
    auto conn = Connect(conninfo_);
    ASSERT_NE(conn, nullptr);
    Status s = loader::ApplySchemaPhase(*conn, loader::SchemaPhase::kTables);
    ASSERT_TRUE(s.ok()) << s.message();
  }
  static inline std::string conninfo_;
};

TEST_P(CheckConstraintTest, RefusesTheBadValueAndAcceptsAValidOne) {
  const CheckCase& c = GetParam();
  auto conn = Connect(conninfo_);
  ASSERT_NE(conn, nullptr);
  ASSERT_TRUE(conn->Execute("BEGIN").ok());
  Status good = conn->Execute(InsertStatement(*conn, c.table, c.valid));
  EXPECT_TRUE(good.ok()) << good.message();
  ASSERT_TRUE(conn->Execute("ROLLBACK").ok());

  auto bad_values = c.valid;
  bad_values[c.column] = c.bad;
  Status bad = conn->Execute(InsertStatement(*conn, c.table, bad_values));
  ASSERT_FALSE(bad.ok()) << c.table << "." << c.column << " = " << c.bad << " was accepted";
  EXPECT_THAT(bad.message(), StartsWith("23514:"));
  EXPECT_THAT(bad.message(), HasSubstr(c.table));
}

INSTANTIATE_TEST_SUITE_P(Reference, CheckConstraintTest, ::testing::ValuesIn(kCheckCases),
                         [](const auto& info) {
                           return info.param.table + "_" + info.param.column + "_" +
                                  std::to_string(info.index);
                         });

TEST_F(SchemaTest, HasNoCheckConstraintBeyondThoseTested) {
  std::set<std::string> tested;
  for (const auto& c : kCheckCases) tested.insert(c.table + "." + c.column);
  auto rows = Query(R"(
      SELECT count(*) FROM pg_constraint
      WHERE contype = 'c' AND connamespace = 'public'::regnamespace)");
  ASSERT_EQ(rows.size(), 1u);
  // Each tested column carries exactly one check constraint.
  EXPECT_EQ(std::stoul(Text(rows[0][0])), tested.size());
}

TEST_F(SchemaTest, RefusesARowWhoseForeignKeyPointsNowhere) {
  Status s = conn_->Execute(
      "INSERT INTO industry (in_id, in_name, in_sc_id) VALUES ('XX', 'Nowhere', 'ZZ')");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), StartsWith("23503:"));
  EXPECT_THAT(s.message(), HasSubstr("fk_industry_in_sc_id"));

  ASSERT_TRUE(conn_->Execute("BEGIN").ok());
  EXPECT_TRUE(conn_->Execute("INSERT INTO sector VALUES ('ZZ', 'Test sector')").ok());
  Status good = conn_->Execute(
      "INSERT INTO industry (in_id, in_name, in_sc_id) VALUES ('XX', 'Somewhere', 'ZZ')");
  EXPECT_TRUE(good.ok()) << good.message();
  ASSERT_TRUE(conn_->Execute("ROLLBACK").ok());
}

TEST_F(SchemaTest, RefusesADuplicatePrimaryKey) {
  ASSERT_TRUE(conn_->Execute("BEGIN").ok());
  ASSERT_TRUE(conn_->Execute("INSERT INTO status_type VALUES ('CMPT', 'Completed')").ok());
  Status s = conn_->Execute("INSERT INTO status_type VALUES ('CMPT', 'Again')");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), StartsWith("23505:"));
  ASSERT_TRUE(conn_->Execute("ROLLBACK").ok());
}

TEST_F(SchemaTest, RefusesNullInARequiredColumn) {
  Status s = conn_->Execute("INSERT INTO sector VALUES ('QQ', NULL)");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), StartsWith("23502:"));
  EXPECT_THAT(s.message(), HasSubstr("sc_name"));
}

}  // namespace
}  // namespace bb
