#!/usr/bin/env bash
# The expected answers of tests/slt/subqueries*.slt (subquery expressions:
# scalar, EXISTS, IN, ANY / ALL, correlated) against PostgreSQL 15, through
# tests/cases/slt_pg.sh (a throwaway cluster; skipped, 77, without
# PostgreSQL). The laminardb argument ctest passes is not needed.
#
#   bash tests/cases/subqueries_pg.sh     (from the repository root)
set -uo pipefail
shopt -s nullglob
files=(tests/slt/subqueries*.slt)
exec bash "$(dirname "${BASH_SOURCE[0]}")/slt_pg.sh" "${files[@]}"
