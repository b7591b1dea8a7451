#!/usr/bin/env bash
# Query differential test, Laminar vs PostgreSQL 15 (tests/diff_query/README.md).
# Starts a throwaway PostgreSQL cluster (tests/lib/pg.sh: initdb in a
# temporary directory, a Unix socket only, fsync off), runs gen.py against it
# and SLT_RUNNER, and stops and removes the cluster on exit, even on failure.
#
#   bash tests/diff_query/run.sh SLT_RUNNER [gen.py options]
#   e.g. bash tests/diff_query/run.sh build/tests/slt_runner --seed 42
#
# Environment: LM_DIFF_QUERY_SEEDS=1,2,3 overrides the seeds.
set -uo pipefail
if [ $# -lt 1 ]; then
  echo "usage: bash tests/diff_query/run.sh SLT_RUNNER [gen.py options]" >&2
  exit 2
fi
runner=$(realpath "$1")
shift
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/pg.sh"
pg_require diff_query
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
pg_tmpdir laminar-diffquery-pg
tmp=$pg_dir
pypid=
cleanup() {
  if [ -n "$pypid" ] && kill -0 "$pypid" 2>/dev/null; then
    kill -TERM "$pypid" 2>/dev/null
  fi
  pg_stop
}
trap cleanup EXIT
trap 'exit 130' INT TERM
pg_start diff_query
args=()
[ -n "${LM_DIFF_QUERY_SEEDS:-}" ] && args+=(--seeds "$LM_DIFF_QUERY_SEEDS")
"$PY" "$here/gen.py" --runner "$runner" --pg-host "$tmp" --pg-port 5432 \
  --psql "$PGBIN/psql" "$@" "${args[@]}" &
pypid=$!
wait "$pypid"
rc=$?
pypid=
exit $rc
