#!/usr/bin/env bash
# DOUBLE NaN / Infinity / -Infinity round-trip through FORMAT JSON (B3_17):
# the JSON sink writes them as the strings "NaN", "Infinity", "-Infinity"
# (PostgreSQL 15: SELECT to_json('NaN'::float8), to_json('Infinity'::float8),
# to_json('-Infinity'::float8) gives "NaN", "Infinity", "-Infinity"), and the
# JSON source reads those strings back into the DOUBLE column. Any other
# string is still an error for a DOUBLE column.
set -euo pipefail
bin=$(realpath "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat >w.sql <<'SQL'
CREATE SOURCE s (i BIGINT, d DOUBLE);
CREATE SINK j FROM s INTO FILES ('path' = 'nan.json') FORMAT JSON;
INSERT INTO s VALUES (1, 'NaN'), (2, 'Infinity'), (3, '-Infinity'), (4, 1.5);
SQL
"$bin" run w.sql >/dev/null
printf '{"i":1,"d":"NaN"}\n{"i":2,"d":"Infinity"}\n{"i":3,"d":"-Infinity"}\n{"i":4,"d":1.5}\n' |
  diff -u - nan.json
printf '{"i":5,"d":"inf"}\n{"i":6,"d":"-INFINITY"}\n' >>nan.json
cat >r.sql <<'SQL'
CREATE SOURCE b (i BIGINT, d DOUBLE) FROM FILES ('path' = 'nan.json', 'mode' = 'once') FORMAT JSON;
CREATE MATERIALIZED VIEW m AS SELECT i, d, d IS NULL AS isnull FROM b;
SELECT * FROM m ORDER BY i;
SQL
"$bin" run r.sql --output csv >out.csv
printf 'i,d,isnull\n1,NaN,false\n2,Infinity,false\n3,-Infinity,false\n4,1.5,false\n5,Infinity,false\n6,-Infinity,false\n' |
  diff -u - out.csv
printf '{"i":7,"d":"seven"}\n' >bad.json
sed "s/nan.json/bad.json', 'on-error' = 'fail/" r.sql >rb.sql
if "$bin" run rb.sql >/dev/null 2>err.txt; then
  echo "json_nan: a DOUBLE column took the string \"seven\"" >&2
  exit 1
fi
grep -q 'expected DOUBLE' err.txt || { cat err.txt >&2; exit 1; }
echo "json_nan: ok"
