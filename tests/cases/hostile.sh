#!/usr/bin/env bash
# Hostile inputs through `laminardb run`: every bad input must end with exit
# status 1 (no signal, no sanitizer report) and a message naming its place.
#   bash tests/cases/hostile.sh build/laminardb      (from the repo root)
# Prints one line per case; exits 1 if any case fails.
set -uo pipefail
bin=$(realpath "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail=0

# expect NAME RC SQLFILE TEXT...  — run, check exit status and that stderr
# contains every TEXT; any signal / sanitizer report fails.
expect() {
  local name=$1 want=$2 sql=$3; shift 3
  local rc=0
  timeout 120 "$bin" run "$sql" >"$name.out" 2>"$name.err" || rc=$?
  local why=""
  if [ $rc -ge 124 ]; then why="killed/timeout/signal (exit $rc)"
  elif grep -qE "Sanitizer|runtime error:|Segmentation|Aborted" "$name.err"; then why="sanitizer report"
  elif [ "$want" != any ] && [ $rc -ne "$want" ]; then why="exit $rc, expected $want"
  else
    for t in "$@"; do
      grep -qF -- "$t" "$name.err" || { why="stderr lacks '$t'"; break; }
    done
  fi
  if [ -n "$why" ]; then
    echo "FAIL $name: $why"; head -c 600 "$name.err" | sed 's/^/    /'; fail=1
  else
    echo "ok   $name"
  fi
}

# a CSV source over FILE, a view over it and a SELECT; a third argument adds
# options ("'on-error' = 'fail'": a bad row fails the statement, as these
# cases check; by default bad rows are skipped, docs/bad_rows.md)
csv_sql() {
  printf "CREATE SOURCE f (ts TIMESTAMP, origin VARCHAR, delay BIGINT)\n  FROM FILES ('path' = '%s', 'mode' = 'once'%s) FORMAT CSV;\nCREATE MATERIALIZED VIEW v AS SELECT origin, COUNT(*) AS n FROM f GROUP BY origin;\nSELECT * FROM v;\n" "$1" "${3:+, $3}" >"$2"
}
strict="'on-error' = 'fail'"

# --- hostile files --------------------------------------------------------
# "2001-01-01T00:02:00Z,ATL," is 25 characters: 'abc' starts at column 26
printf 'ts,origin,delay\n2001-01-01T00:01:00Z,LAS,33\n2001-01-01T00:02:00Z,ATL,abc\n' >bad.csv
csv_sql bad.csv bad.sql "$strict"
expect csv_bad_value 1 bad.sql "bad.csv:3:26:" "expected BIGINT for column 'delay', found 'abc'"

# a row with 2 of 3 fields: the line is 24 characters, so the end is column 25
printf 'ts,origin,delay\n2001-01-01T00:01:00Z,LAS\n' >short.csv
csv_sql short.csv short.sql "$strict"
expect csv_short_row 1 short.sql "short.csv:2:25:" "too few fields"

printf 'ts,origin,delay\n2001-01-01T00:01:00Z,"LAS,3\n' >unterminated.csv
csv_sql unterminated.csv unterminated.sql
expect csv_unterminated_quote 1 unterminated.sql "unterminated.csv:2:22:" "unterminated quoted field"

printf 'ts,origin,delay\n2001-01-01T00:01:00Z,LAS,99999999999999999999999\n' >huge.csv
csv_sql huge.csv huge.sql "$strict"
expect csv_huge_number 1 huge.sql "huge.csv:2:26:" "out of range for BIGINT"

printf 'ts,origin,delay\n2001-01-01T00:01:00Z,L\xff\xfeS,3\n' >badutf8.csv
csv_sql badutf8.csv badutf8.sql "$strict"
expect csv_invalid_utf8 1 badutf8.sql "badutf8.csv:2:22:" "invalid UTF-8"

# the same bad rows by default: the statement succeeds, a notice names the
# place of the first bad row (the good rows are checked in bad_rows.sh)
for f in bad short huge badutf8; do csv_sql $f.csv ${f}_d.sql; done
expect csv_bad_value_skipped 0 bad_d.sql "1 bad row skipped" "bad.csv:3:26: expected BIGINT for column 'delay', found 'abc'"
expect csv_short_row_skipped 0 short_d.sql "short.csv:2:25: too few fields"
expect csv_huge_number_skipped 0 huge_d.sql "huge.csv:2:26:" "out of range for BIGINT"
expect csv_invalid_utf8_skipped 0 badutf8_d.sql "badutf8.csv:2:22: invalid UTF-8"

csv_sql "$tmp/missing.csv" missing.sql
expect csv_missing_file 1 missing.sql "missing.sql:1:1:" "missing.csv: No such file or directory"

# a declared column absent from the header (misspelt 'orgin') must not be
# silently read as all-NULL
printf 'ts,orgin,delay\n2001-01-01T00:01:00Z,LAS,3\n' >hdr.csv
csv_sql hdr.csv hdr.sql
expect csv_header_missing_column 1 hdr.sql "hdr.csv:1:" "origin"

# a header-only file is valid and empty: exit 0, zero rows
printf 'ts,origin,delay\n' >header.csv
csv_sql header.csv header.sql
expect csv_header_only 0 header.sql
grep -q "(0 rows)" csv_header_only.out ||
  { echo "FAIL csv_header_only: expected (0 rows)"; fail=1; }

# an empty file (no header): no crash (exit status not asserted, see report)
: >empty.csv
csv_sql empty.csv empty.sql
expect csv_empty_file any empty.sql

# a 64 MiB field is over the record limit
python3 -c "open('wide.csv','w').write('ts,origin,delay\n2001-01-01T00:01:00Z,'+'A'*(64<<20)+',3\n')"
csv_sql wide.csv wide.sql
expect csv_record_too_long 1 wide.sql "wide.csv:2:1:" "record longer than"

printf '{"ts":"2001-01-01T00:01:00Z","origin":"LAS","delay":3}\n{"ts": "x", bad\n' >bad.ndjson
printf "CREATE SOURCE f (ts TIMESTAMP, origin VARCHAR, delay BIGINT) FROM FILES ('path' = 'bad.ndjson', 'mode' = 'once', 'on-error' = 'fail') FORMAT JSON;\nCREATE MATERIALIZED VIEW v AS SELECT COUNT(*) AS n FROM f;\nSELECT * FROM v;\n" >ndj.sql
expect ndjson_malformed 1 ndj.sql "bad.ndjson:2:13:"
sed "s/, 'on-error' = 'fail'//" ndj.sql >ndj_d.sql
expect ndjson_malformed_skipped 0 ndj_d.sql "1 bad row skipped" "bad.ndjson:2:13:"

# --- hostile SQL ----------------------------------------------------------
printf 'CREATE SOURCE t (k VARCHAR, v BIGINT);\nCREAT STREAM s AS SELECT k FROM t;\n' >kw.sql
expect sql_misspelt_keyword 1 kw.sql "kw.sql:2:1:" "found 'CREAT'"

printf 'CREATE SOURCE t (k VARCHAR, v BIGINT);\nCREATE STREAM s AS SELECT k, vv FROM t;\n' >col.sql
expect sql_unknown_column 1 col.sql "col.sql:2:30:" 'column "vv" does not exist'

printf 'CREATE SOURCE t (k VARCHAR, v BIGINT);\nINSERT INTO t VALUES (%s1, 2, 3);\n' "'a', " >arity.sql
expect sql_insert_arity 1 arity.sql "arity.sql:2:1:" "INSERT has 4 values per row but 't' has 2 columns"

# "INSERT INTO t VALUES ('a', " is 27 characters
printf "CREATE SOURCE t (k VARCHAR, v BIGINT);\nINSERT INTO t VALUES ('a', 99999999999999999999999);\n" >hugeint.sql
# PostgreSQL 15 says the same: INSERT ... VALUES ('a', 99999999999999999999999)
# into a bigint column is "bigint out of range"
expect sql_huge_integer 1 hugeint.sql "hugeint.sql:2:28:" "bigint out of range"

python3 -c "open('paren.sql','w').write('SELECT ' + '('*(1<<20))"
expect sql_1mb_parens 1 paren.sql "paren.sql:1:" "stack depth limit exceeded"

python3 -c "open('paren2.sql','w').write('('*(1<<20))"
expect sql_1mb_parens_only 1 paren2.sql "paren2.sql:1:1:"

python3 -c "open('neg.sql','w').write('SELECT ' + '- '*500000 + '1;')"
expect sql_deep_unary 1 neg.sql "neg.sql:1:" "stack depth limit exceeded"

python3 -c "open('not.sql','w').write('SELECT ' + 'NOT '*200000 + 'TRUE;')"
expect sql_deep_not 1 not.sql "not.sql:1:" "stack depth limit exceeded"

python3 -c "open('plus.sql','w').write('SELECT 1' + '+1'*300000 + ';')"
expect sql_long_chain 1 plus.sql "plus.sql:1:" "stack depth limit exceeded"

printf "SELECT 'abc" >unterm.sql
expect sql_unterminated_string 1 unterm.sql "unterm.sql:1:8:" "unterminated quoted string at or near"

printf 'SELECT 1 /* never closed' >comment.sql
expect sql_unterminated_comment 1 comment.sql "comment.sql:1:10:" "unterminated /* comment"

# invalid UTF-8 in the SQL text: "SELECT 'a" is 9 characters, the bad byte is at column 10
printf "SELECT 'a\xff\xfe';\n" >badutf8_sql.sql
expect sql_invalid_utf8 1 badutf8_sql.sql "badutf8_sql.sql:1:" "UTF-8"

# a NUL byte after "SELECT 1;" (column 10) must not silently end the script
printf 'SELECT 1;\x00SELECT 2;' >nul.sql
expect sql_nul_byte 1 nul.sql "nul.sql:1:10:"

if [ $fail -ne 0 ]; then echo "hostile: FAILED"; exit 1; fi
echo "hostile: OK"
