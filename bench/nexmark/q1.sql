-- Nexmark q1: currency conversion (nexmark-flink queries/q1.sql). Flink types
-- the result DECIMAL(23, 3); Laminar has no DECIMAL yet, so 0.908 * price is
-- DOUBLE here (the oracle compares it with a 1e-9 relative tolerance).
CREATE STREAM nexmark_q1 AS
SELECT
    auction,
    bidder,
    0.908 * price AS price, -- convert dollar to euro
    dateTime,
    extra
FROM bid;
