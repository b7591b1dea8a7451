-- A set-returning function over one row holding large values (tester round
-- 12 finding 1; bench/README.md "SRF over a large value"): 20,000 elements
-- of a 7 MB jsonb array, of an int[20000] and of a 108 KB string.
-- Run: /usr/bin/time -v build/laminardb run bench/srf_large_value.sql
CREATE TABLE eq (id INT, features JSONB, arr INT[], s TEXT);
INSERT INTO eq SELECT 1, jsonb_agg(jsonb_build_object('id', i, 'properties', jsonb_build_object('mag', i / 10.0, 'place', repeat('x', 300)))), array_agg(i), string_agg(i::text, ',') FROM generate_series(1, 20000) AS g(i);
SELECT count(*), sum((f -> 'properties' ->> 'mag')::float8) FROM eq, jsonb_array_elements(features) AS f;
SELECT count(*), sum(u) FROM eq, unnest(arr) AS u;
SELECT count(*) FROM eq, string_to_table(s, ',') AS u;
