#!/usr/bin/env bash
# Arrow interop (issue 3, item 8): Laminar's Arrow IPC reader and writer
# against apache-arrow, the JavaScript implementation (npm, pinned in
# tests/interop/package.json; installed by scripts/install-interop.sh).
# Run from the repository root:  bash tests/cases/interop.sh build/laminardb
#
#  (a) apache-arrow writes fixtures (tests/interop/write_fixtures.mjs: every
#      first type, NULLs, empty strings, zero-length and many batches, sliced
#      arrays, all-NULL columns, NOT NULL fields) as IPC files and streams;
#      `laminardb convert F out.json` must give NDJSON holding every value
#      (check_ndjson.mjs), from paths and from stdin;
#  (b) Laminar writes Arrow that apache-arrow reads back value for value and
#      type for type (read_check.mjs): each fixture converted Arrow -> Arrow
#      (file <-> stream, and to stdout), the fixtures' CSV form converted
#      CSV -> Arrow (types are Laminar's choice there: compared by value),
#      and the fixtures' NDJSON form converted NDJSON -> Arrow likewise;
#  (c) ../shared/data/flights-200k.arrow (written by another implementation)
#      -> CSV by Laminar equals apache-arrow's reading (compare_csv.mjs;
#      arrow_to_csv.mjs prints that reading), and -> NDJSON and -> Arrow
#      stream likewise; the CSV files of ../shared/data go CSV -> Arrow ->
#      (apache-arrow) without a changed value;
#  (d) the other Arrow types (below);
#  (e) SQL FILES sources (FORMAT ARROW_IPC) over apache-arrow's files and
#      streams and flights-200k.arrow, SELECT * compared value by value;
#  (f) message-level custom metadata both ways (batch_metadata.mjs);
#  (g) other type mixes, zero-row batches, all-NULL columns of every type,
#      a stream without batches, both ways, compressed and 64-aligned.
# Until `laminardb convert` exists this prints "interop: SKIPPED" and exits 0.
# Exits nonzero if any check fails, after running them all.
set -uo pipefail
bin=$(realpath "$1")
repo=$(pwd)
js=$repo/tests/interop
data=$repo/../shared/data

probe=$("$bin" convert 2>&1 </dev/null)
if grep -qi "unknown command" <<<"$probe"; then
  echo "interop: SKIPPED (no convert command)"
  exit 0
fi
if ! (cd "$js" && node -e 'require("apache-arrow")') >/dev/null 2>&1; then
  echo "interop: apache-arrow is not installed in tests/interop (run scripts/install-interop.sh)" >&2
  exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fx=$tmp/fixtures out=$tmp/out
mkdir -p "$out"
node "$js/write_fixtures.mjs" "$fx" || { echo "interop: write_fixtures failed" >&2; exit 1; }

fails=0 passes=0
# run DESCRIPTION CMD...: one check; its output is shown only on failure
run() {
  local what=$1; shift
  local log
  if log=$("$@" 2>&1); then
    passes=$((passes + 1))
  else
    fails=$((fails + 1))
    echo "FAIL: $what"
    sed 's/^/    /' <<<"$log" | head -20
  fi
}
names=()
for e in "$fx"/*.expected.json; do
  n=$(basename "$e" .expected.json)
  names+=("$n")
done

# ---- (a) apache-arrow -> Laminar -> NDJSON
for n in "${names[@]}"; do
  e=$fx/$n.expected.json
  for ext in arrow arrows; do
    run "(a) $n.$ext -> NDJSON" bash -c \
      'timeout 120 "$0" convert "$1" "$2" && node "$4/check_ndjson.mjs" "$2" "$3"' \
      "$bin" "$fx/$n.$ext" "$out/$n.$ext.json" "$e" "$js"
  done
  run "(a) $n.arrows on stdin -> NDJSON on stdout" bash -c \
    'timeout 120 "$0" convert --from arrow-stream --to json - - <"$1" >"$2" && node "$4/check_ndjson.mjs" "$2" "$3"' \
    "$bin" "$fx/$n.arrows" "$out/$n.stdin.json" "$e" "$js"
done
run "(a) primitives.arrow (file format) on stdin -> NDJSON" bash -c \
  'timeout 120 "$0" convert --from arrow-file --to json - - <"$1" >"$2" && node "$4/check_ndjson.mjs" "$2" "$3"' \
  "$bin" "$fx/primitives.arrow" "$out/primitives.filestdin.json" "$fx/primitives.expected.json" "$js"
echo "interop (a) apache-arrow -> laminardb -> NDJSON: $passes passed, $fails failed"

# ---- (b) Laminar -> Arrow -> apache-arrow
p0=$passes f0=$fails
for n in "${names[@]}"; do
  e=$fx/$n.expected.json
  # Arrow -> Arrow: types must survive exactly
  run "(b) $n.arrow -> .arrows" bash -c \
    'timeout 120 "$0" convert "$1" "$2" && node "$4/read_check.mjs" --format stream "$2" "$3"' \
    "$bin" "$fx/$n.arrow" "$out/$n.rt.arrows" "$e" "$js"
  run "(b) $n.arrows -> .arrow" bash -c \
    'timeout 120 "$0" convert "$1" "$2" && node "$4/read_check.mjs" --format file "$2" "$3"' \
    "$bin" "$fx/$n.arrows" "$out/$n.rt.arrow" "$e" "$js"
  run "(b) $n.arrow -> arrow-stream on stdout" bash -c \
    'timeout 120 "$0" convert --to arrow-stream "$1" - | node "$3/read_check.mjs" --format stream - "$2"' \
    "$bin" "$fx/$n.arrow" "$e" "$js"
  # CSV -> Arrow: Laminar picks the types; values must be the same
  for ext in arrow arrows; do
    fmt=file; [[ $ext == arrows ]] && fmt=stream
    run "(b) $n.csv -> .$ext" bash -c \
      'timeout 120 "$0" convert "$1" "$2" && node "$4/read_check.mjs" --loose-types --format "$5" "$2" "$3"' \
      "$bin" "$fx/$n.csv" "$out/$n.csv.$ext" "$e" "$js" "$fmt"
  done
  # NDJSON -> Arrow, likewise (NaN/Infinity have no NDJSON form; a file
  # without rows has no columns to infer)
  if [[ $n != float_special && $n != no_batches ]]; then
    node "$js/arrow_to_csv.mjs" --ndjson "$fx/$n.arrow" >"$fx/$n.ndjson"
    run "(b) $n NDJSON -> .arrow" bash -c \
      'timeout 120 "$0" convert --from json "$1" "$2" && node "$4/read_check.mjs" --loose-types --format file "$2" "$3"' \
      "$bin" "$fx/$n.ndjson" "$out/$n.json.arrow" "$e" "$js"
  fi
done
echo "interop (b) laminardb -> Arrow -> apache-arrow: $((passes - p0)) passed, $((fails - f0)) failed"

# ---- (c) flights-200k.arrow and the CSV files of ../shared/data
p0=$passes f0=$fails
flights=$data/flights-200k.arrow
node "$js/arrow_to_csv.mjs" "$flights" >"$out/flights.apache.csv"
node "$js/make_expected.mjs" "$flights" >"$out/flights.expected.json"
run "(c) flights-200k.arrow -> CSV equals apache-arrow's reading" bash -c \
  'timeout 120 "$0" convert "$1" "$2" && node "$3/compare_csv.mjs" "$1" "$2"' \
  "$bin" "$flights" "$out/flights.laminar.csv" "$js"
if [[ -f $out/flights.laminar.csv ]] && cmp -s "$out/flights.apache.csv" "$out/flights.laminar.csv"; then
  echo "interop (c) flights CSV: byte-identical to arrow_to_csv.mjs"
fi
run "(c) flights-200k.arrow -> NDJSON" bash -c \
  'timeout 120 "$0" convert "$1" "$2" && node "$4/check_ndjson.mjs" "$2" "$3"' \
  "$bin" "$flights" "$out/flights.json" "$out/flights.expected.json" "$js"
run "(c) flights-200k.arrow -> .arrows" bash -c \
  'timeout 120 "$0" convert "$1" "$2" && node "$4/read_check.mjs" --format stream "$2" "$3"' \
  "$bin" "$flights" "$out/flights.arrows" "$out/flights.expected.json" "$js"
for csv in "$data"/*.csv; do
  b=$(basename "$csv" .csv)
  run "(c) $b.csv -> .arrow -> apache-arrow equals the CSV" bash -c \
    'timeout 120 "$0" convert "$1" "$2" && node "$3/compare_csv.mjs" "$2" "$1"' \
    "$bin" "$csv" "$out/$b.arrow" "$js"
done
echo "interop (c) flights-200k.arrow and ../shared/data CSV: $((passes - p0)) passed, $((fails - f0)) failed"

# ---- (d) the rest of the Arrow types (tests/interop/types.mjs): unsigned
# ints, Float16, Decimal128, Date32, Time32/64, Duration, Interval
# (MonthDayNano), LargeUtf8, Binary, LargeBinary, FixedSizeBinary, List,
# LargeList, Struct, Dictionary (a delta and a replacement in the stream).
# apache-arrow writes them (nulls, sliced batches); Laminar converts them to
# NDJSON (every value checked) and to Arrow, plain and compressed, which
# apache-arrow reads back (types and values checked). apache-arrow 21's
# compressing writer puts the compressed length where the spec wants the
# uncompressed one, so its compressed files are not read here (Laminar
# rejects them with an error naming the byte); apache-arrow reads
# Laminar's compressed output (its codecs run the zstd / lz4 tools).
p0=$passes f0=$fails
tx=$tmp/types
node "$js/types.mjs" write "$tx" || { echo "interop: types.mjs write failed" >&2; exit 1; }
for n in flat nested dict; do
  for ext in arrow arrows; do
    e=$tx/$n.expected.json
    [[ $n == dict && $ext == arrow ]] && e=$tx/dict_file.expected.json
    run "(d) $n.$ext -> NDJSON" bash -c \
      'timeout 120 "$0" convert "$1" "$2" && node "$4/types.mjs" ndjson "$2" "$3"' \
      "$bin" "$tx/$n.$ext" "$out/t_$n.$ext.json" "$e" "$js"
    for comp in none zstd lz4; do
      copt=(); [[ $comp != none ]] && copt=(--compression "$comp")
      for to in arrow arrows; do
        run "(d) $n.$ext -> .$to ($comp) -> apache-arrow" bash -c \
          'timeout 120 "$0" convert "${@:5}" "$1" "$2" && node "$4/types.mjs" read "$2" "$3"' \
          "$bin" "$tx/$n.$ext" "$out/t_$n.$ext.$comp.$to" "$e" "$js" "${copt[@]}"
      done
    done
  done
done
# a stream whose dictionary is replaced, written as a file: Laminar appends
# the new dictionary as a delta and rebases the indices
run "(d) dict.arrows (replacement) -> .arrow -> apache-arrow" bash -c \
  'timeout 120 "$0" convert "$1" "$2" && node "$4/types.mjs" read "$2" "$3"' \
  "$bin" "$tx/dict.arrows" "$out/t_dict_repl.arrow" "$tx/dict.expected.json" "$js"
echo "interop (d) the other Arrow types: $((passes - p0)) passed, $((fails - f0)) failed"

# ---- (e) SQL FILES sources with FORMAT ARROW_IPC read apache-arrow's files
# and streams, and flights-200k.arrow; `SELECT *` printed as CSV must equal
# apache-arrow's reading value for value (compare_csv.mjs). apache-arrow's
# IPC *file* writer puts the schema only in the footer (no Schema message
# after the magic), so a source must read a file through its footer, not as
# a stream (this failed with "record batch before the Schema message").
p0=$passes f0=$fails
declare -A sqlcols=(
  [csv_basic]="b BOOLEAN, i BIGINT, f DOUBLE, s VARCHAR, ts TIMESTAMP"
  [many_batches]="seq BIGINT, v DOUBLE, x REAL, tag VARCHAR, flag BOOLEAN, ts TIMESTAMP, small SMALLINT"
  [primitives]="b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INTEGER, i64 BIGINT, f32 REAL, f64 DOUBLE, s VARCHAR, n VARCHAR"
  [strings]="s VARCHAR, k INTEGER"
  [timestamps]="ts_s TIMESTAMP, ts_ms TIMESTAMP, ts_us TIMESTAMP, ts_ns TIMESTAMP, ts_s_utc TIMESTAMP, ts_ms_utc TIMESTAMP, ts_us_utc TIMESTAMP, ts_ns_ist TIMESTAMP, ts_us_ny TIMESTAMP"
  [empty_batches]="b BOOLEAN, i64 BIGINT, s VARCHAR, ts TIMESTAMP"
  [flights]="delay SMALLINT, distance SMALLINT, time REAL")
sql_read() { # NAME FILE: SELECT * through a FILES source, compared
  local sql=$out/sql_$1_$(basename "$2").sql
  printf "CREATE SOURCE s (%s) FROM FILES ('path' = '%s', 'mode' = 'once') FORMAT ARROW_IPC;\nSELECT * FROM s;\n" \
    "${sqlcols[$1]}" "$2" >"$sql"
  run "(e) SQL FILES source reads $(basename "$2")" bash -c \
    'timeout 120 "$0" run "$1" --output csv >"$2" && node "$3/compare_csv.mjs" "$4" "$2"' \
    "$bin" "$sql" "$sql.csv" "$js" "$2"
}
for n in csv_basic many_batches primitives strings timestamps empty_batches; do
  sql_read "$n" "$fx/$n.arrow"
  sql_read "$n" "$fx/$n.arrows"
done
sql_read flights "$flights"
echo "interop (e) SQL FILES sources over apache-arrow files: $((passes - p0)) passed, $((fails - f0)) failed"

# ---- (f) message-level custom metadata (Message.custom_metadata; each
# record batch's own map, apache-arrow's RecordBatch.metadata):
# apache-arrow writes three batches (two with metadata) as a file and a
# stream; `laminardb convert` Arrow -> Arrow reads each batch's map and
# writes it back; apache-arrow checks the maps batch by batch
# (tests/interop/batch_metadata.mjs). Control: through NDJSON the maps are
# gone, and the checker must notice.
p0=$passes f0=$fails
bm=$tmp/bm
node "$js/batch_metadata.mjs" write "$bm" || { echo "interop: batch_metadata.mjs write failed" >&2; exit 1; }
for src in bm.arrow bm.arrows; do
  for to in arrow arrows; do
    run "(f) $src -> .$to keeps each batch's metadata" bash -c \
      'timeout 120 "$0" convert "$1" "$2" && node "$3/batch_metadata.mjs" check "$2"' \
      "$bin" "$bm/$src" "$out/bm_$src.$to" "$js"
  done
done
run "(f) bm.arrows over a pipe (stream reader fed from stdin) -> .arrow" bash -c \
  'timeout 120 "$0" convert --from arrow-stream - "$2" <"$1" && node "$3/batch_metadata.mjs" check "$2"' \
  "$bin" "$bm/bm.arrows" "$out/bm_pipe.arrow" "$js"
run "(f) control: metadata lost through NDJSON is detected" bash -c \
  'timeout 120 "$0" convert "$1" "$2.json" && timeout 120 "$0" convert "$2.json" "$2" && ! node "$3/batch_metadata.mjs" check "$2"' \
  "$bin" "$bm/bm.arrow" "$out/bm_lost.arrows" "$js"
echo "interop (f) message custom metadata: $((passes - p0)) passed, $((fails - f0)) failed"

# ---- (g) the checker's mixes (tests/interop/types.mjs: struct of list of
# dictionary, list of struct, large list of large strings,
# FixedSizeBinary(0), Decimal128 scale 0/38, zoned timestamps, Float16,
# int64/uint64 bounds, zero-length values; zero-row batches first, between
# and last; every type all NULL; a schema without batches), written by
# apache-arrow as file and stream: Laminar -> NDJSON checked value by
# value; Laminar -> Arrow (file and stream; plain, ZSTD, LZ4; 8- and
# 64-byte alignment) read back by apache-arrow, types and values. One
# node run checks all outputs of a fixture.
p0=$passes f0=$fails
for n in mix mix_empty all_null mix_none; do
  e=$tx/$n.expected.json
  conv_ok=1 checks=()
  for ext in arrow arrows; do
    timeout 120 "$bin" convert "$tx/$n.$ext" "$out/g_$n.$ext.json" || conv_ok=0
    checks+=("$out/g_$n.$ext.json" "$e")
  done
  run "(g) $n.arrow/.arrows -> NDJSON (every value)" bash -c \
    '(($0)) && node "$1/types.mjs" ndjson "${@:2}"' "$conv_ok" "$js" "${checks[@]}"
  conv_ok=1 checks=() log=$out/g_$n.convert.log
  for ext in arrow arrows; do
    for comp in none zstd lz4; do
      for to in arrow arrows; do
        al=8 # 64-byte alignment for the stream input's outputs
        [[ $ext == arrows && $comp != zstd ]] && al=64
        o=$out/g_$n.$ext.$comp.$al.$to
        timeout 120 "$bin" convert --compression "$comp" --alignment "$al" \
          "$tx/$n.$ext" "$o" 2>>"$log" || conv_ok=0
        checks+=("$o" "$e")
      done
    done
  done
  run "(g) $n -> Arrow file/stream x none/zstd/lz4, align 8/64 -> apache-arrow" bash -c \
    '(($0)) || { cat "$1"; exit 1; }; node "$2/types.mjs" read "${@:3}"' \
    "$conv_ok" "$log" "$js" "${checks[@]}"
done
echo "interop (g) other type mixes, empty batches, all-NULL, no batches: $((passes - p0)) passed, $((fails - f0)) failed"

if ((fails)); then
  echo "interop: $fails of $((passes + fails)) checks FAILED"
  exit 1
fi
echo "interop: all $passes checks OK"
