#!/usr/bin/env bash
# A handful of tests/slt/bugs_joins.slt's cases (join bugs of other engines)
# through `laminardb run` in script mode (the .slt file runs them through
# the embedded API). Watermarks follow the largest time inserted (no
# delay). Expected rows are worked out by hand in the comments (and are the
# same as in bugs_joins.slt); the parenthesized join's are PostgreSQL 15's.
set -euo pipefail
bin=$(realpath "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/q.sql" <<'SQL'
-- B7 (apache/kafka#10462, confluentinc/ksql#1558): a LEFT interval join
-- pads k 2 once, after the right watermark passes 3 s, and never k 1.
CREATE SOURCE kl (k INT, ts TIMESTAMP, WATERMARK FOR ts);
CREATE SOURCE kr (k INT, v VARCHAR, ts TIMESTAMP, WATERMARK FOR ts);
CREATE MATERIALIZED VIEW b7 AS SELECT kl.k, kr.v FROM kl LEFT JOIN kr
  ON kl.k = kr.k AND kr.ts BETWEEN kl.ts AND kl.ts + INTERVAL '3' SECOND;
INSERT INTO kl VALUES (1, TIMESTAMP '1970-01-01 00:00:00'), (2, TIMESTAMP '1970-01-01 00:00:00');
INSERT INTO kr VALUES (1, 'one', TIMESTAMP '1970-01-01 00:00:02');
INSERT INTO kr VALUES (9, 'nine', TIMESTAMP '1970-01-01 00:00:03');
SELECT 'b7a' AS t, k, v FROM b7 ORDER BY k;
INSERT INTO kr VALUES (9, 'nine', TIMESTAMP '1970-01-01 00:00:03.000001');
SELECT 'b7b' AS t, k, v FROM b7 ORDER BY k;
-- B35 (ClickHouse/ClickHouse#115530): an ASOF tolerance is inclusive, a
-- strict one is not. Quote 1 at 0.995 s; trades at 1 s and 1.000001 s.
CREATE SOURCE at3 (k INT, ts TIMESTAMP, WATERMARK FOR ts);
CREATE SOURCE aq3 (k INT, v INT, ts TIMESTAMP, WATERMARK FOR ts);
CREATE MATERIALIZED VIEW b35 AS SELECT aq3.v AS incl FROM at3 LEFT ASOF JOIN aq3
  MATCH_CONDITION(at3.ts >= aq3.ts AND at3.ts - aq3.ts <= INTERVAL '5' MILLISECOND) ON at3.k = aq3.k;
CREATE MATERIALIZED VIEW b35s AS SELECT aq3.v AS strict FROM at3 LEFT ASOF JOIN aq3
  MATCH_CONDITION(at3.ts >= aq3.ts AND at3.ts - aq3.ts < INTERVAL '5' MILLISECOND) ON at3.k = aq3.k;
INSERT INTO aq3 VALUES (1, 1, TIMESTAMP '1970-01-01 00:00:00.995');
INSERT INTO at3 VALUES (1, TIMESTAMP '1970-01-01 00:00:01'), (1, TIMESTAMP '1970-01-01 00:00:01.000001');
INSERT INTO aq3 VALUES (2, 2, TIMESTAMP '1970-01-01 00:00:02');
SELECT 'b35' AS t, COUNT(incl) AS incl, (SELECT COUNT(strict) FROM b35s) AS strict, COUNT(*) AS n FROM b35;
-- B18 (apache/flink#29204, FLINK-40681): the inner side's row replaced,
-- then deleted: the order is NULL-padded again.
CREATE TABLE ords (oid INT PRIMARY KEY, cust VARCHAR);
CREATE TABLE items (iid INT PRIMARY KEY, oid INT, what VARCHAR);
CREATE MATERIALIZED VIEW b18 AS SELECT o.oid, i.what FROM ords o LEFT JOIN items i ON o.oid = i.oid;
INSERT INTO ords VALUES (1, 'ann');
INSERT INTO items VALUES (10, 1, 'x');
INSERT INTO items VALUES (10, 1, 'y');
SELECT 'b18a' AS t, oid, what FROM b18;
DELETE FROM items WHERE iid = 10;
SELECT 'b18b' AS t, oid, what FROM b18;
-- B15 (MaterializeInc/materialize#26352): NULL keys never match.
CREATE TABLE ft (x INT, y INT);
CREATE TABLE dim (id INT PRIMARY KEY, x INT, z INT);
INSERT INTO ft VALUES (1, 5), (2, 7), (NULL, 8);
INSERT INTO dim VALUES (1, 1, 9), (2, NULL, 2), (3, 3, 4);
CREATE MATERIALIZED VIEW b15 AS SELECT ft.y, d1.z AS z1, d2.z AS z2 FROM ft
  LEFT JOIN dim AS d1 ON ft.x = d1.x LEFT JOIN dim AS d2 ON ft.x = d2.x;
SELECT 'b15' AS t, y, z1, z2 FROM b15 ORDER BY y;
-- a parenthesized join on the right (PostgreSQL 15's rows)
SELECT 'par' AS t, ft.y, d1.id, d2.id AS id2 FROM ft LEFT JOIN (dim AS d1 JOIN dim AS d2 ON d1.x = d2.id) ON ft.x = d1.x ORDER BY ft.y;
SQL
"$bin" run "$tmp/q.sql" --output csv >"$tmp/out.csv"
# header lines are the same in every result of a kind; keep the data rows
grep -v '^t,' "$tmp/out.csv" >"$tmp/rows.csv"
cat >"$tmp/want.csv" <<'CSV'
b7a,1,one
b7b,1,one
b7b,2,
b35,1,0,2
b18a,1,y
b18b,1,
b15,5,9,9
b15,7,,
b15,8,,
par,5,1,1
par,7,,
par,8,,
CSV
diff -u "$tmp/want.csv" "$tmp/rows.csv"
# a view over SELECT * with two columns of one name is refused (42701)
cat >"$tmp/dup.sql" <<'SQL'
CREATE TABLE a (k INT, x INT);
CREATE TABLE b (k INT, y INT);
CREATE MATERIALIZED VIEW v AS SELECT * FROM a JOIN b ON a.k = b.k;
SQL
if "$bin" run "$tmp/dup.sql" 2>"$tmp/err.txt"; then
  echo "bugs_joins_run: the duplicate column was accepted" >&2
  exit 1
fi
grep -q "dup.sql:3:31: column \"k\" specified more than once" "$tmp/err.txt" || {
  echo "bugs_joins_run: unexpected error:" >&2
  cat "$tmp/err.txt" >&2
  exit 1
}
echo "bugs_joins_run: ok"
