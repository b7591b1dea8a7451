-- Nexmark q17: auction statistics report (nexmark-flink queries/q17.sql).
-- An unbounded keyed aggregate: the stream is its changelog (__weight).
-- avg(price) and sum(price) are numeric (DECIMAL(38,16), DECIMAL(38,0)), as
-- PostgreSQL's; Flink's sink columns are BIGINT (AVG of a BIGINT truncated).
CREATE STREAM nexmark_q17 AS
SELECT
     auction,
     DATE_FORMAT(dateTime, 'yyyy-MM-dd') AS day,
     count(*) AS total_bids,
     count(*) filter (where price < 10000) AS rank1_bids,
     count(*) filter (where price >= 10000 and price < 1000000) AS rank2_bids,
     count(*) filter (where price >= 1000000) AS rank3_bids,
     min(price) AS min_price,
     max(price) AS max_price,
     avg(price) AS avg_price,
     sum(price) AS sum_price
FROM bid
GROUP BY auction, DATE_FORMAT(dateTime, 'yyyy-MM-dd');
