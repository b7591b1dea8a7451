-- Nexmark q4: average price for a category (nexmark-flink queries/q4.sql):
-- the winning (highest) bid of every auction among the bids placed while it
-- was open, averaged per category. An unbounded join with a time-range
-- predicate (A.expires is a column, not a fixed offset: a regular join with
-- a residual), then two keyed aggregates; the outer AVG consumes the inner
-- MAX's retractions. Updating: the stream is a changelog (__weight).
-- The AVG column is named `final`, as in Flink's sink table nexmark_q4
-- (id, final), because CREATE STREAM takes its names from the select list;
-- AVG over BIGINT is numeric, DECIMAL(38,16), as PostgreSQL (Flink: BIGINT,
-- truncated).
CREATE STREAM nexmark_q4 AS
SELECT
    Q.category,
    AVG(Q.final) AS final
FROM (
    SELECT MAX(B.price) AS final, A.category
    FROM auction A, bid B
    WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires
    GROUP BY A.id, A.category
) Q
GROUP BY Q.category;
