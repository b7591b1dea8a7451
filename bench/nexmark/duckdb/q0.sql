-- output names in lowercase, as Laminar (like PostgreSQL) folds unquoted ones
SELECT auction, bidder, price, dateTime AS datetime, extra FROM bid;
