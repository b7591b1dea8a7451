-- Nexmark q20: expand bid with auction (nexmark-flink queries/q20.sql): every
-- bid on a category-10 auction with that auction's columns. An unbounded
-- inner join of two append-only streams: append-only.
-- The two dateTime and the two extra columns are named as in Flink's sink
-- table (bid_dateTime, bid_extra, auction_dateTime, auction_extra), because
-- CREATE STREAM takes its names from the select list and they must differ.
CREATE STREAM nexmark_q20 AS
SELECT
    auction, bidder, price, channel, url, B.dateTime AS bid_dateTime, B.extra AS bid_extra,
    itemName, description, initialBid, reserve, A.dateTime AS auction_dateTime, expires, seller, category, A.extra AS auction_extra
FROM
    bid AS B INNER JOIN auction AS A on B.auction = A.id
WHERE A.category = 10;
