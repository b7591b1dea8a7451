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
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pg.sh"
pg_slt_start unique_pg laminar-uniquepg "$1"
seeds=${LM_UNIQUE_SEEDS:-"1 2 $(date -u +%Y%m%d)"}
steps=${LM_UNIQUE_STEPS:-200}
# shellcheck disable=SC2086
pg_trace_seeds unique_pg tests/diff/unique_pg.py "$steps" "${LM_UNIQUE_OUT:-}" \
  "LM_UNIQUE_SEEDS=@SEED@ LM_UNIQUE_OUT=dir bash $0 $1" $seeds
