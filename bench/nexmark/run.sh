#!/usr/bin/env bash
# Nexmark benchmark: every query in bench/nexmark/qN.sql through
# `laminardb bench nexmark` (generator included, output discarded, CPU time),
# and in the same run DuckDB's batch equivalent (bench/nexmark/duckdb/qN.sql)
# over the same events written to CSV (loading not timed; DuckDB threads = 1
# unless DUCKDB_THREADS is set). Laminar is measured twice: generator included
# (the issue's figure: only the columns the query reads are generated) and
# --from-memory (every event generated into memory first, untimed, then the
# query timed over it: DuckDB's footing). DuckDB is timed by CPU time too
# (process.cpuUsage(), threads=1), so the ratios are CPU time per core on
# both sides (DuckDB's wall time is printed beside it: it grows with the
# machine's load). Prints one markdown table with both Laminar columns and
# both ratios. Queries without a
# qN.sql are listed as "not yet: <missing feature>" (bench/nexmark/README.md);
# a qN.sql that Laminar cannot run yet (tried first on 1,000 events) as
# "not yet: <Laminar's error>".
#
#   bench/nexmark/run.sh [events=1000000] [laminardb binary]
#
# On a fresh clone it installs the DuckDB npm oracle (scripts/install-oracle.sh:
# npm ci into tests/oracle, quiet when already there) and, without a binary
# argument, builds laminardb into build-bench (RelWithDebInfo) first.
#
# Environment: NEXMARK_RATE (first-event.rate, default 100000), REPS (best of,
# default 3), DUCKDB_THREADS (default 1), QUERY_TIMEOUT_S (a Laminar run
# longer than this, default 600 s, is reported as not finished), QUERIES
# (e.g. "q5 q7": only those rows; default every query). Timings vary on a
# shared machine: repeat and compare ratios.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
events=${1:-1000000}
bin=${2:-}
# what the run needs, before the long part: node and DuckDB's npm package
command -v node >/dev/null || { echo "run.sh: node (Node.js >= 18) is needed for DuckDB's side" >&2; exit 2; }
bash scripts/install-oracle.sh || { echo "run.sh: scripts/install-oracle.sh failed (npm ci in tests/oracle)" >&2; exit 2; }
if [ -z "$bin" ]; then
  if [ ! -x build-bench/laminardb ]; then
    echo "run.sh: building laminardb into build-bench (RelWithDebInfo; a few minutes the first time)" >&2
  fi
  cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build build-bench -j2 --target laminardb >/dev/null
  bin=build-bench/laminardb
fi
[ -x "$bin" ] || { echo "run.sh: no laminardb binary at $bin" >&2; exit 2; }
bin=$(realpath "$bin")
rate=${NEXMARK_RATE:-100000}
reps=${REPS:-3}
dthreads=${DUCKDB_THREADS:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

runnable=()
declare -A notyet=()
wanted() { [ -z "${QUERIES:-}" ] || [[ " $QUERIES " == *" $1 "* ]]; }
for n in $(seq 0 22); do
  q="q$n"
  wanted "$q" || continue
  [ -f "bench/nexmark/$q.sql" ] || continue
  if err=$("$bin" bench nexmark --query "$q" --events 1000 --rate "$rate" 2>&1 >/dev/null); then
    runnable+=("$q")
  else
    notyet[$q]=$(head -1 <<<"$err" | sed -e 's/^laminardb bench: //' -e 's/|/\\|/g')
  fi
done

# the events, to CSV, for DuckDB (the same generator, the same options)
{
  sed -e "s/\${EVENTS}/$events/g" -e "s/\${RATE}/$rate/g" bench/nexmark/ddl.sql
  for t in person auction bid; do
    echo "CREATE SINK ${t}_file FROM $t INTO FILES ('path' = '$tmp/$t.csv') FORMAT CSV;"
  done
} >"$tmp/write.sql"
"$bin" run "$tmp/write.sql" >"$tmp/write.out" 2>&1 || { cat "$tmp/write.out"; exit 1; }
node bench/nexmark/duckdb_bench.js "$tmp" "$dthreads" "$reps" "${runnable[@]}" >"$tmp/duck.txt"
rm -f "$tmp"/*.csv

echo "Nexmark, $events events, first-event.rate $rate, best of $reps; Laminar: 1 thread," \
  "events/s per core (CPU time), generator included and --from-memory (events generated" \
  "first, not timed); DuckDB: threads=$dthreads, events/s per core (CPU time of the process)" \
  "and by wall time, CSV loaded before timing; ratios = Laminar / DuckDB, CPU time on both sides"
echo
echo "| query | events | Laminar events/s per core (generator included) | DuckDB events/s per core (CPU) | ratio |" \
  "Laminar from memory | ratio (from memory) | DuckDB events/s (wall) | Laminar peak RSS |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in $(seq 0 22); do
  q="q$n"
  wanted "$q" || continue
  if [ ! -f "bench/nexmark/$q.sql" ]; then
    why=$(grep -E "^\| $q \|" bench/nexmark/README.md | awk -F'|' '{gsub(/^ +| +$/, "", $4); print $4}')
    echo "| $q | — | not yet: ${why:-missing feature} | — | — | — | — | — | — |"
    continue
  fi
  if [ -n "${notyet[$q]:-}" ]; then
    echo "| $q | — | not yet: ${notyet[$q]} | — | — | — | — | — | — |"
    continue
  fi
  best=0 rss=0 slow= mbest=0
  for r in $(seq 1 "$reps"); do
    # a query slower than QUERY_TIMEOUT_S (default 600) seconds is reported as such
    if ! line=$(timeout "${QUERY_TIMEOUT_S:-600}" "$bin" bench nexmark --query "$q" \
        --events "$events" --rate "$rate" | grep '^result '); then
      slow=1
      break
    fi
    epc=$(sed -E 's/.*events_per_core_s=([0-9.]+).*/\1/' <<<"$line")
    rs=$(sed -E 's/.*peak_rss_bytes=([0-9]+).*/\1/' <<<"$line")
    if awk "BEGIN{exit !($epc > $best)}"; then best=$epc rss=$rs; fi
    # the same query over events generated into memory first (untimed)
    if line=$(timeout "${QUERY_TIMEOUT_S:-600}" "$bin" bench nexmark --query "$q" \
        --events "$events" --rate "$rate" --from-memory | grep '^result '); then
      epc=$(sed -E 's/.*events_per_core_s=([0-9.]+).*/\1/' <<<"$line")
      if awk "BEGIN{exit !($epc > $mbest)}"; then mbest=$epc; fi
    fi
  done
  if [ -n "$slow" ]; then
    echo "| $q | $events | did not finish in ${QUERY_TIMEOUT_S:-600} s | — | — | — | — | — | — |"
    continue
  fi
  dl=$(grep "query=$q " "$tmp/duck.txt")
  ms=$(sed -E 's/.* ms=([0-9.]+).*/\1/' <<<"$dl")
  cms=$(sed -E 's/.* cpu_ms=([0-9.]+).*/\1/' <<<"$dl")
  awk -v q="$q" -v ev="$events" -v l="$best" -v m="$mbest" -v ms="$ms" -v cms="$cms" \
      -v rss="$rss" 'BEGIN {
    if (cms <= 0) cms = 0.001; # below the resolution of process.cpuUsage()
    d = ev / (cms / 1000); w = ev / (ms / 1000);
    printf "| %s | %d | %.2f M | %.2f M | %.2f | %.2f M | %.2f | %.2f M | %.1f MiB |\n", q, ev,
      l / 1e6, d / 1e6, l / d, m / 1e6, m / d, w / 1e6, rss / 1048576 }'
done
