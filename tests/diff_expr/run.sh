#!/usr/bin/env bash
# Expression differential test, Laminar vs PostgreSQL 15 (tests/diff_expr/README.md).
# Starts a throwaway PostgreSQL cluster (initdb in a temporary directory, a
# Unix socket only, fsync off), runs gen.py against it and LAMINARDB, and
# stops and removes the cluster on exit, even on failure.
#
#   bash tests/diff_expr/run.sh LAMINARDB [gen.py options]
#   e.g. bash tests/diff_expr/run.sh build/laminardb --seed 42 --exprs 300
#
# Environment: LM_DIFF_EXPR_SEEDS=1,2,3 overrides the seeds.
set -uo pipefail
if [ $# -lt 1 ]; then
  echo "usage: bash tests/diff_expr/run.sh LAMINARDB [gen.py options]" >&2
  exit 2
fi
lm=$(realpath "$1")
shift
here=$(cd "$(dirname "$0")" && pwd)
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
if [ ! -x "$PGBIN/postgres" ] || [ ! -x "$PGBIN/psql" ]; then
  echo "diff_expr: SKIP: PostgreSQL 15 is not installed ($PGBIN)"
  exit 77
fi
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
tmp=$(mktemp -d /tmp/laminar-diffexpr-pg.XXXXXX)
chmod 755 "$tmp"
as_pg=()
if [ "$(id -u)" -eq 0 ]; then
  chown postgres: "$tmp"
  as_pg=(runuser -u postgres --)
fi
pypid=
cleanup() {
  if [ -n "$pypid" ] && kill -0 "$pypid" 2>/dev/null; then
    kill -TERM "$pypid" 2>/dev/null
  fi
  if [ -f "$tmp/data/postmaster.pid" ]; then
    "${as_pg[@]}" "$PGBIN/pg_ctl" -D "$tmp/data" -m immediate -w stop >/dev/null 2>&1
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if ! "${as_pg[@]}" "$PGBIN/initdb" -D "$tmp/data" -U postgres -A trust --no-locale -E UTF8 \
     --no-sync >"$tmp/initdb.log" 2>&1; then
  echo "diff_expr: initdb failed:"; cat "$tmp/initdb.log"; exit 1
fi
if ! "${as_pg[@]}" "$PGBIN/pg_ctl" -D "$tmp/data" -w -t 60 -l "$tmp/pg.log" \
     -o "-c listen_addresses='' -k $tmp -p 5432 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
     start >/dev/null 2>&1; then
  echo "diff_expr: PostgreSQL did not start:"; cat "$tmp/pg.log"; exit 1
fi
args=()
[ -n "${LM_DIFF_EXPR_SEEDS:-}" ] && args+=(--seeds "$LM_DIFF_EXPR_SEEDS")
"$PY" "$here/gen.py" --laminardb "$lm" --pg-host "$tmp" --pg-port 5432 \
  --psql "$PGBIN/psql" "$@" "${args[@]}" &
pypid=$!
wait "$pypid"
rc=$?
pypid=
exit $rc
