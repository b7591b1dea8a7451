# The ad-hoc queries of bench/flights_adhoc.sh: one per line, NAME|SQL, the
# same text for Laminar and DuckDB (table flights: date TIMESTAMP, delay
# BIGINT, distance BIGINT, origin VARCHAR, destination VARCHAR; 3 M rows).
by_origin|SELECT origin, COUNT(*) AS n, AVG(delay) AS avg_delay, MAX(delay) AS max_delay FROM flights GROUP BY origin
by_route|SELECT origin, destination, COUNT(*) AS n, SUM(distance) AS dist FROM flights GROUP BY origin, destination
filter_agg|SELECT COUNT(*) AS n, AVG(delay) AS avg_delay, SUM(distance) AS dist FROM flights WHERE distance > 1000 AND delay > 0
top_origins|SELECT origin, AVG(delay) AS avg_delay FROM flights GROUP BY origin ORDER BY avg_delay DESC, origin LIMIT 10
distinct_dest|SELECT origin, COUNT(DISTINCT destination) AS dests FROM flights GROUP BY origin
filter_group|SELECT destination, COUNT(*) AS n, SUM(delay) AS total, MIN(delay) AS best FROM flights WHERE origin = 'LAX' GROUP BY destination
by_month|SELECT date_trunc('month', date) AS month, COUNT(*) AS n, AVG(distance) AS avg_dist FROM flights GROUP BY date_trunc('month', date) ORDER BY month
top_delays|SELECT date, origin, destination, delay FROM flights ORDER BY delay DESC, date, origin, destination LIMIT 10
