-- Nexmark q3: local item suggestion (nexmark-flink queries/q3.sql): who sells
-- in OR, ID or CA in category 10, and which auctions. An unbounded inner
-- join of two append-only streams (both sides kept in state): the result is
-- append-only.
CREATE STREAM nexmark_q3 AS
SELECT
    P.name, P.city, P.state, A.id
FROM
    auction AS A INNER JOIN person AS P on A.seller = P.id
WHERE
    A.category = 10 and (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA');
