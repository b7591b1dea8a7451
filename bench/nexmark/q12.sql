-- Nexmark q12: processing-time windows (nexmark-flink queries/q12.sql): the
-- number of bids each bidder makes in each 10 s window of processing time.
-- Dialect: Flink's `TABLE (SELECT *, PROCTIME() as p_time FROM bid)` is a
-- source declaring the processing-time attribute, `p_time AS PROCTIME()`
-- (docs/windows.md "Processing time"): the bid table of ddl.sql with the same
-- options, plus p_time. Flink's window TVF over DESCRIPTOR(p_time) is the
-- group window `GROUP BY bidder, TUMBLE(p_time, ...)`; windows over a
-- PROCTIME() column close by the engine's clock, not by the watermark
-- (laminardb bench: the wall clock since the start; laminardb run over
-- bounded sources: the clock does not move, every row is in the first
-- window, which closes when the source ends).
CREATE SOURCE bid_p (p_time AS PROCTIME())
    FROM NEXMARK ('table' = 'bid', 'events.num' = '${EVENTS}', 'first-event.rate' = '${RATE}');

CREATE STREAM nexmark_q12 AS
SELECT
    bidder,
    count(*) AS bid_count,
    TUMBLE_START(p_time, INTERVAL '10' SECOND) AS starttime,
    TUMBLE_END(p_time, INTERVAL '10' SECOND) AS endtime
FROM bid_p
GROUP BY bidder, TUMBLE(p_time, INTERVAL '10' SECOND)
EMIT ON WINDOW CLOSE;
