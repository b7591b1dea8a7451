#!/usr/bin/env bash
# Differential test: the same queries over ../shared/data through Laminar
# (file source read once, materialized view or windowed stream + JSON sink)
# and through DuckDB (tests/oracle/duckdb_query.js); results must be equal as
# multisets (floats within 1e-9 relative, tests/cases/compare_rows.py), or in
# order for ORDER BY ... LIMIT queries. Run from the repository root:
#   bash tests/cases/duckdb_diff.sh build/laminardb
# Exits nonzero on any difference and prints it.
set -uo pipefail
bin=$(realpath "$1")
repo=$(pwd)
data=../shared/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
oracle="node $repo/tests/oracle/duckdb_query.js"
compare="python3 $repo/tests/cases/compare_rows.py"
fail=0

FLIGHTS_SRC="CREATE SOURCE flights (ts TIMESTAMP NOT NULL, origin VARCHAR, destination VARCHAR, delay BIGINT, distance BIGINT)
  FROM FILES ('path' = '$data/flights-200k.csv', 'mode' = 'once') FORMAT CSV;"
FLIGHTS_WM_SRC="CREATE SOURCE flights (ts TIMESTAMP NOT NULL, origin VARCHAR, destination VARCHAR, delay BIGINT, distance BIGINT,
  WATERMARK FOR ts AS ts - INTERVAL '0' SECOND)
  FROM FILES ('path' = '$data/flights-200k.csv', 'mode' = 'once') FORMAT CSV;"
D_FLIGHTS="read_csv('$data/flights-200k.csv', header=true, columns={'ts':'TIMESTAMP','origin':'VARCHAR','destination':'VARCHAR','delay':'BIGINT','distance':'BIGINT'})"
WEATHER_SRC="CREATE SOURCE weather (date VARCHAR, precipitation DOUBLE, temp_max DOUBLE, temp_min DOUBLE, wind DOUBLE, weather VARCHAR)
  FROM FILES ('path' = '$data/seattle-weather.csv', 'mode' = 'once') FORMAT CSV;"
D_WEATHER="read_csv('$data/seattle-weather.csv', header=true, columns={'date':'VARCHAR','precipitation':'DOUBLE','temp_max':'DOUBLE','temp_min':'DOUBLE','wind':'DOUBLE','weather':'VARCHAR'})"
# stocks.csv dates look like 'Jan 1 2000': kept as VARCHAR
STOCKS_SRC="CREATE SOURCE stocks (symbol VARCHAR, date VARCHAR, price DOUBLE)
  FROM FILES ('path' = '$data/stocks.csv', 'mode' = 'once') FORMAT CSV;"
D_STOCKS="read_csv('$data/stocks.csv', header=true, columns={'symbol':'VARCHAR','date':'VARCHAR','price':'DOUBLE'})"
SP_SRC="CREATE SOURCE sp (date VARCHAR, open DOUBLE, high DOUBLE, low DOUBLE, close DOUBLE, adjclose DOUBLE, volume BIGINT)
  FROM FILES ('path' = '$data/sp500-2000.csv', 'mode' = 'once') FORMAT CSV;"
D_SP="read_csv('$data/sp500-2000.csv', header=true, columns={'date':'VARCHAR','open':'DOUBLE','high':'DOUBLE','low':'DOUBLE','close':'DOUBLE','adjclose':'DOUBLE','volume':'BIGINT'})"

# check NAME KEYS FLOATS LAMINAR_SQL DUCKDB_SQL [ordered]
# LAMINAR_SQL's last SELECT (printed as CSV) is compared with DuckDB's result.
check() {
  local name=$1 keys=$2 floats=$3 lsql=$4 dsql=$5 mode=${6:-multiset}
  printf '%s\n' "$lsql" >"$tmp/$name.sql"
  local rc=0
  "$bin" run "$tmp/$name.sql" --output csv >"$tmp/$name.got.csv" 2>"$tmp/$name.err" || rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL $name: laminardb exited $rc:"; cat "$tmp/$name.err"; fail=1; return
  fi
  if ! $oracle "$dsql" >"$tmp/$name.exp.csv" 2>"$tmp/$name.oerr"; then
    echo "FAIL $name: DuckDB failed:"; cat "$tmp/$name.oerr"; fail=1; return
  fi
  compare_files "$name" "$keys" "$floats" "$tmp/$name.exp.csv" "$tmp/$name.got.csv" "$mode"
}

compare_files() {
  local name=$1 keys=$2 floats=$3 exp=$4 got=$5 mode=$6
  local n; n=$(($(wc -l <"$exp") - 1))
  if [ "$n" -le 0 ]; then echo "FAIL $name: oracle returned no rows"; fail=1; return; fi
  if ! $compare --expected "$exp" --got "$got" --keys "$keys" --float "$floats" >"$tmp/$name.diff"; then
    echo "FAIL $name:"; cat "$tmp/$name.diff"; fail=1; return
  fi
  if [ "$mode" = ordered ]; then
    # same multiset; now the order of the key columns must match too
    if ! python3 - "$exp" "$got" "$keys" <<'PY'
import csv, sys
e = list(csv.DictReader(open(sys.argv[1]))); g = list(csv.DictReader(open(sys.argv[2])))
ks = sys.argv[3].split(",")
a = [[r[k] for k in ks] for r in e]; b = [[r[k] for k in ks] for r in g]
if a != b:
    print("order differs:\n expected", a, "\n got     ", b); sys.exit(1)
PY
    then echo "FAIL $name: order"; fail=1; return; fi
  fi
  echo "ok   $name ($n rows)"
}

# 1. filter + projection, many rows (multiset over all columns)
check flights_filter ts,origin,destination,delay,distance "" \
"$FLIGHTS_SRC
CREATE MATERIALIZED VIEW f AS SELECT ts, origin, destination, delay, distance FROM flights
  WHERE delay > 120 AND distance BETWEEN 500 AND 1500 AND origin <> 'ORD';
SELECT * FROM f;" \
"SELECT ts, origin, destination, delay, distance FROM $D_FLIGHTS
  WHERE delay > 120 AND distance BETWEEN 500 AND 1500 AND origin <> 'ORD'"

# 2. GROUP BY with every aggregate
check flights_by_origin origin ad \
"$FLIGHTS_SRC
CREATE MATERIALIZED VIEW bo AS SELECT origin, COUNT(*) AS n, SUM(delay) AS sd, AVG(delay) AS ad,
  MIN(delay) AS mn, MAX(delay) AS mx, MAX(distance) AS md FROM flights GROUP BY origin;
SELECT * FROM bo;" \
"SELECT origin, COUNT(*) AS n, SUM(delay) AS sd, AVG(delay) AS ad, MIN(delay) AS mn,
  MAX(delay) AS mx, MAX(distance) AS md FROM $D_FLIGHTS GROUP BY origin"

# 2b. DISTINCT aggregates, per group and global (ad-hoc over the source)
check flights_distinct origin ad \
"$FLIGHTS_SRC
CREATE MATERIALIZED VIEW dd AS SELECT origin, COUNT(DISTINCT destination) AS dests,
  SUM(DISTINCT distance) AS sd, AVG(DISTINCT delay) AS ad, COUNT(DISTINCT delay) AS cd
  FROM flights GROUP BY origin;
SELECT * FROM dd;" \
"SELECT origin, COUNT(DISTINCT destination) AS dests, SUM(DISTINCT distance) AS sd,
  AVG(DISTINCT delay) AS ad, COUNT(DISTINCT delay) AS cd FROM $D_FLIGHTS GROUP BY origin"

check flights_distinct_global o "" \
"$FLIGHTS_SRC
SELECT COUNT(DISTINCT origin) AS o, COUNT(DISTINCT delay) AS d, COUNT(DISTINCT ts) AS t FROM flights;" \
"SELECT COUNT(DISTINCT origin) AS o, COUNT(DISTINCT delay) AS d, COUNT(DISTINCT ts) AS t FROM $D_FLIGHTS"

# 3. ORDER BY ... LIMIT over a view (ties broken by the second key)
check flights_top_routes origin,destination "" \
"$FLIGHTS_SRC
CREATE MATERIALIZED VIEW r AS SELECT origin, destination, COUNT(*) AS n, SUM(delay) AS sd
  FROM flights GROUP BY origin, destination;
SELECT origin, destination, n, sd FROM r ORDER BY n DESC, origin, destination LIMIT 15;" \
"SELECT origin, destination, COUNT(*) AS n, SUM(delay) AS sd FROM $D_FLIGHTS
  GROUP BY origin, destination ORDER BY n DESC, origin, destination LIMIT 15" ordered

# 4. CASE expression as a grouping key
check flights_case cls ad \
"$FLIGHTS_SRC
CREATE MATERIALIZED VIEW c AS SELECT CASE WHEN delay < 0 THEN 'early' WHEN delay = 0 THEN 'ontime'
  WHEN delay <= 15 THEN 'minor' ELSE 'late' END AS cls, COUNT(*) AS n, SUM(distance) AS sdist, AVG(delay) AS ad
  FROM flights GROUP BY CASE WHEN delay < 0 THEN 'early' WHEN delay = 0 THEN 'ontime'
  WHEN delay <= 15 THEN 'minor' ELSE 'late' END;
SELECT * FROM c;" \
"SELECT CASE WHEN delay < 0 THEN 'early' WHEN delay = 0 THEN 'ontime' WHEN delay <= 15 THEN 'minor'
  ELSE 'late' END AS cls, COUNT(*) AS n, SUM(distance) AS sdist, AVG(delay) AS ad FROM $D_FLIGHTS GROUP BY cls"

# 5. tumbling 6-hour windows with a 2-hour offset, per origin, EMIT ON WINDOW
# CLOSE into a JSON sink (the file is sorted by ts, so a zero-delay watermark
# drops nothing) vs DuckDB time_bucket(width, ts, offset)
sink="$tmp/win.ndjson"
printf '%s\n' "$FLIGHTS_WM_SRC
CREATE STREAM win AS SELECT origin, tumble(ts, INTERVAL '6' HOUR, INTERVAL '2' HOUR) AS w,
  COUNT(*) AS n, AVG(delay) AS ad, MAX(delay) AS mx FROM flights
  GROUP BY origin, tumble(ts, INTERVAL '6' HOUR, INTERVAL '2' HOUR) EMIT ON WINDOW CLOSE;
CREATE SINK win_out FROM win INTO FILES ('path' = '$sink') FORMAT JSON;" >"$tmp/win.sql"
if "$bin" run "$tmp/win.sql" >/dev/null 2>"$tmp/win.err" &&
   $oracle "SELECT origin, time_bucket(INTERVAL '6 hours', ts, INTERVAL '2 hours') AS w, COUNT(*) AS n,
     AVG(delay) AS ad, MAX(delay) AS mx FROM $D_FLIGHTS GROUP BY ALL" >"$tmp/win.exp.csv" 2>"$tmp/win.oerr"; then
  compare_files flights_tumble_6h origin,w ad "$tmp/win.exp.csv" "$sink" multiset
else
  echo "FAIL flights_tumble_6h:"; cat "$tmp/win.err" "$tmp/win.oerr" 2>/dev/null; fail=1
fi

# 6. daily windows over the whole stream, queried from a view
# (tumble needs the source's WATERMARK column; the file is sorted, none is late)
check flights_daily d ad \
"$FLIGHTS_WM_SRC
CREATE MATERIALIZED VIEW dly AS SELECT tumble(ts, INTERVAL '1' DAY) AS d, COUNT(*) AS n,
  SUM(delay) AS sd, AVG(delay) AS ad FROM flights GROUP BY tumble(ts, INTERVAL '1' DAY);
SELECT * FROM dly;" \
"SELECT time_bucket(INTERVAL '1 day', ts) AS d, COUNT(*) AS n, SUM(delay) AS sd, AVG(delay) AS ad
  FROM $D_FLIGHTS GROUP BY d"

# 7. seattle-weather: aggregates over doubles per weather kind
check weather weather sp,atmax,mtmin,mwind \
"$WEATHER_SRC
CREATE MATERIALIZED VIEW w AS SELECT weather, COUNT(*) AS n, SUM(precipitation) AS sp, AVG(temp_max) AS atmax,
  MIN(temp_min) AS mtmin, MAX(wind) AS mwind FROM weather GROUP BY weather;
SELECT * FROM w;" \
"SELECT weather, COUNT(*) AS n, SUM(precipitation) AS sp, AVG(temp_max) AS atmax,
  MIN(temp_min) AS mtmin, MAX(wind) AS mwind FROM $D_WEATHER GROUP BY weather"

# 8. stocks (VARCHAR dates): per symbol, plus a LIKE filter
check stocks symbol ap,mn,mx \
"$STOCKS_SRC
CREATE MATERIALIZED VIEW s AS SELECT symbol, COUNT(*) AS n, AVG(price) AS ap, MIN(price) AS mn, MAX(price) AS mx,
  MIN(date) AS first_str FROM stocks WHERE date LIKE '%200_' GROUP BY symbol;
SELECT * FROM s;" \
"SELECT symbol, COUNT(*) AS n, AVG(price) AS ap, MIN(price) AS mn, MAX(price) AS mx,
  MIN(date) AS first_str FROM $D_STOCKS WHERE date LIKE '%200_' GROUP BY symbol"

# 9. sp500: global aggregate with a filter and arithmetic, BIGINT SUM of volumes
check sp500 n s,ar,mn,mx \
"$SP_SRC
CREATE MATERIALIZED VIEW g AS SELECT COUNT(*) AS n, SUM(volume) AS sv, SUM(close - open) AS s,
  AVG((high - low) / open) AS ar, MIN(low) AS mn, MAX(high) AS mx FROM sp WHERE close > open AND volume > 1000000000;
SELECT * FROM g;" \
"SELECT COUNT(*) AS n, SUM(volume) AS sv, SUM(close - open) AS s, AVG((high - low) / open) AS ar,
  MIN(low) AS mn, MAX(high) AS mx FROM $D_SP WHERE close > open AND volume > 1000000000"

if [ $fail -ne 0 ]; then echo "duckdb_diff: FAILED"; exit 1; fi
echo "duckdb_diff: OK"
