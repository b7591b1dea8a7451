#!/usr/bin/env bash
# Tables (docs/tables.md) against PostgreSQL 15: seeded random traces of
# upserts, DELETEs and UPDATEs (tests/diff/tables_pg.py) whose views and
# tables, after every step, must equal what PostgreSQL computes. Starts a
# throwaway cluster on a Unix socket in a temporary directory
# (tests/lib/pg.sh) and removes it on exit. Skipped (77) without PostgreSQL.
#
#   bash tests/cases/tables_pg.sh BUILD/laminardb     (from the repository root)
#   LM_TABLES_SEEDS="1 2 3" LM_TABLES_STEPS=300 to choose the traces; a failing
#   seed is printed, and its .slt kept in $LM_TABLES_OUT (default: not kept).
set -uo pipefail
bin=$(realpath "$1")
runner=$(dirname "$bin")/tests/slt_runner
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pg.sh"
pg_require tables_pg
[ -x "$runner" ] || { echo "tables_pg: no slt_runner at $runner"; exit 1; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
pg_tmpdir laminar-tablespg
tmp=$pg_dir
trap pg_stop EXIT
trap 'exit 130' INT TERM
pg_start tables_pg
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
