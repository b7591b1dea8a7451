#!/usr/bin/env bash
# The expected answers of tests/slt/window_functions.slt (window functions
# in ad-hoc queries) against PostgreSQL 15: runs every record on a
# throwaway cluster (tests/lib/pg.sh) through tests/cases/slt_pg.py, which
# prints any record whose PostgreSQL answer differs. Skipped (77) without
# PostgreSQL.
#
#   bash tests/cases/window_functions_pg.sh     (from the repository root)
exec bash "$(dirname "${BASH_SOURCE[0]}")/slt_pg.sh" tests/slt/window_functions.slt
