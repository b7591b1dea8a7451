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
#      a stream without batches, both ways, compressed and 64-aligned;
#  (h) dictionary ids and dictionary batches' custom_metadata kept Arrow ->
#      Arrow (dict_ids.mjs);
#  (i) the issue owner's list once more, on fixtures of its own
#      (tests/interop/edge.mjs): Dictionary<LargeUtf8> with Int8 indices,
#      Timestamp and Duration of every unit (zones), Float16, Decimal128(38,
#      s), MonthDayNano, List<Struct<List<Struct>>>, Null children, 70,001
#      rows in batches of 1/65,537/4,463; zero-row batches, no batch, all
#      NULL; apache-arrow's own ZSTD and LZ4 files and streams (its writer
#      puts the compressed length in the prefix, apache/arrow-js#470);
#      read by convert (NDJSON) and by FILES sources (FORMAT ARROW_IPC),
#      and written back by Laminar for apache-arrow.
# Node scripts run batched in one process (tests/interop/run_jobs.mjs);
# LM_INTEROP_TIMES=1 prints where the time goes.
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
fx=$tmp/fixtures out=$tmp/out tx=$tmp/types bm=$tmp/bm di=$tmp/dict_ids ed=$tmp/edge
mkdir -p "$out"

# Every node script runs inside tests/interop/run_jobs.mjs, many per node
# process (a node start with apache-arrow costs ~0.6 s of CPU; one per
# check made this case take minutes). A check is: conversions run by the
# shell now (`check`), then node jobs queued for one run_jobs.mjs call at
# the end (`job`); it passes when its conversions succeeded and every job
# passed. Nothing is dropped: each check verifies what it verified as its
# own node process before.
jobs=$tmp/jobs
: >"$jobs"
ids=() descs=() conv_logs=()
cur=-1 cur_ok=0
# check DESCRIPTION CMD...: a new check; CMD (the conversions) runs now
check() {
  local what=$1 log; shift
  cur=${#ids[@]}
  ids+=("c$cur")
  descs+=("$what")
  if log=$("$@" 2>&1); then
    cur_ok=1
    conv_logs+=("")
  else
    cur_ok=0
    conv_logs+=("${log:-(exit status $?, no output)}")
  fi
}
# job [>OUT] SCRIPT ARG...: a node job of the current check
job() {
  ((cur_ok)) || return 0
  local IFS=$'\t'
  printf 'c%s\t%s\n' "$cur" "$*" >>"$jobs"
}
# prep FILE: runs the jobs in FILE now (fixture writers, expectations)
prep() {
  if ! (cd "$js" && node run_jobs.mjs "$1") >"$1.out" 2>&1; then
    echo "interop: preparing fixtures failed:" >&2
    cat "$1.out" >&2
    exit 1
  fi
}
conv() { timeout 120 "$bin" convert "$@"; }
t0=$EPOCHREALTIME
# mark WHAT: with LM_INTEROP_TIMES=1, the seconds since the start
mark() {
  [[ -n ${LM_INTEROP_TIMES:-} ]] || return 0
  awk -v a="$t0" -v b="$EPOCHREALTIME" -v w="$1" 'BEGIN { printf "interop: %-28s %6.1f s\n", w, b - a }' >&2
}
export -f conv
export bin

mkdir -p "$ed"
printf 'w\twrite_fixtures.mjs\t%s\nw\ttypes.mjs\twrite\t%s\nw\tbatch_metadata.mjs\twrite\t%s\nw\tdict_ids.mjs\twrite\t%s\nw\tedge.mjs\twrite\t%s\n' \
  "$fx" "$tx" "$bm" "$di" "$ed" >"$tmp/prep1"
prep "$tmp/prep1"
names=()
for e in "$fx"/*.expected.json; do
  n=$(basename "$e" .expected.json)
  names+=("$n")
done
flights=$data/flights-200k.arrow
{
  for n in "${names[@]}"; do
    [[ $n == float_special || $n == no_batches ]] ||
      printf 'p\t>%s\tarrow_to_csv.mjs\t--ndjson\t%s\n' "$fx/$n.ndjson" "$fx/$n.arrow"
  done
  printf 'p\t>%s\tarrow_to_csv.mjs\t%s\n' "$out/flights.apache.csv" "$flights"
  printf 'p\t>%s\tmake_expected.mjs\t%s\n' "$out/flights.expected.json" "$flights"
} >"$tmp/prep2"
prep "$tmp/prep2"

mark "prep done"
# ---- (a) apache-arrow -> Laminar -> NDJSON
for n in "${names[@]}"; do
  e=$fx/$n.expected.json
  for ext in arrow arrows; do
    check "(a) $n.$ext -> NDJSON" conv "$fx/$n.$ext" "$out/$n.$ext.json"
    job check_ndjson.mjs "$out/$n.$ext.json" "$e"
  done
  check "(a) $n.arrows on stdin -> NDJSON on stdout" bash -c \
    'conv --from arrow-stream --to json - - <"$1" >"$2"' _ "$fx/$n.arrows" "$out/$n.stdin.json"
  job check_ndjson.mjs "$out/$n.stdin.json" "$e"
done
check "(a) primitives.arrow (file format) on stdin -> NDJSON" bash -c \
  'conv --from arrow-file --to json - - <"$1" >"$2"' _ "$fx/primitives.arrow" "$out/primitives.filestdin.json"
job check_ndjson.mjs "$out/primitives.filestdin.json" "$fx/primitives.expected.json"

mark "(a) converted"
# ---- (b) Laminar -> Arrow -> apache-arrow
for n in "${names[@]}"; do
  e=$fx/$n.expected.json
  # Arrow -> Arrow: types must survive exactly
  check "(b) $n.arrow -> .arrows" conv "$fx/$n.arrow" "$out/$n.rt.arrows"
  job read_check.mjs --format stream "$out/$n.rt.arrows" "$e"
  check "(b) $n.arrows -> .arrow" conv "$fx/$n.arrows" "$out/$n.rt.arrow"
  job read_check.mjs --format file "$out/$n.rt.arrow" "$e"
  # stdout as a pipe (partial writes), kept in a file for the check
  check "(b) $n.arrow -> arrow-stream on stdout (a pipe)" bash -c \
    'set -o pipefail; conv --to arrow-stream "$1" - | cat >"$2"' _ "$fx/$n.arrow" "$out/$n.stdout.arrows"
  job read_check.mjs --format stream "$out/$n.stdout.arrows" "$e"
  # CSV -> Arrow: Laminar picks the types; values must be the same
  for ext in arrow arrows; do
    fmt=file; [[ $ext == arrows ]] && fmt=stream
    check "(b) $n.csv -> .$ext" conv "$fx/$n.csv" "$out/$n.csv.$ext"
    job read_check.mjs --loose-types --format "$fmt" "$out/$n.csv.$ext" "$e"
  done
  # NDJSON -> Arrow, likewise (NaN/Infinity have no NDJSON form; a file
  # without rows has no columns to infer)
  if [[ $n != float_special && $n != no_batches ]]; then
    check "(b) $n NDJSON -> .arrow" conv --from json "$fx/$n.ndjson" "$out/$n.json.arrow"
    job read_check.mjs --loose-types --format file "$out/$n.json.arrow" "$e"
  fi
done

mark "(b) converted"
# ---- (c) flights-200k.arrow and the CSV files of ../shared/data
check "(c) flights-200k.arrow -> CSV equals apache-arrow's reading" conv "$flights" "$out/flights.laminar.csv"
job compare_csv.mjs "$flights" "$out/flights.laminar.csv"
flights_identical=0
cmp -s "$out/flights.apache.csv" "$out/flights.laminar.csv" && flights_identical=1
check "(c) flights-200k.arrow -> NDJSON" conv "$flights" "$out/flights.json"
job check_ndjson.mjs "$out/flights.json" "$out/flights.expected.json"
check "(c) flights-200k.arrow -> .arrows" conv "$flights" "$out/flights.arrows"
job read_check.mjs --format stream "$out/flights.arrows" "$out/flights.expected.json"
for csv in "$data"/*.csv; do
  b=$(basename "$csv" .csv)
  check "(c) $b.csv -> .arrow -> apache-arrow equals the CSV" conv "$csv" "$out/$b.arrow"
  job compare_csv.mjs "$out/$b.arrow" "$csv"
done

mark "(c) converted"
# ---- (d) the rest of the Arrow types (tests/interop/types.mjs): unsigned
# ints, Float16, Decimal128, Date32, Time32/64, Duration, Interval
# (MonthDayNano), LargeUtf8, Binary, LargeBinary, FixedSizeBinary, List,
# LargeList, Struct, Dictionary (a delta and a replacement in the stream).
# apache-arrow writes them (nulls, sliced batches); Laminar converts them to
# NDJSON (every value checked) and to Arrow, plain and compressed, which
# apache-arrow reads back (types and values checked); apache-arrow reads
# Laminar's compressed output (its codecs run the zstd / lz4 tools).
# apache-arrow's own compressed files (its writer puts the compressed
# length where the spec wants the uncompressed one) are read in part (i).
for n in flat nested dict; do
  for ext in arrow arrows; do
    e=$tx/$n.expected.json
    [[ $n == dict && $ext == arrow ]] && e=$tx/dict_file.expected.json
    check "(d) $n.$ext -> NDJSON" conv "$tx/$n.$ext" "$out/t_$n.$ext.json"
    job types.mjs ndjson "$out/t_$n.$ext.json" "$e"
    for comp in none zstd lz4; do
      for to in arrow arrows; do
        o=$out/t_$n.$ext.$comp.$to
        check "(d) $n.$ext -> .$to ($comp) -> apache-arrow" conv --compression "$comp" "$tx/$n.$ext" "$o"
        job types.mjs read "$o" "$e"
      done
    done
  done
done
# Laminar's writer on sliced arrays of every type: `--batch-rows 3` writes
# each batch as zero-copy slices of 3 rows (offsets 3, 6, ...: bitmaps not
# byte-aligned, offsets into values, children and dictionaries), as a file
# and as a stream; apache-arrow reads them back, every value checked
for n in flat nested dict; do
  e=$tx/$n.expected.json
  check "(d) $n.arrows -> sliced batches (--batch-rows 3) .arrow/.arrows -> apache-arrow" bash -c \
    'conv --batch-rows 3 "$1" "$2.arrow" && conv --batch-rows 3 "$1" "$2.arrows"' _ "$tx/$n.arrows" "$out/t_${n}_sliced"
  job types.mjs read "$out/t_${n}_sliced.arrow" "$e" "$out/t_${n}_sliced.arrows" "$e"
done
# a stream whose dictionary is replaced, written as a file: Laminar appends
# the new dictionary as a delta and rebases the indices
check "(d) dict.arrows (replacement) -> .arrow -> apache-arrow" conv "$tx/dict.arrows" "$out/t_dict_repl.arrow"
job types.mjs read "$out/t_dict_repl.arrow" "$tx/dict.expected.json"

mark "(d) converted"
# ---- (e) SQL FILES sources with FORMAT ARROW_IPC read apache-arrow's files
# and streams, and flights-200k.arrow; `SELECT *` printed as CSV must equal
# apache-arrow's reading value for value (compare_csv.mjs). apache-arrow's
# IPC *file* writer puts the schema only in the footer (no Schema message
# after the magic), so a source must read a file through its footer, not as
# a stream (this failed with "record batch before the Schema message").
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
  check "(e) SQL FILES source reads $(basename "$2")" bash -c \
    'timeout 120 "$bin" run "$1" --output csv >"$2"' _ "$sql" "$sql.csv"
  job compare_csv.mjs "$2" "$sql.csv"
}
for n in csv_basic many_batches primitives strings timestamps empty_batches; do
  sql_read "$n" "$fx/$n.arrow"
  sql_read "$n" "$fx/$n.arrows"
done
sql_read flights "$flights"

mark "(e) converted"
# ---- (f) message-level custom metadata (Message.custom_metadata; each
# record batch's own map, apache-arrow's RecordBatch.metadata):
# apache-arrow writes three batches (two with metadata) as a file and a
# stream; `laminardb convert` Arrow -> Arrow reads each batch's map and
# writes it back; apache-arrow checks the maps batch by batch
# (tests/interop/batch_metadata.mjs). Control: through NDJSON the maps are
# gone, and the checker must notice.
for src in bm.arrow bm.arrows; do
  for to in arrow arrows; do
    check "(f) $src -> .$to keeps each batch's metadata" conv "$bm/$src" "$out/bm_$src.$to"
    job batch_metadata.mjs check "$out/bm_$src.$to"
  done
done
check "(f) bm.arrows over a pipe (stream reader fed from stdin) -> .arrow" bash -c \
  'conv --from arrow-stream - "$2" <"$1"' _ "$bm/bm.arrows" "$out/bm_pipe.arrow"
job batch_metadata.mjs check "$out/bm_pipe.arrow"
check "(f) control: metadata lost through NDJSON is detected" bash -c \
  'conv "$1" "$2.json" && conv "$2.json" "$2"' _ "$bm/bm.arrow" "$out/bm_lost.arrows"
job '!batch_metadata.mjs' check "$out/bm_lost.arrows"

mark "(f) converted"
# ---- (g) the checker's mixes (tests/interop/types.mjs: struct of list of
# dictionary, list of struct, large list of large strings,
# FixedSizeBinary(0), Decimal128 scale 0/38, zoned timestamps, Float16,
# int64/uint64 bounds, zero-length values, List<Struct<List<Dictionary>>>,
# Float16 NaN/-0, Decimal128 of precision 1 and 38, timestamps in five more
# zones, negative and extreme MonthDayNano; zero-row batches first, between
# and last; every type all NULL; a schema without batches), written by
# apache-arrow as file and stream: Laminar -> NDJSON checked value by
# value; Laminar -> Arrow (file and stream; plain, ZSTD, LZ4; 8- and
# 64-byte alignment) read back by apache-arrow, types and values.
g_convert() { # SRC OUT: every compression x output format of SRC
  local src=$1 o=$2 ext=${1##*.} comp to al
  for comp in none zstd lz4; do
    for to in arrow arrows; do
      al=8 # 64-byte alignment for the stream input's outputs
      [[ $ext == arrows && $comp != zstd ]] && al=64
      conv --compression "$comp" --alignment "$al" "$src" "$o.$comp.$al.$to" || return 1
    done
  done
}
export -f g_convert
for n in mix mix_empty all_null mix_none; do
  e=$tx/$n.expected.json
  check "(g) $n.arrow/.arrows -> NDJSON (every value)" bash -c \
    'conv "$1.arrow" "$2.arrow.json" && conv "$1.arrows" "$2.arrows.json"' _ "$tx/$n" "$out/g_$n"
  job types.mjs ndjson "$out/g_$n.arrow.json" "$e" "$out/g_$n.arrows.json" "$e"
  for ext in arrow arrows; do
    check "(g) $n.$ext -> Arrow file/stream x none/zstd/lz4, align 8/64 -> apache-arrow" \
      g_convert "$tx/$n.$ext" "$out/g_$n.$ext"
    args=()
    for o in "$out/g_$n.$ext".*.arrow "$out/g_$n.$ext".*.arrows; do
      [[ -e $o ]] && args+=("$o" "$e")
    done
    job types.mjs read "${args[@]}"
  done
  # sliced arrays of every type of the mix on the writing side (--batch-rows
  # 2 and 3: slices at odd and even offsets), apache-arrow reads them back
  [[ $n == mix_none ]] && continue
  check "(g) $n.arrows -> sliced batches (--batch-rows 2, 3) -> apache-arrow" bash -c \
    'conv --batch-rows 2 "$1" "$2.2.arrow" && conv --batch-rows 3 --compression lz4 "$1" "$2.3.arrows"' _ "$tx/$n.arrows" "$out/g_${n}_sliced"
  job types.mjs read "$out/g_${n}_sliced.2.arrow" "$e" "$out/g_${n}_sliced.3.arrows" "$e"
done

mark "(g) converted"

# ---- (h) dictionary ids and the custom_metadata of dictionary batches
# (tests/interop/dict_ids.mjs): apache-arrow writes three dictionary-encoded
# columns with ids 42, 7 (inside a list) and 10^12, as a file and as a
# stream whose DictionaryBatch messages carry {"dict": "id N"}; Laminar
# Arrow -> Arrow must keep the ids (file -> file, stream -> file, stream ->
# stream, over pipes, and its own file -> file) and the maps; apache-arrow
# checks ids, index types, values and (--dict-metadata) each dictionary
# batch's map. Control: through NDJSON the encoding is gone, and the
# checker must notice.
check "(h) apache-arrow stream -> .arrow keeps dictionary ids and dictionary batch metadata" \
  conv "$di/ids.arrows" "$out/h_s.arrow"
job dict_ids.mjs check --dict-metadata "$out/h_s.arrow"
check "(h) apache-arrow stream -> .arrows keeps them" conv "$di/ids.arrows" "$out/h_s.arrows"
job dict_ids.mjs check --dict-metadata "$out/h_s.arrows"
check "(h) apache-arrow file -> .arrow keeps dictionary ids" conv "$di/ids.arrow" "$out/h_f.arrow"
job dict_ids.mjs check "$out/h_f.arrow"
check "(h) Laminar's file -> .arrow (file -> file) keeps them" \
  bash -c 'conv "$1" "$2" && conv "$2" "$3"' _ "$di/ids.arrows" "$out/h_1.arrow" "$out/h_2.arrow"
job dict_ids.mjs check --dict-metadata "$out/h_2.arrow"
check "(h) stream on stdin -> stream on stdout (pipes) keeps them" bash -c \
  'set -o pipefail; conv --from arrow-stream --to arrow-stream - - <"$1" | cat >"$2"' _ "$di/ids.arrows" "$out/h_p.arrows"
job dict_ids.mjs check --dict-metadata "$out/h_p.arrows"
check "(h) control: dictionary ids lost through NDJSON are detected" bash -c \
  'conv "$1" "$2.json" && conv "$2.json" "$2"' _ "$di/ids.arrows" "$out/h_lost.arrow"
job '!dict_ids.mjs' check "$out/h_lost.arrow"
mark "(h) converted"

# ---- (i) tests/interop/edge.mjs: apache-arrow writes each fixture plain,
# ZSTD and LZ4, as file and stream (edge_big: 70,001 rows). Laminar ->
# NDJSON, every value; Laminar -> Arrow (none/zstd/lz4 x file/stream, and
# sliced by --batch-rows) -> apache-arrow, types and values; SELECT * over
# a FILES source (FORMAT ARROW_IPC; types as edge.mjs SQL_TYPES) -> NDJSON,
# every value.
for n in edge edge_empty edge_none edge_null edge_big; do
  e=$ed/$n.expected.json
  for v in "" .zstd .lz4; do
    for ext in arrow arrows; do
      # edge_big (slow to check in JavaScript): three of the six
      [[ $n == edge_big && $v$ext != arrow && $v$ext != .zstd.arrows && $v$ext != .lz4.arrow ]] && continue
      check "(i) apache-arrow's $n$v.$ext -> NDJSON" conv "$ed/$n$v.$ext" "$out/i_$n$v.$ext.json"
      job edge.mjs ndjson "$out/i_$n$v.$ext.json" "$e"
    done
  done
  # Laminar's writing, from apache-arrow's compressed input
  if [[ $n == edge_big ]]; then # two outputs of six
    b=$n.lz4.arrows
    check "(i) $b -> .arrow (none, align 64) and .arrows (zstd) -> apache-arrow" bash -c \
      'conv --alignment 64 "$1" "$2.none.arrow" && conv --compression zstd "$1" "$2.zstd.arrows"' _ "$ed/$b" "$out/i_$b"
    job edge.mjs read "$out/i_$b.none.arrow" "$e" "$out/i_$b.zstd.arrows" "$e"
  else
    for src in "$ed/$n.zstd.arrows" "$ed/$n.lz4.arrow"; do
      b=$(basename "$src")
      check "(i) $b -> Arrow file/stream x none/zstd/lz4 (align 8/64) -> apache-arrow" \
        g_convert "$src" "$out/i_$b"
      args=()
      for o in "$out/i_$b".*.arrow "$out/i_$b".*.arrows; do
        [[ -e $o ]] && args+=("$o" "$e")
      done
      job edge.mjs read "${args[@]}"
    done
  fi
  check "(i) $n.arrows -> sliced batches (--batch-rows 3 / 1000) -> apache-arrow" \
    conv --batch-rows "$([[ $n == edge_big ]] && echo 1000 || echo 3)" "$ed/$n.arrows" "$out/i_${n}_sliced.arrow"
  job edge.mjs read "$out/i_${n}_sliced.arrow" "$e"
  # SQL FILES sources over apache-arrow's plain and compressed files
  srcs=("$ed/$n.arrow" "$ed/$n.zstd.arrows" "$ed/$n.lz4.arrow")
  [[ $n == edge_big ]] && srcs=("$ed/$n.zstd.arrows")
  for src in "${srcs[@]}"; do
    b=$(basename "$src")
    printf "CREATE SOURCE s (%s) FROM FILES ('path' = '%s', 'mode' = 'once') FORMAT ARROW_IPC;\nSELECT * FROM s;\n" \
      "$(cat "$ed/$n.sqlcols")" "$src" >"$out/i_sql_$b.sql"
    check "(i) SQL FILES source (FORMAT ARROW_IPC) reads $b" bash -c \
      'timeout 120 "$bin" run "$1" --output json >"$2"' _ "$out/i_sql_$b.sql" "$out/i_sql_$b.json"
    job edge.mjs sql "$out/i_sql_$b.json" "$e"
  done
done
mark "(i) converted"
# ---- every node check, in one process
(cd "$js" && node run_jobs.mjs "$jobs") >"$tmp/results" 2>"$tmp/results.err"
mark "node checks done"
[[ -n ${LM_INTEROP_TIMES:-} ]] && cat "$tmp"/prep*.out "$tmp/results.err" | grep '^run_jobs:' | sort -k2 -g -r | head -25 >&2
declare -A job_fail
while IFS=$'\t' read -r id st msg; do
  [[ $st == ok ]] && continue
  job_fail[$id]+="${msg:-failed}"$'\n'
done <"$tmp/results"
nres=$(wc -l <"$tmp/results")
njobs=$(wc -l <"$jobs")
if ((nres != njobs)); then
  echo "interop: run_jobs.mjs reported $nres of $njobs jobs:" >&2
  cat "$tmp/results.err" >&2
fi
ran=" $(cut -f1 "$tmp/results" | tr '\n' ' ') "
fails=0 passes=0
declare -A part_pass part_fail
for i in "${!ids[@]}"; do
  id=${ids[$i]} what=${descs[$i]} part=${descs[$i]:1:1}
  msg=${conv_logs[$i]}
  [[ -z $msg ]] && msg=${job_fail[$id]:-}
  # a queued job that never reported (the runner died) fails its check
  if [[ -z $msg ]] && grep -q "^$id"$'\t' "$jobs" && [[ $ran != *" $id "* ]]; then
    msg="run_jobs.mjs did not report this check's job"
  fi
  if [[ -z $msg ]]; then
    passes=$((passes + 1))
    part_pass[$part]=$((${part_pass[$part]:-0} + 1))
  else
    fails=$((fails + 1))
    part_fail[$part]=$((${part_fail[$part]:-0} + 1))
    echo "FAIL: $what"
    sed 's/^/    /; s/ | /\n    /g' <<<"$msg" | head -20
  fi
done
declare -A part_name=(
  [a]="apache-arrow -> laminardb -> NDJSON"
  [b]="laminardb -> Arrow -> apache-arrow"
  [c]="flights-200k.arrow and ../shared/data CSV"
  [d]="the other Arrow types"
  [e]="SQL FILES sources over apache-arrow files"
  [f]="message custom metadata"
  [g]="other type mixes, empty batches, all-NULL, no batches"
  [h]="dictionary ids and dictionary batch metadata"
  [i]="edge.mjs: owner's list, apache-arrow's ZSTD/LZ4, FILES sources")
for p in a b c d e f g h i; do
  echo "interop ($p) ${part_name[$p]}: ${part_pass[$p]:-0} passed, ${part_fail[$p]:-0} failed"
done
((flights_identical)) && echo "interop (c) flights CSV: byte-identical to arrow_to_csv.mjs"

if ((fails)); then
  echo "interop: $fails of $((passes + fails)) checks FAILED"
  exit 1
fi
echo "interop: all $passes checks OK"
