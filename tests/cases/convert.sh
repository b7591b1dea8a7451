#!/usr/bin/env bash
# laminardb convert round trips (issue 3): CSV -> Arrow file -> CSV and
# CSV -> Arrow stream -> NDJSON on the shared data keep every value, a
# second round trip is byte-identical, compressed Arrow reads back the same,
# and flights-200k.arrow (written by another implementation) converts to CSV;
# CSV / NDJSON input is streamed with types from a first window of rows;
# every file of ../shared/data goes through Arrow file/stream (each
# compression) and NDJSON without a changed value (section 5).
# Usage: bash tests/cases/convert.sh path/to/laminardb   (from the repo root)
set -euo pipefail
B=${1:-build/laminardb}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
D=../shared/data

# Compares CSV/NDJSON files row by row, in order: text equal, or equal as
# numbers, or equal as timestamps (a trailing Z / +00:00 is the same UTC).
# cmp_rows A B queues the pair; cmp_run compares every queued pair in one
# python run (each file loaded once: the 200,000-row files dominated this
# case's time when every pair started its own python and reloaded them).
cmp_queue=()
cmp_rows() { cmp_queue+=("$1" "$2"); }
cmp_run() {
  ((${#cmp_queue[@]})) || return 0
  python3 - "${cmp_queue[@]}" <<'PY'
import csv, json, sys
from datetime import datetime, timezone
def load(p):
    if p.endswith(".csv"):
        with open(p, newline="") as f:
            return [list(r.values()) for r in csv.DictReader(f)]
    with open(p) as f:
        return [[("" if v is None else (("true" if v else "false") if isinstance(v, bool) else str(v))) for v in json.loads(l).values()] for l in f if l.strip()]
def ts(s):
    try:
        d = datetime.fromisoformat(s.replace("Z", "+00:00"))
        return d if d.tzinfo else d.replace(tzinfo=timezone.utc)
    except ValueError:
        return None
cache = {}
def loaded(p):
    if p not in cache:
        cache[p] = load(p)
    return cache[p]
bad = 0
args = sys.argv[1:]
for k in range(0, len(args), 2):
    a, b = loaded(args[k]), loaded(args[k + 1])
    if len(a) != len(b):
        print(f"{args[k + 1]}: row count {len(b)} != {len(a)} of {args[k]}")
        bad += 1
        continue
    for i, (x, y) in enumerate(zip(a, b)):
        if x == y: continue
        for u, v in zip(x, y):
            if u == v: continue
            # the same UTC instant with and without a Z (fast path)
            if u[-1:] == "Z" and u[:-1] == v or v[-1:] == "Z" and v[:-1] == u: continue
            try:
                if float(u) == float(v): continue
            except ValueError: pass
            if len(u) > 10 and ts(u) is not None and ts(u) == ts(v): continue
            bad += 1
            if bad < 10: print(f"{args[k + 1]}: row {i+1}: {u!r} != {v!r} of {args[k]}")
sys.exit(1 if bad else 0)
PY
  cmp_queue=()
}

for f in flights-200k seattle-weather; do
  "$B" convert "$D/$f.csv" "$T/$f.arrow"
  "$B" convert "$T/$f.arrow" "$T/$f.csv"
  cmp_rows "$D/$f.csv" "$T/$f.csv"
  # second trip is byte-identical
  "$B" convert "$T/$f.csv" "$T/$f.2.arrow"
  "$B" convert "$T/$f.2.arrow" "$T/$f.2.csv"
  diff -q "$T/$f.csv" "$T/$f.2.csv"
  cmp "$T/$f.arrow" "$T/$f.2.arrow"
  # stream via stdin/stdout, then NDJSON
  "$B" convert --to arrow-stream "$D/$f.csv" - > "$T/$f.arrows"
  "$B" convert --from arrow-stream - "$T/$f.json" < "$T/$f.arrows"
  cmp_rows "$D/$f.csv" "$T/$f.json"
  # NDJSON -> Arrow -> CSV gives the same CSV
  "$B" convert "$T/$f.json" "$T/$f.j.arrow"
  "$B" convert "$T/$f.j.arrow" "$T/$f.j.csv"
  cmp_rows "$T/$f.csv" "$T/$f.j.csv"
  for c in zstd lz4; do
    "$B" convert --compression $c "$D/$f.csv" "$T/$f.$c.arrow"
    "$B" convert "$T/$f.$c.arrow" "$T/$f.$c.csv"
    diff -q "$T/$f.csv" "$T/$f.$c.csv"
  done
done
cmp_run

# another implementation's file
"$B" convert "$D/flights-200k.arrow" "$T/fa.csv"
head -1 "$T/fa.csv" | grep -qx 'delay,distance,time'
[[ $(wc -l < "$T/fa.csv") -eq 200001 ]]
# (fa.csv goes through CSV -> Arrow file/stream -> NDJSON -> ... -> CSV in
# section 5, every value compared)

# errors: message, exit 1
head -c 1000 "$D/flights-200k.arrow" > "$T/trunc.arrow"
if "$B" convert "$T/trunc.arrow" "$T/x.csv" 2> "$T/err"; then exit 1; fi
grep -q 'byte ' "$T/err"
if "$B" convert "$D/flights-200k.csv" "$T/x.unknown" 2> "$T/err"; then exit 1; fi
# JSON that is not NDJSON (an array left open at the end of a line, a
# pretty-printed document) is an error, not an endless loop (regression)
printf '{"a":[1,2\n' > "$T/open.json"
printf '{"a":1,"f":[{"x":1},\n{"x":2}]}\n' > "$T/split.json"
for f in open.json split.json; do
  rc=0
  timeout 60 "$B" convert "$T/$f" "$T/x.arrow" 2> "$T/err" || rc=$?
  [[ $rc -eq 1 ]] || { echo "$f: exit $rc, expected 1"; exit 1; }
  grep -q "$f:1: bad JSON value" "$T/err"
done
# a failed conversion leaves an existing OUT as it was and no temporary or
# partial file behind; IN == OUT is refused; (hand-written expectations)
printf '{"a":1}\n{"a":2}\n' > "$T/ok.json"
mkdir "$T/o"
"$B" convert "$T/ok.json" "$T/o/good.arrow"
cp "$T/o/good.arrow" "$T/good.ref"
chmod 640 "$T/o/good.arrow"
if "$B" convert "$T/no_such_file.json" "$T/o/good.arrow" 2> "$T/err"; then exit 1; fi
grep -q 'no_such_file.json' "$T/err"
cmp "$T/o/good.arrow" "$T/good.ref"
printf 'garbage' > "$T/bad.arrow"
if "$B" convert "$T/bad.arrow" "$T/o/good.csv" 2> "$T/err"; then exit 1; fi
[[ ! -e $T/o/good.csv ]]
# a late parse error (after the first batches went out) removes the partial
# output as well (types from row 1: BIGINT; the last row is 'x')
{ echo a; seq 1 300000; echo x; } > "$T/late1.csv"
if "$B" convert --infer-rows 1 "$T/late1.csv" "$T/o/good.arrow" 2> "$T/err"; then exit 1; fi
grep -q "late1.csv:300002:1: expected BIGINT" "$T/err"
cmp "$T/o/good.arrow" "$T/good.ref"
[[ $(ls "$T/o") == good.arrow ]] || { ls -la "$T/o"; exit 1; }
# success replaces OUT, keeping its permission bits (640 set above)
"$B" convert "$T/ok.json" "$T/o/good.arrow"
[[ $(stat -c %a "$T/o/good.arrow") == 640 ]]
# through a symbolic link: the target is replaced, the link stays
ln -s good.arrow "$T/o/link.arrow"
"$B" convert "$T/o/good.arrow" "$T/o/link.csv"
"$B" convert "$T/o/link.csv" "$T/o/link.arrow"
[[ -L $T/o/link.arrow ]]
cmp "$T/o/good.arrow" "$T/good.ref"
printf 'a,b\n1,2\n' > "$T/same.csv"
for o in "$T/same.csv" "$T/./same.csv" "$T/o/../same.csv"; do
  if "$B" convert "$T/same.csv" "$o" 2> "$T/err"; then exit 1; fi
  grep -q 'are the same file' "$T/err"
  [[ $(cat "$T/same.csv") == $'a,b\n1,2' ]]
done
ln "$T/same.csv" "$T/hard.csv"
if "$B" convert "$T/same.csv" "$T/hard.csv" 2> "$T/err"; then exit 1; fi
grep -q 'are the same file' "$T/err"
# outputs that are not regular files are written directly
"$B" convert --to csv "$T/ok.json" /dev/null
[[ -c /dev/null ]]
# an arrow-stream input ends at its end-of-stream marker: /dev/zero starts
# with one (a zero length; no schema, so an error) and is not read on
rc=0
timeout 10 "$B" convert --from arrow-stream /dev/zero "$T/z.csv" 2> "$T/err" || rc=$?
[[ $rc -eq 1 ]] || { echo "/dev/zero: exit $rc, expected 1"; exit 1; }
grep -q 'no Schema message' "$T/err"
# a stream followed by other bytes: the batches before the marker, the rest
# ignored (hand check: the two rows of ok.json)
"$B" convert "$T/ok.json" "$T/ok.arrows"
rc=0
(set +o pipefail; { cat "$T/ok.arrows"; exec cat /dev/zero; } |
  timeout 10 "$B" convert --from arrow-stream - "$T/ok2.json") || rc=$?
[[ $rc -eq 0 ]] || { echo "stream + zeros: exit $rc, expected 0"; exit 1; }
[[ $(cat "$T/ok2.json") == $'{"a":1}\n{"a":2}' ]]
# an empty NDJSON input has no schema: an error naming the file, as for an
# empty CSV
: > "$T/empty.json"
printf '\n\n' > "$T/blank.json"
: > "$T/empty.csv"
for f in empty.json blank.json; do
  if "$B" convert "$T/$f" "$T/e.csv" 2> "$T/err"; then exit 1; fi
  grep -q "$f: no JSON object" "$T/err"
done
if "$B" convert "$T/empty.csv" "$T/e.json" 2> "$T/err"; then exit 1; fi
grep -q "empty.csv: no header line" "$T/err"
[[ ! -e $T/e.csv && ! -e $T/e.json ]]
# streaming CSV / NDJSON input (types inferred from a first window of rows,
# --infer-rows N, default 16384; 0 = every row, the input read whole):
# (1) a value after the window that does not fit the inferred type is an
#     error naming file:line:column, with a hint; with --infer-rows 0 the
#     column is DOUBLE (hand check: rows 1..20000 are integers, row 20001
#     is 1.5, so its line is 20002 counting the header);
{ echo 'a,b'; seq 1 20000 | sed 's/$/,x/'; echo '1.5,y'; } > "$T/late.csv"
if "$B" convert "$T/late.csv" "$T/x.arrows" 2> "$T/err"; then exit 1; fi
grep -q "late.csv:20002:1: expected BIGINT for column 'a', found '1.5'" "$T/err"
grep -q -- "--infer-rows 0" "$T/err"
"$B" convert --infer-rows 0 "$T/late.csv" "$T/late.arrows"
"$B" convert "$T/late.arrows" "$T/late.json"
[[ $(tail -1 "$T/late.json") == '{"a":1.5,"b":"y"}' ]]
[[ $(head -1 "$T/late.json") == '{"a":1.0,"b":"x"}' || $(head -1 "$T/late.json") == '{"a":1,"b":"x"}' ]]
# (2) the same in NDJSON, and a window of 3 lines set by hand
printf '{"k":1}\n{"k":2}\n{"k":3}\n{"k":"four"}\n' > "$T/late.json"
if "$B" convert --infer-rows 3 "$T/late.json" "$T/x.arrows" 2> "$T/err"; then exit 1; fi
grep -q "late.json:4:6: expected BIGINT for column 'k'" "$T/err"
if "$B" convert --infer-rows 0 "$T/late.json" "$T/x.arrows" 2> "$T/err"; then exit 1; fi
grep -q "mixes values of different kinds" "$T/err"
# (3) quoted fields with line breaks across a small window: every window
#     size gives the same output as inferring from every row
printf 'n,s\n1,"a\nb"\n2,"c\n\nd"\n3,plain\n4,"e,""f"""\n' > "$T/q.csv"
"$B" convert --infer-rows 0 "$T/q.csv" "$T/q0.json"
for w in 1 2 3 4 5; do
  "$B" convert --infer-rows $w "$T/q.csv" "$T/q$w.json"
  cmp "$T/q0.json" "$T/q$w.json"
done
# (4) a window smaller than the data on the shared files changes nothing
for f in flights-200k seattle-weather birdstrikes; do
  "$B" convert --infer-rows 0 "$D/$f.csv" "$T/$f.all.arrows"
  "$B" convert "$D/$f.csv" "$T/$f.win.arrows"
  cmp "$T/$f.all.arrows" "$T/$f.win.arrows"
done
for bad in -1 x ''; do
  if "$B" convert --infer-rows "$bad" "$T/q.csv" "$T/x.json" 2> "$T/err"; then exit 1; fi
  grep -q "infer-rows needs a row count" "$T/err"
done
# (5) every file of ../shared/data round-trips without a changed value
#     (tests/cases/convert_roundtrip.py: same column names, rows in order,
#     each value equal as text, number or instant), through the Arrow file
#     and stream formats with each compression and NDJSON:
#     SRC -> .arrow -> .arrows (zstd) -> .arrow (lz4) -> NDJSON
#         -> .arrows -> .arrow (zstd) -> .arrows (lz4, 64-aligned) -> SRC's format;
#     the NDJSON and the final file are compared with SRC.
#     earthquakes.json is GeoJSON (one FeatureCollection), not NDJSON: its
#     features, one per line, are the source (objects are kept as their JSON
#     text). flights-200k.arrow goes through CSV; flights-200k.csv is cut to
#     20,000 rows unless LM_CONVERT_FULL=1; flights-3m.parquet has no
#     reader here (no Parquet support) and is skipped.
python3 -c 'import json,sys; [print(json.dumps(f, separators=(",", ":"))) for f in json.load(open(sys.argv[1]))["features"]]' \
  "$D/earthquakes.json" > "$T/earthquakes.ndjson"
cp "$T/fa.csv" "$T/flights-arrow.csv" # flights-200k.arrow as CSV (above)
rt() { # SRC EXT: the chain above, then the comparison
  local src=$1 x=$2 p=$T/rt_$(basename "$1")
  "$B" convert "$src" "$p.1.arrow"
  "$B" convert --compression zstd "$p.1.arrow" "$p.2.arrows"
  "$B" convert --compression lz4 "$p.2.arrows" "$p.3.arrow"
  "$B" convert "$p.3.arrow" "$p.4.json"
  "$B" convert "$p.4.json" "$p.5.arrows"
  "$B" convert --compression zstd "$p.5.arrows" "$p.6.arrow"
  "$B" convert --compression lz4 --alignment 64 "$p.6.arrow" "$p.7.arrows"
  "$B" convert "$p.7.arrows" "$p.8.$x"
  python3 tests/cases/convert_roundtrip.py "$src" "$p.4.json" "$p.8.$x" ||
    { echo "convert: round trip of $src changed values"; exit 1; }
}
# flights-200k.csv: its first 20,000 rows by default (the whole file is
# converted by sections 1 and 4 already); LM_CONVERT_FULL=1 takes all
for f in "$D"/*.csv; do
  if [[ $(basename "$f") == flights-200k.csv && -z ${LM_CONVERT_FULL:-} ]]; then
    head -20001 "$f" > "$T/flights-20k.csv"
    f=$T/flights-20k.csv
  fi
  rt "$f" csv
done
rt "$T/earthquakes.ndjson" json
rt "$T/flights-arrow.csv" csv
# (5b) the same round trips against DuckDB as the oracle: DuckDB reads each
#      CSV of ../shared/data and Laminar's NDJSON (after the three Arrow
#      steps) and final CSV of it; the same number of rows and no row of
#      one missing from the other (EXCEPT ALL both ways, DuckDB's values
#      and types: "1469.250000" = 1469.25, an instant with or without "Z").
#      Skipped without DuckDB (node tests/oracle).
if node tests/oracle/duckdb_query.js 'select 1' >/dev/null 2>&1; then
  for f in "$D"/*.csv; do
    b=$(basename "$f")
    [[ $b == flights-200k.csv && -z ${LM_CONVERT_FULL:-} ]] && { f=$T/flights-20k.csv; b=flights-20k.csv; }
    p=$T/rt_$b
    got=$(node tests/oracle/duckdb_query.js --no-header "create table s as select * from read_csv('$f');
      create table j as select * from read_json('$p.4.json');
      create table c as select * from read_csv('$p.8.csv');
      select (select count(*) from s) || ' ' || (select count(*) from j) || ' ' || (select count(*) from c) || ' ' ||
        (select count(*) from (select * from s except all select * from j)) + (select count(*) from (select * from j except all select * from s)) +
        (select count(*) from (select * from s except all select * from c)) + (select count(*) from (select * from c except all select * from s))")
    read -r ns nj nc ndiff <<<"$got"
    [[ -n $ns && $ns == "$nj" && $ns == "$nc" && $ndiff == 0 ]] ||
      { echo "convert: DuckDB sees the round trip of $b change: rows $ns/$nj/$nc, $ndiff rows differ ($got)"; exit 1; }
  done
else
  echo "convert: DuckDB (node tests/oracle) not available: round trips not checked against it"
fi
# (6) edge cases of CSV/NDJSON input, against DuckDB where it has an answer
#     (tests/oracle/duckdb_query.js; skipped without it):
#  - empty and repeated CSV header names are named as DuckDB's read_csv
#    names them: `columnN` (0-based position), then `_K` for the K-th
#    repetition ignoring case (a,A,a -> a, A_1, a_2);
#  - integers beyond BIGINT keep every digit (DECIMAL(38,0)) through
#    Arrow and back (hand-written: the text must come back unchanged);
#    DuckDB's read_json reads them as HUGEINT up to 2^64-1 and as DOUBLE
#    above (losing digits), so it is not the oracle for the digits; more
#    than 38 digits is DOUBLE, as in DuckDB.
printf ',x,\n1,2,3\n' > "$T/h1.csv"
printf 'a,,a\n1,2,3\n' > "$T/h2.csv"
printf 'a,A,a,\n1,2,3,4\n' > "$T/h3.csv"
printf 'column1,,x\n1,2,3\n' > "$T/h4.csv"
if node tests/oracle/duckdb_query.js 'select 1' >/dev/null 2>&1; then
  for h in h1 h2 h3 h4; do
    "$B" convert "$T/$h.csv" "$T/$h.arrow"
    "$B" convert "$T/$h.arrow" "$T/$h.out.csv"
    want=$(node tests/oracle/duckdb_query.js "select * from read_csv('$T/$h.csv')")
    [[ $(cat "$T/$h.out.csv") == "$want" ]] ||
      { echo "convert: $h.csv header names differ from DuckDB's:"; cat "$T/$h.out.csv"; echo "$want"; exit 1; }
  done
  printf '{"a":1}\n{"a":1234567890123456789012345678901234567890}\n' > "$T/d39.json"
  [[ $(node tests/oracle/duckdb_query.js "select typeof(a) t from read_json('$T/d39.json') limit 1") == $'t\nDOUBLE' ]]
  "$B" convert "$T/d39.json" "$T/d39.arrow"
  "$B" convert "$T/d39.arrow" "$T/d39.out.json"
  [[ $(tail -1 "$T/d39.out.json") == '{"a":1.2345678901234568e+39}' ]] ||
    { echo "convert: a 40-digit integer: $(tail -1 "$T/d39.out.json")"; exit 1; }
else
  echo "convert: DuckDB (node tests/oracle) not available: header-name checks skipped"
fi
printf '{"a":1,"b":-9223372036854775809}\n{"a":100000000000000000000,"b":18446744073709551615}\n{"a":-99999999999999999999999999999999999999,"b":null}\n' > "$T/big.json"
"$B" convert "$T/big.json" "$T/big.arrows"
"$B" convert "$T/big.arrows" "$T/big.csv"
"$B" convert "$T/big.csv" "$T/big.arrow"
"$B" convert "$T/big.arrow" "$T/big.out.json"
cmp "$T/big.json" "$T/big.out.json" ||
  { echo "convert: integers beyond BIGINT changed:"; cat "$T/big.out.json"; exit 1; }
[[ $(cat "$T/big.csv") == $'a,b\n1,-9223372036854775809\n100000000000000000000,18446744073709551615\n-99999999999999999999999999999999999999,' ]] ||
  { echo "convert: integers beyond BIGINT in CSV:"; cat "$T/big.csv"; exit 1; }
# control: the checker sees one changed value
sed '5s/,\([0-9.]*\)$/,9\1/' "$D/stocks.csv" > "$T/stocks-bad.csv"
if python3 tests/cases/convert_roundtrip.py "$D/stocks.csv" "$T/stocks-bad.csv" >/dev/null; then
  echo "convert: the round-trip checker missed a changed value"; exit 1
fi
echo "convert: ok"
