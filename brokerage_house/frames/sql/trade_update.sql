-- Trade-Update (clause 3.3.10), server-side: the three mutually exclusive
-- frames as one function, p_frame choosing which runs, each the same UPDATE and then the same
-- select of the trade information as the client-side frame in frames/trade_update.cpp (see
-- there for the why: which rows each UPDATE picks, the toggles, the harness checks, its warning
-- number). The caller runs it REPEATABLE READ (L2, clause 7.4.1.3) and has already refused a frame
-- outside 1..3, clamped max_trades to the protocol's 20 (p_row_limit), max_updates to 0 or more
-- (p_update_limit) and cut frame 1's id list to p_row_limit.
--
-- The trade information comes back as in sql/trade_lookup.sql: the 21 columns of the layout of
-- frames/trade_info.h as parallel arrays (info_*), one element per row of the client-side
-- select, in its order, and the trades found are counted afterwards from info_keys (not with
-- count(DISTINCT) beside the arrays: from PostgreSQL 16 that sorts their input by the key; see
-- sql/trade_lookup.sql). A negative status undoes the update: the function raises it as
-- SQLSTATE BB001 and the caller sees the status alone.
CREATE OR REPLACE FUNCTION bb_trade_update(
    p_frame integer, p_max_trades integer, p_max_updates integer, p_row_limit integer,
    p_update_limit integer, p_trade_ids bigint[], p_acct_id bigint, p_symbol text,
    p_start_trade_dts timestamp, p_end_trade_dts timestamp,
    OUT status integer,
    OUT num_updated integer,
    OUT info_keys bigint[], OUT info_trade_ids bigint[], OUT info_acct_ids bigint[],
    OUT info_exec_names text[], OUT info_is_cashs boolean[], OUT info_is_markets boolean[],
    OUT info_bid_prices numeric[], OUT info_trade_prices numeric[], OUT info_qtys integer[],
    OUT info_dtss timestamp[], OUT info_type_ids text[], OUT info_s_names text[],
    OUT info_type_names text[], OUT info_se_amts numeric[], OUT info_se_cash_due_dates date[],
    OUT info_se_cash_types text[], OUT info_ct_amts numeric[], OUT info_ct_dtss timestamp[],
    OUT info_ct_names text[], OUT info_th_dtss timestamp[], OUT info_th_st_ids text[])
LANGUAGE plpgsql VOLATILE
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
DECLARE
  v_num_found integer;  -- trades found: one per distinct row key
BEGIN
  status := 0;
  IF p_frame = 1 THEN
    -- Frame 1: toggle the executor name of the first p_update_limit listed trades, then read
    -- the listed trades in input order.
    UPDATE trade
       SET t_exec_name = CASE WHEN trade.t_exec_name LIKE '% X %'
                              THEN replace(trade.t_exec_name, ' X ', ' ')
                              ELSE replace(trade.t_exec_name, ' ', ' X ') END
      FROM (SELECT t_id AS target_id
              FROM unnest(p_trade_ids) WITH ORDINALITY AS ids(id, pos)
              JOIN trade ON t_id = ids.id
             ORDER BY ids.pos
             LIMIT p_update_limit) AS target
     WHERE trade.t_id = target.target_id;
    GET DIAGNOSTICS num_updated = ROW_COUNT;
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
    -- Harness checks: num_found <> max_trades, then num_updated <> max_updates.
    IF v_num_found <> p_max_trades THEN
      status := -1011;
    ELSIF num_updated <> p_max_updates THEN
      status := -1012;
    END IF;
  ELSIF p_frame = 2 THEN
    -- Frame 2: toggle the settlement cash type of the first p_update_limit trades of the
    -- account's window that have a settlement, then read the window's trades.
    UPDATE settlement
       SET se_cash_type = CASE
             WHEN target.t_is_cash
               THEN CASE WHEN se_cash_type = 'Cash Account' THEN 'Cash' ELSE 'Cash Account' END
             ELSE CASE WHEN se_cash_type = 'Margin Account' THEN 'Margin' ELSE 'Margin Account' END
           END
      FROM (SELECT found.t_id AS target_id, found.t_is_cash
              FROM (SELECT t_id, t_is_cash, t_dts
                      FROM trade
                     WHERE t_ca_id = p_acct_id
                       AND t_dts BETWEEN p_start_trade_dts AND p_end_trade_dts
                     ORDER BY t_dts, t_id
                     LIMIT p_row_limit) AS found
              JOIN settlement ON se_t_id = found.t_id
             ORDER BY found.t_dts, found.t_id
             LIMIT p_update_limit) AS target
     WHERE se_t_id = target.target_id;
    GET DIAGNOSTICS num_updated = ROW_COUNT;
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
    -- Harness checks: num_found outside 0..max_trades is invalid, nothing updated is a
    -- warning, otherwise every found trade must have been updated.
    IF v_num_found > p_max_trades THEN
      status := -1021;
    ELSIF num_updated = 0 THEN
      status := 1021;
    ELSIF num_updated <> v_num_found THEN
      status := -1022;
    END IF;
  ELSE
    -- Frame 3: rebuild the cash transaction name of the first p_update_limit cash trades of
    -- the symbol's window, then read the window's trades with S_NAME and TT_NAME.
    UPDATE cash_transaction
       SET ct_name = target.tt_name || ' ' || target.t_qty
                     || CASE WHEN ct_name LIKE '% shares of %' THEN ' Shares of '
                             ELSE ' shares of ' END
                     || target.s_name
      FROM (SELECT found.t_id AS target_id, found.t_qty, tt_name, s_name
              FROM (SELECT t_id, t_is_cash, t_dts, t_qty, t_tt_id
                      FROM trade
                     WHERE t_s_symb = p_symbol
                       AND t_dts BETWEEN p_start_trade_dts AND p_end_trade_dts
                     ORDER BY t_dts, t_id
                     LIMIT p_row_limit) AS found
              JOIN cash_transaction ON ct_t_id = found.t_id
              JOIN trade_type ON tt_id = found.t_tt_id
              JOIN security ON s_symb = p_symbol
             WHERE found.t_is_cash
             ORDER BY found.t_dts, found.t_id
             LIMIT p_update_limit) AS target
     WHERE ct_t_id = target.target_id;
    GET DIAGNOSTICS num_updated = ROW_COUNT;
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
                   NULL::numeric, t.t_trade_price, t.t_qty, t.t_dts, t.t_tt_id, s_name, tt_name,
                   se_amt, se_cash_due_date, se_cash_type, ct_amt, ct_dts, ct_name, h.th_dts,
                   h.th_st_id
              FROM (SELECT t_id, t_ca_id, t_exec_name, t_is_cash, t_trade_price, t_qty, t_dts,
                           t_tt_id, t_s_symb
                      FROM trade
                     WHERE t_s_symb = p_symbol
                       AND t_dts BETWEEN p_start_trade_dts AND p_end_trade_dts
                     ORDER BY t_dts, t_id
                     LIMIT p_row_limit) AS t
              JOIN security ON s_symb = t.t_s_symb
              JOIN trade_type ON tt_id = t.t_tt_id
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
    -- Harness checks (+1032 is the warning, as the clause 3.3.10.5 harness has it; the table of
    -- clause 3.2.1.8 says +1031).
    IF v_num_found > p_max_trades THEN
      status := -1031;
    ELSIF num_updated = 0 THEN
      status := 1032;
    ELSIF num_updated > v_num_found THEN
      status := -1032;
    END IF;
  END IF;
  IF status < 0 THEN
    RAISE EXCEPTION 'spec status %', status USING ERRCODE = 'BB001';
  END IF;
END $$;
