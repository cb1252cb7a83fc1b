-- Broker-Volume (clause 3.3.1), server-side: frame 1 as one function, the
-- same statement as the client-side frame in frames/broker_volume.cpp (see there for the why).
-- Read-only; the caller runs it READ COMMITTED (L1, clause 7.4.1.3).
--
-- p_broker_names is the list up to its first empty name, as the caller builds it. The rows come
-- back as parallel arrays in the order of the frame's ORDER BY: array_agg keeps the order of the
-- sorted subquery it reads.
CREATE OR REPLACE FUNCTION bb_broker_volume(
    p_broker_names varchar[], p_sector_name varchar,
    OUT status integer,
    OUT broker_names text[], OUT volumes numeric[])
LANGUAGE plpgsql STABLE
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
BEGIN
  -- Frame 1.
  SELECT array_agg(v.b_name), array_agg(v.volume)
    INTO broker_names, volumes
    FROM (SELECT b_name, sum(tr_qty * tr_bid_price) AS volume
            FROM trade_request
            JOIN broker ON b_id = tr_b_id
            JOIN security ON s_symb = tr_s_symb
            JOIN company ON co_id = s_co_id
            JOIN industry ON in_id = co_in_id
            JOIN sector ON sc_id = in_sc_id
           WHERE b_name = ANY (p_broker_names) AND sc_name = p_sector_name
           GROUP BY b_name
           ORDER BY volume DESC, b_name) AS v;
  -- Harness check (3.3.1): list_len < 0 or > max_broker_list_len (40) is invalid, and then
  -- the client-side frame returns no rows.
  IF coalesce(cardinality(broker_names), 0) > 40 THEN
    status := -111;
    broker_names := NULL;
    volumes := NULL;
  ELSE
    status := 0;
  END IF;
END $$;
