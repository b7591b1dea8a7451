#!/usr/bin/env bash
# The retracting temporal filter (docs/changelog.md, "Temporal filters")
# against PostgreSQL 15: seeded random traces of INSERTs and external
# watermarks into a watermarked source (tests/diff/tfilter_pg.py); after
# every step each materialized view over a temporal filter (lower and
# upper bounds, bands, an aggregate over an EMIT CHANGES stream of one)
# must hold what PostgreSQL returns with now() replaced by the watermark
# floored to the second, over the rows that were not late. Starts a
# throwaway cluster on a Unix socket in a temporary directory
# (tests/lib/pg.sh) and removes it on exit. Skipped (77) without
# PostgreSQL.
#
#   bash tests/cases/temporal_filter_pg.sh BUILD/laminardb   (from the repository root)
#   LM_TFILTER_SEEDS="1 2 3" LM_TFILTER_STEPS=300 to choose the traces; a
#   failing seed is printed, and its .slt kept in $LM_TFILTER_OUT (default:
#   not kept).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pg.sh"
pg_slt_start temporal_filter_pg laminar-tfilterpg "$1"
seeds=${LM_TFILTER_SEEDS:-"1 2 $(date -u +%Y%m%d)"}
steps=${LM_TFILTER_STEPS:-150}
# shellcheck disable=SC2086
pg_trace_seeds tfilter_pg tests/diff/tfilter_pg.py "$steps" "${LM_TFILTER_OUT:-}" \
  "LM_TFILTER_SEEDS=@SEED@ LM_TFILTER_OUT=dir bash $0 $1" $seeds
