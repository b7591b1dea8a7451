#!/usr/bin/env bash
# UNIQUE constraints and indexes (docs/tables.md) against PostgreSQL 15:
# seeded random traces of upserts, INSERTs, UPDATEs, DELETEs and CREATE /
# DROP INDEX / REINDEX on tables with unique keys (tests/diff/unique_pg.py);
# after every step the tables and a view must equal what PostgreSQL
# computes, and every statement PostgreSQL refuses must be refused with its
# message and DETAIL. Starts a throwaway cluster on a Unix socket in a
# temporary directory (tests/lib/pg.sh) and removes it on exit. Skipped (77)
# without PostgreSQL.
#
#   bash tests/cases/unique_pg.sh BUILD/laminardb     (from the repository root)
#   LM_UNIQUE_SEEDS="1 2 3" LM_UNIQUE_STEPS=300 to choose the traces; a failing
#   seed is printed, and its .slt kept in $LM_UNIQUE_OUT (default: not kept).
set -uo pipefail
bin=$(realpath "$1")
runner=$(dirname "$bin")/tests/slt_runner
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pg.sh"
pg_require unique_pg
[ -x "$runner" ] || { echo "unique_pg: no slt_runner at $runner"; exit 1; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
pg_tmpdir laminar-uniquepg
tmp=$pg_dir
trap pg_stop EXIT
trap 'exit 130' INT TERM
pg_start unique_pg
psql="${as_pg[*]} $PGBIN/psql -h $tmp -p 5432 -U postgres"
seeds=${LM_UNIQUE_SEEDS:-"1 2 $(date -u +%Y%m%d)"}
steps=${LM_UNIQUE_STEPS:-200}
rc=0
for s in $seeds; do
  slt="$tmp/unique_$s.slt"
  if ! "$PY" tests/diff/unique_pg.py --psql "$psql" --seed "$s" --steps "$steps" \
       --slt "$slt"; then
    echo "unique_pg: seed $s: the generator failed"; rc=1; continue
  fi
  if ! "$runner" --quiet "$slt"; then
    echo "unique_pg: FAILED at seed $s (replay: LM_UNIQUE_SEEDS=$s LM_UNIQUE_OUT=dir bash $0 $1)"
    [ -n "${LM_UNIQUE_OUT:-}" ] && mkdir -p "$LM_UNIQUE_OUT" && cp "$slt" "$LM_UNIQUE_OUT/"
    rc=1
  fi
done
exit $rc
