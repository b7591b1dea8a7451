#!/usr/bin/env bash
# The statistical and ordered-set aggregates (docs/aggregates.md) against
# PostgreSQL 15: seeded random tables and queries (tests/diff/
# stat_aggs_pg.py: var / stddev of every integer type and numeric, corr /
# covar / regr_*, bit_and / bit_or / bit_xor, percentile_cont /
# percentile_disc / mode(); grouped, global, empty, one-row, NULL, FILTER,
# DISTINCT). Starts a throwaway cluster on a Unix socket in a temporary
# directory (tests/lib/pg.sh) and removes it on exit. Skipped (77) without
# PostgreSQL.
#
#   bash tests/cases/stat_aggs_pg.sh BUILD/laminardb     (from the repository root)
#   LM_STAT_SEEDS="1 2 3" LM_STAT_STEPS=40 to choose the runs; a failing seed
#   is printed, and its .slt kept in $LM_STAT_OUT (default: not kept).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pg.sh"
pg_slt_start stat_aggs_pg laminar-statpg "$1"
seeds=${LM_STAT_SEEDS:-"1 2 3"}
steps=${LM_STAT_STEPS:-40}
# shellcheck disable=SC2086
pg_trace_seeds stat_aggs_pg tests/diff/stat_aggs_pg.py "$steps" "${LM_STAT_OUT:-}" \
  "LM_STAT_SEEDS=@SEED@ LM_STAT_OUT=dir bash $0 $1" $seeds
