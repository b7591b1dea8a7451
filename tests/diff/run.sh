#!/usr/bin/env bash
# Randomized differential test, Laminar vs PostgreSQL 15 (tests/diff/README.md).
# Starts a throwaway PostgreSQL cluster (initdb in a temporary directory,
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
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
if [ ! -x "$PGBIN/postgres" ] || [ ! -x "$PGBIN/psql" ]; then
  echo "diff_pg: SKIP: PostgreSQL 15 is not installed ($PGBIN; scripts/install-deps.sh installs it)"
  exit 77
fi
# Debian's python3 (the first python3 on PATH may be another one); stdlib only
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

tmp=$(mktemp -d /tmp/laminar-diffpg.XXXXXX)
chmod 755 "$tmp"
as_pg=()
if [ "$(id -u)" -eq 0 ]; then
  # PostgreSQL refuses to run as root
  chown postgres: "$tmp"
  as_pg=(runuser -u postgres --)
fi
pypid=
cleanup() {
  if [ -n "$pypid" ] && kill -0 "$pypid" 2>/dev/null; then
    # interrupted: stop gen.py and what it started (slt_runner, psql)
    kill -TERM $(pgrep -P "$pypid") "$pypid" 2>/dev/null
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
  echo "diff_pg: initdb failed:"; cat "$tmp/initdb.log"; exit 1
fi
# only a Unix socket in $tmp, no TCP; nothing needs to survive a crash
if ! "${as_pg[@]}" "$PGBIN/pg_ctl" -D "$tmp/data" -w -t 60 -l "$tmp/pg.log" \
     -o "-c listen_addresses='' -k $tmp -p 5432 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
     start >/dev/null 2>&1; then
  echo "diff_pg: PostgreSQL did not start:"; cat "$tmp/pg.log"; exit 1
fi

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
