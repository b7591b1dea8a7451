#!/usr/bin/env bash
# EXPLAIN (FORMAT JSON) of ad-hoc queries (docs/explain.md): one row, one
# JSON document in PostgreSQL's shape ([{"Plan": {"Node Type": ...,
# "Plans": [...]}}]); with ANALYZE its "Result Rows" is the query's row
# count (checked against the query run on its own) and every node of the
# text plan is in the tree (same count of nodes).
set -euo pipefail
bin=$(realpath "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
setup="CREATE TABLE t (a BIGINT, b VARCHAR, c BIGINT);
INSERT INTO t VALUES (1, 'x', 10), (2, 'y', 20), (3, 'x', 30), (4, 'z', 40), (5, 'y', NULL);
CREATE TABLE u (a BIGINT, d BIGINT);
INSERT INTO u VALUES (1, 100), (3, 300), (5, 500), (6, 600);"
queries=(
  "WITH q AS (SELECT a, c FROM t WHERE c > 10) SELECT x.a, y.c FROM q x JOIN q y ON x.a = y.a WHERE x.a IN (SELECT a FROM u) ORDER BY x.a"
  "SELECT a, rank() OVER (PARTITION BY b ORDER BY a) FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.a)"
  "SELECT a FROM t UNION SELECT a FROM u ORDER BY a LIMIT 3"
  "SELECT b, count(*) FROM (SELECT * FROM t WHERE c > 5) s GROUP BY b"
)
i=0
for q in "${queries[@]}"; do
  i=$((i + 1))
  for form in "EXPLAIN (FORMAT JSON)" "EXPLAIN (FORMAT JSON, ANALYZE, TIMING OFF)" \
              "EXPLAIN (ANALYZE, TIMING OFF)" "SELECT"; do
    sql="$q"
    [ "$form" != "SELECT" ] && sql="$form $q"
    printf '%s\n%s;\n' "$setup" "$sql" >"$tmp/q$i.sql"
    tag=$(echo "$form" | tr -c 'A-Za-z' '_')
    "$bin" run "$tmp/q$i.sql" --output csv >"$tmp/out_${i}_$tag.csv"
  done
done
python3 - "$tmp" "$i" <<'PY'
import csv, json, sys, os
tmp, n = sys.argv[1], int(sys.argv[2])
def rows(path):
    with open(path, newline='') as f:
        return list(csv.reader(f))
def count_nodes(p):
    return 1 + sum(count_nodes(k['Plan'] if 'Subplan Name' in k else k)
                   for k in p.get('Plans', []))
bad = 0
for i in range(1, n + 1):
    tag = lambda s: ''.join(c if c.isalpha() else '_' for c in s) + '_'
    plain = rows(f'{tmp}/out_{i}_{tag("EXPLAIN (FORMAT JSON)")}.csv')
    anal = rows(f'{tmp}/out_{i}_{tag("EXPLAIN (FORMAT JSON, ANALYZE, TIMING OFF)")}.csv')
    text = rows(f'{tmp}/out_{i}_{tag("EXPLAIN (ANALYZE, TIMING OFF)")}.csv')
    res = rows(f'{tmp}/out_{i}_{tag("SELECT")}.csv')
    for name, r in (('plain', plain), ('analyze', anal)):
        if len(r) != 2 or r[0] != ['QUERY PLAN']:
            print(f'query {i} {name}: expected one row, got {len(r) - 1}'); bad += 1
            continue
        doc = json.loads(r[1][0])
        if not isinstance(doc, list) or 'Plan' not in doc[0]:
            print(f'query {i} {name}: not PostgreSQL\'s shape'); bad += 1
            continue
        if name == 'analyze':
            want = len(res) - 1
            if doc[0].get('Result Rows') != want:
                print(f'query {i}: Result Rows {doc[0].get("Result Rows")}, the query returns {want}'); bad += 1
            nodes = sum(1 for l in text[1:-1]
                        if l[0] and (l[0][0] != ' ' or l[0].lstrip().startswith('->')))
            got = count_nodes(doc[0]['Plan'])
            if got != nodes:
                print(f'query {i}: {got} JSON nodes, {nodes} in the text plan'); bad += 1
sys.exit(1 if bad else 0)
PY
echo "explain_json: ok"
