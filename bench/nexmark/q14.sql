-- Nexmark q14: calculation (nexmark-flink queries/q14.sql). count_char is
-- the benchmark's UDF (com.github.nexmark.flink.udf.CountChar), built in
-- here. As in q1, 0.908 * price is an exact DECIMAL(22, 3) (Flink: DECIMAL(23, 3)).
CREATE STREAM nexmark_q14 AS
SELECT
    auction,
    bidder,
    0.908 * price AS price,
    CASE
        WHEN HOUR(dateTime) >= 8 AND HOUR(dateTime) <= 18 THEN 'dayTime'
        WHEN HOUR(dateTime) <= 6 OR HOUR(dateTime) >= 20 THEN 'nightTime'
        ELSE 'otherTime'
    END AS bidTimeType,
    dateTime,
    extra,
    count_char(extra, 'c') AS c_counts
FROM bid
WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000;
