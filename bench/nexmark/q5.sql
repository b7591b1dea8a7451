-- Nexmark q5: hot items (nexmark-flink queries/q5.sql): the auctions with the
-- most bids in each 10 s window sliding by 2 s.
-- Dialect: Flink's window TVF `FROM TABLE(HOP(TABLE bid, DESCRIPTOR(dateTime),
-- INTERVAL '2' SECOND, INTERVAL '10' SECOND)) GROUP BY auction, window_start,
-- window_end` is Laminar's group window `GROUP BY auction, HOP(dateTime,
-- INTERVAL '2' SECOND, INTERVAL '10' SECOND)` with HOP_START / HOP_END for
-- window_start / window_end (same argument order, docs/windows.md), and
-- EMIT ON WINDOW CLOSE says what a Flink window aggregate does (one row per
-- window when it closes; without it the result would be updating).
-- MaxBids groups the closed windows' counts by (starttime, endtime) as
-- Flink's text does; in Laminar that is a keyed (updating) aggregate, so the
-- join's result is a changelog whose final state is the answer.
CREATE STREAM nexmark_q5 AS
SELECT AuctionBids.auction, AuctionBids.num
 FROM (
   SELECT
     auction,
     count(*) AS num,
     HOP_START(dateTime, INTERVAL '2' SECOND, INTERVAL '10' SECOND) AS starttime,
     HOP_END(dateTime, INTERVAL '2' SECOND, INTERVAL '10' SECOND) AS endtime
     FROM bid
     GROUP BY auction, HOP(dateTime, INTERVAL '2' SECOND, INTERVAL '10' SECOND)
     EMIT ON WINDOW CLOSE
 ) AS AuctionBids
 JOIN (
   SELECT
     max(CountBids.num) AS maxn,
     CountBids.starttime,
     CountBids.endtime
   FROM (
     SELECT
       count(*) AS num,
       HOP_START(dateTime, INTERVAL '2' SECOND, INTERVAL '10' SECOND) AS starttime,
       HOP_END(dateTime, INTERVAL '2' SECOND, INTERVAL '10' SECOND) AS endtime
     FROM bid
     GROUP BY auction, HOP(dateTime, INTERVAL '2' SECOND, INTERVAL '10' SECOND)
     EMIT ON WINDOW CLOSE
     ) AS CountBids
   GROUP BY CountBids.starttime, CountBids.endtime
 ) AS MaxBids
 ON AuctionBids.starttime = MaxBids.starttime AND
    AuctionBids.endtime = MaxBids.endtime AND
    AuctionBids.num >= MaxBids.maxn;
