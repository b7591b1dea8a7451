#!/usr/bin/env bash
# BOOLEAN columns read from CSV as PostgreSQL 15's COPY CSV reads them
# (boolin: true/false/yes/no/on/off/1/0, t/f/y/n and other unique
# prefixes, any case, surrounding spaces): the same file loaded by both and
# printed (v::text: true / false) must give the same rows; a word boolin refuses ('maybe',
# 'o') fails the load at FILE:LINE:COLUMN as COPY fails. (Tester round 12:
# yes/no rows were skipped as bad rows.) Skipped (77) without PostgreSQL.
#
#   bash tests/cases/csv_bool_pg.sh BUILD/laminardb   (from the repo root)
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pg.sh"
bin=$(realpath "$1")
pg_require csv_bool_pg
pg_tmpdir laminar-csvbool
tmp=$pg_dir
trap pg_stop EXIT
trap 'exit 130' INT TERM
pg_start csv_bool_pg
psql=("${as_pg[@]}" "$PGBIN/psql" -h "$tmp" -p 5432 -U postgres -X -q -v ON_ERROR_STOP=1)
w=$(mktemp -d)
trap 'rm -rf "$w"; pg_stop' EXIT
fail=0

cat >"$w/a.csv" <<'EOF'
k,v
1,true
2,FALSE
3,yes
4,No
5,on
6,OFF
7,y
8,n
9,t
10,f
11,1
12,0
13," tr "
14,fal
15,
16,Ye
EOF
"${psql[@]}" -c "CREATE TABLE b (k int, v boolean)" -c "COPY b FROM STDIN CSV HEADER" <"$w/a.csv" ||
  { echo "csv_bool_pg: PostgreSQL refused a.csv"; exit 1; }
"${psql[@]}" -c "COPY (SELECT k, v::text AS v FROM b ORDER BY k) TO STDOUT CSV HEADER" >"$w/pg.csv"
cat >"$w/r.sql" <<SQL
CREATE TABLE b (k INT, v BOOLEAN) FROM FILES ('path' = '$w/a.csv', 'on-error' = 'fail') FORMAT CSV;
SELECT k, v FROM b ORDER BY k;
SQL
"$bin" run "$w/r.sql" --output csv >"$w/lm.csv" || fail=1
diff -u "$w/pg.csv" "$w/lm.csv" || { echo "csv_bool_pg: CSV read differs"; fail=1; }

# words boolin refuses: both fail
for bad in maybe o; do
  printf 'k,v\n1,t\n2,%s\n' "$bad" >"$w/bad.csv"
  if "${psql[@]}" -c "CREATE TEMP TABLE x (k int, v boolean)" -c "COPY x FROM STDIN CSV HEADER" <"$w/bad.csv" 2>/dev/null; then
    echo "csv_bool_pg: PostgreSQL accepted '$bad' (test expectation wrong)"
    fail=1
  fi
  printf "CREATE TABLE x (k INT, v BOOLEAN) FROM FILES ('path' = '%s', 'on-error' = 'fail') FORMAT CSV;\nSELECT * FROM x;\n" "$w/bad.csv" >"$w/bad.sql"
  if out=$("$bin" run "$w/bad.sql" 2>&1); then
    echo "csv_bool_pg: Laminar accepted '$bad': $out"
    fail=1
  elif ! grep -q "bad.csv:3:" <<<"$out"; then
    echo "csv_bool_pg: the error for '$bad' does not name bad.csv:3: $out"
    fail=1
  fi
done
[ $fail = 0 ] && echo "csv_bool_pg: ok"
exit $fail
