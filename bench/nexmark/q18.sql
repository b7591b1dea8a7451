-- Nexmark q18: the last bid of each bidder on each auction (nexmark-flink
-- queries/q18.sql): deduplication keeping the last row. Updating: a later
-- bid retracts the previous one (docs/changelog.md, Top-N); of bids with the
-- same dateTime the last to arrive is kept (Flink's keep-last deduplication).
CREATE STREAM nexmark_q18 AS
SELECT auction, bidder, price, channel, url, dateTime, extra
FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY dateTime DESC) AS rank_number
      FROM bid)
WHERE rank_number <= 1;
