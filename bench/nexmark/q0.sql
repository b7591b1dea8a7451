-- Nexmark q0: pass-through (nexmark-flink queries/q0.sql; the blackhole
-- table becomes a stream).
CREATE STREAM nexmark_q0 AS
SELECT auction, bidder, price, dateTime, extra FROM bid;
