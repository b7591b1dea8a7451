#!/usr/bin/env bash
# SQLite's sqllogictest corpus through `slt_runner --sqllogictest` (engine
# postgresql; docs/slt.md, tests/sqllogictest/README.md): every *.test file
# under DIR, each in its own runner process with a fresh database. Fails only
# when a file passes fewer records than tests/sqllogictest/baseline.txt says,
# so it guards against regressions without pretending the corpus passes.
# Run from the repository root:
#
#   bash tests/sqllogictest/run.sh RUNNER [--update] [--failures OUT.tsv] [DIR]
#
# RUNNER is build*/tests/slt_runner; DIR defaults to
# ../shared/testsuites/sqllogictest (exit 77, skipped, when it is absent).
# --update rewrites the baseline with this run's counts; --failures writes one
# line per failing record (file, line, reason, engine error, first SQL line)
# for tests/sqllogictest/categorize.sh.
#
# A record using more than SLT_RECORD_TIMEOUT_MS of CPU time stops the runner
# (the engine cannot be interrupted mid-statement); the file is then resumed
# after that record (statements before it replayed, queries not), at most
# SLT_MAX_TIMEOUTS times per file (default 3): after that the rest of the file
# is not run, and says so. The limit is 2000 ms for a check but 500 ms for
# --update: a record counted in the baseline took at most a quarter of the
# check's limit, so a machine up to 4 times slower (or a sanitizer build)
# still passes it, and a faster one only passes more.
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: run.sh RUNNER [--update] [--failures OUT.tsv] [DIR]" >&2; exit 2; }
runner=$(realpath "$1")
shift
repo=$(pwd)
base=$repo/tests/sqllogictest/baseline.txt
update=0 tsv=
while [ $# -gt 0 ]; do
  case $1 in
    --update) update=1; shift ;;
    --failures) tsv=$(realpath -m "$2"); shift 2 ;;
    *) break ;;
  esac
done
dir=${1:-../shared/testsuites/sqllogictest}
if [ $update = 1 ]; then
  timeout_ms=${SLT_RECORD_TIMEOUT_MS:-500}
else
  timeout_ms=${SLT_RECORD_TIMEOUT_MS:-2000}
fi
max_stops=${SLT_MAX_TIMEOUTS:-3}
if [ ! -d "$dir" ]; then
  echo "sqllogictest: no corpus at $dir: skipped"
  exit 77
fi
cd "$dir" || exit 2
mapfile -t files < <(find . -name '*.test' | sed 's|^\./||' | LC_ALL=C sort)
[ ${#files[@]} -gt 0 ] || { echo "sqllogictest: no .test files in $dir"; exit 2; }
[ -n "$tsv" ] && : >"$tsv"
fargs=()
[ -n "$tsv" ] && fargs=(--failures "$tsv")

t0=$(date +%s.%N)
regressions=0 T_N=0 T_P=0 T_F=0 T_S=0
newbase=""
for f in "${files[@]}"; do
  N=0 P=0 F=0 S=0 stops=0 resume=0 note="" show=3 halted=""
  while :; do
    args=(--sqllogictest --show "$show" --record-timeout-ms "$timeout_ms" "${fargs[@]}")
    [ "$resume" -gt 0 ] && args+=(--resume-after "$resume")
    out=$("$runner" "${args[@]}" "$f")
    rc=$?
    # the failure details, then the file's summary line (parsed, not printed)
    grep -v -F "$f: " <<<"$out" | grep -v '^$'
    sum=$(grep -F "$f: " <<<"$out" | grep -E ' records, ' | tail -1)
    if [ -z "$sum" ]; then
      note="; the runner ended without a summary (exit $rc)"
      break
    fi
    read -r n p fl s < <(sed -E 's/.*: ([0-9]+) records, ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped.*/\1 \2 \3 \4/' <<<"$sum")
    N=$((N + n)) P=$((P + p)) F=$((F + fl)) S=$((S + s))
    [[ $sum == *"(halted)"* ]] && halted=" (halted)"
    if [ $rc -eq 3 ] && [[ $sum =~ stopped:\ the\ record\ at\ line\ ([0-9]+) ]]; then
      stops=$((stops + 1)) show=0
      if [ $stops -ge "$max_stops" ]; then
        note="; stopped after $stops records ran over $timeout_ms ms of CPU time, the last at line ${BASH_REMATCH[1]}: the rest of the file was not run"
        break
      fi
      resume=${BASH_REMATCH[1]}
      continue
    fi
    [ $stops -gt 0 ] && note="; $stops record(s) ran over $timeout_ms ms of CPU time (counted failed)"
    break
  done
  run=$((P + F))
  pct=$(awk -v p=$P -v r=$run 'BEGIN{printf "%.1f", r ? 100*p/r : 100}')
  echo "$f: $N records, $P passed, $F failed, $S skipped ($pct% of the records run passed)$halted$note"
  T_N=$((T_N + N)) T_P=$((T_P + P)) T_F=$((T_F + F)) T_S=$((T_S + S))
  newbase+="$f $P $F $S"$'\n'
  want=$(awk -v f="$f" '$1 == f {print $2}' "$base" 2>/dev/null)
  if [ -z "$want" ]; then
    [ $update = 1 ] || echo "  (no baseline entry for $f)"
  elif [ "$P" -lt "$want" ]; then
    echo "  REGRESSION: $P passed, the baseline says $want"
    regressions=$((regressions + 1))
  elif [ "$P" -gt "$want" ] && [ $update = 0 ]; then
    echo "  improved: $P passed, the baseline says $want (bash tests/sqllogictest/run.sh RUNNER --update)"
  fi
done
pct=$(awk -v p=$T_P -v r=$((T_P + T_F)) 'BEGIN{printf "%.1f", r ? 100*p/r : 100}')
echo "total: $T_N records, $T_P passed, $T_F failed, $T_S skipped ($pct% of the records run passed)"
echo "sqllogictest: $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s"
if [ $update = 1 ]; then
  {
    echo "# sqllogictest corpus baseline (tests/sqllogictest/run.sh --update): file passed failed skipped."
    echo "# The ctest sqllogictest.corpus fails when a file passes fewer records than this."
    printf '%s' "$newbase"
  } >"$base"
  echo "wrote $base"
  exit 0
fi
[ $regressions -eq 0 ]
