#!/usr/bin/env bash
# Long flat lists run without recursing per element (B3_09, B3_10): an IN /
# NOT IN list of 20,000-40,000 constants (ad-hoc and in a continuous query)
# and UNION ALL / UNION chains of 5,000 operands, all of which PostgreSQL 15
# runs. Each used to overflow the stack (segfault). The answers are worked
# out by hand:
#  - 1 IN (0..19999): true, one row. 20001 IN (0..19999, NULL): not found
#    with a NULL in the list -> NULL (SQL three-valued logic, as PostgreSQL).
#  - id NOT IN (0, 2, ..., 79998) over ids 5, 6, 80001: 6 is in the list,
#    5 and 80001 are not -> 5, 80001.
#  - UNION ALL of SELECT i for i in 0..4999: 5000 rows, sum 4999*5000/2 =
#    12497500. UNION of SELECT i % 100: 100 distinct rows, sum 0+..+99 = 4950.
set -euo pipefail
bin=$(realpath "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" <<'PY'
import sys
d = sys.argv[1]
inl = ','.join(str(i) for i in range(20000))
even = ','.join(str(i) for i in range(0, 80000, 2))
ua = ' UNION ALL '.join('SELECT %d AS x' % i for i in range(5000))
ud = ' UNION '.join('SELECT %d AS x' % (i % 100) for i in range(5000))
with open(d + '/q.sql', 'w') as f:
    f.write('SELECT 1 AS a WHERE 1 IN (%s);\n' % inl)
    f.write('SELECT (20001 IN (%s, NULL)) IS NULL AS n, 7 NOT IN (%s) AS m;\n'
            % (inl, inl))
    f.write('CREATE SOURCE s (id BIGINT);\n')
    f.write('CREATE MATERIALIZED VIEW f AS SELECT id FROM s WHERE id NOT IN '
            '(%s);\n' % even)
    f.write('INSERT INTO s VALUES (5), (6), (80001);\n')
    f.write('SELECT id FROM f ORDER BY id;\n')
    f.write('SELECT count(*) AS c, sum(x) AS s FROM (%s) t;\n' % ua)
    f.write('SELECT count(*) AS c, sum(x) AS s FROM (%s) t;\n' % ud)
    f.write('%s;\n' % ua)
PY
"$bin" run "$tmp/q.sql" --output csv >"$tmp/out.csv"
head -n 12 "$tmp/out.csv" >"$tmp/head.csv"
printf 'a\n1\nn,m\ntrue,false\nid\n5\n80001\nc,s\n5000,12497500\nc,s\n100,4950\nx\n' |
  diff -u - "$tmp/head.csv"
n=$(tail -n +13 "$tmp/out.csv" | wc -l)
[ "$n" = 5000 ] || { echo "long_lists: UNION ALL gave $n rows, want 5000" >&2; exit 1; }
echo "long_lists: ok"
