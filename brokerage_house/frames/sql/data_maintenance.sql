-- Data-Maintenance (clause 3.3.11), server-side: the one frame as one
-- function, p_table_name (the spec's table_name, e.g. 'ACCOUNT_PERMISSION') choosing the
-- table, each table the same one statement as the client-side frame in
-- frames/data_maintenance.cpp (see there for the why of each change). The caller runs it
-- READ COMMITTED (L1, clause 7.4.1.3) and passes the current time as p_now. The spec defines no
-- status codes: a key that finds no row, or a table name that is none of the twelve, changes
-- nothing and gives status 0.
CREATE OR REPLACE FUNCTION bb_data_maintenance(
    p_table_name text, p_acct_id bigint, p_c_id bigint, p_co_id bigint, p_symbol text,
    p_day_of_month integer, p_vol_incr integer, p_tx_id text, p_now timestamp,
    OUT status integer)
LANGUAGE plpgsql VOLATILE
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
BEGIN
  status := 0;
  IF p_table_name = 'ACCOUNT_PERMISSION' THEN
    -- Clause 3.3.11.3: the account's first AP_ACL in descending order, and every row of the
    -- account holding it.
    UPDATE account_permission
       SET ap_acl = CASE WHEN ap_acl = '1111' THEN '0011' ELSE '1111' END
     WHERE ap_ca_id = p_acct_id
       AND ap_acl = (SELECT max(ap_acl) FROM account_permission WHERE ap_ca_id = p_acct_id);
  ELSIF p_table_name = 'ADDRESS' THEN
    -- A customer's address when the driver sent a customer, else a company's.
    IF p_c_id <> 0 THEN
      UPDATE address
         SET ad_line2 = CASE WHEN ad_line2 = 'Apt. 10C' THEN 'Apt. 22' ELSE 'Apt. 10C' END
       WHERE ad_id = (SELECT c_ad_id FROM customer WHERE c_id = p_c_id);
    ELSE
      UPDATE address
         SET ad_line2 = CASE WHEN ad_line2 = 'Apt. 10C' THEN 'Apt. 22' ELSE 'Apt. 10C' END
       WHERE ad_id = (SELECT co_ad_id FROM company WHERE co_id = p_co_id);
    END IF;
  ELSIF p_table_name = 'COMPANY' THEN
    UPDATE company
       SET co_sp_rate = CASE WHEN co_sp_rate = 'ABA' THEN 'AAA' ELSE 'ABA' END
     WHERE co_id = p_co_id;
  ELSIF p_table_name = 'CUSTOMER' THEN
    UPDATE customer
       SET c_email_2 = split_part(c_email_2, '@', 1)
                       || CASE WHEN c_email_2 LIKE '%@mindspring.com' THEN '@earthlink.com'
                               ELSE '@mindspring.com' END
     WHERE c_id = p_c_id;
  ELSIF p_table_name = 'CUSTOMER_TAXRATE' THEN
    UPDATE customer_taxrate
       SET cx_tx_id = CASE cx_tx_id WHEN 'US5' THEN 'US1' WHEN 'CN4' THEN 'CN1'
                        ELSE substr(cx_tx_id, 1, 2) || (substr(cx_tx_id, 3)::int + 1)::text END
     WHERE cx_c_id = p_c_id
       AND cx_tx_id IN ('US1', 'US2', 'US3', 'US4', 'US5', 'CN1', 'CN2', 'CN3', 'CN4');
  ELSIF p_table_name = 'DAILY_MARKET' THEN
    UPDATE daily_market
       SET dm_vol = dm_vol + p_vol_incr
     WHERE dm_s_symb = p_symbol AND extract(day FROM dm_date) = p_day_of_month;
  ELSIF p_table_name = 'EXCHANGE' THEN
    UPDATE exchange
       SET ex_desc = CASE WHEN strpos(ex_desc, ' LAST UPDATED ') > 0
                          THEN left(ex_desc, strpos(ex_desc, ' LAST UPDATED ') - 1)
                          ELSE coalesce(ex_desc, '') END
                     || ' LAST UPDATED ' || to_char(p_now, 'YYYY-MM-DD HH24:MI:SS.US');
  ELSIF p_table_name = 'FINANCIAL' THEN
    UPDATE financial
       SET fi_qtr_start_date = fi_qtr_start_date
                               + CASE WHEN EXISTS (SELECT 1 FROM financial
                                                    WHERE fi_co_id = p_co_id
                                                      AND extract(day FROM fi_qtr_start_date) = 1)
                                      THEN 1 ELSE -1 END
     WHERE fi_co_id = p_co_id;
  ELSIF p_table_name = 'NEWS_ITEM' THEN
    UPDATE news_item
       SET ni_dts = ni_dts + interval '1 day'
     WHERE ni_id IN (SELECT nx_ni_id FROM news_xref WHERE nx_co_id = p_co_id);
  ELSIF p_table_name = 'SECURITY' THEN
    UPDATE security SET s_exch_date = s_exch_date + 1 WHERE s_symb = p_symbol;
  ELSIF p_table_name = 'TAXRATE' THEN
    UPDATE taxrate
       SET tx_name = CASE WHEN tx_name LIKE '% Tax %' THEN replace(tx_name, ' Tax ', ' tax ')
                          ELSE replace(tx_name, ' tax ', ' Tax ') END
     WHERE tx_id = p_tx_id;
  ELSIF p_table_name = 'WATCH_ITEM' THEN
    WITH wl AS (SELECT wl_id FROM watch_list WHERE wl_c_id = p_c_id ORDER BY wl_id LIMIT 1),
         items AS (SELECT wi_s_symb, row_number() OVER (ORDER BY wi_s_symb) AS n,
                          count(*) OVER () AS cnt
                     FROM watch_item WHERE wi_wl_id = (SELECT wl_id FROM wl)),
         old AS (SELECT wi_s_symb FROM items WHERE n = (cnt + 1) / 2),
         new AS (SELECT s_symb FROM security
                  WHERE s_symb > (SELECT wi_s_symb FROM old)
                    AND s_symb NOT IN (SELECT wi_s_symb FROM items)
                  ORDER BY s_symb LIMIT 1)
    UPDATE watch_item SET wi_s_symb = (SELECT s_symb FROM new)
     WHERE wi_wl_id = (SELECT wl_id FROM wl)
       AND wi_s_symb = (SELECT wi_s_symb FROM old)
       AND EXISTS (SELECT 1 FROM new);
  END IF;
END $$;
