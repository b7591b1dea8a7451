#!/usr/bin/env bash
# Errors against PostgreSQL 15 (issue 6): every record of
# tests/cases/errors_pg.sql runs through Laminar (tests/err_probe.c, one
# fresh database per record) and through a throwaway PostgreSQL cluster
# (tests/lib/pg.sh, psql VERBOSITY=verbose); their SQLSTATE, message,
# position (line:column, when PostgreSQL gives one) and DETAIL must agree
# (tests/cases/errors_pg.py). Skipped (77) without PostgreSQL.
#
#   bash tests/cases/errors_pg.sh BUILD/laminardb     (from the repository root)
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pg.sh"
pg_require errors_pg
probe=$(dirname "$(realpath "$1")")/tests/err_probe
[ -x "$probe" ] || { echo "errors_pg: no err_probe at $probe"; exit 1; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
pg_tmpdir laminar-errorspg
tmp=$pg_dir
trap pg_stop EXIT
trap 'exit 130' INT TERM
pg_start errors_pg
"$PY" "$(dirname "${BASH_SOURCE[0]}")/errors_pg.py" --probe "$probe" \
  --psql "${as_pg[*]} $PGBIN/psql -h $tmp -p 5432 -U postgres" \
  "$(dirname "${BASH_SOURCE[0]}")/errors_pg.sql"
