-- the rows of every partition file, with the partition values of its path
SELECT auction, bidder, price, dateTime AS datetime, extra,
       strftime(dateTime, '%Y-%m-%d') AS dt, strftime(dateTime, '%H:%M') AS hm
FROM bid;
