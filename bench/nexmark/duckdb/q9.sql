-- ties in price and dateTime: the earlier bid (file order, seq) wins, as
-- Laminar ranks by arrival; output names in lowercase, as Laminar folds them
SET threads = 1;
CREATE OR REPLACE TABLE b AS SELECT row_number() OVER () AS seq, * FROM bid;
SELECT id, itemName AS itemname, description, initialBid AS initialbid, reserve,
       dateTime AS datetime, expires, seller, category, extra,
       auction, bidder, price, bid_dateTime AS bid_datetime, bid_extra
FROM (
   SELECT A.*, B.auction, B.bidder, B.price, B.dateTime AS bid_dateTime, B.extra AS bid_extra,
     row_number() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.dateTime ASC, B.seq) AS rownum
   FROM auction A, b B
   WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires
)
WHERE rownum <= 1;
