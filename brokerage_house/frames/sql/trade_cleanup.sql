-- Trade-Cleanup (clause 3.3.12), server-side: the one frame as one
-- function, the same two statements as the client-side frame in frames/trade_cleanup.cpp (see
-- there for the why). The caller runs it READ COMMITTED and passes the current time as p_now.
-- The pending status is not an input here, as it is not in the client-side frame: a pending
-- limit order is found by its TRADE_REQUEST row.
CREATE OR REPLACE FUNCTION bb_trade_cleanup(
    p_st_canceled_id text, p_st_submitted_id text, p_start_trade_id bigint, p_now timestamp,
    OUT status integer)
LANGUAGE plpgsql VOLATILE
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
DECLARE
  v_requests bigint;  -- pending orders canceled
BEGIN
  status := 0;
  -- Every pending limit order: SBMT and CNCL history rows, the trade CNCL, the request gone.
  WITH r AS (DELETE FROM trade_request RETURNING tr_t_id),
       t AS (UPDATE trade SET t_st_id = p_st_canceled_id, t_dts = p_now
               FROM r WHERE t_id = r.tr_t_id),
       h AS (INSERT INTO trade_history (th_t_id, th_dts, th_st_id)
             SELECT tr_t_id, p_now, s
               FROM r CROSS JOIN (VALUES (p_st_submitted_id::varchar),
                                         (p_st_canceled_id::varchar)) AS v(s)
             ON CONFLICT DO NOTHING)
  SELECT count(*) INTO v_requests FROM r;
  -- Every submitted trade of the run-time range: CNCL with a CNCL history row.
  WITH t AS (UPDATE trade SET t_st_id = p_st_canceled_id, t_dts = p_now
              WHERE t_id >= p_start_trade_id AND t_st_id = p_st_submitted_id
              RETURNING t_id)
  INSERT INTO trade_history (th_t_id, th_dts, th_st_id)
  SELECT t_id, p_now, p_st_canceled_id::varchar FROM t
  ON CONFLICT DO NOTHING;
END $$;
