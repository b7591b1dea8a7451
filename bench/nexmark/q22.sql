-- Nexmark q22: get URL directories (nexmark-flink queries/q22.sql).
-- SPLIT_INDEX is 0-based, as Flink's.
CREATE STREAM nexmark_q22 AS
SELECT
    auction, bidder, price, channel,
    SPLIT_INDEX(url, '/', 3) AS dir1,
    SPLIT_INDEX(url, '/', 4) AS dir2,
    SPLIT_INDEX(url, '/', 5) AS dir3 FROM bid;
