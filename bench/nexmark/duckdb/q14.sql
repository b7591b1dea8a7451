-- count_char(extra, 'c') as a length difference; an empty extra reads as NULL
-- from the CSV, and count_char(NULL, 'c') is 0 (the Nexmark UDF)
SELECT auction, bidder, 0.908 * price AS price,
       CASE
           WHEN hour(dateTime) >= 8 AND hour(dateTime) <= 18 THEN 'dayTime'
           WHEN hour(dateTime) <= 6 OR hour(dateTime) >= 20 THEN 'nightTime'
           ELSE 'otherTime'
       END AS bidtimetype,
       dateTime AS datetime, extra,
       coalesce(length(extra) - length(replace(extra, 'c', '')), 0) AS c_counts
FROM bid
WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000;
