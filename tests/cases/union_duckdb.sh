#!/usr/bin/env bash
# UNION ALL of streams (docs/setops.md, "UNION ALL of streams") against
# DuckDB in batch over the same rows (tests/oracle/duckdb_query.js). Each
# check runs a script with `laminardb run` and compares its last SELECT with
# DuckDB's result as multisets (tests/cases/compare_rows.py). Run from the
# repository root:  bash tests/cases/union_duckdb.sh build/laminardb
#
# The two FILES sources below read the same file one after the other: the
# first is read to its end (its watermark reaches the last flight) before
# the second starts. A window over their union is exact only because the
# union's watermark is the minimum of its inputs' (Spark SPARK-22017,
# Hazelcast hazelcast/hazelcast#21053): with the first input's watermark
# every row of the second would be late.
set -uo pipefail
bin=$(realpath "$1")
repo=$(pwd)
data=../shared/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
oracle="node $repo/tests/oracle/duckdb_query.js"
compare="python3 $repo/tests/cases/compare_rows.py"
fail=0
if [ ! -f "$data/flights-200k.csv" ]; then
  echo "skip: $data/flights-200k.csv not found"; exit 0
fi

SRC() { # SRC NAME: a watermarked source over the flights file
  echo "CREATE SOURCE $1 (ts TIMESTAMP NOT NULL, origin VARCHAR, destination VARCHAR, delay BIGINT, distance BIGINT,
  WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE)
  FROM FILES ('path' = '$data/flights-200k.csv', 'mode' = 'once') FORMAT CSV;"
}
D_FLIGHTS="read_csv('$data/flights-200k.csv', header=true, columns={'ts':'TIMESTAMP','origin':'VARCHAR','destination':'VARCHAR','delay':'BIGINT','distance':'BIGINT'})"

# check NAME KEYS FLOATS LAMINAR_SQL DUCKDB_SQL
check() {
  local name=$1 keys=$2 floats=$3 lsql=$4 dsql=$5
  printf '%s\n' "$lsql" >"$tmp/$name.sql"
  local rc=0
  "$bin" run "$tmp/$name.sql" --output csv >"$tmp/$name.got.csv" 2>"$tmp/$name.err" || rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL $name: laminardb exited $rc:"; cat "$tmp/$name.err"; fail=1; return
  fi
  if ! $oracle "$dsql" >"$tmp/$name.exp.csv" 2>"$tmp/$name.oerr"; then
    echo "FAIL $name: DuckDB failed:"; cat "$tmp/$name.oerr"; fail=1; return
  fi
  local n; n=$(($(wc -l <"$tmp/$name.exp.csv") - 1))
  if [ "$n" -le 0 ]; then echo "FAIL $name: oracle returned no rows"; fail=1; return; fi
  if ! $compare --expected "$tmp/$name.exp.csv" --got "$tmp/$name.got.csv" \
       --keys "$keys" --float "$floats" >"$tmp/$name.diff"; then
    echo "FAIL $name:"; head -20 "$tmp/$name.diff"; fail=1; return
  fi
  echo "ok   $name ($n rows)"
}

# 1. a tumbling window over the union of two inputs read one after the
#    other (EMIT ON WINDOW CLOSE): no row of the second input is late;
#    BIGINT with INTEGER unifies to BIGINT
check union_window w,k,n,total "" \
"$(SRC f1)
$(SRC f2)
CREATE STREAM u AS
  SELECT origin AS k, delay AS v, ts FROM f1 WHERE delay > 60
  UNION ALL
  SELECT destination, CAST(distance AS INT), ts FROM f2 WHERE distance < 300;
CREATE MATERIALIZED VIEW w AS
  SELECT k, tumble(ts, INTERVAL '1' DAY) AS w, COUNT(*) AS n, SUM(v) AS total
  FROM u GROUP BY k, tumble(ts, INTERVAL '1' DAY) EMIT ON WINDOW CLOSE;
SELECT k, w, n, total FROM w;" \
"WITH u AS (SELECT origin AS k, delay AS v, ts FROM $D_FLIGHTS WHERE delay > 60
            UNION ALL SELECT destination, distance, ts FROM $D_FLIGHTS WHERE distance < 300)
 SELECT k, time_bucket(INTERVAL '1 day', ts) AS w, COUNT(*) AS n, SUM(v) AS total
 FROM u GROUP BY k, w"

# 2. an updating operand (an aggregate's changelog) with an append-only
#    one, aggregated again: the weights pass through the union
check union_changelog k,n "" \
"$(SRC f1)
$(SRC f2)
CREATE MATERIALIZED VIEW per_origin AS SELECT origin, COUNT(*) AS n FROM f1 GROUP BY origin;
CREATE MATERIALIZED VIEW u AS
  SELECT origin AS k, n FROM per_origin
  UNION ALL
  SELECT destination, 1 FROM f2 WHERE delay < 0;
CREATE MATERIALIZED VIEW t AS SELECT k, SUM(n) AS n FROM u GROUP BY k;
SELECT k, n FROM t;" \
"WITH u AS (SELECT origin AS k, COUNT(*) AS n FROM $D_FLIGHTS GROUP BY origin
            UNION ALL SELECT destination, 1 FROM $D_FLIGHTS WHERE delay < 0)
 SELECT k, SUM(n) AS n FROM u GROUP BY k"

exit $fail
