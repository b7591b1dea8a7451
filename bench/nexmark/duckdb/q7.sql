-- TUMBLE(10 s): windows aligned to the epoch, half-open; window_end = start + 10 s
SELECT B.auction, B.bidder, B.price, B.dateTime AS datetime, B.extra
FROM bid B
JOIN (
  SELECT MAX(price) AS maxprice,
         make_timestamp((epoch_us(dateTime) // 10000000) * 10000000 + 10000000) AS dateTime
  FROM bid
  GROUP BY epoch_us(dateTime) // 10000000
) B1
ON B.price = B1.maxprice
WHERE B.dateTime BETWEEN B1.dateTime - INTERVAL 10 SECOND AND B1.dateTime;
