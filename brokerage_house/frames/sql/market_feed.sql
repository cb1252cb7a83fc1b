-- Market-Feed (clause 3.3.3), server-side: frame 1 as one function over
-- the whole batch, the same two statements per ticker entry as the client-side frame in
-- frames/market_feed.cpp (see there for the why). Read-write; the caller runs it REPEATABLE
-- READ (L2, clause 7.4.1.3). A negative harness status raises SQLSTATE BB001 so that the
-- transaction rolls back and the caller sees only the status.
--
-- The entries come as parallel arrays, already in the order the caller applies them (symbol
-- order, the feed's order for repeats of a symbol). The triggered orders come back as parallel
-- arrays, entry by entry and by trade id within an entry, for the caller to send to the market
-- after the commit.
CREATE OR REPLACE FUNCTION bb_market_feed(
    p_symbols text[], p_price_quotes numeric[], p_trade_qtys integer[],
    p_type_stop_loss text, p_type_limit_sell text, p_type_limit_buy text,
    p_status_submitted text, p_unique_symbols integer, p_now timestamp,
    OUT status integer,
    OUT num_updated integer,
    OUT trade_ids bigint[], OUT symbols text[], OUT bid_prices numeric[],
    OUT trade_type_ids text[], OUT trade_qtys integer[])
LANGUAGE plpgsql VOLATILE
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
DECLARE
  v_updated integer;
  v_ids bigint[];
  v_prices numeric[];
  v_types text[];
  v_qtys integer[];
BEGIN
  status := 0;
  num_updated := 0;
  trade_ids := '{}';
  symbols := '{}';
  bid_prices := '{}';
  trade_type_ids := '{}';
  trade_qtys := '{}';
  FOR i IN 1 .. coalesce(cardinality(p_symbols), 0) LOOP
    UPDATE last_trade SET lt_price = p_price_quotes[i], lt_vol = lt_vol + p_trade_qtys[i],
                          lt_dts = p_now
     WHERE lt_s_symb = p_symbols[i];
    GET DIAGNOSTICS v_updated = ROW_COUNT;
    num_updated := num_updated + v_updated;

    -- The requests of the symbol that the price triggers, submitted.
    WITH r AS (
      DELETE FROM trade_request
       WHERE tr_s_symb = p_symbols[i]
         AND ((tr_tt_id = p_type_stop_loss AND tr_bid_price >= p_price_quotes[i])
           OR (tr_tt_id = p_type_limit_sell AND tr_bid_price <= p_price_quotes[i])
           OR (tr_tt_id = p_type_limit_buy AND tr_bid_price >= p_price_quotes[i]))
      RETURNING tr_t_id, tr_bid_price, tr_tt_id, tr_qty),
    t AS (
      UPDATE trade SET t_dts = p_now, t_st_id = p_status_submitted
        FROM r
       WHERE t_id = r.tr_t_id),
    h AS (
      INSERT INTO trade_history (th_t_id, th_dts, th_st_id)
      SELECT tr_t_id, p_now, p_status_submitted FROM r)
    SELECT array_agg(x.tr_t_id), array_agg(x.tr_bid_price), array_agg(x.tr_tt_id),
           array_agg(x.tr_qty)
      INTO v_ids, v_prices, v_types, v_qtys
      FROM (SELECT tr_t_id, tr_bid_price, tr_tt_id, tr_qty FROM r ORDER BY tr_t_id) AS x;
    IF v_ids IS NOT NULL THEN
      trade_ids := trade_ids || v_ids;
      symbols := symbols || array_fill(p_symbols[i], ARRAY[cardinality(v_ids)]);
      bid_prices := bid_prices || v_prices;
      trade_type_ids := trade_type_ids || v_types;
      trade_qtys := trade_qtys || v_qtys;
    END IF;
  END LOOP;
  -- Harness check: fewer LAST_TRADE rows updated than distinct symbols sent.
  IF num_updated < p_unique_symbols THEN
    RAISE EXCEPTION 'spec status %', -311 USING ERRCODE = 'BB001';
  END IF;
END $$;
