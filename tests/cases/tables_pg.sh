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
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pg.sh"
pg_slt_start tables_pg laminar-tablespg "$1"
seeds=${LM_TABLES_SEEDS:-"1 2 3 4 5 6 7 8 $(date -u +%Y%m%d)"}
steps=${LM_TABLES_STEPS:-250}
# shellcheck disable=SC2086
pg_trace_seeds tables_pg tests/diff/tables_pg.py "$steps" "${LM_TABLES_OUT:-}" \
  "LM_TABLES_SEEDS=@SEED@ LM_TABLES_OUT=dir bash $0 $1" $seeds
