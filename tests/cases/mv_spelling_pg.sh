#!/usr/bin/env bash
# Which of equal values that print differently (jsonb '1' / '1.0', float 0 /
# -0, interval '1 mon' / '30 days') materialized views and ad-hoc GROUP BY
# show after INSERT / UPDATE / DELETE, against PostgreSQL 15: seeded random
# traces (tests/diff/mv_spelling_pg.py) whose views, read as text after
# every step, must equal PostgreSQL's. Starts a throwaway cluster on a Unix
# socket in a temporary directory (tests/lib/pg.sh), removed on exit.
# Skipped (77) without PostgreSQL.
#
#   bash tests/cases/mv_spelling_pg.sh BUILD/laminardb   (from the repository root)
#   LM_SPELL_SEEDS="1 2 3" LM_SPELL_STEPS=30 to choose the traces; a failing
#   seed is printed, and its .slt kept in $LM_SPELL_OUT (default: not kept).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pg.sh"
pg_slt_start mv_spelling_pg laminar-spellpg "$1"
seeds=${LM_SPELL_SEEDS:-"1 2 3 4 5 6 $(date -u +%Y%m%d)"}
steps=${LM_SPELL_STEPS:-30}
# shellcheck disable=SC2086
pg_trace_seeds mv_spelling_pg tests/diff/mv_spelling_pg.py "$steps" \
  "${LM_SPELL_OUT:-}" "LM_SPELL_SEEDS=@SEED@ LM_SPELL_OUT=dir bash $0 $1" $seeds
