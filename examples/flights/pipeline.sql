-- Hourly delay statistics per origin airport over 200,000 real US flights (Jan 2001).
-- Run from the repository root: make demo (or ./build/laminardb run examples/flights/pipeline.sql).
-- The data is a copy of the first 200,000 rows of the BTS flights set (vega-datasets 3.2.1).
CREATE SOURCE flights (
    ts          TIMESTAMP NOT NULL,
    origin      VARCHAR   NOT NULL,
    destination VARCHAR   NOT NULL,
    delay       BIGINT,
    distance    BIGINT,
    WATERMARK FOR ts AS ts - INTERVAL '10' MINUTE
) FROM FILES ('path' = 'examples/flights/data/flights-200k.csv', 'mode' = 'once') FORMAT CSV;

CREATE STREAM hourly_delays AS
    SELECT origin,
           tumble(ts, INTERVAL '1' HOUR) AS hour,
           COUNT(*)   AS flights,
           AVG(delay) AS avg_delay,
           MAX(delay) AS max_delay
    FROM flights
    GROUP BY origin, tumble(ts, INTERVAL '1' HOUR)
    EMIT ON WINDOW CLOSE;

CREATE SINK hourly_out FROM hourly_delays
    INTO FILES ('path' = 'out/hourly_delays.ndjson') FORMAT JSON;

CREATE MATERIALIZED VIEW delay_by_origin AS
    SELECT origin, COUNT(*) AS flights, SUM(delay) AS total_delay
    FROM flights
    GROUP BY origin;

SELECT origin, flights, total_delay FROM delay_by_origin ORDER BY flights DESC, origin LIMIT 10;
