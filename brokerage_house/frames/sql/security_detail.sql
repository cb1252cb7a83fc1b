-- Security-Detail (clause 3.3.5), server-side: frame 1 as one function, the
-- same statements as the client-side frame in frames/security_detail.cpp (see there for the why:
-- the orders of the lists, DM_DATE >= start_day for a weekend start_day). Read-only; the caller
-- runs it READ COMMITTED (L1, clause 7.4.1.3).
--
-- p_max_rows is max_rows_to_return as the caller clamped it to the protocol's limit. Each list
-- comes back as parallel arrays in the order of its statement: array_agg keeps the order of the
-- subquery it reads. NI_ITEM comes back as bytea[], decoded by the caller as in client mode. An
-- unknown symbol returns only its status (-511), as the client-side frame does.
CREATE OR REPLACE FUNCTION bb_security_detail(
    p_symbol varchar, p_max_rows integer, p_start_day date, p_access_lob_flag boolean,
    OUT status integer,
    -- SECURITY
    OUT sec_name text, OUT num_out bigint, OUT start_date date, OUT exch_date date,
    OUT pe_ratio numeric, OUT wk52_high numeric, OUT wk52_high_date date, OUT wk52_low numeric,
    OUT wk52_low_date date, OUT divid numeric, OUT sec_yield numeric,
    -- COMPANY
    OUT comp_name text, OUT sp_rate text, OUT ceo_name text, OUT comp_desc text,
    OUT open_date date, OUT comp_st_id text,
    OUT comp_line1 text, OUT comp_line2 text, OUT comp_town text, OUT comp_div text,
    OUT comp_zip text, OUT comp_ctry text,
    -- EXCHANGE
    OUT exch_name text, OUT exch_desc text, OUT exch_open integer, OUT exch_close integer,
    OUT exch_num_symb integer,
    OUT exch_line1 text, OUT exch_line2 text, OUT exch_town text, OUT exch_div text,
    OUT exch_zip text, OUT exch_ctry text,
    -- LAST_TRADE
    OUT last_price numeric, OUT last_open numeric, OUT last_vol bigint,
    -- Lists
    OUT comp_co_names text[], OUT comp_in_names text[],
    OUT fin_years integer[], OUT fin_qtrs integer[], OUT fin_qtr_start_dates date[],
    OUT fin_revenues numeric[], OUT fin_net_earns numeric[], OUT fin_basic_epss numeric[],
    OUT fin_dilut_epss numeric[], OUT fin_margins numeric[], OUT fin_inventories numeric[],
    OUT fin_assetss numeric[], OUT fin_liabilities numeric[], OUT fin_out_basics bigint[],
    OUT fin_out_diluts bigint[],
    OUT day_dates date[], OUT day_closes numeric[], OUT day_highs numeric[],
    OUT day_lows numeric[], OUT day_vols bigint[],
    OUT news_items bytea[], OUT news_dtss timestamp[], OUT news_sources text[],
    OUT news_authors text[], OUT news_headlines text[], OUT news_summaries text[])
LANGUAGE plpgsql STABLE
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
DECLARE
  v_co_id bigint;
BEGIN
  -- Frame 1: the security, its company and exchange with their addresses.
  SELECT s_name, co_id, co_name, co_sp_rate, co_ceo, co_desc, co_open_date, co_st_id,
         ca.ad_line1, ca.ad_line2, zca.zc_town, zca.zc_div, ca.ad_zc_code, ca.ad_ctry,
         s_num_out, s_start_date, s_exch_date, s_pe, s_52wk_high, s_52wk_high_date,
         s_52wk_low, s_52wk_low_date, s_dividend, s_yield,
         ex_name, ex_desc, ex_open, ex_close, ex_num_symb,
         ea.ad_line1, ea.ad_line2, zea.zc_town, zea.zc_div, ea.ad_zc_code, ea.ad_ctry
    INTO sec_name, v_co_id, comp_name, sp_rate, ceo_name, comp_desc, open_date, comp_st_id,
         comp_line1, comp_line2, comp_town, comp_div, comp_zip, comp_ctry,
         num_out, start_date, exch_date, pe_ratio, wk52_high, wk52_high_date,
         wk52_low, wk52_low_date, divid, sec_yield,
         exch_name, exch_desc, exch_open, exch_close, exch_num_symb,
         exch_line1, exch_line2, exch_town, exch_div, exch_zip, exch_ctry
    FROM security
    JOIN company ON co_id = s_co_id
    JOIN address AS ca ON ca.ad_id = co_ad_id
    JOIN zip_code AS zca ON zca.zc_code = ca.ad_zc_code
    JOIN exchange ON ex_id = s_ex_id
    JOIN address AS ea ON ea.ad_id = ex_ad_id
    JOIN zip_code AS zea ON zea.zc_code = ea.ad_zc_code
   WHERE s_symb = p_symbol;
  IF NOT FOUND THEN
    -- An unknown symbol has no market data: day_len is 0, which the harness check below would
    -- reject first.
    status := -511;
    RETURN;
  END IF;

  -- Frame 1: up to 3 competitors.
  SELECT array_agg(c.co_name), array_agg(c.in_name)
    INTO comp_co_names, comp_in_names
    FROM (SELECT co_name, in_name
            FROM company_competitor
            JOIN company ON co_id = cp_comp_co_id
            JOIN industry ON in_id = cp_in_id
           WHERE cp_co_id = v_co_id
           ORDER BY cp_comp_co_id, cp_in_id
           LIMIT 3) AS c;

  -- Frame 1: 20 quarters of financials.
  SELECT array_agg(f.fi_year), array_agg(f.fi_qtr), array_agg(f.fi_qtr_start_date),
         array_agg(f.fi_revenue), array_agg(f.fi_net_earn), array_agg(f.fi_basic_eps),
         array_agg(f.fi_dilut_eps), array_agg(f.fi_margin), array_agg(f.fi_inventory),
         array_agg(f.fi_assets), array_agg(f.fi_liability), array_agg(f.fi_out_basic),
         array_agg(f.fi_out_dilut)
    INTO fin_years, fin_qtrs, fin_qtr_start_dates, fin_revenues, fin_net_earns, fin_basic_epss,
         fin_dilut_epss, fin_margins, fin_inventories, fin_assetss, fin_liabilities,
         fin_out_basics, fin_out_diluts
    FROM (SELECT fi_year, fi_qtr, fi_qtr_start_date, fi_revenue, fi_net_earn, fi_basic_eps,
                 fi_dilut_eps, fi_margin, fi_inventory, fi_assets, fi_liability, fi_out_basic,
                 fi_out_dilut
            FROM financial
           WHERE fi_co_id = v_co_id
           ORDER BY fi_year, fi_qtr
           LIMIT 20) AS f;

  -- Frame 1: max_rows_to_return days of market data from start_day.
  SELECT array_agg(d.dm_date), array_agg(d.dm_close), array_agg(d.dm_high), array_agg(d.dm_low),
         array_agg(d.dm_vol)
    INTO day_dates, day_closes, day_highs, day_lows, day_vols
    FROM (SELECT dm_date, dm_close, dm_high, dm_low, dm_vol
            FROM daily_market
           WHERE dm_s_symb = p_symbol AND dm_date >= p_start_day
           ORDER BY dm_date
           LIMIT p_max_rows) AS d;

  -- Frame 1: the last trade.
  SELECT lt_price, lt_open_price, lt_vol
    INTO last_price, last_open, last_vol
    FROM last_trade WHERE lt_s_symb = p_symbol;

  -- Frame 1: the company's news, the full item or headline and summary (access_lob_flag).
  IF p_access_lob_flag THEN
    SELECT array_agg(n.ni_item), array_agg(n.ni_dts), array_agg(n.ni_source),
           array_agg(n.ni_author)
      INTO news_items, news_dtss, news_sources, news_authors
      FROM (SELECT ni_item, ni_dts, ni_source, ni_author
              FROM news_xref
              JOIN news_item ON ni_id = nx_ni_id
             WHERE nx_co_id = v_co_id
             ORDER BY ni_id
             LIMIT 2) AS n;
  ELSE
    SELECT array_agg(n.ni_dts), array_agg(n.ni_source), array_agg(n.ni_author),
           array_agg(n.ni_headline), array_agg(n.ni_summary)
      INTO news_dtss, news_sources, news_authors, news_headlines, news_summaries
      FROM (SELECT ni_dts, ni_source, ni_author, ni_headline, ni_summary
              FROM news_xref
              JOIN news_item ON ni_id = nx_ni_id
             WHERE nx_co_id = v_co_id
             ORDER BY ni_id
             LIMIT 2) AS n;
  END IF;

  -- Harness checks (3.3.5), in the spec's order: day_len < 5 or > 20, fin_len <> max_fin_len
  -- (20), news_len <> max_news_len (2).
  status := CASE
    WHEN coalesce(cardinality(day_dates), 0) NOT BETWEEN 5 AND 20 THEN -511
    WHEN coalesce(cardinality(fin_years), 0) <> 20 THEN -512
    WHEN coalesce(cardinality(news_dtss), 0) <> 2 THEN -513
    ELSE 0
  END;
END $$;
