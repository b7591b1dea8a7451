#!/usr/bin/env bash
# The expected answers of the PostgreSQL-checked .slt files (set operations,
# WITH, VALUES, PostgreSQL exactness: tests/slt/setops*.slt, cte*.slt,
# values*.slt, pg_*.slt, or the files
# given) against PostgreSQL 15 (tests/cases/slt_pg.py). Starts a throwaway
# cluster on a Unix socket in a temporary directory (tests/lib/pg.sh) and
# removes it on exit. Skipped (77) without PostgreSQL.
#
#   bash tests/cases/slt_pg.sh [FILE.slt...]     (from the repository root)
# As the ctest case.slt_pg (every tests/cases/*.sh) it gets the laminardb
# binary as its argument, which it ignores: only .slt arguments count.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pg.sh"
pg_require slt_pg
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
files=()
for a in "$@"; do
  case "$a" in *.slt) files+=("$a") ;; esac
done
if [ ${#files[@]} -eq 0 ]; then
  shopt -s nullglob
  files=(tests/slt/setops*.slt tests/slt/cte*.slt tests/slt/values*.slt tests/slt/pg_*.slt)
fi
pg_tmpdir laminar-sltpg
tmp=$pg_dir
trap pg_stop EXIT
trap 'exit 130' INT TERM
pg_start slt_pg
"$PY" "$(dirname "${BASH_SOURCE[0]}")/slt_pg.py" \
  --psql "${as_pg[*]} $PGBIN/psql -h $tmp -p 5432 -U postgres" "${files[@]}"
