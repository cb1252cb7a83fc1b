-- brokerbench schema, phase 2 of 4: primary keys (clause 2.2). Built after the
-- data is loaded; each statement is independent, so the loader runs them in parallel.
-- A key's columns are a set: three keys put first the column the frames look up by, so that
-- their index serves those reads and no second index on the same columns is built (issue 14):
-- CUSTOMER_TAXRATE by customer (Trade-Order and Trade-Result frame 3), DAILY_MARKET by symbol
-- and date (Market-Watch, Security-Detail, Data-Maintenance), NEWS_XREF by company
-- (Security-Detail, Data-Maintenance). No frame reads them by the other column alone.
-- Two keys carry a column Market-Watch needs (INCLUDE), so that its lookups of each watched
-- symbol's day and shares outstanding read the index alone, the loader having vacuumed these
-- tables (loader/loader.cpp): DAILY_MARKET's DM_CLOSE and SECURITY's S_NUM_OUT.
ALTER TABLE address ADD PRIMARY KEY (ad_id);
ALTER TABLE status_type ADD PRIMARY KEY (st_id);
ALTER TABLE taxrate ADD PRIMARY KEY (tx_id);
ALTER TABLE zip_code ADD PRIMARY KEY (zc_code);
ALTER TABLE account_permission ADD PRIMARY KEY (ap_ca_id, ap_tax_id);
ALTER TABLE customer ADD PRIMARY KEY (c_id);
ALTER TABLE customer_account ADD PRIMARY KEY (ca_id);
ALTER TABLE customer_taxrate ADD PRIMARY KEY (cx_c_id, cx_tx_id);
ALTER TABLE holding ADD PRIMARY KEY (h_t_id);
ALTER TABLE holding_history ADD PRIMARY KEY (hh_h_t_id, hh_t_id);
ALTER TABLE holding_summary ADD PRIMARY KEY (hs_ca_id, hs_s_symb);
ALTER TABLE watch_item ADD PRIMARY KEY (wi_wl_id, wi_s_symb);
ALTER TABLE watch_list ADD PRIMARY KEY (wl_id);
ALTER TABLE broker ADD PRIMARY KEY (b_id);
ALTER TABLE cash_transaction ADD PRIMARY KEY (ct_t_id);
ALTER TABLE charge ADD PRIMARY KEY (ch_tt_id, ch_c_tier);
ALTER TABLE commission_rate ADD PRIMARY KEY (cr_c_tier, cr_tt_id, cr_ex_id, cr_from_qty);
ALTER TABLE settlement ADD PRIMARY KEY (se_t_id);
ALTER TABLE trade ADD PRIMARY KEY (t_id);
ALTER TABLE trade_history ADD PRIMARY KEY (th_t_id, th_st_id);
ALTER TABLE trade_request ADD PRIMARY KEY (tr_t_id);
ALTER TABLE trade_type ADD PRIMARY KEY (tt_id);
ALTER TABLE company ADD PRIMARY KEY (co_id);
ALTER TABLE company_competitor ADD PRIMARY KEY (cp_co_id, cp_comp_co_id, cp_in_id);
ALTER TABLE daily_market ADD PRIMARY KEY (dm_s_symb, dm_date) INCLUDE (dm_close);
ALTER TABLE exchange ADD PRIMARY KEY (ex_id);
ALTER TABLE financial ADD PRIMARY KEY (fi_co_id, fi_year, fi_qtr);
ALTER TABLE industry ADD PRIMARY KEY (in_id);
ALTER TABLE last_trade ADD PRIMARY KEY (lt_s_symb);
ALTER TABLE news_item ADD PRIMARY KEY (ni_id);
ALTER TABLE news_xref ADD PRIMARY KEY (nx_co_id, nx_ni_id);
ALTER TABLE sector ADD PRIMARY KEY (sc_id);
ALTER TABLE security ADD PRIMARY KEY (s_symb) INCLUDE (s_num_out);
