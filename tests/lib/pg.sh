# A throwaway PostgreSQL 15 cluster for the differential tests: initdb in a
# temporary directory, a Unix socket only (in that directory, port 5432),
# fsync off; stopped and removed on exit, even on failure. Sourced:
#
#   . tests/lib/pg.sh
#   pg_require NAME   exits 77 (skip) unless PostgreSQL 15 is in $PGBIN
#   pg_tmpdir PREFIX  sets pg_dir, a new /tmp/PREFIX.XXXXXX the postgres
#                     user can use, and as_pg, the prefix that runs a
#                     command as that user (when root)
#   pg_start NAME     initdb and start the cluster in $pg_dir; on failure
#                     prints the log and exits 1
#   pg_stop           stops the cluster (if it runs) and removes $pg_dir:
#                     call it from the script's EXIT trap
#
# NAME prefixes the messages.
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
pg_dir=
as_pg=()

pg_require() {
  if [ ! -x "$PGBIN/postgres" ] || [ ! -x "$PGBIN/psql" ]; then
    echo "$1: SKIP: PostgreSQL 15 is not installed ($PGBIN)"
    exit 77
  fi
}

pg_tmpdir() {
  pg_dir=$(mktemp -d "/tmp/$1.XXXXXX")
  chmod 755 "$pg_dir"
  as_pg=()
  if [ "$(id -u)" -eq 0 ]; then
    chown postgres: "$pg_dir"
    as_pg=(runuser -u postgres --)
  fi
}

pg_start() {
  if ! "${as_pg[@]}" "$PGBIN/initdb" -D "$pg_dir/data" -U postgres -A trust --no-locale -E UTF8 \
       --no-sync >"$pg_dir/initdb.log" 2>&1; then
    echo "$1: initdb failed:"; cat "$pg_dir/initdb.log"; exit 1
  fi
  if ! "${as_pg[@]}" "$PGBIN/pg_ctl" -D "$pg_dir/data" -w -t 60 -l "$pg_dir/pg.log" \
       -o "-c listen_addresses='' -k $pg_dir -p 5432 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
       start >/dev/null 2>&1; then
    echo "$1: PostgreSQL did not start:"; cat "$pg_dir/pg.log"; exit 1
  fi
}

pg_stop() {
  [ -n "$pg_dir" ] || return 0
  if [ -f "$pg_dir/data/postmaster.pid" ]; then
    "${as_pg[@]}" "$PGBIN/pg_ctl" -D "$pg_dir/data" -m immediate -w stop >/dev/null 2>&1
  fi
  rm -rf "$pg_dir"
}

# The opening of a case that checks slt files generated from PostgreSQL's
# answers (tests/cases/tables_pg.sh, unique_pg.sh, window_random_pg.sh):
#
#   pg_slt_start NAME PREFIX LAMINARDB
#
# sets runner (the slt_runner beside LAMINARDB), PY (python3), tmp (the
# cluster's directory, from pg_tmpdir PREFIX) and psql (the psql command
# line reaching the cluster), after pg_require NAME (77 without
# PostgreSQL); exits 1 when there is no slt_runner. Installs the EXIT
# trap (pg_stop) and exits 130 on INT/TERM, then starts the cluster.
pg_slt_start() {
  local bin
  bin=$(realpath "$3")
  runner=$(dirname "$bin")/tests/slt_runner
  pg_require "$1"
  [ -x "$runner" ] || { echo "$1: no slt_runner at $runner"; exit 1; }
  PY=/usr/bin/python3
  [ -x "$PY" ] || PY=python3
  pg_tmpdir "$2"
  tmp=$pg_dir
  trap pg_stop EXIT
  trap 'exit 130' INT TERM
  pg_start "$1"
  psql="${as_pg[*]} $PGBIN/psql -h $tmp -p 5432 -U postgres"
}

# The seeds of a trace generator (tests/diff/tables_pg.py, unique_pg.py):
#
#   pg_trace_seeds NAME GEN_PY STEPS KEEP_DIR REPLAY SEED...
#
# per seed: `$PY GEN_PY --psql "$psql" --seed S --steps STEPS --slt F`,
# (F = $tmp/STEM_S.slt, STEM = NAME without _pg), then
# `$runner --quiet F`; a failing seed is printed with REPLAY (the
# command line that replays it, where @SEED@ stands for the seed) and its
# .slt copied to KEEP_DIR when not empty. Returns 1 when any seed failed.
pg_trace_seeds() {
  local name=$1 gen=$2 steps=$3 keep=$4 replay=$5 rc=0 s slt
  shift 5
  for s in "$@"; do
    slt="$tmp/${name%_pg}_$s.slt"
    if ! "$PY" "$gen" --psql "$psql" --seed "$s" --steps "$steps" \
         --slt "$slt"; then
      echo "$name: seed $s: the generator failed"; rc=1; continue
    fi
    if ! "$runner" --quiet "$slt"; then
      echo "$name: FAILED at seed $s (replay: ${replay//@SEED@/$s})"
      [ -n "$keep" ] && mkdir -p "$keep" && cp "$slt" "$keep/"
      rc=1
    fi
  done
  return $rc
}
