#!/usr/bin/env bash
# FORMAT ARROW_IPC in SQL: the flights CSV goes through a stream into two
# Arrow sinks (file format for .arrow, stream format for .arrows); sources
# read both back (one declaring delay as DOUBLE: widening) and the view over
# each must give the acceptance case's top origins (computed by DuckDB).
# The shared flights-200k.arrow (written by another Arrow implementation,
# Int16/Float32 columns) is read with widening to BIGINT/DOUBLE; its totals
# were checked against apache-arrow's reading of the same file
# (tests/cases/interop.sh compares it value by value).
set -euo pipefail
bin=$(realpath "$1")
data=$(realpath ../shared/data)
expected=$(realpath ../shared/cases/flights/top_origins.expected.csv)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat >write.sql <<SQL
CREATE SOURCE flights (ts TIMESTAMP NOT NULL, origin VARCHAR NOT NULL,
    destination VARCHAR NOT NULL, delay BIGINT, distance BIGINT)
  FROM FILES ('path' = '$data/flights-200k.csv', 'mode' = 'once') FORMAT CSV;
CREATE STREAM all_f AS SELECT * FROM flights;
CREATE SINK a FROM all_f INTO FILES ('path' = 'out/f.arrow') FORMAT ARROW_IPC;
CREATE SINK b FROM all_f INTO FILES ('path' = 'out/f.arrows') FORMAT ARROW_IPC;
SQL
"$bin" run write.sql 2>err.txt || { cat err.txt; exit 1; }
grep -q "a: 200000 rows written to out/f.arrow" err.txt
head -c 6 out/f.arrow | grep -q ARROW1 # the file format's magic
for f in f.arrow f.arrows; do
  for t in BIGINT DOUBLE; do
    cat >read.sql <<SQL
CREATE SOURCE fa (ts TIMESTAMP NOT NULL, origin VARCHAR NOT NULL, delay $t,
    WATERMARK FOR ts AS ts - INTERVAL '10' MINUTE)
  FROM FILES ('path' = 'out/$f', 'mode' = 'once') FORMAT ARROW_IPC;
CREATE MATERIALIZED VIEW v AS SELECT origin, COUNT(*) AS flights,
    CAST(SUM(delay) AS BIGINT) AS total_delay FROM fa GROUP BY origin;
SELECT origin, flights, total_delay FROM v ORDER BY flights DESC, origin LIMIT 10;
SQL
    "$bin" run read.sql --output csv >got.csv
    diff -u "$expected" got.csv
    echo "ipc_pipeline: $f as $t OK"
  done
done
# a column missing from the file, and a type that cannot widen, are errors
cat >bad.sql <<SQL
CREATE SOURCE fa (nope BIGINT) FROM FILES ('path' = 'out/f.arrow', 'mode' = 'once') FORMAT ARROW_IPC;
CREATE MATERIALIZED VIEW v AS SELECT COUNT(*) AS n FROM fa;
SELECT * FROM v;
SQL
if "$bin" run bad.sql 2>err.txt; then echo "missing column accepted"; exit 1; fi
grep -q "column 'nope' is not in the file" err.txt
cat >bad2.sql <<SQL
CREATE SOURCE fa (origin BIGINT) FROM FILES ('path' = 'out/f.arrow', 'mode' = 'once') FORMAT ARROW_IPC;
SELECT COUNT(*) FROM fa;
SQL
if "$bin" run bad2.sql 2>err.txt; then echo "VARCHAR read as BIGINT"; exit 1; fi
grep -q "column 'origin' is VARCHAR in the file, declared BIGINT" err.txt
# another implementation's file: Int16 delay/distance, Float32 time
cat >other.sql <<SQL
CREATE SOURCE o (delay BIGINT, distance BIGINT, time DOUBLE)
  FROM FILES ('path' = '$data/flights-200k.arrow', 'mode' = 'once') FORMAT ARROW_IPC;
SELECT COUNT(*) AS n, SUM(delay) AS sd, SUM(distance) AS sdist FROM o;
SQL
"$bin" run other.sql --output csv >got.csv
printf 'n,sd,sdist\n200000,1500159,145847125\n' | diff -u - got.csv
echo "ipc_pipeline: OK"
