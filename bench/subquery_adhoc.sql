# Correlated subqueries for bench/flights_adhoc.sh's `subquery` suite, one per
# line, NAME|SQL, the same text for Laminar and DuckDB. t1 (k BIGINT, x
# BIGINT): 100 K rows, 20 K distinct k; t2 (k BIGINT, v BIGINT): 200 K rows,
# k in [0, 25 K). `@lm` / `@duckdb` lines load them ($DATA: the data dir).
@lm CREATE TABLE t1 (k BIGINT, x BIGINT) FROM FILES ('path' = '$DATA/t1.csv') FORMAT CSV
@lm CREATE TABLE t2 (k BIGINT, v BIGINT) FROM FILES ('path' = '$DATA/t2.csv') FORMAT CSV
@duckdb CREATE TABLE t1 AS SELECT * FROM read_csv('$DATA/t1.csv', header = true, columns = {'k': 'BIGINT', 'x': 'BIGINT'})
@duckdb CREATE TABLE t2 AS SELECT * FROM read_csv('$DATA/t2.csv', header = true, columns = {'k': 'BIGINT', 'v': 'BIGINT'})
scalar_max|SELECT COUNT(*), SUM((SELECT MAX(v) FROM t2 WHERE t2.k = t1.k)) FROM t1
scalar_count|SELECT COUNT(*), SUM((SELECT COUNT(*) FROM t2 WHERE t2.k = t1.k)) FROM t1
exists|SELECT COUNT(*) FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.k = t1.k AND t2.v > 900)
not_exists|SELECT COUNT(*) FROM t1 WHERE NOT EXISTS (SELECT 1 FROM t2 WHERE t2.k = t1.k)
in|SELECT COUNT(*) FROM t1 WHERE x IN (SELECT v FROM t2 WHERE t2.k = t1.k)
not_in|SELECT COUNT(*) FROM t1 WHERE x NOT IN (SELECT v FROM t2 WHERE t2.k = t1.k)
select_list|SELECT k, x, (SELECT MAX(v) FROM t2 WHERE t2.k = t1.k) AS m FROM t1
# Decorrelated since 2026-12-01 11:30 (per key before, one run at load
# ~15: exists_range 352 s, top1 129 s, group_by 152 s): EXISTS with an
# inequality besides the equality (max per key), top-1 per key, GROUP BY
# in the subquery. count_range (an inequality in a scalar COUNT) still
# runs per key (~17 ms a key at load 15): it reads only t1's 200
# smallest keys (1 K rows).
exists_range|SELECT COUNT(*) FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.k = t1.k AND t2.v > t1.x)
count_range|SELECT COUNT(*), SUM((SELECT COUNT(*) FROM t2 WHERE t2.k = t1.k AND t2.v < t1.x)) FROM t1 WHERE t1.k < 200
top1|SELECT COUNT(*), SUM((SELECT v FROM t2 WHERE t2.k = t1.k ORDER BY v DESC NULLS LAST LIMIT 1)) FROM t1
group_by|SELECT COUNT(*) FROM t1 WHERE EXISTS (SELECT v FROM t2 WHERE t2.k = t1.k GROUP BY v HAVING COUNT(*) > 1)
