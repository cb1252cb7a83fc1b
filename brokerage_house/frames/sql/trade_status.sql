-- Trade-Status (clause 3.3.9), server-side: frame 1 as one function, the
-- same two statements as the client-side frame in frames/trade_status.cpp (see there for the
-- why). Read-only; the caller runs it READ COMMITTED (L1, clause 7.4.1.3).
--
-- Lists come back as parallel arrays in the order of the frame's ORDER BY: array_agg keeps the
-- order of the sorted subquery it reads.
CREATE OR REPLACE FUNCTION bb_trade_status(
    p_acct_id bigint,
    OUT status integer,
    OUT cust_l_name text, OUT cust_f_name text, OUT broker_name text,
    OUT trade_ids bigint[], OUT trade_dtss timestamp[], OUT status_names text[],
    OUT type_names text[], OUT symbols text[], OUT trade_qtys integer[], OUT exec_names text[],
    OUT charges numeric[], OUT s_names text[], OUT ex_names text[])
LANGUAGE plpgsql STABLE
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
BEGIN
  SELECT array_agg(t.t_id), array_agg(t.t_dts), array_agg(t.st_name), array_agg(t.tt_name),
         array_agg(t.t_s_symb), array_agg(t.t_qty), array_agg(t.t_exec_name),
         array_agg(t.t_chrg), array_agg(t.s_name), array_agg(t.ex_name)
    INTO trade_ids, trade_dtss, status_names, type_names, symbols, trade_qtys, exec_names,
         charges, s_names, ex_names
    FROM (SELECT t_id, t_dts, st_name, tt_name, t_s_symb, t_qty, t_exec_name, t_chrg, s_name,
                 ex_name
            FROM trade
            JOIN status_type ON st_id = t_st_id
            JOIN trade_type ON tt_id = t_tt_id
            JOIN security ON s_symb = t_s_symb
            JOIN exchange ON ex_id = s_ex_id
           WHERE t_ca_id = p_acct_id
           ORDER BY t_dts DESC, t_id DESC
           LIMIT 50) AS t;
  SELECT c_l_name, c_f_name, b_name
    INTO cust_l_name, cust_f_name, broker_name
    FROM customer_account
    JOIN customer ON c_id = ca_c_id
    JOIN broker ON b_id = ca_b_id
   WHERE ca_id = p_acct_id;
  -- Harness check: num_found <> max_trade_status_len (50) is invalid.
  status := CASE WHEN coalesce(cardinality(trade_ids), 0) <> 50 THEN -911 ELSE 0 END;
END $$;
