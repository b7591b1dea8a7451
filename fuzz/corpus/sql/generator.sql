CREATE SOURCE ticks FROM GENERATOR ('rows.per.second' = '10');
CREATE MATERIALIZED VIEW tick_totals AS SELECT COUNT(*) AS rows_seen, MAX(seq) AS last_seq FROM ticks;