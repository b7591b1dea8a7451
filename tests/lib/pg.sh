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
