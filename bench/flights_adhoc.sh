#!/usr/bin/env bash
# Ad-hoc aggregate queries over the 3 M flights rows (issue 6 item 7):
# Laminar (a TABLE, one thread) beside DuckDB (SET threads = 1) over the same
# rows in the same run; prints one markdown table.
#
#   bash bench/flights_adhoc.sh [BUILD_DIR] [repetitions] [suite]
#
# suite `subquery` runs bench/subquery_adhoc.sql instead: correlated
# subqueries (scalar aggregates, EXISTS, IN / NOT IN) of a 100 K-row t1
# (20 K distinct keys) over a 200 K-row t2, both made here (Python,
# seeded) into BUILD_DIR/subquery-data/.
#
# The parquet file (../shared/data/flights-3m.parquet) is converted to CSV
# with DuckDB (tests/oracle's node package) once, into
# $LM_FLIGHTS_CSV (default BUILD_DIR/flights-3m.csv). Times are the best of
# the repetitions (default 5), wall clock, ms; ratio = DuckDB ms / Laminar ms
# (1.0 = as fast as DuckDB; the target is >= 0.5).
#
# LM_ADHOC_BEFORE=PATH (another build's bench_flights_adhoc, e.g. a copy
# taken before a change) adds its times as a "before" column, from the
# same run; LM_ADHOC_BEFORE_QUERIES="name ..." limits it to those queries
# (the others print "-": per-key subqueries can take minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
reps=${2:-5}
suite=${3:-flights}
parquet=${LM_FLIGHTS_PARQUET:-../shared/data/flights-3m.parquet}
csv=${LM_FLIGHTS_CSV:-$build/flights-3m.csv}
if [ "$suite" = flights ] && [ ! -s "$csv" ]; then
  echo "converting $parquet -> $csv (DuckDB)" >&2
  node tests/oracle/duckdb_query.js "COPY (SELECT date, delay, distance, origin, destination FROM '$parquet') TO '$csv' (HEADER, TIMESTAMPFORMAT '%Y-%m-%dT%H:%M:%S')" >/dev/null
fi
csv=$(realpath -m "$csv")
if [ "$suite" = subquery ]; then
  csv=$(realpath -m "$build/subquery-data")
  export LM_FLIGHTS_ADHOC_SQL=bench/subquery_adhoc.sql
  if [ ! -s "$csv/t2.csv" ]; then
    mkdir -p "$csv"
    /usr/bin/python3 - "$csv" <<'PY'
import random, sys
r = random.Random(7)
with open(sys.argv[1] + "/t1.csv", "w") as f:  # k: 20 K keys, 0.1 % NULL
    f.write("k,x\n")
    for i in range(100000):
        f.write("%s,%d\n" % ("" if i % 1000 == 999 else i % 20000, r.randrange(1000)))
with open(sys.argv[1] + "/t2.csv", "w") as f:  # k in [0, 25 K): 1/5 of t1's keys miss
    f.write("k,v\n")
    for i in range(200000):
        k = "" if i % 997 == 0 else str(r.randrange(25000))
        v = "" if i % 1009 == 0 else str(r.randrange(1000))
        f.write("%s,%s\n" % (k, v))
PY
  fi
fi
lm=$("$build/bench/bench_flights_adhoc" "$csv" "$reps")
dk=$(node bench/flights_adhoc.js "$csv" "$reps")
bf=""
if [ -n "${LM_ADHOC_BEFORE:-}" ]; then
  if [ -n "${LM_ADHOC_BEFORE_QUERIES:-}" ]; then
    for q in $LM_ADHOC_BEFORE_QUERIES; do
      bf+=$("$LM_ADHOC_BEFORE" "$csv" "$reps" "$q" | grep '^result')$'\n'
    done
  else
    bf=$("$LM_ADHOC_BEFORE" "$csv" "$reps")
  fi
fi
/usr/bin/python3 - "$lm" "$dk" "$bf" <<'PY'
import sys
def parse(t):
    res, load = {}, None
    for l in t.splitlines():
        f = l.split()
        if f and f[0] == "load":
            load = (int(f[1]), float(f[2]))
        elif f and f[0] == "result":
            res[f[1]] = (int(f[2]), float(f[3]))
    return load, res
(ll, lm), (dl, dk) = parse(sys.argv[1]), parse(sys.argv[2])
bf = parse(sys.argv[3])[1] if sys.argv[3].strip() else None
if bf is None:
    print("| query | rows | Laminar ms | DuckDB ms | ratio (DuckDB/Laminar) |")
    print("| --- | ---: | ---: | ---: | ---: |")
else:
    print("| query | rows | Laminar ms before | ratio before | Laminar ms | DuckDB ms | ratio (DuckDB/Laminar) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
worst = None
for name, (rows, ms) in lm.items():
    drows, dms = dk.get(name, (None, float("nan")))
    ratio = dms / ms if ms > 0 else float("nan")
    flag = "" if drows == rows else " (DuckDB: %s rows)" % drows
    if bf is None:
        print("| %s | %d%s | %.1f | %.1f | %.2f |" % (name, rows, flag, ms, dms, ratio))
    elif name in bf:
        bms = bf[name][1]
        print("| %s | %d%s | %.1f | %.2f | %.1f | %.1f | %.2f |" % (name, rows, flag, bms, dms / bms, ms, dms, ratio))
    else:
        print("| %s | %d%s | - | - | %.1f | %.1f | %.2f |" % (name, rows, flag, ms, dms, ratio))
    worst = ratio if worst is None or ratio < worst else worst
if bf is None:
    print("| (load, CSV -> table) | %d | %.0f | %.0f | %.2f |" % (ll[0], ll[1], dl[1], dl[1] / ll[1]))
else:
    print("| (load, CSV -> table) | %d | | | %.0f | %.0f | %.2f |" % (ll[0], ll[1], dl[1], dl[1] / ll[1]))
print()
print("worst ratio %.2f (target >= 0.5)" % worst)
PY
