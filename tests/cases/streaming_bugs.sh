#!/usr/bin/env bash
# Cases from other engines' bug reports (issue 4) run through `laminardb run`
# in script mode, the way a user runs a pipeline file: FILES sources read
# once (so each ends with its +inf watermark), tables changed by DML, and
# the final SELECTs printed as CSV and compared with the expected text
# below (computed by hand in the comments). tests/slt/bugs_streaming.slt
# and tests/unit/test_streaming_bugs.c have these and more.
# Run from the repository root: bash tests/cases/streaming_bugs.sh build/laminardb
set -uo pipefail
bin=$(realpath "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# check NAME: runs $tmp/NAME.sql, compares stdout with $tmp/NAME.exp
check() {
  local name=$1 rc=0
  (cd "$tmp" && "$bin" run "$name.sql" --output csv >"$name.got" 2>"$name.err") || rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL $name: laminardb exited $rc:"; cat "$tmp/$name.err"; fail=1; return
  fi
  if ! diff -u "$tmp/$name.exp" "$tmp/$name.got"; then
    echo "FAIL $name"; fail=1; return
  fi
  echo "ok   $name"
}

# 1. FLINK-26334 (apache/flink#18982): tumble(ts, 10 s, offset 3 s) before
#    1970: -9 s -> floor(-12/10) = -2 -> start -17 s (23:59:43); -1 s ->
#    23:59:53. SPARK-39347: 1969-12-31 00:00:02 with a 5 s offset ->
#    [1969-12-30 23:59:55, 00:00:05).
printf 'ts\n1969-12-31 23:59:51\n1969-12-31 23:59:59\n1969-12-31 00:00:02\n' >"$tmp/pre.csv"
cat >"$tmp/offset.sql" <<'SQL'
CREATE SOURCE pre (ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '1' DAY)
  FROM FILES ('path' = 'pre.csv', 'mode' = 'once') FORMAT CSV;
CREATE MATERIALIZED VIEW w3 AS
  SELECT tumble(ts, INTERVAL '10' SECOND, INTERVAL '3' SECOND) AS ws, COUNT(*) AS n
  FROM pre GROUP BY tumble(ts, INTERVAL '10' SECOND, INTERVAL '3' SECOND) EMIT ON WINDOW CLOSE;
CREATE MATERIALIZED VIEW w5 AS
  SELECT hop(ts, INTERVAL '10' SECOND, INTERVAL '10' SECOND, INTERVAL '5' SECOND) AS ws, COUNT(*) AS n
  FROM pre GROUP BY hop(ts, INTERVAL '10' SECOND, INTERVAL '10' SECOND, INTERVAL '5' SECOND);
SELECT * FROM w3 ORDER BY ws;
SELECT * FROM w5 ORDER BY ws;
SQL
cat >"$tmp/offset.exp" <<'EXP'
ws,n
1969-12-30T23:59:53,1
1969-12-31T23:59:43,1
1969-12-31T23:59:53,1
ws,n
1969-12-30T23:59:55,1
1969-12-31T23:59:45,1
1969-12-31T23:59:55,1
EXP
check offset

# 2. seznam/euphoria#79, laminardb/laminardb#55: a row (4 s) arriving after
#    0 s and 8 s bridges their sessions (gap 5 s): one row per session,
#    emitted once: [0 s, 13 s) with 3 rows; B at 30 s alone.
printf 'k,v,ts\nA,1,1970-01-01 00:00:00\nA,4,1970-01-01 00:00:08\nA,4,1970-01-01 00:00:04\nB,9,1970-01-01 00:00:30\n' >"$tmp/sess.csv"
cat >"$tmp/session.sql" <<'SQL'
CREATE SOURCE s (k VARCHAR, v BIGINT, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '10' SECOND)
  FROM FILES ('path' = 'sess.csv', 'mode' = 'once') FORMAT CSV;
CREATE MATERIALIZED VIEW ss AS
  SELECT k, session_start(ts, INTERVAL '5' SECOND) AS st, session_end(ts, INTERVAL '5' SECOND) AS en,
         COUNT(*) AS n, SUM(v) AS total, COUNT(DISTINCT v) AS dv
  FROM s GROUP BY k, session(ts, INTERVAL '5' SECOND) EMIT ON WINDOW CLOSE;
SELECT * FROM ss ORDER BY k, st;
SQL
cat >"$tmp/session.exp" <<'EXP'
k,st,en,n,total,dv
A,1970-01-01T00:00:00,1970-01-01T00:00:13,3,9,2
B,1970-01-01T00:00:30,1970-01-01T00:00:35,1,9,1
EXP
check session

# 3. laminardb/laminardb#65, sql-flow#203: a row behind the watermark is
#    dropped, never re-opening or re-emitting its closed window: rows 100 s,
#    250 s, then 50 s (late: the watermark is 250 s). Minutes: [60, 120) 1,
#    [240, 300) 1; the plain count sees 2 rows.
printf 'k,ts\nm,1970-01-01 00:01:40\nm,1970-01-01 00:04:10\nm,1970-01-01 00:00:50\n' >"$tmp/late.csv"
cat >"$tmp/late.sql" <<'SQL'
CREATE SOURCE l (k VARCHAR, ts TIMESTAMP, WATERMARK FOR ts)
  FROM FILES ('path' = 'late.csv', 'mode' = 'once') FORMAT CSV;
CREATE MATERIALIZED VIEW lw AS SELECT k, tumble(ts, INTERVAL '1' MINUTE) AS m, COUNT(*) AS n
  FROM l GROUP BY k, tumble(ts, INTERVAL '1' MINUTE) EMIT ON WINDOW CLOSE;
CREATE MATERIALIZED VIEW lc AS SELECT COUNT(*) AS n FROM l;
SELECT * FROM lw ORDER BY m;
SELECT * FROM lc;
SQL
cat >"$tmp/late.exp" <<'EXP'
k,m,n
m,1970-01-01T00:01:00,1
m,1970-01-01T00:04:00,1
n
2
EXP
check late

# 4. UNION ALL of two files read one after the other (risingwave#10618,
#    hazelcast#21053): the union's watermark is the minimum, so b's rows
#    (3 s, 12 s) are not late after a's 15 s: [0, 10) 1 + 10, [10, 20) 2 + 20.
printf 'k,v,ts\nx,1,1970-01-01 00:00:01\nx,2,1970-01-01 00:00:15\n' >"$tmp/a.csv"
printf 'k,v,ts\nx,10,1970-01-01 00:00:03\nx,20,1970-01-01 00:00:12\n' >"$tmp/b.csv"
cat >"$tmp/union.sql" <<'SQL'
CREATE SOURCE a (k VARCHAR, v BIGINT, ts TIMESTAMP, WATERMARK FOR ts)
  FROM FILES ('path' = 'a.csv', 'mode' = 'once') FORMAT CSV;
CREATE SOURCE b (k VARCHAR, v BIGINT, ts TIMESTAMP, WATERMARK FOR ts)
  FROM FILES ('path' = 'b.csv', 'mode' = 'once') FORMAT CSV;
CREATE STREAM u AS SELECT k, v, ts FROM a UNION ALL SELECT k, v, ts FROM b;
CREATE MATERIALIZED VIEW w AS SELECT k, tumble(ts, INTERVAL '10' SECOND) AS ws, COUNT(*) AS n, SUM(v) AS s
  FROM u GROUP BY k, tumble(ts, INTERVAL '10' SECOND) EMIT ON WINDOW CLOSE;
SELECT * FROM w ORDER BY ws;
SQL
cat >"$tmp/union.exp" <<'EXP'
k,ws,n,s
x,1970-01-01T00:00:00,2,11
x,1970-01-01T00:00:10,2,22
EXP
check union

# 5. risingwave#7412 (SUM FILTER -> 0 instead of NULL after deletes),
#    flink#3733 (MAX after retracting the maximum keeps the 8, not the 5),
#    paimon#2894 (last_value after retracting the last row: the previous).
cat >"$tmp/retract.sql" <<'SQL'
CREATE TABLE t (id INT PRIMARY KEY, g INT, v INT);
CREATE MATERIALIZED VIEW a AS SELECT g, SUM(v) FILTER (WHERE v > 10) AS sf, MAX(v) AS mx,
  last_value(v) AS lv, AVG(v) AS av FROM t GROUP BY g;
INSERT INTO t VALUES (1, 1, 10), (2, 1, 5);
INSERT INTO t VALUES (3, 1, 8);
INSERT INTO t VALUES (4, 1, 11);
DELETE FROM t WHERE id IN (1, 4);
SELECT * FROM a;
SQL
# (AVG of INT is numeric: PostgreSQL prints 13 / 2 as 6.5000000000000000)
cat >"$tmp/retract.exp" <<'EXP'
g,sf,mx,lv,av
1,,8,8,6.5000000000000000
EXP
check retract

exit $fail
