-- Trade-Order (clause 3.3.7), server-side: frames 1 to 4 as one function,
-- the same statements and the same harness decisions as the client-side frames in
-- frames/trade_order.cpp (see there for the why). Read-write; the caller runs it REPEATABLE
-- READ (L2, clause 7.4.1.3) and ends it with COMMIT (frame 6) or, when roll_it_back is set,
-- ROLLBACK (frame 5): the outputs come back either way. A negative harness status raises SQLSTATE
-- BB001 so that the transaction rolls back and the caller sees only the status.
--
-- Money is numeric here where the client counts integer cents: every sum and product is exact,
-- and each value the client rounds (tax, commission) is rounded to cents half away from zero,
-- which is what the client's "+ half, then divide" does for the positive values it rounds.
-- The request for the market (request_*) goes out from the caller after the commit. p_now is the
-- current time of this attempt: the caller sets it afresh for each retry.
CREATE OR REPLACE FUNCTION bb_trade_order(
    p_acct_id bigint, p_exec_f_name text, p_exec_l_name text, p_exec_tax_id text,
    p_symbol text, p_co_name text, p_issue text, p_trade_type_id text, p_trade_qty integer,
    p_requested_price numeric, p_is_lifo boolean, p_type_is_margin boolean,
    p_st_pending_id text, p_st_submitted_id text, p_now timestamp,
    OUT status integer,
    OUT trade_id bigint, OUT buy_value numeric, OUT sell_value numeric, OUT tax_amount numeric,
    OUT request_symbol text, OUT request_price numeric, OUT request_is_market boolean)
LANGUAGE plpgsql VOLATILE
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
DECLARE
  v_ca_name text;
  v_broker_id bigint;
  v_cust_id bigint;
  v_tax_status integer;
  v_f_name text;
  v_l_name text;
  v_tier smallint;
  v_tax_id text;
  v_broker_name text;
  v_acl text;
  v_security refcursor;
  v_found boolean;
  v_co_id bigint;
  v_ex_id text;
  v_s_name text;
  v_symbol text;
  v_co_name text;
  v_market_price numeric;
  v_hs_qty integer;
  v_is_market boolean;
  v_is_sell boolean;
  v_charge numeric;
  v_comm_rate bigint;
  v_price numeric;
  v_lots refcursor;
  v_lot_qty integer;
  v_lot_price numeric;
  v_needed integer;
  v_held integer;
  v_closed integer;
  v_taxable boolean;
  v_rate_e5 bigint;
  v_tax numeric;
  v_comm_amount numeric;
  v_exec_name text;
  v_status_id text;
BEGIN
  status := 0;
  buy_value := 0;
  sell_value := 0;
  tax_amount := 0;

  -- Frame 1.
  SELECT ca_name, ca_b_id, ca_c_id, ca_tax_st, c_f_name, c_l_name, c_tier, c_tax_id, b_name
    INTO v_ca_name, v_broker_id, v_cust_id, v_tax_status, v_f_name, v_l_name, v_tier, v_tax_id,
         v_broker_name
    FROM customer_account JOIN customer ON c_id = ca_c_id JOIN broker ON b_id = ca_b_id
   WHERE ca_id = p_acct_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'spec status %', -711 USING ERRCODE = 'BB001';
  END IF;

  -- Frame 2: only when someone other than the owner places the order.
  IF p_exec_f_name <> v_f_name OR p_exec_l_name <> v_l_name OR p_exec_tax_id <> v_tax_id THEN
    SELECT ap_acl INTO v_acl
      FROM account_permission
     WHERE ap_ca_id = p_acct_id AND ap_f_name = p_exec_f_name AND ap_l_name = p_exec_l_name
       AND ap_tax_id = p_exec_tax_id;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'spec status %', -721 USING ERRCODE = 'BB001';
    END IF;
  END IF;

  -- Frame 3: the security, found when exactly one row names it (as the client frame decides).
  IF p_symbol = '' THEN
    OPEN v_security FOR
      SELECT s_co_id, s_ex_id, s_name, s_symb, co_name, lt_price,
             (SELECT hs_qty FROM holding_summary WHERE hs_ca_id = p_acct_id AND hs_s_symb = s_symb)
        FROM company JOIN security ON s_co_id = co_id JOIN last_trade ON lt_s_symb = s_symb
       WHERE co_name = p_co_name AND s_issue = p_issue;
  ELSE
    OPEN v_security FOR
      SELECT s_co_id, s_ex_id, s_name, s_symb, co_name, lt_price,
             (SELECT hs_qty FROM holding_summary WHERE hs_ca_id = p_acct_id AND hs_s_symb = s_symb)
        FROM security JOIN company ON co_id = s_co_id JOIN last_trade ON lt_s_symb = s_symb
       WHERE s_symb = p_symbol;
  END IF;
  FETCH v_security INTO v_co_id, v_ex_id, v_s_name, v_symbol, v_co_name, v_market_price, v_hs_qty;
  v_found := FOUND;
  IF v_found THEN
    MOVE v_security;
    v_found := NOT FOUND;
  END IF;
  CLOSE v_security;
  IF NOT v_found THEN
    -- A security that does not exist has no commission rate (-732 below).
    v_ex_id := '';
    v_symbol := p_symbol;
    v_market_price := 0;
    v_hs_qty := 0;
  END IF;
  v_hs_qty := coalesce(v_hs_qty, 0);

  -- Frame 3: the trade type, the charge and the commission rate (hundredths of a percent).
  SELECT tt_is_mrkt, tt_is_sell,
         (SELECT ch_chrg FROM charge WHERE ch_tt_id = tt_id AND ch_c_tier = v_tier),
         (SELECT (cr_rate * 100)::bigint FROM commission_rate
           WHERE cr_c_tier = v_tier AND cr_tt_id = tt_id AND cr_ex_id = v_ex_id
             AND cr_from_qty <= p_trade_qty AND cr_to_qty >= p_trade_qty
           ORDER BY cr_from_qty LIMIT 1)
    INTO v_is_market, v_is_sell, v_charge, v_comm_rate
    FROM trade_type
   WHERE tt_id = p_trade_type_id;
  v_is_market := coalesce(v_is_market, false);
  v_is_sell := coalesce(v_is_sell, false);
  v_charge := coalesce(v_charge, 0);
  v_comm_rate := coalesce(v_comm_rate, 0);
  v_price := CASE WHEN v_is_market THEN v_market_price ELSE p_requested_price END;

  -- Frame 3: the values Trade-Result would compute, walking the lots the order would close.
  IF v_found AND ((v_is_sell AND v_hs_qty > 0) OR (NOT v_is_sell AND v_hs_qty < 0)) THEN
    IF p_is_lifo THEN
      OPEN v_lots FOR
        SELECT h_qty, h_price FROM holding WHERE h_ca_id = p_acct_id AND h_s_symb = v_symbol
         ORDER BY h_dts DESC, h_t_id DESC;
    ELSE
      OPEN v_lots FOR
        SELECT h_qty, h_price FROM holding WHERE h_ca_id = p_acct_id AND h_s_symb = v_symbol
         ORDER BY h_dts, h_t_id;
    END IF;
    v_needed := p_trade_qty;
    LOOP
      EXIT WHEN v_needed <= 0;
      FETCH v_lots INTO v_lot_qty, v_lot_price;
      EXIT WHEN NOT FOUND;
      v_held := CASE WHEN v_is_sell THEN v_lot_qty ELSE -v_lot_qty END;
      v_closed := least(v_held, v_needed);
      IF v_is_sell THEN
        buy_value := buy_value + v_closed * v_lot_price;
        sell_value := sell_value + v_closed * v_price;
      ELSE
        buy_value := buy_value + v_closed * v_price;
        sell_value := sell_value + v_closed * v_lot_price;
      END IF;
      v_needed := v_needed - v_closed;
    END LOOP;
    CLOSE v_lots;
  END IF;

  -- Frame 3: the tax on the gain, at the sum of the customer's rates (in units of 1e-5). The
  -- harness after frame 3 (clause 3.3.7) checks the amount as computed, -731 when it is not
  -- positive; tax_amount is it rounded to cents.
  v_taxable := sell_value > buy_value AND v_tax_status IN (1, 2);
  IF v_taxable THEN
    SELECT coalesce(round(sum(tx_rate) * 100000), 0)::bigint INTO v_rate_e5
      FROM customer_taxrate JOIN taxrate ON tx_id = cx_tx_id
     WHERE cx_c_id = v_cust_id;
    v_tax := (sell_value - buy_value) * v_rate_e5 * 0.00001;
    tax_amount := round(v_tax, 2);
  END IF;
  IF p_type_is_margin THEN
    PERFORM ca_bal + coalesce((SELECT sum(hs_qty * lt_price)
                                 FROM holding_summary JOIN last_trade ON lt_s_symb = hs_s_symb
                                WHERE hs_ca_id = p_acct_id), 0)
       FROM customer_account
      WHERE ca_id = p_acct_id;
  END IF;
  IF v_taxable AND v_tax <= 0 THEN
    RAISE EXCEPTION 'spec status %', -731 USING ERRCODE = 'BB001';
  ELSIF v_comm_rate <= 0 THEN
    RAISE EXCEPTION 'spec status %', -732 USING ERRCODE = 'BB001';
  ELSIF v_charge = 0 THEN
    RAISE EXCEPTION 'spec status %', -733 USING ERRCODE = 'BB001';
  END IF;

  -- Between frames 3 and 4: the commission on the requested value, rounded to cents.
  v_comm_amount := round(p_trade_qty * v_price * v_comm_rate * 0.0001, 2);
  v_exec_name := p_exec_f_name || ' ' || p_exec_l_name;

  -- Frame 4.
  v_status_id := CASE WHEN v_is_market THEN p_st_submitted_id ELSE p_st_pending_id END;
  IF v_is_market THEN
    WITH t AS (
      INSERT INTO trade (t_id, t_dts, t_st_id, t_tt_id, t_is_cash, t_s_symb, t_qty, t_bid_price,
                         t_ca_id, t_exec_name, t_trade_price, t_chrg, t_comm, t_tax, t_lifo)
      VALUES (nextval('seq_trade_id'), p_now, v_status_id, p_trade_type_id, NOT p_type_is_margin,
              v_symbol, p_trade_qty, v_price, p_acct_id, v_exec_name, NULL, v_charge,
              v_comm_amount, 0, p_is_lifo)
      RETURNING t_id, t_dts, t_st_id)
    INSERT INTO trade_history (th_t_id, th_dts, th_st_id)
    SELECT t_id, t_dts, t_st_id FROM t
    RETURNING th_t_id INTO trade_id;
  ELSE
    WITH t AS (
      INSERT INTO trade (t_id, t_dts, t_st_id, t_tt_id, t_is_cash, t_s_symb, t_qty, t_bid_price,
                         t_ca_id, t_exec_name, t_trade_price, t_chrg, t_comm, t_tax, t_lifo)
      VALUES (nextval('seq_trade_id'), p_now, v_status_id, p_trade_type_id, NOT p_type_is_margin,
              v_symbol, p_trade_qty, v_price, p_acct_id, v_exec_name, NULL, v_charge,
              v_comm_amount, 0, p_is_lifo)
      RETURNING t_id, t_dts, t_st_id, t_tt_id, t_s_symb, t_qty, t_bid_price),
    r AS (
      INSERT INTO trade_request (tr_t_id, tr_tt_id, tr_s_symb, tr_qty, tr_bid_price, tr_b_id)
      SELECT t_id, t_tt_id, t_s_symb, t_qty, t_bid_price, v_broker_id FROM t)
    INSERT INTO trade_history (th_t_id, th_dts, th_st_id)
    SELECT t_id, t_dts, t_st_id FROM t
    RETURNING th_t_id INTO trade_id;
  END IF;
  request_symbol := v_symbol;
  request_price := v_price;
  request_is_market := v_is_market;
END $$;
