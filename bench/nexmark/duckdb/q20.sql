-- output names in lowercase, as Laminar folds unquoted ones
SELECT auction, bidder, price, channel, url, B.dateTime AS bid_datetime, B.extra AS bid_extra,
       itemName AS itemname, description, initialBid AS initialbid, reserve,
       A.dateTime AS auction_datetime, expires, seller, category, A.extra AS auction_extra
FROM bid AS B INNER JOIN auction AS A ON B.auction = A.id
WHERE A.category = 10;
