-- the side input as Flink's SideInputGenerator writes it (key i, value 'i'),
-- read from the checked-in file (path relative to the repository root)
SELECT B.auction, B.bidder, B.price, B.dateTime AS datetime, S.value
FROM bid B
JOIN read_csv('bench/nexmark/side_input.csv', header = true,
              columns = {'key': 'BIGINT', 'value': 'VARCHAR'}) AS S
ON B.auction % 10000 = S.key;
