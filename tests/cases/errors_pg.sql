# Errors as PostgreSQL 15 reports them: SQLSTATE, message, position
# (line:column) and DETAIL (issue 6; a tester's B3_15 findings), checked by
# tests/cases/errors_pg.sh against a live PostgreSQL 15.
#
# Records are separated by blank lines; lines starting with '#' are
# comments. In a record, directive lines come first:
#   -- pre: SQL        runs before the statement (in both engines; must succeed)
#   -- lm-message: M   Laminar's message is M where PostgreSQL's differs
#                      (a syntax error names what was expected); the
#                      SQLSTATE, position and DETAIL are still PostgreSQL's
# then the statement (one, without the ';': PostgreSQL receives its text
# exactly, through psql's \gexec). Lines stay under 60 characters so that
# psql prints them whole under its caret. The setup below runs
# before every record, each in a fresh database (a transaction rolled back
# in PostgreSQL). Where PostgreSQL gives no position, Laminar may (it names
# the place of a runtime error too).

-- setup
CREATE TABLE t1 (id BIGINT PRIMARY KEY, g VARCHAR, x BIGINT,
                 y DOUBLE PRECISION);
CREATE TABLE t2 (id BIGINT PRIMARY KEY, g VARCHAR, x BIGINT);
INSERT INTO t1 VALUES (1,'a',10,1.5),(2,'a',NULL,2.5),(3,'b',30,NULL);
INSERT INTO t2 VALUES (1,'a',10),(2,'b',NULL)

# A. the DETAIL on its own, not in the message
UPDATE t1 SET id = 2 WHERE id = 1

SELECT CAST(12345.678 AS DECIMAL(5,2))

SELECT CAST(1.5 AS DECIMAL(2,2))

# B. syntax errors: 42601 at the offending token
-- lm-message: expected an expression, found 'SELECT'
SELECT SELECT

-- lm-message: expected an expression, found ')'
SELECT (1 + )

-- lm-message: expected a source, stream, view or table name, found end of input
SELECT 1 FROM

-- lm-message: expected an expression, found end of input
SELECT 1 +

-- lm-message: expected an expression, found end of input
SELECT * FROM t1 WHERE

SELECT 'unterminated

SELECT "unterminated

SELECT 1, 'unterminated
  FROM t1

# B. name resolution
SELECT t9.id FROM t1

SELECT id FROM t1, t2

SELECT id FROM t1 JOIN t2 ON t1.id = t2.id

# (our wording names the relation; the position is PostgreSQL's)
-- lm-message: column 'nope' does not exist in 't1'
SELECT
  id,
  nope
FROM t1

# without FROM, PostgreSQL's wording (no internal relation name)
SELECT nope

INSERT INTO t1 (id, nope) VALUES (7, 1)

UPDATE t1 SET nope = 1

CREATE TABLE z (a INT, a INT)

CREATE TABLE z (a NOTATYPE)

# B. grouping
SELECT id FROM t1 GROUP BY g

SELECT COUNT(*) FROM t1 WHERE COUNT(*) > 1

SELECT SUM(SUM(x)) FROM t1

SELECT id FROM t1 ORDER BY 5

SELECT g, COUNT(*) FROM t1 GROUP BY 3

# B. window functions
SELECT id, COUNT(*) OVER (ORDER BY id
  ROWS BETWEEN 1 FOLLOWING AND CURRENT ROW) FROM t1

SELECT id, COUNT(*) OVER (ORDER BY id
  ROWS 1 FOLLOWING) FROM t1

SELECT id, COUNT(*) OVER (ORDER BY id
  ROWS BETWEEN CURRENT ROW AND 1 PRECEDING) FROM t1

SELECT id, COUNT(*) OVER (ORDER BY id
  ROWS BETWEEN UNBOUNDED FOLLOWING AND CURRENT ROW) FROM t1

SELECT ROW_NUMBER() FROM t1

SELECT lag(id) FROM t1

SELECT ntile(0) OVER () FROM t1

# B. data exceptions
SELECT substring('abc', 1, -1)

SELECT INTERVAL 'abc'

SELECT id FROM t1 LIMIT -1

SELECT id FROM t1 OFFSET -1

SELECT id FROM t1 LIMIT -0

SELECT id FROM t1 LIMIT - x

SELECT id FROM t1 OFFSET (SELECT x)

SELECT id FROM t1 LIMIT zz

SELECT id FROM t1 WHERE x = (SELECT max(t1.x))

SELECT chr(-1)

SELECT chr(0)

# C. the position of the offending literal or token
SELECT CAST('abc' AS BIGINT)

SELECT 'abc'::int

SELECT DATE '2024-02-30'

SELECT TIMESTAMP '2024-01-01 25:00:00'

SELECT id FROM t1 WHERE id IN (SELECT id, g FROM t2)

SELECT id FROM t1 WHERE id NOT IN (SELECT id, g FROM t2)

SELECT 1 UNION SELECT 1, 2

SELECT 1, 2 UNION SELECT 1

SELECT 1, 'a' UNION SELECT 2, 3

SELECT 1, 2 UNION SELECT 1, 'a'

# D. refused as PostgreSQL refuses them
SELECT DISTINCT id FROM t1 ORDER BY x

SELECT CAST(1e400 AS DOUBLE PRECISION)

SELECT CAST(1.5e400 AS DOUBLE PRECISION)

# B3_20 item 11: DROP VIEW of a missing view
DROP VIEW v

# already right: kept so they stay so
SELECT 1/0

-- lm-message: column 'nope' does not exist in 't1'
SELECT nope FROM t1

SELECT nofunc('a')

SELECT nofunc(1, 'a', 2.5)

INSERT INTO t1 VALUES (NULL, 'a', 1, 1.0)

INSERT INTO t1 VALUES (7, 'a', 'b', 1.0)

DROP TABLE nope

DELETE FROM nope

UPDATE t1 SET id = NULL WHERE id = 1

SELECT * FROM t1 AS a, t1 AS a

SELECT 9223372036854775807 + 1

SELECT sqrt(-1)

# tester p6 (finding 11): PostgreSQL's SQLSTATE, words and place for
# operator, boolean-argument and quoted-literal errors
SELECT * FROM t1 WHERE x

SELECT NOT 1

SELECT x + 'a' FROM t1

SELECT id FROM t1 WHERE row_number() OVER () = 1

SELECT 'a' AND true

SELECT COALESCE(x, 'none') FROM t1

SELECT x + 1.5 * y - x + true FROM t1

INSERT INTO t1 (id, id) VALUES (3, 4)

# json / jsonb (helper fn2): 22P02 with the JSON lexer's DETAIL at the
# literal, 22P05 for \u0000 in jsonb, 42846 casts PostgreSQL refuses,
# 22023 jsonb casts and functions
SELECT 'x'::json

SELECT '{"a" 1}'::jsonb

SELECT '[1,2'::jsonb

SELECT '{"a":}'::json

SELECT '{1:2}'::json

SELECT '[1] 2'::json

SELECT '"\u0000"'::jsonb

SELECT 1::json

SELECT '1'::json::int

SELECT '"1"'::jsonb::int

SELECT jsonb_array_length('1')

SELECT json_build_object('a')

SELECT jsonb_set('1', '{a}', '2')

# SET TIME ZONE INTERVAL with days or months (tester p7's finding 6)
SET TIME ZONE INTERVAL '1 day' HOUR TO MINUTE

SET TIME ZONE INTERVAL '1 month'

SET TIME ZONE INTERVAL 'abc'

# WITH RECURSIVE (helper rec): PostgreSQL's 42P19 / 0A000 / 42804 at the
# reference, the WITH query's name, the non-recursive term's column
WITH RECURSIVE r(n) AS (SELECT n FROM r
UNION ALL SELECT 1) SELECT * FROM r

WITH RECURSIVE r(n) AS (SELECT 1
UNION ALL SELECT r.n FROM r, r r2) SELECT * FROM r

WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL
SELECT id FROM t1 WHERE id IN (SELECT n FROM r))
SELECT * FROM r

WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL
SELECT t1.id FROM t1 LEFT JOIN r ON true)
SELECT * FROM r

WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL
SELECT count(*) FROM r) SELECT * FROM r

WITH RECURSIVE r(n) AS (SELECT n + 1 FROM r)
SELECT * FROM r

WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL
SELECT (n + 1)::bigint FROM r) SELECT * FROM r

WITH RECURSIVE a AS (SELECT 1 AS x UNION ALL
SELECT x FROM b), b AS (SELECT x FROM a)
SELECT * FROM a

# row values (helper rec)
SELECT (1, 2) = (1, 2, 3)

SELECT id FROM t1 WHERE (id, g) IN (SELECT 1)

# arrays (helper arr): 22P02 at the literal, with PostgreSQL's DETAIL
SELECT '{1,2'::int[]

SELECT 'abc'::text[]

SELECT '{1,x}'::int[]

SELECT ARRAY[1, 2] || 'x'
