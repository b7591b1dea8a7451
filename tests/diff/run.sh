#!/usr/bin/env bash
# Randomized differential test, Laminar vs PostgreSQL 15 (tests/diff/README.md).
# Starts a throwaway PostgreSQL cluster (tests/lib/pg.sh: initdb in a temporary directory,
# listening only on a Unix socket there, fsync off), runs tests/diff/gen.py
# with it, and stops and removes the cluster on exit, even on failure.
#
#   bash tests/diff/run.sh SLT_RUNNER [gen.py options]
#   e.g. bash tests/diff/run.sh build-diff/tests/slt_runner --seed 42 --steps 500
#
# Run from the repository root. Environment: LM_DIFF_ENABLE=feat1,feat2 turns
# on templates behind feature flags; LM_DIFF_SEEDS / LM_DIFF_STEPS override
# the default seed set and steps per seed; LM_DIFF_DATE_SEED=0 drops the
# seed derived from today's date.
set -uo pipefail
if [ $# -lt 1 ]; then
  echo "usage: bash tests/diff/run.sh SLT_RUNNER [gen.py options]" >&2
  exit 2
fi
runner=$(realpath "$1")
shift
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/pg.sh"
pg_require diff_pg
# Debian's python3 (the first python3 on PATH may be another one); stdlib only
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

pg_tmpdir laminar-diffpg
tmp=$pg_dir
pypid=
cleanup() {
  if [ -n "$pypid" ] && kill -0 "$pypid" 2>/dev/null; then
    # interrupted: stop gen.py and what it started (slt_runner, psql)
    kill -TERM $(pgrep -P "$pypid") "$pypid" 2>/dev/null
  fi
  pg_stop
}
trap cleanup EXIT
trap 'exit 130' INT TERM
pg_start diff_pg

# the environment overrides the arguments (the last occurrence wins)
args=()
[ "${LM_DIFF_DATE_SEED:-1}" != 0 ] && args+=(--date-seed)
[ -n "${LM_DIFF_SEEDS:-}" ] && args+=(--seeds "$LM_DIFF_SEEDS")
[ -n "${LM_DIFF_STEPS:-}" ] && args+=(--steps "$LM_DIFF_STEPS")
[ -n "${LM_DIFF_OUT:-}" ] && args+=(--out "$LM_DIFF_OUT")
# in the background + wait, so that INT/TERM run the trap at once
"$PY" "$here/gen.py" --runner "$runner" --pg-host "$tmp" --pg-port 5432 \
  --psql "$PGBIN/psql" "$@" "${args[@]}" &
pypid=$!
wait "$pypid"
rc=$?
pypid=
exit $rc
