#!/usr/bin/env bash
# Set-returning functions in materialized views over an updating table
# (generate_series, string_to_table, regexp_split_to_table as LATERAL calls
# and in the select list; retractions of every row an old version made)
# against PostgreSQL 15 on random traces (tests/diff/srf_views_pg.py):
# after every step each view equals PostgreSQL's same SELECT over the
# table. Skipped (77) without PostgreSQL.
#
#   bash tests/cases/srf_views_pg.sh BUILD/laminardb
# LM_SRF_SEEDS / LM_SRF_STEPS: other seeds / trace length; LM_SRF_OUT=dir
# keeps the .slt of a failing seed.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pg.sh"
pg_slt_start srf_views_pg laminar-srfpg "$1"
seeds=${LM_SRF_SEEDS:-"1 2 $(date -u +%Y%m%d)"}
steps=${LM_SRF_STEPS:-100}
pg_trace_seeds srf_views_pg tests/diff/srf_views_pg.py "$steps" "${LM_SRF_OUT:-}" \
  "LM_SRF_SEEDS=@SEED@ LM_SRF_OUT=dir bash $0 $1" $seeds
