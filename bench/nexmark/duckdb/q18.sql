-- ties in dateTime: the later bid (file order, seq) is kept, as Flink's
-- keep-last deduplication (replace when currentRowtime >= prevRowtime) and
-- Laminar (docs/changelog.md, Top-N, "Ties")
SET threads = 1;
CREATE OR REPLACE TABLE b AS SELECT row_number() OVER () AS seq, * FROM bid;
SELECT auction, bidder, price, channel, url, dateTime AS datetime, extra
FROM (SELECT *, row_number() OVER (PARTITION BY bidder, auction
                                   ORDER BY dateTime DESC, seq DESC) AS rank_number FROM b)
WHERE rank_number <= 1;
