-- HOP(2 s, 10 s): each bid is in the 5 windows starting at its 2 s slot's
-- start minus 0, 2, 4, 6, 8 s (windows aligned to the epoch, half-open)
WITH w AS (
  SELECT auction, make_timestamp(s) AS starttime, make_timestamp(s + 10000000) AS endtime
  FROM (SELECT auction, (epoch_us(dateTime) // 2000000) * 2000000 - k * 2000000 AS s
        FROM bid, range(0, 5) AS r(k))
), AuctionBids AS (
  SELECT auction, count(*) AS num, starttime, endtime FROM w GROUP BY auction, starttime, endtime
), MaxBids AS (
  SELECT max(num) AS maxn, starttime, endtime FROM AuctionBids GROUP BY starttime, endtime
)
SELECT AuctionBids.auction, AuctionBids.num
FROM AuctionBids JOIN MaxBids
  ON AuctionBids.starttime = MaxBids.starttime AND AuctionBids.endtime = MaxBids.endtime
 AND AuctionBids.num >= MaxBids.maxn;
