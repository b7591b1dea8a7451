-- Nexmark q13: bounded side input join (nexmark-flink queries/q13.sql): every
-- bid enriched with the side input's value for MOD(auction, 10000).
-- side_input.csv is what Flink's SideInputGenerator writes (`bin/
-- side_input_gen.sh`, 10,000 rows "i,i"), with a header line; the path is
-- relative to the repository root, where the harness and the oracle run.
-- Dialect: Flink's processing-time lookup join `FROM (SELECT *, PROCTIME()
-- AS p_time FROM bid) B JOIN side_input FOR SYSTEM_TIME AS OF B.p_time AS S`
-- is, in Laminar, a join of a stream with a TABLE: each bid meets the
-- table's contents when it arrives (a lookup join, docs/joins.md); FOR
-- SYSTEM_TIME AS OF in Laminar means an event-time (versioned) temporal
-- join, which is not what Flink's PROCTIME() asks for.
CREATE TABLE side_input (
  key BIGINT,
  value VARCHAR
) FROM FILES ('path' = 'bench/nexmark/side_input.csv', 'mode' = 'once') FORMAT CSV;

CREATE STREAM nexmark_q13 AS
SELECT
    B.auction,
    B.bidder,
    B.price,
    B.dateTime,
    S.value
FROM bid B
JOIN side_input AS S
ON mod(B.auction, 10000) = S.key;
