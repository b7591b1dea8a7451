-- ties in dateTime: the earlier bid (file order, seq) is kept, as Laminar
SET threads = 1;
CREATE OR REPLACE TABLE b AS SELECT row_number() OVER () AS seq, * FROM bid;
SELECT auction, bidder, price, channel, url, dateTime AS datetime, extra
FROM (SELECT *, row_number() OVER (PARTITION BY bidder, auction
                                   ORDER BY dateTime DESC, seq) AS rank_number FROM b)
WHERE rank_number <= 1;
