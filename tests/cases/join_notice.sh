#!/usr/bin/env bash
# `laminardb run` prints the notice of a join whose state grows without
# bound (docs/joins.md), at the JOIN's line:column in the script, and runs
# the query; a bounded (interval) join and one with 'state.ttl' get none.
# The expected rows are worked out by hand: orders 1 and 3 belong to
# customer 10 (ann), order 2 to 11 (bob); 12 has no customer.
set -euo pipefail
bin=$(realpath "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/q.sql" <<'SQL'
CREATE SOURCE o (oid INT, cust INT, ts TIMESTAMP, WATERMARK FOR ts);
CREATE SOURCE c (cust INT, name VARCHAR, ts TIMESTAMP, WATERMARK FOR ts);
CREATE MATERIALIZED VIEW j AS SELECT o.oid, c.name
  FROM o JOIN c ON o.cust = c.cust;
CREATE MATERIALIZED VIEW b AS SELECT o.oid FROM o JOIN c
  ON o.cust = c.cust AND o.ts BETWEEN c.ts AND c.ts + INTERVAL '1' HOUR;
CREATE MATERIALIZED VIEW t WITH ('state.ttl' = '1 day') AS SELECT o.oid
  FROM o JOIN c ON o.cust = c.cust;
INSERT INTO c VALUES (10, 'ann', TIMESTAMP '2026-01-01 00:00:00'),
                     (11, 'bob', TIMESTAMP '2026-01-01 00:00:00');
INSERT INTO o VALUES (1, 10, TIMESTAMP '2026-01-01 00:00:01'),
                     (2, 11, TIMESTAMP '2026-01-01 00:00:02'),
                     (3, 10, TIMESTAMP '2026-01-01 00:00:03'),
                     (4, 12, TIMESTAMP '2026-01-01 00:00:04');
SELECT * FROM j ORDER BY oid;
SQL
"$bin" run "$tmp/q.sql" --output csv >"$tmp/out.csv" 2>"$tmp/err.txt"
grep -q "^laminardb: notice: $tmp/q.sql:4:10: the join in 'j' is an updating join of two append-only inputs without a time bound" "$tmp/err.txt" || {
  echo "join_notice: missing notice; stderr:" >&2
  cat "$tmp/err.txt" >&2
  exit 1
}
if [ "$(grep -c notice "$tmp/err.txt")" != 1 ]; then
  echo "join_notice: expected exactly one notice; stderr:" >&2
  cat "$tmp/err.txt" >&2
  exit 1
fi
printf 'oid,name\n1,ann\n2,bob\n3,ann\n' | diff -u - "$tmp/out.csv"
echo "join_notice: ok"
