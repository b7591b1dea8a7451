#!/usr/bin/env bash
# The expected answers and error messages of tests/slt/views_logical*.slt (CREATE
# VIEW computed when read: ORDER BY / LIMIT, DISTINCT, window functions,
# subqueries, set operations in views; views over views; OR REPLACE; DROP
# dependencies) against PostgreSQL 15, through tests/cases/slt_pg.sh (a
# throwaway cluster; skipped, 77, without PostgreSQL). Records marked
# "# pg: skip" are Laminar-only. The laminardb argument ctest passes is not
# needed.
#
#   bash tests/cases/views_pg.sh     (from the repository root)
set -uo pipefail
shopt -s nullglob
files=(tests/slt/views_logical*.slt)
exec bash "$(dirname "${BASH_SOURCE[0]}")/slt_pg.sh" "${files[@]}"
