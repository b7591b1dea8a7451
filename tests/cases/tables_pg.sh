#!/usr/bin/env bash
# Tables (docs/tables.md) against PostgreSQL 15: seeded random traces of
# upserts, DELETEs and UPDATEs (tests/diff/tables_pg.py) whose views and
# tables, after every step, must equal what PostgreSQL computes. Starts a
# throwaway cluster on a Unix socket in a temporary directory (as
# tests/diff/run.sh) and removes it on exit. Skipped (77) without PostgreSQL.
#
#   bash tests/cases/tables_pg.sh BUILD/laminardb     (from the repository root)
#   LM_TABLES_SEEDS="1 2 3" LM_TABLES_STEPS=300 to choose the traces; a failing
#   seed is printed, and its .slt kept in $LM_TABLES_OUT (default: not kept).
set -uo pipefail
bin=$(realpath "$1")
runner=$(dirname "$bin")/tests/slt_runner
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
if [ ! -x "$PGBIN/postgres" ] || [ ! -x "$PGBIN/psql" ]; then
  echo "tables_pg: SKIP: PostgreSQL 15 is not installed ($PGBIN)"
  exit 77
fi
[ -x "$runner" ] || { echo "tables_pg: no slt_runner at $runner"; exit 1; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
tmp=$(mktemp -d /tmp/laminar-tablespg.XXXXXX)
chmod 755 "$tmp"
as_pg=()
if [ "$(id -u)" -eq 0 ]; then
  chown postgres: "$tmp"
  as_pg=(runuser -u postgres --)
fi
cleanup() {
  if [ -f "$tmp/data/postmaster.pid" ]; then
    "${as_pg[@]}" "$PGBIN/pg_ctl" -D "$tmp/data" -m immediate -w stop >/dev/null 2>&1
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if ! "${as_pg[@]}" "$PGBIN/initdb" -D "$tmp/data" -U postgres -A trust --no-locale -E UTF8 \
     --no-sync >"$tmp/initdb.log" 2>&1; then
  echo "tables_pg: initdb failed:"; cat "$tmp/initdb.log"; exit 1
fi
if ! "${as_pg[@]}" "$PGBIN/pg_ctl" -D "$tmp/data" -w -t 60 -l "$tmp/pg.log" \
     -o "-c listen_addresses='' -k $tmp -p 5432 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
     start >/dev/null 2>&1; then
  echo "tables_pg: PostgreSQL did not start:"; cat "$tmp/pg.log"; exit 1
fi
psql="${as_pg[*]} $PGBIN/psql -h $tmp -p 5432 -U postgres"
seeds=${LM_TABLES_SEEDS:-"1 2 3 4 5 6 7 8 $(date -u +%Y%m%d)"}
steps=${LM_TABLES_STEPS:-250}
rc=0
for s in $seeds; do
  slt="$tmp/tables_$s.slt"
  if ! "$PY" tests/diff/tables_pg.py --psql "$psql" --seed "$s" --steps "$steps" \
       --slt "$slt"; then
    echo "tables_pg: seed $s: the generator failed"; rc=1; continue
  fi
  if ! "$runner" --quiet "$slt"; then
    echo "tables_pg: FAILED at seed $s (replay: LM_TABLES_SEEDS=$s LM_TABLES_OUT=dir bash $0 $1)"
    [ -n "${LM_TABLES_OUT:-}" ] && mkdir -p "$LM_TABLES_OUT" && cp "$slt" "$LM_TABLES_OUT/"
    rc=1
  fi
done
exit $rc
