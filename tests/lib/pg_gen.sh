# The runner of the generator-driven differential tests against a throwaway
# PostgreSQL 15 (tests/diff_expr/run.sh, tests/diff_query/run.sh). Sourced:
#
#   . tests/lib/pg_gen.sh
#   pg_gen_run NAME GEN_PY SEEDS TARGET_FLAG TARGET [gen.py options]
#
# Exits 77 (skip) unless PostgreSQL 15 is installed; starts a cluster
# (tests/lib/pg.sh: initdb in a temporary directory /tmp/laminar-NAME-pg.*
# with the underscores of NAME dropped, a Unix socket only, fsync off); runs
#   python3 GEN_PY TARGET_FLAG TARGET --pg-host DIR --pg-port 5432
#           --psql PSQL [gen.py options] [--seeds SEEDS]
# (--seeds only when SEEDS is not empty); stops and removes the cluster on
# exit, even on failure or interrupt (the generator is terminated first);
# exits with the generator's status. NAME prefixes the messages.
. "$(dirname "${BASH_SOURCE[0]}")/pg.sh"

pg_gen_pid=

pg_gen_cleanup() {
  if [ -n "$pg_gen_pid" ] && kill -0 "$pg_gen_pid" 2>/dev/null; then
    kill -TERM "$pg_gen_pid" 2>/dev/null
  fi
  pg_stop
}

pg_gen_run() {
  local name=$1 gen=$2 seeds=$3 flag=$4 target=$5
  shift 5
  pg_require "$name"
  local py=/usr/bin/python3
  [ -x "$py" ] || py=python3
  pg_tmpdir "laminar-${name//_/}-pg"
  trap pg_gen_cleanup EXIT
  trap 'exit 130' INT TERM
  pg_start "$name"
  local args=()
  [ -n "$seeds" ] && args+=(--seeds "$seeds")
  "$py" "$gen" "$flag" "$target" --pg-host "$pg_dir" --pg-port 5432 \
    --psql "$PGBIN/psql" "$@" "${args[@]}" &
  pg_gen_pid=$!
  wait "$pg_gen_pid"
  local rc=$?
  pg_gen_pid=
  exit $rc
}
