#!/usr/bin/env bash
# Array columns (int[], bigint[], text[], float8[], numeric(p,s)[],
# boolean[]) read from files, against PostgreSQL 15 (docs/types.md
# "Arrays"): a CSV file as `COPY t FROM STDIN CSV HEADER` reads it (array
# text '{1,2,NULL}', quoted items with "" and \ escapes), written back as
# `COPY t TO STDOUT CSV` writes it (a CSV sink and `--output csv` alike);
# an NDJSON file with JSON arrays as json_populate_recordset reads the same
# objects; bad items fail at FILE:LINE:COLUMN naming the item where
# PostgreSQL's COPY fails too. Skipped (77) without PostgreSQL.
#
#   bash tests/cases/arrays_io_pg.sh BUILD/laminardb   (from the repo root)
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pg.sh"
bin=$(realpath "$1")
pg_require arrays_io_pg
pg_tmpdir laminar-arrio
tmp=$pg_dir
trap pg_stop EXIT
trap 'exit 130' INT TERM
pg_start arrays_io_pg
psql=("${as_pg[@]}" "$PGBIN/psql" -h "$tmp" -p 5432 -U postgres -X -q -v ON_ERROR_STOP=1)
w=$(mktemp -d)
trap 'rm -rf "$w"; pg_stop' EXIT
fail=0
cols='id int, ia int[], ba bigint[], ta text[], da float8[], na numeric(10,2)[], bo boolean[]'

cat >"$w/a.csv" <<'EOF'
id,ia,ba,ta,da,na,bo
1,"{1,2,NULL}","{10,-20}","{""a,b"",""c\""d"",NULL,""NULL"",plain,""back\\slash""}","{1.5,NaN,-Infinity}","{1.25,2}","{t,f,NULL}"
2,{},{},{},{},{},{}
3,,,,,,
4,"{ 3 , 4 }","{9223372036854775807,-9223372036854775808}","{"" sp "",x y,""{}"",""""}","{1e3,-0.25}","{-0.5,1.255}","{true,FALSE}"
5,{-2147483648},{0},"{é,""ü,ß""}",{0},{99999999.99},{NULL}
EOF

# PostgreSQL's rows, and Laminar's through a CSV table, --output csv and a CSV sink
"${psql[@]}" -c "CREATE TABLE t ($cols)" -c "COPY t FROM STDIN CSV HEADER" <"$w/a.csv" ||
  { echo "arrays_io_pg: PostgreSQL refused a.csv"; exit 1; }
"${psql[@]}" -c "COPY (SELECT * FROM t ORDER BY id) TO STDOUT CSV HEADER" >"$w/pg.csv"
"${psql[@]}" -c "COPY (SELECT id, ia[2], ta[1], array_length(ta, 1), cardinality(da), na[2], bo[1]::text, ba[1] + 0 FROM t ORDER BY id) TO STDOUT CSV HEADER" >"$w/pg2.csv"
cat >"$w/r.sql" <<SQL
CREATE TABLE t ($cols) FROM FILES ('path' = '$w/a.csv', 'on-error' = 'fail') FORMAT CSV;
CREATE SOURCE s ($cols);
CREATE SINK k FROM s INTO FILES ('path' = '$w/sink.csv') FORMAT CSV;
INSERT INTO s SELECT * FROM t;
SELECT * FROM t ORDER BY id;
SQL
"$bin" run "$w/r.sql" --output csv >"$w/lm.csv" || fail=1
diff -u "$w/pg.csv" "$w/lm.csv" || { echo "arrays_io_pg: CSV read differs"; fail=1; }
printf 'SELECT id, ia[2], ta[1], array_length(ta, 1), cardinality(da), na[2], bo[1]::text, ba[1] + 0 FROM t ORDER BY id;\n' >"$w/q2.sql"
cat >"$w/r2.sql" <<SQL
CREATE TABLE t ($cols) FROM FILES ('path' = '$w/a.csv', 'on-error' = 'fail') FORMAT CSV;
SQL
cat "$w/q2.sql" >>"$w/r2.sql"
"$bin" run "$w/r2.sql" --output csv >"$w/lm2.csv" || fail=1
# the header: PostgreSQL names the unnamed columns ia, ta, array_length ...
tail -n +2 "$w/pg2.csv" | diff -u - <(tail -n +2 "$w/lm2.csv") ||
  { echo "arrays_io_pg: subscripts of the read arrays differ"; fail=1; }
# the sink's file, read back by PostgreSQL, gives the same rows
if [ -f "$w/sink.csv" ]; then
  "${psql[@]}" -c "CREATE TABLE s ($cols)" -c "COPY s FROM STDIN CSV HEADER" <"$w/sink.csv" &&
    "${psql[@]}" -c "COPY (SELECT * FROM s ORDER BY id) TO STDOUT CSV HEADER" >"$w/pg_sink.csv" &&
    diff -u "$w/pg.csv" "$w/pg_sink.csv" || { echo "arrays_io_pg: CSV sink differs"; fail=1; }
else
  echo "arrays_io_pg: no sink file"
  fail=1
fi

# NDJSON: JSON arrays (and array text in a string) as json_populate_recordset
cat >"$w/a.ndjson" <<'EOF'
{"id":1,"ia":[1,2,null],"ba":[10,-20],"ta":["a,b","c\"d",null,"NULL","back\\slash"],"da":[1.5,"NaN",-1e3],"na":[1.255,2],"bo":[true,false,null]}
{"id":2,"ia":[],"ba":[],"ta":[],"da":[],"na":[],"bo":[]}
{"id":3,"ia":null}
{"id":4,"ia":"{3,4}","ta":"{\"x y\",z}","bo":"{t}"}
{"id":5,"ba":[9223372036854775807],"ta":["é",""],"da":[0.1,-0]}
EOF
"${psql[@]}" -c "COPY (SELECT * FROM json_populate_recordset(NULL::t, (SELECT json_agg(l::json) FROM regexp_split_to_table(\$j\$$(cat "$w/a.ndjson")\$j\$, E'\\n') l)) ORDER BY id) TO STDOUT CSV HEADER" >"$w/pgj.csv" ||
  { echo "arrays_io_pg: PostgreSQL refused a.ndjson"; fail=1; }
cat >"$w/j.sql" <<SQL
CREATE TABLE t ($cols) FROM FILES ('path' = '$w/a.ndjson', 'on-error' = 'fail') FORMAT JSON;
CREATE SOURCE s ($cols);
CREATE SINK k FROM s INTO FILES ('path' = '$w/sink.ndjson') FORMAT JSON;
INSERT INTO s SELECT * FROM t;
SELECT * FROM t ORDER BY id;
SQL
"$bin" run "$w/j.sql" --output csv >"$w/lmj.csv" || fail=1
diff -u "$w/pgj.csv" "$w/lmj.csv" || { echo "arrays_io_pg: NDJSON read differs"; fail=1; }
# the JSON sink's lines, read back as JSON, are PostgreSQL's row_to_json
"${psql[@]}" -At -c "SELECT row_to_json(x) FROM (SELECT * FROM json_populate_recordset(NULL::t, (SELECT json_agg(l::json) FROM regexp_split_to_table(\$j\$$(cat "$w/a.ndjson")\$j\$, E'\\n') l)) ORDER BY id) x" >"$w/pg.ndjson"
/usr/bin/env python3 - "$w/pg.ndjson" "$w/sink.ndjson" <<'PY' || { echo "arrays_io_pg: JSON sink differs"; fail=1; }
import json, sys
def load(p):
    return sorted((json.loads(l) for l in open(p, encoding="utf-8") if l.strip()),
                  key=lambda r: r["id"])
a, b = load(sys.argv[1]), load(sys.argv[2])
if a != b:
    print("pg  :", a); print("sink:", b); sys.exit(1)
PY

# bad items: PostgreSQL's COPY fails, Laminar fails at FILE:LINE:COLUMN naming the item
check_bad() { # NAME TYPE FIELD EXPECTED-TEXT
  printf 'id,arr\n1,{1}\n2,%s\n' "$3" >"$w/$1.csv"
  if "${psql[@]}" -c "CREATE TEMP TABLE b (id int, arr $2)" -c "COPY b FROM STDIN CSV HEADER" <"$w/$1.csv" 2>/dev/null; then
    echo "arrays_io_pg: PostgreSQL took $1"; fail=1
  fi
  printf "CREATE TABLE b (id int, arr %s) FROM FILES ('path' = '%s', 'on-error' = 'fail') FORMAT CSV;\nSELECT * FROM b;\n" \
    "$2" "$w/$1.csv" >"$w/$1.sql"
  if "$bin" run "$w/$1.sql" >/dev/null 2>"$w/$1.err"; then
    echo "arrays_io_pg: Laminar took $1"; fail=1
  elif ! grep -qF "$w/$1.csv:3:3: $4" "$w/$1.err"; then
    echo "arrays_io_pg: $1: expected '$4' at $w/$1.csv:3:3, got:"; cat "$w/$1.err"; fail=1
  fi
}
check_bad item 'int[]' '"{1,x}"' "expected INTEGER for item 2 of column 'arr', found 'x'"
check_bad range 'int[]' '"{1,99999999999}"' "value '99999999999' out of range for INTEGER (item 2 of column 'arr')"
check_bad open 'int[]' '"{1,2"' "malformed array literal: \"{1,2\" in column 'arr' (Unexpected end of input.)"
check_bad junk 'text[]' '"{a}b"' "malformed array literal: \"{a}b\" in column 'arr' (Junk after closing right brace.)"
check_bad bool 'boolean[]' '{maybe}' "expected BOOLEAN for item 1 of column 'arr', found 'maybe'"
check_bad num 'numeric(4,1)[]' '"{1,12345}"' "value '12345' out of range for DECIMAL(4,1) (item 2 of column 'arr')"
printf '{"id":1,"arr":[1,"x"]}\n' >"$w/bj.ndjson"
printf "CREATE TABLE b (id int, arr int[]) FROM FILES ('path' = '%s', 'on-error' = 'fail') FORMAT JSON;\nSELECT * FROM b;\n" \
  "$w/bj.ndjson" >"$w/bj.sql"
if "$bin" run "$w/bj.sql" >/dev/null 2>"$w/bj.err" ||
  ! grep -qF "bj.ndjson:1:18: expected INTEGER for item 2 of column 'arr', found '\"x\"'" "$w/bj.err"; then
  echo "arrays_io_pg: NDJSON bad item:"; cat "$w/bj.err"; fail=1
fi
[ "$fail" = 0 ] && echo "arrays_io_pg: ok"
exit "$fail"
