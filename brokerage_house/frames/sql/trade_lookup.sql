-- Trade-Lookup (clause 3.3.6), server-side: the four mutually exclusive
-- frames as one function, p_frame choosing which runs, each the same statement as the
-- client-side frame in frames/trade_lookup.cpp (see there for the why: the column layout, the
-- order, the harness checks). Read-only; the caller runs it READ COMMITTED (L1, clause 7.4.1.3) and
-- has already refused a frame outside 1..4, clamped max_trades to the protocol's 20 (p_row_limit)
-- and cut frame 1's id list to it.
--
-- Frames 1-3 return the trade-information layout of frames/trade_info.h as 21 parallel arrays
-- (info_*), one element per result row of the client-side statement, in its order: array_agg
-- keeps the order of the sorted subquery it reads, provided that no aggregate of the same SELECT
-- has DISTINCT or ORDER BY. Versions differ there: from PostgreSQL 16 the planner sorts the input
-- once for such an aggregate (presorted aggregates) and every array then comes in that order;
-- 14 and 15 sort inside that aggregate alone. With count(DISTINCT r.k) beside the arrays,
-- frames 2 and 3 returned their trades by id instead of by time, and history rows out of order,
-- on 16 to 18. So the trades found are counted from info_keys afterwards. Frame 4 returns the
-- holding history as 4 parallel arrays (hh_*).
CREATE OR REPLACE FUNCTION bb_trade_lookup(
    p_frame integer, p_max_trades integer, p_row_limit integer, p_trade_ids bigint[],
    p_acct_id bigint, p_symbol text, p_start_trade_dts timestamp, p_end_trade_dts timestamp,
    OUT status integer,
    OUT num_trades_found integer, OUT trade_id bigint,
    OUT info_keys bigint[], OUT info_trade_ids bigint[], OUT info_acct_ids bigint[],
    OUT info_exec_names text[], OUT info_is_cashs boolean[], OUT info_is_markets boolean[],
    OUT info_bid_prices numeric[], OUT info_trade_prices numeric[], OUT info_qtys integer[],
    OUT info_dtss timestamp[], OUT info_type_ids text[], OUT info_s_names text[],
    OUT info_type_names text[], OUT info_se_amts numeric[], OUT info_se_cash_due_dates date[],
    OUT info_se_cash_types text[], OUT info_ct_amts numeric[], OUT info_ct_dtss timestamp[],
    OUT info_ct_names text[], OUT info_th_dtss timestamp[], OUT info_th_st_ids text[],
    OUT hh_holding_trade_ids bigint[], OUT hh_trade_ids bigint[], OUT hh_before_qtys integer[],
    OUT hh_after_qtys integer[])
LANGUAGE plpgsql STABLE
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
DECLARE
  v_num_found integer;  -- trades found by frames 1-3: one per distinct row key
BEGIN
  status := 0;
  num_trades_found := 0;
  IF p_frame = 1 THEN
    -- Frame 1: the listed trades, in input order.
    SELECT array_agg(r.k), array_agg(r.t_id), array_agg(r.ca_id), array_agg(r.exec_name),
           array_agg(r.is_cash), array_agg(r.is_mrkt), array_agg(r.bid_price),
           array_agg(r.trade_price), array_agg(r.qty), array_agg(r.dts), array_agg(r.tt_id),
           array_agg(r.s_name), array_agg(r.tt_name), array_agg(r.se_amt),
           array_agg(r.se_cash_due_date), array_agg(r.se_cash_type), array_agg(r.ct_amt),
           array_agg(r.ct_dts), array_agg(r.ct_name), array_agg(r.th_dts),
           array_agg(r.th_st_id)
      INTO info_keys, info_trade_ids, info_acct_ids, info_exec_names, info_is_cashs,
           info_is_markets, info_bid_prices, info_trade_prices, info_qtys, info_dtss,
           info_type_ids, info_s_names, info_type_names, info_se_amts, info_se_cash_due_dates,
           info_se_cash_types, info_ct_amts, info_ct_dtss, info_ct_names, info_th_dtss,
           info_th_st_ids
      FROM (SELECT ids.pos, t_id, NULL::bigint, t_exec_name, t_is_cash, tt_is_mrkt, t_bid_price,
                   t_trade_price, NULL::integer, NULL::timestamp, NULL::varchar, NULL::varchar,
                   NULL::varchar, se_amt, se_cash_due_date, se_cash_type, ct_amt, ct_dts, ct_name,
                   h.th_dts, h.th_st_id
              FROM unnest(p_trade_ids) WITH ORDINALITY AS ids(id, pos)
              JOIN trade ON t_id = ids.id
              JOIN trade_type ON tt_id = t_tt_id
              LEFT JOIN settlement ON se_t_id = t_id
              LEFT JOIN cash_transaction ON ct_t_id = t_id AND t_is_cash
              LEFT JOIN LATERAL (SELECT th_dts, th_st_id FROM trade_history WHERE th_t_id = t_id
                                 ORDER BY th_dts, th_st_id LIMIT 3) AS h ON true
             ORDER BY ids.pos, h.th_dts, h.th_st_id)
        AS r(k, t_id, ca_id, exec_name, is_cash, is_mrkt, bid_price, trade_price, qty, dts,
             tt_id, s_name, tt_name, se_amt, se_cash_due_date, se_cash_type, ct_amt, ct_dts,
             ct_name, th_dts, th_st_id);
    v_num_found := (SELECT count(DISTINCT k) FROM unnest(info_keys) AS k);
    -- Harness check: num_found <> max_trades is invalid.
    IF v_num_found <> p_max_trades THEN
      status := -611;
    END IF;
  ELSIF p_frame = 2 THEN
    -- Frame 2: the account's first trades of the window.
    SELECT array_agg(r.k), array_agg(r.t_id), array_agg(r.ca_id), array_agg(r.exec_name),
           array_agg(r.is_cash), array_agg(r.is_mrkt), array_agg(r.bid_price),
           array_agg(r.trade_price), array_agg(r.qty), array_agg(r.dts), array_agg(r.tt_id),
           array_agg(r.s_name), array_agg(r.tt_name), array_agg(r.se_amt),
           array_agg(r.se_cash_due_date), array_agg(r.se_cash_type), array_agg(r.ct_amt),
           array_agg(r.ct_dts), array_agg(r.ct_name), array_agg(r.th_dts),
           array_agg(r.th_st_id)
      INTO info_keys, info_trade_ids, info_acct_ids, info_exec_names, info_is_cashs,
           info_is_markets, info_bid_prices, info_trade_prices, info_qtys, info_dtss,
           info_type_ids, info_s_names, info_type_names, info_se_amts, info_se_cash_due_dates,
           info_se_cash_types, info_ct_amts, info_ct_dtss, info_ct_names, info_th_dtss,
           info_th_st_ids
      FROM (SELECT t.t_id, t.t_id, NULL::bigint, t.t_exec_name, t.t_is_cash, NULL::boolean,
                   t.t_bid_price, t.t_trade_price, NULL::integer, t.t_dts, NULL::varchar,
                   NULL::varchar, NULL::varchar, se_amt, se_cash_due_date, se_cash_type, ct_amt,
                   ct_dts, ct_name, h.th_dts, h.th_st_id
              FROM (SELECT t_id, t_exec_name, t_is_cash, t_bid_price, t_trade_price, t_dts
                      FROM trade
                     WHERE t_ca_id = p_acct_id
                       AND t_dts BETWEEN p_start_trade_dts AND p_end_trade_dts
                     ORDER BY t_dts, t_id
                     LIMIT p_row_limit) AS t
              LEFT JOIN settlement ON se_t_id = t.t_id
              LEFT JOIN cash_transaction ON ct_t_id = t.t_id AND t.t_is_cash
              LEFT JOIN LATERAL (SELECT th_dts, th_st_id FROM trade_history
                                  WHERE th_t_id = t.t_id
                                  ORDER BY th_dts, th_st_id LIMIT 3) AS h ON true
             ORDER BY t.t_dts, t.t_id, h.th_dts, h.th_st_id)
        AS r(k, t_id, ca_id, exec_name, is_cash, is_mrkt, bid_price, trade_price, qty, dts,
             tt_id, s_name, tt_name, se_amt, se_cash_due_date, se_cash_type, ct_amt, ct_dts,
             ct_name, th_dts, th_st_id);
    v_num_found := (SELECT count(DISTINCT k) FROM unnest(info_keys) AS k);
    -- Harness checks: num_found outside 0..max_trades is invalid, 0 is a warning.
    IF v_num_found > p_max_trades THEN
      status := -621;
    ELSIF v_num_found = 0 THEN
      status := 621;
    END IF;
  ELSIF p_frame = 3 THEN
    -- Frame 3: the symbol's first trades of the window.
    SELECT array_agg(r.k), array_agg(r.t_id), array_agg(r.ca_id), array_agg(r.exec_name),
           array_agg(r.is_cash), array_agg(r.is_mrkt), array_agg(r.bid_price),
           array_agg(r.trade_price), array_agg(r.qty), array_agg(r.dts), array_agg(r.tt_id),
           array_agg(r.s_name), array_agg(r.tt_name), array_agg(r.se_amt),
           array_agg(r.se_cash_due_date), array_agg(r.se_cash_type), array_agg(r.ct_amt),
           array_agg(r.ct_dts), array_agg(r.ct_name), array_agg(r.th_dts),
           array_agg(r.th_st_id)
      INTO info_keys, info_trade_ids, info_acct_ids, info_exec_names, info_is_cashs,
           info_is_markets, info_bid_prices, info_trade_prices, info_qtys, info_dtss,
           info_type_ids, info_s_names, info_type_names, info_se_amts, info_se_cash_due_dates,
           info_se_cash_types, info_ct_amts, info_ct_dtss, info_ct_names, info_th_dtss,
           info_th_st_ids
      FROM (SELECT t.t_id, t.t_id, t.t_ca_id, t.t_exec_name, t.t_is_cash, NULL::boolean,
                   NULL::numeric, t.t_trade_price, t.t_qty, t.t_dts, t.t_tt_id, NULL::varchar,
                   NULL::varchar, se_amt, se_cash_due_date, se_cash_type, ct_amt, ct_dts,
                   ct_name, h.th_dts, h.th_st_id
              FROM (SELECT t_id, t_ca_id, t_exec_name, t_is_cash, t_trade_price, t_qty, t_dts,
                           t_tt_id
                      FROM trade
                     WHERE t_s_symb = p_symbol
                       AND t_dts BETWEEN p_start_trade_dts AND p_end_trade_dts
                     ORDER BY t_dts, t_id
                     LIMIT p_row_limit) AS t
              LEFT JOIN settlement ON se_t_id = t.t_id
              LEFT JOIN cash_transaction ON ct_t_id = t.t_id AND t.t_is_cash
              LEFT JOIN LATERAL (SELECT th_dts, th_st_id FROM trade_history
                                  WHERE th_t_id = t.t_id
                                  ORDER BY th_dts, th_st_id LIMIT 3) AS h ON true
             ORDER BY t.t_dts, t.t_id, h.th_dts, h.th_st_id)
        AS r(k, t_id, ca_id, exec_name, is_cash, is_mrkt, bid_price, trade_price, qty, dts,
             tt_id, s_name, tt_name, se_amt, se_cash_due_date, se_cash_type, ct_amt, ct_dts,
             ct_name, th_dts, th_st_id);
    v_num_found := (SELECT count(DISTINCT k) FROM unnest(info_keys) AS k);
    IF v_num_found > p_max_trades THEN
      status := -631;
    ELSIF v_num_found = 0 THEN
      status := 631;
    END IF;
  ELSE
    -- Frame 4: the account's first trade from the start time and the holding history of every
    -- lot it touched. No row: no trade found. One row with NULL history columns: a trade
    -- without holding history, which lists nothing.
    SELECT CASE WHEN count(*) = 0 THEN 0 ELSE 1 END, min(f.t_id),
           array_agg(f.hh_h_t_id) FILTER (WHERE f.hh_h_t_id IS NOT NULL),
           array_agg(f.hh_t_id) FILTER (WHERE f.hh_h_t_id IS NOT NULL),
           array_agg(f.hh_before_qty) FILTER (WHERE f.hh_h_t_id IS NOT NULL),
           array_agg(f.hh_after_qty) FILTER (WHERE f.hh_h_t_id IS NOT NULL)
      INTO num_trades_found, trade_id, hh_holding_trade_ids, hh_trade_ids, hh_before_qtys,
           hh_after_qtys
      FROM (SELECT t.t_id, hh.hh_h_t_id, hh.hh_t_id, hh.hh_before_qty, hh.hh_after_qty
              FROM (SELECT t_id FROM trade WHERE t_ca_id = p_acct_id AND t_dts >= p_start_trade_dts
                     ORDER BY t_dts, t_id LIMIT 1) AS t
              LEFT JOIN LATERAL (
                SELECT hh_h_t_id, hh_t_id, hh_before_qty, hh_after_qty
                  FROM holding_history
                 WHERE hh_h_t_id IN (SELECT hh_h_t_id FROM holding_history
                                      WHERE hh_t_id = t.t_id)
                 ORDER BY hh_h_t_id, hh_t_id
                 LIMIT 20) AS hh ON true) AS f;
    -- Harness checks: no trade is a warning, otherwise 1..20 history rows.
    IF num_trades_found = 0 THEN
      status := 641;
    ELSIF coalesce(cardinality(hh_holding_trade_ids), 0) NOT BETWEEN 1 AND 20 THEN
      status := -642;
    END IF;
  END IF;
END $$;
