#!/usr/bin/env bash
# 'mode' = 'watch': rows appended to a followed CSV file reach a sink while
# laminardb runs, a window closes when the watermark passes its end, and
# SIGINT flushes and exits 0. Waits are bounded polls (at most 10 s each),
# never fixed sleeps that assume a speed.
set -euo pipefail
bin=$(realpath "$1")
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill -9 $pid 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp"
printf 'k,v,ts\na,1,2026-01-01T00:00:01Z\n' >in.csv
cat >watch.sql <<'SQL'
CREATE SOURCE s (k VARCHAR, v BIGINT, ts TIMESTAMP,
                 WATERMARK FOR ts AS ts) FROM FILES ('path' = 'in.csv', 'mode' = 'watch') FORMAT CSV;
CREATE STREAM pass AS SELECT k, v FROM s;
CREATE SINK p FROM pass INTO FILES ('path' = 'pass.csv') FORMAT CSV;
CREATE STREAM win AS SELECT k, tumble(ts, INTERVAL '10' SECOND) AS w, SUM(v) AS sv
    FROM s GROUP BY k, tumble(ts, INTERVAL '10' SECOND) EMIT ON WINDOW CLOSE;
CREATE SINK ws FROM win INTO FILES ('path' = 'win.ndjson') FORMAT JSON;
SQL
"$bin" run watch.sql >out.txt 2>err.txt &
pid=$!
wait_for() { # file, expected line count
  for _ in $(seq 100); do
    [ -f "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ] && return 0
    sleep 0.1
  done
  echo "timed out waiting for $2 lines in $1:"; cat "$1" 2>/dev/null; cat err.txt
  return 1
}
wait_for pass.csv 2 # header + the first row
printf 'a,2,2026-01-01T00:00:12Z\nb,3,2026-01-01T00:00:25Z\n' >>in.csv
wait_for pass.csv 4
# the watermark is now 00:00:25: windows [0,10) and [10,20) have closed
wait_for win.ndjson 2
kill -INT $pid
status=0
wait $pid || status=$?
pid=
[ $status -eq 0 ] || { echo "exit status $status"; cat err.txt; exit 1; }
diff -u - pass.csv <<'EOF2'
k,v
a,1
a,2
b,3
EOF2
diff -u - win.ndjson <<'EOF2'
{"k":"a","w":"2026-01-01T00:00:00","sv":1}
{"k":"a","w":"2026-01-01T00:00:10","sv":2}
EOF2
grep -q "sink p: 3 rows written to pass.csv" err.txt
echo "watch: OK"
