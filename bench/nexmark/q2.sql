-- Nexmark q2: selection (nexmark-flink queries/q2.sql). MOD(auction, 123) is
-- spelled auction % 123: the same operator (MOD() exists too, docs/functions.md).
-- The filter is pushed into the NEXMARK generator (docs/nexmark.md "Predicate
-- pushdown"): the bids it rejects are never generated.
CREATE STREAM nexmark_q2 AS
SELECT auction, price FROM bid WHERE auction % 123 = 0;
