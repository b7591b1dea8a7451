-- Nexmark q2: selection (nexmark-flink queries/q2.sql). MOD(auction, 123) is
-- spelled auction % 123: the same operator (Laminar has no MOD() function yet).
CREATE STREAM nexmark_q2 AS
SELECT auction, price FROM bid WHERE auction % 123 = 0;
