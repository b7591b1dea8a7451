#!/usr/bin/env bash
# generate_series throughput, Laminar vs DuckDB single-threaded (issue 6):
# SELECT sum(g) FROM generate_series(1, N) g, run REPS times alternating
# the two; prints each run's wall-clock ms and the medians with rows/s.
# Laminar's time is the whole `laminardb run` process (startup included,
# a few ms); DuckDB's the query alone (bench/srf_series.js).
#
#   bash bench/srf_series.sh BUILD_DIR [N] [REPS]
set -euo pipefail
bin=${1:?usage: srf_series.sh BUILD_DIR [N] [REPS]}/laminardb
n=${2:-100000000}
reps=${3:-5}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
sql=$(mktemp /tmp/srf_series.XXXXXX.sql)
trap 'rm -f "$sql"' EXIT
echo "SELECT sum(g) FROM generate_series(1, $n) g;" >"$sql"
lm=() dk=()
for ((i = 0; i < reps; i++)); do
  t0=$(date +%s%N)
  "$bin" run "$sql" >/dev/null
  lm+=($((($(date +%s%N) - t0) / 1000000)))
  dk+=($(node "$here/srf_series.js" "$n" | awk '{print $3}'))
done
med() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ml=$(med "${lm[@]}") md=$(med "${dk[@]}")
echo "laminar ms: ${lm[*]}  median $ml  ($((n / (ml > 0 ? ml : 1) / 1000)) M rows/s)"
echo "duckdb  ms: ${dk[*]}  median $md  ($((n / (md > 0 ? md : 1) / 1000)) M rows/s)"
