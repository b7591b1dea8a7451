-- Nexmark q8: monitor new users (nexmark-flink queries/q8.sql): the people who
-- registered and opened an auction in the same 10 s tumbling window. A
-- window join of two window aggregates.
-- Dialect: Flink's window TVF `FROM TABLE(TUMBLE(TABLE person,
-- DESCRIPTOR(dateTime), INTERVAL '10' SECOND)) GROUP BY ..., window_start,
-- window_end` is Laminar's group window `GROUP BY ..., TUMBLE(dateTime,
-- INTERVAL '10' SECOND)` with TUMBLE_START / TUMBLE_END for window_start /
-- window_end, and EMIT ON WINDOW CLOSE says what a Flink window aggregate
-- does (one row per window when it closes).
CREATE STREAM nexmark_q8 AS
SELECT P.id, P.name, P.starttime
FROM (
  SELECT id, name,
        TUMBLE_START(dateTime, INTERVAL '10' SECOND) AS starttime,
        TUMBLE_END(dateTime, INTERVAL '10' SECOND) AS endtime
  FROM person
  GROUP BY id, name, TUMBLE(dateTime, INTERVAL '10' SECOND)
  EMIT ON WINDOW CLOSE
) P
JOIN (
  SELECT seller,
        TUMBLE_START(dateTime, INTERVAL '10' SECOND) AS starttime,
        TUMBLE_END(dateTime, INTERVAL '10' SECOND) AS endtime
  FROM auction
  GROUP BY seller, TUMBLE(dateTime, INTERVAL '10' SECOND)
  EMIT ON WINDOW CLOSE
) A
ON P.id = A.seller AND P.starttime = A.starttime AND P.endtime = A.endtime;
