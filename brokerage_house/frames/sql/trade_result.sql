-- Trade-Result (clause 3.3.8), server-side: frames 1 to 6 as one function,
-- the same statements and the same harness decisions as the client-side frames in
-- frames/trade_result.cpp (see there for the why). Read-write; the caller runs it SERIALIZABLE
-- (L3, clause 7.4.1.3) and retries it on serialization failures. A negative harness status raises
-- SQLSTATE BB001 so that the transaction rolls back and the caller sees only the status.
--
-- Money is numeric here where the client counts integer cents: every sum and product is exact,
-- and each value the client rounds (tax, commission) is rounded to cents half away from zero,
-- which is what the client's "+ half, then divide" does for the positive values it rounds.
-- cust_id comes back for the caller to derive the customer's load unit. p_now is the current
-- time of this attempt: the caller sets it afresh for each retry.
--
-- Under SERIALIZABLE, what this function reads by a scan it locks for the whole transaction
-- against every concurrent Trade-Result's writes; so every read goes through an index
-- (enable_seqscan = off: BROKER is one page at 1000 customers and was scanned whole, which
-- cancelled most concurrent Trade-Results) and the trade by its hash index (i_t_id_hash in
-- loader/sql/3-indexes.sql).
CREATE OR REPLACE FUNCTION bb_trade_result(
    p_trade_id bigint, p_trade_price numeric, p_now timestamp,
    OUT status integer,
    OUT acct_id bigint, OUT acct_bal numeric, OUT cust_id bigint)
LANGUAGE plpgsql VOLATILE
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
DECLARE
  v_acct_id bigint;
  v_type_id text;
  v_symbol text;
  v_qty integer;
  v_charge numeric;
  v_lifo boolean;
  v_is_cash boolean;
  v_type_name text;
  v_is_sell boolean;
  v_hs_qty integer;
  v_broker_id bigint;
  v_cust_id bigint;
  v_tax_status integer;
  v_s_name text;
  v_comm_rate bigint;
  v_sign integer;
  v_new_hs_qty integer;
  v_buy_value numeric := 0;
  v_sell_value numeric := 0;
  v_needed integer;
  v_lots refcursor;
  v_lot_id bigint;
  v_lot_qty integer;
  v_lot_price numeric;
  v_held integer;
  v_closed integer;
  v_after integer;
  v_taxed boolean;
  v_rate_e5 bigint;
  v_tax_amount numeric := 0;
  v_value numeric;
  v_comm_amount numeric;
  v_completed bigint;
  v_se_amount numeric;
  v_due_date date;
BEGIN
  status := 0;

  -- Frame 1 (with the reads of frames 2 and 4).
  SELECT t_ca_id, t_tt_id, t_s_symb, t_qty, t_chrg, t_lifo, t_is_cash, tt_name, tt_is_sell,
         coalesce((SELECT hs_qty FROM holding_summary
                    WHERE hs_ca_id = t_ca_id AND hs_s_symb = t_s_symb), 0),
         ca_b_id, ca_c_id, ca_tax_st, s_name,
         (SELECT (cr_rate * 100)::bigint FROM commission_rate
           WHERE cr_c_tier = c_tier AND cr_tt_id = t_tt_id AND cr_ex_id = s_ex_id
             AND cr_from_qty <= t_qty AND cr_to_qty >= t_qty
           ORDER BY cr_from_qty LIMIT 1)
    INTO v_acct_id, v_type_id, v_symbol, v_qty, v_charge, v_lifo, v_is_cash, v_type_name,
         v_is_sell, v_hs_qty, v_broker_id, v_cust_id, v_tax_status, v_s_name, v_comm_rate
    FROM trade
    JOIN trade_type ON tt_id = t_tt_id
    JOIN customer_account ON ca_id = t_ca_id
    JOIN customer ON c_id = ca_c_id
    JOIN security ON s_symb = t_s_symb
   WHERE t_id = p_trade_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'spec status %', -811 USING ERRCODE = 'BB001';
  END IF;
  v_comm_rate := coalesce(v_comm_rate, 0);

  -- Frame 2: a sell closes long lots and a buy short ones, v_sign being the sign of the lots
  -- this trade closes. The summary moves by the trade's quantity.
  v_sign := CASE WHEN v_is_sell THEN 1 ELSE -1 END;
  v_new_hs_qty := v_hs_qty - v_sign * v_qty;
  IF v_hs_qty = 0 THEN
    INSERT INTO holding_summary (hs_ca_id, hs_s_symb, hs_qty)
    VALUES (v_acct_id, v_symbol, v_new_hs_qty);
  ELSIF v_new_hs_qty <> 0 THEN
    UPDATE holding_summary SET hs_qty = v_new_hs_qty
     WHERE hs_ca_id = v_acct_id AND hs_s_symb = v_symbol;
  END IF;
  v_needed := v_qty;
  IF v_hs_qty * v_sign > 0 THEN
    -- The cursor reads the lots as they were when it opened, as the client reads them all
    -- before it changes any.
    IF v_lifo THEN
      OPEN v_lots FOR
        SELECT h_t_id, h_qty, h_price FROM holding
         WHERE h_ca_id = v_acct_id AND h_s_symb = v_symbol
         ORDER BY h_dts DESC, h_t_id DESC;
    ELSE
      OPEN v_lots FOR
        SELECT h_t_id, h_qty, h_price FROM holding
         WHERE h_ca_id = v_acct_id AND h_s_symb = v_symbol
         ORDER BY h_dts, h_t_id;
    END IF;
    LOOP
      EXIT WHEN v_needed <= 0;
      FETCH v_lots INTO v_lot_id, v_lot_qty, v_lot_price;
      EXIT WHEN NOT FOUND;
      v_held := v_lot_qty * v_sign;
      v_closed := least(v_held, v_needed);
      v_after := (v_held - v_closed) * v_sign;
      IF v_after <> 0 THEN
        WITH h AS (UPDATE holding SET h_qty = v_after WHERE h_t_id = v_lot_id)
        INSERT INTO holding_history (hh_h_t_id, hh_t_id, hh_before_qty, hh_after_qty)
        VALUES (v_lot_id, p_trade_id, v_lot_qty, v_after);
      ELSE
        WITH h AS (DELETE FROM holding WHERE h_t_id = v_lot_id)
        INSERT INTO holding_history (hh_h_t_id, hh_t_id, hh_before_qty, hh_after_qty)
        VALUES (v_lot_id, p_trade_id, v_lot_qty, 0);
      END IF;
      IF v_is_sell THEN
        v_buy_value := v_buy_value + v_closed * v_lot_price;
        v_sell_value := v_sell_value + v_closed * p_trade_price;
      ELSE
        v_buy_value := v_buy_value + v_closed * p_trade_price;
        v_sell_value := v_sell_value + v_closed * v_lot_price;
      END IF;
      v_needed := v_needed - v_closed;
    END LOOP;
    CLOSE v_lots;
  END IF;
  IF v_needed > 0 THEN
    WITH h AS (
      INSERT INTO holding (h_t_id, h_ca_id, h_s_symb, h_dts, h_price, h_qty)
      VALUES (p_trade_id, v_acct_id, v_symbol, p_now, p_trade_price, -v_needed * v_sign))
    INSERT INTO holding_history (hh_h_t_id, hh_t_id, hh_before_qty, hh_after_qty)
    VALUES (p_trade_id, p_trade_id, 0, -v_needed * v_sign);
  ELSIF v_new_hs_qty = 0 THEN
    DELETE FROM holding_summary WHERE hs_ca_id = v_acct_id AND hs_s_symb = v_symbol;
  END IF;

  -- Frame 3: tax on a realised gain of a taxable account, at the sum of the customer's rates
  -- (in units of 1e-5). The harness after frame 3 (clause 3.3.8) checks the amount as computed,
  -- -831 when it is not positive; T_TAX and the settlement take it rounded to cents.
  v_taxed := v_tax_status IN (1, 2) AND v_sell_value > v_buy_value;
  IF v_taxed THEN
    SELECT coalesce(round(sum(tx_rate) * 100000), 0)::bigint INTO v_rate_e5
      FROM customer_taxrate JOIN taxrate ON tx_id = cx_tx_id
     WHERE cx_c_id = v_cust_id;
    v_tax_amount := (v_sell_value - v_buy_value) * v_rate_e5 * 0.00001;
    IF v_tax_amount <= 0 THEN
      RAISE EXCEPTION 'spec status %', -831 USING ERRCODE = 'BB001';
    END IF;
    v_tax_amount := round(v_tax_amount, 2);
  END IF;

  -- Frame 4 (read in frame 1), then the commission on the trade's value, rounded to cents.
  IF v_comm_rate <= 0 THEN
    RAISE EXCEPTION 'spec status %', -841 USING ERRCODE = 'BB001';
  END IF;
  v_value := v_qty * p_trade_price;
  v_comm_amount := round(v_value * v_comm_rate * 0.0001, 2);

  -- Frame 5 (T_TAX only when frame 3 ran).
  WITH t AS (
    UPDATE trade SET t_comm = v_comm_amount, t_dts = p_now, t_st_id = 'CMPT',
                     t_trade_price = p_trade_price,
                     t_tax = coalesce(CASE WHEN v_taxed THEN v_tax_amount END, t_tax)
     WHERE t_id = p_trade_id
    RETURNING t_id),
  h AS (
    INSERT INTO trade_history (th_t_id, th_dts, th_st_id) VALUES (p_trade_id, p_now, 'CMPT')),
  b AS (
    UPDATE broker SET b_comm_total = b_comm_total + v_comm_amount,
                      b_num_trades = b_num_trades + 1
     WHERE b_id = v_broker_id)
  SELECT count(*) INTO v_completed FROM t;

  -- Frame 6: settle two days after the trade date, withholding the tax for status 1.
  v_se_amount := CASE WHEN v_is_sell THEN v_value - v_charge - v_comm_amount
                      ELSE -(v_value + v_charge + v_comm_amount) END;
  IF v_tax_status = 1 THEN
    v_se_amount := v_se_amount - v_tax_amount;
  END IF;
  v_due_date := p_now::date + 2;
  IF v_is_cash THEN
    WITH s AS (
      INSERT INTO settlement (se_t_id, se_cash_type, se_cash_due_date, se_amt)
      VALUES (p_trade_id, 'Cash Account', v_due_date, v_se_amount)),
    c AS (
      INSERT INTO cash_transaction (ct_dts, ct_t_id, ct_amt, ct_name)
      VALUES (p_now, p_trade_id, v_se_amount,
              v_type_name || ' ' || v_qty || ' shares of ' || v_s_name))
    UPDATE customer_account SET ca_bal = ca_bal + v_se_amount
     WHERE ca_id = v_acct_id
    RETURNING ca_bal INTO acct_bal;
  ELSE
    WITH s AS (
      INSERT INTO settlement (se_t_id, se_cash_type, se_cash_due_date, se_amt)
      VALUES (p_trade_id, 'Margin', v_due_date, v_se_amount))
    SELECT ca_bal INTO acct_bal FROM customer_account WHERE ca_id = v_acct_id;
  END IF;
  acct_id := v_acct_id;
  cust_id := v_cust_id;
END $$;
