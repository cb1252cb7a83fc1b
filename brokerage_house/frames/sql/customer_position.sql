-- Customer-Position (clause 3.3.2), server-side: frames 1, 2 and 3 as one
-- function, the same statements as the client-side frames in frames/customer_position.cpp (see
-- there for the why: the tax-id tie-break, our reading of the spec's join, the history order).
-- Read-only; the caller runs it READ COMMITTED (L1, clause 7.4.1.3).
--
-- Frame 2 reads the account at p_acct_id_idx (0-based, as on the wire) of frame 1's list, here
-- rather than in the caller. Lists come back as parallel arrays in the order of the frames'
-- ORDER BY: array_agg keeps the order of the sorted subquery it reads. An unknown customer
-- leaves every customer column NULL, as the client-side frame leaves its outputs empty.
CREATE OR REPLACE FUNCTION bb_customer_position(
    p_cust_id bigint, p_tax_id varchar, p_get_history boolean, p_acct_id_idx integer,
    OUT status integer,
    OUT cust_id bigint, OUT cust_st_id text, OUT cust_l_name text, OUT cust_f_name text,
    OUT cust_m_name text, OUT cust_gndr text, OUT cust_tier integer, OUT cust_dob date,
    OUT cust_ad_id bigint,
    OUT cust_ctry_1 text, OUT cust_area_1 text, OUT cust_local_1 text, OUT cust_ext_1 text,
    OUT cust_ctry_2 text, OUT cust_area_2 text, OUT cust_local_2 text, OUT cust_ext_2 text,
    OUT cust_ctry_3 text, OUT cust_area_3 text, OUT cust_local_3 text, OUT cust_ext_3 text,
    OUT cust_email_1 text, OUT cust_email_2 text,
    OUT acct_ids bigint[], OUT cash_bals numeric[], OUT asset_totals numeric[],
    OUT hist_trade_ids bigint[], OUT hist_symbols text[], OUT hist_qtys integer[],
    OUT hist_statuses text[], OUT hist_dtss timestamp[])
LANGUAGE plpgsql STABLE
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
DECLARE
  v_acct_len integer;
  v_hist_len integer;
  v_acct_id bigint;
BEGIN
  -- Frame 1: the customer, by C_ID or else by C_TAX_ID.
  IF p_cust_id <> 0 THEN
    SELECT c_id, c_st_id, c_l_name, c_f_name, c_m_name, c_gndr, c_tier, c_dob, c_ad_id,
           c_ctry_1, c_area_1, c_local_1, c_ext_1, c_ctry_2, c_area_2, c_local_2, c_ext_2,
           c_ctry_3, c_area_3, c_local_3, c_ext_3, c_email_1, c_email_2
      INTO cust_id, cust_st_id, cust_l_name, cust_f_name, cust_m_name, cust_gndr, cust_tier,
           cust_dob, cust_ad_id,
           cust_ctry_1, cust_area_1, cust_local_1, cust_ext_1,
           cust_ctry_2, cust_area_2, cust_local_2, cust_ext_2,
           cust_ctry_3, cust_area_3, cust_local_3, cust_ext_3, cust_email_1, cust_email_2
      FROM customer WHERE c_id = p_cust_id;
  ELSE
    SELECT c_id, c_st_id, c_l_name, c_f_name, c_m_name, c_gndr, c_tier, c_dob, c_ad_id,
           c_ctry_1, c_area_1, c_local_1, c_ext_1, c_ctry_2, c_area_2, c_local_2, c_ext_2,
           c_ctry_3, c_area_3, c_local_3, c_ext_3, c_email_1, c_email_2
      INTO cust_id, cust_st_id, cust_l_name, cust_f_name, cust_m_name, cust_gndr, cust_tier,
           cust_dob, cust_ad_id,
           cust_ctry_1, cust_area_1, cust_local_1, cust_ext_1,
           cust_ctry_2, cust_area_2, cust_local_2, cust_ext_2,
           cust_ctry_3, cust_area_3, cust_local_3, cust_ext_3, cust_email_1, cust_email_2
      FROM customer WHERE c_tax_id = p_tax_id ORDER BY c_id LIMIT 1;
  END IF;
  -- Frame 1: the accounts with their cash and assets.
  IF FOUND THEN
    SELECT array_agg(a.ca_id), array_agg(a.ca_bal), array_agg(a.assets)
      INTO acct_ids, cash_bals, asset_totals
      FROM (SELECT ca_id, ca_bal, coalesce(sum(hs_qty * lt_price), 0) AS assets
              FROM customer_account
              LEFT JOIN holding_summary ON hs_ca_id = ca_id
              LEFT JOIN last_trade ON lt_s_symb = hs_s_symb
             WHERE ca_c_id = cust_id
             GROUP BY ca_id, ca_bal
             ORDER BY assets, ca_id
             LIMIT 10) AS a;
  END IF;
  -- Harness check: acct_len < 1 or > max_acct_len (10) is invalid; an unknown customer has no
  -- accounts and ends here too.
  v_acct_len := coalesce(cardinality(acct_ids), 0);
  IF v_acct_len < 1 OR v_acct_len > 10 THEN
    status := -211;
    RETURN;
  END IF;
  status := 0;
  IF NOT p_get_history THEN
    RETURN;  -- frame 3
  END IF;
  -- Frame 2. An index outside the account list names no account: no history, which the
  -- harness check below rejects as it would hist_len 0.
  IF p_acct_id_idx >= 0 AND p_acct_id_idx < v_acct_len THEN
    v_acct_id := acct_ids[p_acct_id_idx + 1];
    SELECT array_agg(h.t_id), array_agg(h.t_s_symb), array_agg(h.t_qty), array_agg(h.st_name),
           array_agg(h.th_dts)
      INTO hist_trade_ids, hist_symbols, hist_qtys, hist_statuses, hist_dtss
      FROM (SELECT t.t_id, t.t_s_symb, t.t_qty, st_name, th_dts
              FROM (SELECT t_id, t_s_symb, t_qty FROM trade
                     WHERE t_ca_id = v_acct_id
                     ORDER BY t_dts DESC, t_id DESC LIMIT 10) AS t
              JOIN trade_history ON th_t_id = t.t_id
              JOIN status_type ON st_id = th_st_id
             ORDER BY th_dts DESC, t.t_id DESC, th_st_id
             LIMIT 30) AS h;
  END IF;
  -- Harness check: hist_len < 10 or > max_hist_len (30) is invalid.
  v_hist_len := coalesce(cardinality(hist_trade_ids), 0);
  IF v_hist_len < 10 OR v_hist_len > 30 THEN
    status := -221;
  END IF;
END $$;
