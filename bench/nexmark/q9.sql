-- Nexmark q9: winning bids (nexmark-flink queries/q9.sql): every auction with
-- its highest bid placed while it was open (earliest first among equal
-- prices). An unbounded join with a time-range predicate, then a Top-1 per
-- auction: updating (a better bid retracts the previous winner). Bids with
-- the same price and dateTime rank by arrival (the earlier first).
-- Dialect: Flink quotes `dateTime` (reserved there); Laminar does not need to.
CREATE STREAM nexmark_q9 AS
SELECT
    id, itemName, description, initialBid, reserve, dateTime, expires, seller, category, extra,
    auction, bidder, price, bid_dateTime, bid_extra
FROM (
   SELECT A.*, B.auction, B.bidder, B.price, B.dateTime AS bid_dateTime, B.extra AS bid_extra,
     ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.dateTime ASC) AS rownum
   FROM auction A, bid B
   WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires
)
WHERE rownum <= 1;
