-- Nexmark q19: the 10 highest bids of each auction (nexmark-flink
-- queries/q19.sql): Top-N with rank_number in the output, so a row moving
-- in the ranking is retracted and re-emitted (docs/changelog.md, Top-N).
-- Ties in price rank by arrival (the earlier bid first).
CREATE STREAM nexmark_q19 AS
SELECT * FROM
(SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rank_number
 FROM bid)
WHERE rank_number <= 10;
