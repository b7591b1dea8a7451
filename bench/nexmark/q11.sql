-- Nexmark q11: user sessions (nexmark-flink queries/q11.sql): bids per
-- bidder and session, a session ending after 10 s without a bid.
-- Adaptation: Flink's group window GROUP BY SESSION(...) with SESSION_START /
-- SESSION_END emits each session once, when the watermark closes it; here
-- the same functions, with EMIT ON WINDOW CLOSE saying so (without it the
-- result would be an updating changelog). A bid exactly 10 s after the
-- previous one starts a new session (docs/windows.md).
CREATE STREAM nexmark_q11 AS
SELECT
    B.bidder,
    count(*) AS bid_count,
    SESSION_START(B.dateTime, INTERVAL '10' SECOND) AS starttime,
    SESSION_END(B.dateTime, INTERVAL '10' SECOND) AS endtime
FROM bid B
GROUP BY B.bidder, SESSION(B.dateTime, INTERVAL '10' SECOND)
EMIT ON WINDOW CLOSE;
