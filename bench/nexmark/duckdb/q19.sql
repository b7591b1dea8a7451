-- ties in price rank by arrival (file order, seq), as Laminar; SELECT * keeps
-- the column name dateTime as declared
SET threads = 1;
CREATE OR REPLACE TABLE b AS SELECT row_number() OVER () AS seq, * FROM bid;
SELECT auction, bidder, price, channel, url, dateTime, extra, rank_number
FROM (SELECT *, row_number() OVER (PARTITION BY auction ORDER BY price DESC, seq) AS rank_number
      FROM b)
WHERE rank_number <= 10;
