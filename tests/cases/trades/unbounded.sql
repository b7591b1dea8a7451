-- seed-trades, unbounded: the same five trades pushed, no end of input.
CREATE SOURCE trades (
    symbol VARCHAR NOT NULL,
    price  DOUBLE NOT NULL,
    volume BIGINT NOT NULL,
    ts     TIMESTAMP NOT NULL,
    WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
);
CREATE STREAM minute_volume AS
    SELECT symbol,
           tumble(ts, INTERVAL '1' MINUTE) AS minute,
           SUM(volume) AS volume,
           MAX(price) AS high
    FROM trades
    GROUP BY symbol, tumble(ts, INTERVAL '1' MINUTE)
    EMIT ON WINDOW CLOSE;
CREATE SINK minute_volume_out FROM minute_volume
    INTO FILES ('path' = 'out/minute_volume.ndjson') FORMAT JSON;
INSERT INTO trades VALUES
    ('AAPL', 189.50, 100, '2026-10-18T09:30:05Z'),
    ('AAPL', 189.70, 50, '2026-10-18T09:30:40Z'),
    ('MSFT', 411.20, 30, '2026-10-18T09:30:41Z'),
    ('AAPL', 189.60, 70, '2026-10-18T09:31:10Z'),
    ('MSFT', 411.90, 20, '2026-10-18T09:32:30Z');
