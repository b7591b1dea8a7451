SELECT auction, bidder, 0.908 * price AS price, dateTime AS datetime, extra FROM bid;
