-- SPLIT_INDEX(url, '/', i) is 0-based: element i + 1 of string_split
SELECT auction, bidder, price, channel,
       string_split(url, '/')[4] AS dir1,
       string_split(url, '/')[5] AS dir2,
       string_split(url, '/')[6] AS dir3
FROM bid;
