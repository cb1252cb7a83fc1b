-- brokerbench schema, phase 1 of 4: the 33 tables of TPC-E (clause 2.2, spec clauses
-- 2.2.4-2.2.7) with their column types, NOT NULL and CHECK constraints, and the trade-id
-- sequence. Primary keys (phase 2), secondary indexes (phase 3) and foreign keys (phase 4)
-- come after the data is loaded.
--
-- Type mapping (clauses 2.2.1-2.2.2): CHAR(n) -> VARCHAR(n); IDENT_T and TRADE_T -> BIGINT;
-- S_PRICE_T -> NUMERIC(8,2); S_COUNT_T -> BIGINT; S_QTY_T -> INTEGER; BALANCE_T ->
-- NUMERIC(12,2); VALUE_T -> NUMERIC(10,2); FIN_AGG_T -> NUMERIC(15,2); NUM(1) -> SMALLINT;
-- DATETIME -> TIMESTAMP; BLOB -> BYTEA. One statement per ';', no ';' inside a statement.

-- Dimension tables (2.2.7)

CREATE TABLE address (
  ad_id BIGINT NOT NULL,
  ad_line1 VARCHAR(80),
  ad_line2 VARCHAR(80),
  ad_zc_code VARCHAR(12) NOT NULL,
  ad_ctry VARCHAR(80)
);

CREATE TABLE status_type (
  st_id VARCHAR(4) NOT NULL,
  st_name VARCHAR(10) NOT NULL
);

CREATE TABLE taxrate (
  tx_id VARCHAR(4) NOT NULL,
  tx_name VARCHAR(50) NOT NULL,
  tx_rate NUMERIC(6,5) NOT NULL CHECK (tx_rate >= 0)
);

CREATE TABLE zip_code (
  zc_code VARCHAR(12) NOT NULL,
  zc_town VARCHAR(80) NOT NULL,
  zc_div VARCHAR(80) NOT NULL
);

-- Customer tables (2.2.4)

CREATE TABLE account_permission (
  ap_ca_id BIGINT NOT NULL,
  ap_acl VARCHAR(4) NOT NULL,
  ap_tax_id VARCHAR(20) NOT NULL,
  ap_l_name VARCHAR(25) NOT NULL,
  ap_f_name VARCHAR(20) NOT NULL
);

CREATE TABLE customer (
  c_id BIGINT NOT NULL,
  c_tax_id VARCHAR(20) NOT NULL,
  c_st_id VARCHAR(4) NOT NULL,
  c_l_name VARCHAR(25) NOT NULL,
  c_f_name VARCHAR(20) NOT NULL,
  c_m_name VARCHAR(1),
  c_gndr VARCHAR(1),
  c_tier SMALLINT NOT NULL CHECK (c_tier IN (1, 2, 3)),
  c_dob DATE NOT NULL,
  c_ad_id BIGINT NOT NULL,
  c_ctry_1 VARCHAR(3),
  c_area_1 VARCHAR(3),
  c_local_1 VARCHAR(10),
  c_ext_1 VARCHAR(5),
  c_ctry_2 VARCHAR(3),
  c_area_2 VARCHAR(3),
  c_local_2 VARCHAR(10),
  c_ext_2 VARCHAR(5),
  c_ctry_3 VARCHAR(3),
  c_area_3 VARCHAR(3),
  c_local_3 VARCHAR(10),
  c_ext_3 VARCHAR(5),
  c_email_1 VARCHAR(50),
  c_email_2 VARCHAR(50)
);

CREATE TABLE customer_account (
  ca_id BIGINT NOT NULL,
  ca_b_id BIGINT NOT NULL,
  ca_c_id BIGINT NOT NULL,
  ca_name VARCHAR(50),
  ca_tax_st SMALLINT NOT NULL CHECK (ca_tax_st IN (0, 1, 2)),
  ca_bal NUMERIC(12,2) NOT NULL
);

CREATE TABLE customer_taxrate (
  cx_tx_id VARCHAR(4) NOT NULL,
  cx_c_id BIGINT NOT NULL
);

CREATE TABLE holding (
  h_t_id BIGINT NOT NULL,
  h_ca_id BIGINT NOT NULL,
  h_s_symb VARCHAR(15) NOT NULL,
  h_dts TIMESTAMP NOT NULL,
  h_price NUMERIC(8,2) NOT NULL CHECK (h_price > 0),
  h_qty INTEGER NOT NULL
);

CREATE TABLE holding_history (
  hh_h_t_id BIGINT NOT NULL,
  hh_t_id BIGINT NOT NULL,
  hh_before_qty INTEGER NOT NULL,
  hh_after_qty INTEGER NOT NULL
);

CREATE TABLE holding_summary (
  hs_ca_id BIGINT NOT NULL,
  hs_s_symb VARCHAR(15) NOT NULL,
  hs_qty INTEGER NOT NULL
);

CREATE TABLE watch_item (
  wi_wl_id BIGINT NOT NULL,
  wi_s_symb VARCHAR(15) NOT NULL
);

CREATE TABLE watch_list (
  wl_id BIGINT NOT NULL,
  wl_c_id BIGINT NOT NULL
);

-- Broker tables (2.2.5)

CREATE TABLE broker (
  b_id BIGINT NOT NULL,
  b_st_id VARCHAR(4) NOT NULL,
  b_name VARCHAR(49) NOT NULL,
  b_num_trades INTEGER NOT NULL,
  b_comm_total NUMERIC(12,2) NOT NULL
);

CREATE TABLE cash_transaction (
  ct_t_id BIGINT NOT NULL,
  ct_dts TIMESTAMP NOT NULL,
  ct_amt NUMERIC(10,2) NOT NULL,
  ct_name VARCHAR(100)
);

CREATE TABLE charge (
  ch_tt_id VARCHAR(3) NOT NULL,
  ch_c_tier SMALLINT NOT NULL CHECK (ch_c_tier IN (1, 2, 3)),
  ch_chrg NUMERIC(10,2) NOT NULL CHECK (ch_chrg >= 0)
);

CREATE TABLE commission_rate (
  cr_c_tier SMALLINT NOT NULL CHECK (cr_c_tier IN (1, 2, 3)),
  cr_tt_id VARCHAR(3) NOT NULL,
  cr_ex_id VARCHAR(6) NOT NULL,
  cr_from_qty INTEGER NOT NULL CHECK (cr_from_qty >= 0),
  cr_to_qty INTEGER NOT NULL CHECK (cr_to_qty > cr_from_qty),
  cr_rate NUMERIC(5,2) NOT NULL CHECK (cr_rate >= 0)
);

CREATE TABLE settlement (
  se_t_id BIGINT NOT NULL,
  se_cash_type VARCHAR(40) NOT NULL,
  se_cash_due_date DATE NOT NULL,
  se_amt NUMERIC(10,2) NOT NULL
);

CREATE TABLE trade (
  t_id BIGINT NOT NULL,
  t_dts TIMESTAMP NOT NULL,
  t_st_id VARCHAR(4) NOT NULL,
  t_tt_id VARCHAR(3) NOT NULL,
  t_is_cash BOOLEAN NOT NULL,
  t_s_symb VARCHAR(15) NOT NULL,
  t_qty INTEGER NOT NULL CHECK (t_qty > 0),
  t_bid_price NUMERIC(8,2) NOT NULL CHECK (t_bid_price > 0),
  t_ca_id BIGINT NOT NULL,
  t_exec_name VARCHAR(49) NOT NULL,
  t_trade_price NUMERIC(8,2),
  t_chrg NUMERIC(10,2) NOT NULL CHECK (t_chrg >= 0),
  t_comm NUMERIC(10,2) NOT NULL CHECK (t_comm >= 0),
  t_tax NUMERIC(10,2) NOT NULL CHECK (t_tax >= 0),
  t_lifo BOOLEAN NOT NULL
);

CREATE TABLE trade_history (
  th_t_id BIGINT NOT NULL,
  th_dts TIMESTAMP NOT NULL,
  th_st_id VARCHAR(4) NOT NULL
);

CREATE TABLE trade_request (
  tr_t_id BIGINT NOT NULL,
  tr_tt_id VARCHAR(3) NOT NULL,
  tr_s_symb VARCHAR(15) NOT NULL,
  tr_qty INTEGER NOT NULL CHECK (tr_qty > 0),
  tr_bid_price NUMERIC(8,2) NOT NULL CHECK (tr_bid_price > 0),
  tr_b_id BIGINT NOT NULL
);

CREATE TABLE trade_type (
  tt_id VARCHAR(3) NOT NULL,
  tt_name VARCHAR(12) NOT NULL,
  tt_is_sell BOOLEAN NOT NULL,
  tt_is_mrkt BOOLEAN NOT NULL
);

-- Market tables (2.2.6)

CREATE TABLE company (
  co_id BIGINT NOT NULL,
  co_st_id VARCHAR(4) NOT NULL,
  co_name VARCHAR(60) NOT NULL,
  co_in_id VARCHAR(2) NOT NULL,
  co_sp_rate VARCHAR(4) NOT NULL,
  co_ceo VARCHAR(46) NOT NULL,
  co_ad_id BIGINT NOT NULL,
  co_desc VARCHAR(150) NOT NULL,
  co_open_date DATE NOT NULL
);

CREATE TABLE company_competitor (
  cp_co_id BIGINT NOT NULL,
  cp_comp_co_id BIGINT NOT NULL,
  cp_in_id VARCHAR(2) NOT NULL
);

CREATE TABLE daily_market (
  dm_date DATE NOT NULL,
  dm_s_symb VARCHAR(15) NOT NULL,
  dm_close NUMERIC(8,2) NOT NULL,
  dm_high NUMERIC(8,2) NOT NULL,
  dm_low NUMERIC(8,2) NOT NULL,
  dm_vol BIGINT NOT NULL
);

CREATE TABLE exchange (
  ex_id VARCHAR(6) NOT NULL,
  ex_name VARCHAR(100) NOT NULL,
  ex_num_symb INTEGER NOT NULL,
  ex_open SMALLINT NOT NULL,
  ex_close SMALLINT NOT NULL,
  ex_desc VARCHAR(150),
  ex_ad_id BIGINT NOT NULL
);

CREATE TABLE financial (
  fi_co_id BIGINT NOT NULL,
  fi_year SMALLINT NOT NULL,
  fi_qtr SMALLINT NOT NULL CHECK (fi_qtr IN (1, 2, 3, 4)),
  fi_qtr_start_date DATE NOT NULL,
  fi_revenue NUMERIC(15,2) NOT NULL,
  fi_net_earn NUMERIC(15,2) NOT NULL,
  fi_basic_eps NUMERIC(10,2) NOT NULL,
  fi_dilut_eps NUMERIC(10,2) NOT NULL,
  fi_margin NUMERIC(10,2) NOT NULL,
  fi_inventory NUMERIC(15,2) NOT NULL,
  fi_assets NUMERIC(15,2) NOT NULL,
  fi_liability NUMERIC(15,2) NOT NULL,
  fi_out_basic BIGINT NOT NULL,
  fi_out_dilut BIGINT NOT NULL
);

CREATE TABLE industry (
  in_id VARCHAR(2) NOT NULL,
  in_name VARCHAR(50) NOT NULL,
  in_sc_id VARCHAR(2) NOT NULL
);

CREATE TABLE last_trade (
  lt_s_symb VARCHAR(15) NOT NULL,
  lt_dts TIMESTAMP NOT NULL,
  lt_price NUMERIC(8,2) NOT NULL,
  lt_open_price NUMERIC(8,2) NOT NULL,
  lt_vol BIGINT NOT NULL
);

CREATE TABLE news_item (
  ni_id BIGINT NOT NULL,
  ni_headline VARCHAR(80) NOT NULL,
  ni_summary VARCHAR(255) NOT NULL,
  ni_item BYTEA NOT NULL,
  ni_dts TIMESTAMP NOT NULL,
  ni_source VARCHAR(30) NOT NULL,
  ni_author VARCHAR(30)
);

CREATE TABLE news_xref (
  nx_ni_id BIGINT NOT NULL,
  nx_co_id BIGINT NOT NULL
);

CREATE TABLE sector (
  sc_id VARCHAR(2) NOT NULL,
  sc_name VARCHAR(30) NOT NULL
);

CREATE TABLE security (
  s_symb VARCHAR(15) NOT NULL,
  s_issue VARCHAR(6) NOT NULL,
  s_st_id VARCHAR(4) NOT NULL,
  s_name VARCHAR(70) NOT NULL,
  s_ex_id VARCHAR(6) NOT NULL,
  s_co_id BIGINT NOT NULL,
  s_num_out BIGINT NOT NULL,
  s_start_date DATE NOT NULL,
  s_exch_date DATE NOT NULL,
  s_pe NUMERIC(10,2) NOT NULL,
  s_52wk_high NUMERIC(8,2) NOT NULL,
  s_52wk_high_date DATE NOT NULL,
  s_52wk_low NUMERIC(8,2) NOT NULL,
  s_52wk_low_date DATE NOT NULL,
  s_dividend NUMERIC(10,2) NOT NULL,
  s_yield NUMERIC(5,2) NOT NULL
);

-- Run-time trade ids: the loader sets it past the last initial trade id.
CREATE SEQUENCE seq_trade_id AS BIGINT;
