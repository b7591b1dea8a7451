-- TUMBLE(10 s): windows aligned to the epoch, half-open
SELECT P.id, P.name, P.starttime
FROM (
  SELECT id, name,
         make_timestamp((epoch_us(dateTime) // 10000000) * 10000000) AS starttime,
         make_timestamp((epoch_us(dateTime) // 10000000) * 10000000 + 10000000) AS endtime
  FROM person
  GROUP BY id, name, epoch_us(dateTime) // 10000000
) P
JOIN (
  SELECT seller,
         make_timestamp((epoch_us(dateTime) // 10000000) * 10000000) AS starttime,
         make_timestamp((epoch_us(dateTime) // 10000000) * 10000000 + 10000000) AS endtime
  FROM auction
  GROUP BY seller, epoch_us(dateTime) // 10000000
) A
ON P.id = A.seller AND P.starttime = A.starttime AND P.endtime = A.endtime;
