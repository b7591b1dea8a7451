# The ad-hoc queries of bench/flights_adhoc.sh: one per line, NAME|SQL, the
# same text for Laminar and DuckDB (table flights: date TIMESTAMP, delay
# BIGINT, distance BIGINT, origin VARCHAR, destination VARCHAR; 3 M rows;
# bands: a 5,001-row dimension keyed by distance, made before it).
# sort_*: a full sort of the 3 M rows (an OFFSET near the end keeps the
# result small; DuckDB plans ORDER_BY + a limit too). join_band: a hash
# join of flights with the small dimension, then a GROUP BY. The join
# shapes after it: join_topn (the same join, then ORDER BY + LIMIT),
# route_self (flights joined with its own per-route aggregate on
# (origin, destination), two text keys, plus a WHERE over both sides),
# semi_in (IN (SELECT ...) over flights) and groups_join (two GROUP BY
# results joined, then ORDER BY + LIMIT).
@lm CREATE TABLE bands (distance BIGINT, band BIGINT)
@lm INSERT INTO bands SELECT g, g / 250 FROM generate_series(0, 5000) AS g
@lm CREATE TABLE flights (date TIMESTAMP, delay BIGINT, distance BIGINT, origin VARCHAR, destination VARCHAR) FROM FILES ('path' = '$DATA') FORMAT CSV
@duckdb CREATE TABLE bands AS SELECT g AS distance, g // 250 AS band FROM range(0, 5001) t(g)
@duckdb CREATE TABLE flights AS SELECT * FROM read_csv('$DATA', header = true, columns = {'date': 'TIMESTAMP', 'delay': 'BIGINT', 'distance': 'BIGINT', 'origin': 'VARCHAR', 'destination': 'VARCHAR'})
by_origin|SELECT origin, COUNT(*) AS n, AVG(delay) AS avg_delay, MAX(delay) AS max_delay FROM flights GROUP BY origin
by_route|SELECT origin, destination, COUNT(*) AS n, SUM(distance) AS dist FROM flights GROUP BY origin, destination
filter_agg|SELECT COUNT(*) AS n, AVG(delay) AS avg_delay, SUM(distance) AS dist FROM flights WHERE distance > 1000 AND delay > 0
top_origins|SELECT origin, AVG(delay) AS avg_delay FROM flights GROUP BY origin ORDER BY avg_delay DESC, origin LIMIT 10
distinct_dest|SELECT origin, COUNT(DISTINCT destination) AS dests FROM flights GROUP BY origin
filter_group|SELECT destination, COUNT(*) AS n, SUM(delay) AS total, MIN(delay) AS best FROM flights WHERE origin = 'LAX' GROUP BY destination
by_month|SELECT date_trunc('month', date) AS month, COUNT(*) AS n, AVG(distance) AS avg_dist FROM flights GROUP BY date_trunc('month', date) ORDER BY month
top_delays|SELECT date, origin, destination, delay FROM flights ORDER BY delay DESC, date, origin, destination LIMIT 10
sort_delay|SELECT date, origin, destination, delay FROM flights ORDER BY delay, date LIMIT 10 OFFSET 2999990
sort_origin|SELECT date, origin, destination, delay FROM flights ORDER BY origin DESC, date LIMIT 10 OFFSET 2999990
join_band|SELECT b.band, COUNT(*) AS n, AVG(f.delay) AS avg_delay FROM flights f JOIN bands b ON f.distance = b.distance GROUP BY b.band ORDER BY b.band
join_topn|SELECT f.date, f.origin, f.destination, f.delay, b.band FROM flights f JOIN bands b ON f.distance = b.distance ORDER BY f.delay DESC, f.date, f.origin, f.destination LIMIT 10
route_self|SELECT f.origin, COUNT(*) AS late, AVG(f.delay - r.avg_delay) AS excess FROM flights f JOIN (SELECT origin, destination, AVG(delay) AS avg_delay FROM flights GROUP BY origin, destination) r ON f.origin = r.origin AND f.destination = r.destination WHERE f.delay > r.avg_delay GROUP BY f.origin ORDER BY f.origin
semi_in|SELECT COUNT(*) AS n, AVG(delay) AS avg_delay FROM flights WHERE destination IN (SELECT origin FROM flights WHERE delay > 300)
groups_join|SELECT o.origin, o.n AS departures, d.n AS arrivals FROM (SELECT origin, COUNT(*) AS n FROM flights GROUP BY origin) o JOIN (SELECT destination, COUNT(*) AS n FROM flights GROUP BY destination) d ON o.origin = d.destination ORDER BY o.n DESC, o.origin LIMIT 10
