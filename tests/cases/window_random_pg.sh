#!/usr/bin/env bash
# Random window-function queries (tests/diff/window_random_pg.py) against
# PostgreSQL 15: each seed's queries get PostgreSQL's answers on a
# throwaway cluster (tests/lib/pg.sh), then slt_runner must give the same.
# Skipped (77) without PostgreSQL.
#
#   bash tests/cases/window_random_pg.sh BUILD/laminardb   (from the repository root)
#   LM_WINDOW_SEEDS="1 2" LM_WINDOW_QUERIES=300 choose the runs; a failing
#   seed is printed with the command that replays it.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pg.sh"
pg_slt_start window_random_pg laminar-winpg "$1"
seeds=${LM_WINDOW_SEEDS:-"1 $(date -u +%Y%m%d)"}
queries=${LM_WINDOW_QUERIES:-120}
rc=0
for s in $seeds; do
  slt="$tmp/window_$s.slt"
  if ! "$PY" tests/diff/window_random_pg.py --psql "$psql" --seed "$s" \
       --queries "$queries" --slt "$slt"; then
    echo "window_random_pg: seed $s: the generator failed"; rc=1; continue
  fi
  if ! "$runner" --quiet "$slt"; then
    "$runner" "$slt" 2>&1 | head -40
    echo "window_random_pg: FAILED at seed $s (replay: LM_WINDOW_SEEDS=$s bash $0 $1)"
    rc=1
  fi
done
exit $rc
