-- sessions per bidder: a new one when a bid comes 10 s or more after the
-- bidder's previous bid (Laminar's rule: [first, last + gap) half-open)
SELECT bidder, count(*) AS bid_count, min(dateTime) AS starttime,
       max(dateTime) + INTERVAL 10 SECOND AS endtime
FROM (SELECT bidder, dateTime,
             sum(CASE WHEN prev IS NULL OR dateTime >= prev + INTERVAL 10 SECOND THEN 1 ELSE 0 END)
                 OVER (PARTITION BY bidder ORDER BY dateTime ROWS UNBOUNDED PRECEDING) AS sid
      FROM (SELECT bidder, dateTime,
                   lag(dateTime) OVER (PARTITION BY bidder ORDER BY dateTime) AS prev
            FROM bid))
GROUP BY bidder, sid;
