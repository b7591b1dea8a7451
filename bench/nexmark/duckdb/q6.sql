-- What Flink's q6 means (its text does not bind as written, see ../q6.sql):
-- each auction's winning bid among those placed while it was open, then per
-- seller the average over that winner and the 10 before it by bid time.
-- Equal prices are broken by file order (seq), as Laminar's Top-1 breaks
-- them by arrival; equal times of one seller's winners by the row's values
-- (id, seller, price), as Laminar's OVER over a changelog does.
SET threads = 1;
CREATE OR REPLACE TABLE b AS SELECT row_number() OVER () AS seq, * FROM bid;
SELECT seller,
       AVG(price) OVER (PARTITION BY seller ORDER BY dateTime, id, seller, price
                        ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) AS avg_price
FROM (SELECT A.id, A.seller, B.price, B.dateTime, B.seq,
             row_number() OVER (PARTITION BY A.id, A.seller ORDER BY B.price DESC, B.seq) AS rownum
      FROM auction AS A, b AS B
      WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires)
WHERE rownum <= 1;
