-- Nexmark q7: highest bid (nexmark-flink queries/q7.sql): the bids carrying
-- the highest price of their 10 s tumbling window, joined back to bid.
-- Dialect: Flink's window TVF `FROM TABLE(TUMBLE(TABLE bid,
-- DESCRIPTOR(dateTime), INTERVAL '10' SECOND)) GROUP BY window_start,
-- window_end` with window_end is Laminar's group window `GROUP BY
-- TUMBLE(dateTime, INTERVAL '10' SECOND)` with TUMBLE_END, and EMIT ON
-- WINDOW CLOSE says what a Flink window aggregate does (one row per window
-- when it closes). BETWEEN is inclusive at both ends, so a bid exactly at a
-- window's end also meets that window's maximum.
CREATE STREAM nexmark_q7 AS
SELECT B.auction, B.bidder, B.price, B.dateTime, B.extra
from bid B
JOIN (
  SELECT MAX(price) AS maxprice, TUMBLE_END(dateTime, INTERVAL '10' SECOND) as dateTime
  FROM bid
  GROUP BY TUMBLE(dateTime, INTERVAL '10' SECOND)
  EMIT ON WINDOW CLOSE
) B1
ON B.price = B1.maxprice
WHERE B.dateTime BETWEEN B1.dateTime  - INTERVAL '10' SECOND AND B1.dateTime;
