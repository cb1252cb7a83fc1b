-- Market-Watch (clause 3.3.4), server-side: frame 1 as one function, the
-- same three statements as the client-side frame in frames/market_watch.cpp (see there for the
-- why: the symbols without a DAILY_MARKET row, a symbol on two watch lists). Read-only; the
-- caller runs it READ COMMITTED (L1, clause 7.4.1.3).
--
-- The harness check -411 (acct_id, cust_id and industry_name all empty) stays with the caller,
-- which refuses such an input before any database work in both modes.
CREATE OR REPLACE FUNCTION bb_market_watch(
    p_acct_id bigint, p_cust_id bigint, p_industry_name varchar, p_starting_co_id bigint,
    p_ending_co_id bigint, p_start_date date,
    OUT status integer,
    OUT pct_change double precision)
LANGUAGE plpgsql STABLE
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
BEGIN
  status := 0;
  -- Frame 1. The spec's order of precedence when more than one is set: watch list, industry,
  -- account.
  IF p_cust_id <> 0 THEN
    SELECT CASE WHEN old_cap <> 0 THEN (100 * (new_cap / old_cap - 1))::float8 ELSE 0 END
      INTO pct_change
      FROM (SELECT sum(s_num_out * dm_close) AS old_cap, sum(s_num_out * lt_price) AS new_cap
              FROM watch_list
              JOIN watch_item ON wi_wl_id = wl_id
              JOIN security ON s_symb = wi_s_symb
              JOIN last_trade ON lt_s_symb = wi_s_symb
              JOIN daily_market ON dm_s_symb = wi_s_symb AND dm_date = p_start_date
             WHERE wl_c_id = p_cust_id) AS caps;
  ELSIF p_industry_name <> '' THEN
    SELECT CASE WHEN old_cap <> 0 THEN (100 * (new_cap / old_cap - 1))::float8 ELSE 0 END
      INTO pct_change
      FROM (SELECT sum(s_num_out * dm_close) AS old_cap, sum(s_num_out * lt_price) AS new_cap
              FROM industry
              JOIN company ON co_in_id = in_id
              JOIN security ON s_co_id = co_id
              JOIN last_trade ON lt_s_symb = s_symb
              JOIN daily_market ON dm_s_symb = s_symb AND dm_date = p_start_date
             WHERE in_name = p_industry_name
               AND co_id BETWEEN p_starting_co_id AND p_ending_co_id) AS caps;
  ELSE
    SELECT CASE WHEN old_cap <> 0 THEN (100 * (new_cap / old_cap - 1))::float8 ELSE 0 END
      INTO pct_change
      FROM (SELECT sum(s_num_out * dm_close) AS old_cap, sum(s_num_out * lt_price) AS new_cap
              FROM holding_summary
              JOIN security ON s_symb = hs_s_symb
              JOIN last_trade ON lt_s_symb = hs_s_symb
              JOIN daily_market ON dm_s_symb = hs_s_symb AND dm_date = p_start_date
             WHERE hs_ca_id = p_acct_id) AS caps;
  END IF;
END $$;
