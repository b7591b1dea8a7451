-- Nexmark q6: average selling price by seller (nexmark-flink queries/q6.sql):
-- the average of each seller's last 10 winning bids (ROWS BETWEEN 10
-- PRECEDING AND CURRENT ROW: up to 11 rows). Flink does not run it (its
-- OVER window cannot consume the retractions of the ROW_NUMBER top-1,
-- FLINK-19059), and its text does not bind as written either: the inner
-- SELECT names A.id / A.seller outside the subquery that defines A, and
-- filters `rownum` in the SELECT that computes it. It is kept as Flink
-- writes it (not rewritten into another query); the AVG column is named
-- avg_price as in Flink's sink table nexmark_q6 (seller, avg_price).
CREATE STREAM nexmark_q6 AS
SELECT
    Q.seller,
    AVG(Q.price) OVER
        (PARTITION BY Q.seller ORDER BY Q.dateTime ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) AS avg_price
FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY A.id, A.seller ORDER BY B.price DESC) AS rownum
    FROM (SELECT A.id, A.seller, B.price, B.dateTime
        FROM auction AS A,
            bid AS B
        WHERE A.id = B.auction
            and B.dateTime between A.dateTime and A.expires)
    WHERE rownum <= 1
) AS Q;
