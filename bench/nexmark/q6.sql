-- Nexmark q6: average selling price by seller (nexmark-flink queries/q6.sql):
-- the average of each seller's last 10 winning bids (ROWS BETWEEN 10
-- PRECEDING AND CURRENT ROW: up to 11 rows).
-- Flink's text does not bind as written: its inner SELECT names A.id /
-- A.seller outside the subquery that defines A, and filters `rownum` in the
-- SELECT that computes it (and Flink does not run it: its OVER cannot
-- consume the ROW_NUMBER's retractions, FLINK-19059). Here it is that query
-- with the scopes put right, in two statements: nexmark_q6_winning is each
-- auction's winning bid among those placed while it was open (a Top-1 over
-- the join, an updating stream), and nexmark_q6 the OVER average over it,
-- which consumes its retractions (exec/op_over_changelog.c: a retracted or
-- late winner recomputes the 10 rows after it). The result is a changelog
-- (__weight); the AVG column is named avg_price as in Flink's sink table
-- nexmark_q6 (seller, avg_price). Equal dateTimes of one seller's winners
-- are ordered by the row's values (id, seller, price), then by arrival. Two
-- statements because one nested FROM cannot yet hold the Top-1 under the OVER.
CREATE STREAM nexmark_q6_winning AS
SELECT id, seller, price, dateTime
FROM (
    SELECT A.id, A.seller, B.price, B.dateTime,
        ROW_NUMBER() OVER (PARTITION BY A.id, A.seller ORDER BY B.price DESC) AS rownum
    FROM auction AS A,
        bid AS B
    WHERE A.id = B.auction
        and B.dateTime between A.dateTime and A.expires
)
WHERE rownum <= 1;

CREATE STREAM nexmark_q6 AS
SELECT
    Q.seller,
    AVG(Q.price) OVER
        (PARTITION BY Q.seller ORDER BY Q.dateTime ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) AS avg_price
FROM nexmark_q6_winning AS Q;
