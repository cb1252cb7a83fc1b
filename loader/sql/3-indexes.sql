-- brokerbench schema, phase 3 of 4: secondary indexes the frames need (our choice; not
-- mandated by the spec). Each statement is independent; the loader runs them in parallel.
CREATE INDEX i_c_tax_id ON customer (c_tax_id);
CREATE INDEX i_ca_c_id ON customer_account (ca_c_id);
CREATE INDEX i_wl_c_id ON watch_list (wl_c_id);
CREATE INDEX i_tr_s_symb ON trade_request (tr_s_symb);
-- Broker-Volume: the pending requests of the brokers it names, found by name.
CREATE INDEX i_tr_b_id ON trade_request (tr_b_id);
CREATE INDEX i_b_name ON broker (b_name);
-- Trade-Result (SERIALIZABLE) finds its trade by this hash index, not by the primary key: a
-- B-tree leaf page holds some 400 neighbouring trade ids, so every Trade-Result's read of it
-- took a predicate lock on the page that holds all the trades still in flight, and every
-- other Trade-Result's update of its trade (a new index entry: T_ST_ID and T_DTS change, so
-- the update is not HOT) wrote into that page. Two concurrent Trade-Results were thus a
-- read/write cycle and one was cancelled: 1 533 to 11 815 retries per 2-minute saturating run
-- on 1000 customers. A hash index locks one bucket of hundreds of thousands (measured:
-- BENCHMARKS.md, "Trade-Result at saturation"). The planner picks it for t_id = $1 (cost 2.2
-- against the B-tree's 8.5).
CREATE INDEX i_t_id_hash ON trade USING hash (t_id);
-- Trade-Lookup/Trade-Update frames 2 and 3, Customer-Position, Trade-Status: an account's
-- or a symbol's trades in time order.
CREATE INDEX i_t_ca_id_dts ON trade (t_ca_id, t_dts);
CREATE INDEX i_t_s_symb_dts ON trade (t_s_symb, t_dts);
CREATE INDEX i_co_name ON company (co_name);
-- Broker-Volume and Market-Watch by industry: an industry's companies. Without it both read
-- all of COMPANY (which grows with the customers) and picked the industry's rows from it.
CREATE INDEX i_co_in_id ON company (co_in_id);
CREATE INDEX i_s_co_id_issue ON security (s_co_id, s_issue);
-- Trade-Order frame 3 and Trade-Result frame 2 walk an account's lots of one symbol by date.
CREATE INDEX i_h_ca_id_s_symb_dts ON holding (h_ca_id, h_s_symb, h_dts);
CREATE INDEX i_hh_t_id ON holding_history (hh_t_id);
