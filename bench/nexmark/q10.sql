-- Nexmark q10: log to file system (nexmark-flink queries/q10.sql): every bid
-- with its day and minute, written to CSV files partitioned by (dt, hm).
-- Dialect: Flink's `CREATE TABLE fs_sink (...) PARTITIONED BY (dt, hm) WITH
-- ('connector' = 'filesystem', ...)` + `INSERT INTO fs_sink SELECT ...` is a
-- stream and a FILES sink over it with 'partition.by' (docs/sinks.md): one
-- Hive-style directory per partition, dt=2025-01-01/hm=00%3A01/ (':' escaped
-- as Flink's partition paths escape it), part files renamed into place when
-- complete, dt and hm in the path only (Flink's default). Flink's commit
-- trigger 'partition-time' with 'sink.partition-commit.delay' = '1 min'
-- (a partition's _SUCCESS once the watermark passes its minute) is not
-- supported: _SUCCESS is written when the sink closes. ${OUTPUT_DIR} is set
-- by the harness (laminardb bench: a temporary directory, removed after).
CREATE STREAM nexmark_q10 AS
SELECT auction, bidder, price, dateTime, extra,
       DATE_FORMAT(dateTime, 'yyyy-MM-dd') AS dt,
       DATE_FORMAT(dateTime, 'HH:mm') AS hm
FROM bid;

CREATE SINK fs_sink FROM nexmark_q10 INTO FILES (
    'path' = '${OUTPUT_DIR}/bid',
    'partition.by' = 'dt, hm',
    'sink.partition-commit.policy.kind' = 'success-file',
    'sink.rolling-policy.rollover-interval' = '1 min'
) FORMAT CSV;
