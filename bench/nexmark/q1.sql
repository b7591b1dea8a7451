-- Nexmark q1: currency conversion (nexmark-flink queries/q1.sql). Flink types
-- the result DECIMAL(23, 3); here 0.908 is numeric DECIMAL(3, 3) and the
-- product with the BIGINT price an exact DECIMAL(22, 3), as in PostgreSQL.
CREATE STREAM nexmark_q1 AS
SELECT
    auction,
    bidder,
    0.908 * price AS price, -- convert dollar to euro
    dateTime,
    extra
FROM bid;
