-- q12's windows are processing time, which a batch run has not: the oracle
-- (tests/cases/nexmark_oracle.sh, mode `summed`) compares each bidder's
-- bid_count summed over all of Laminar's windows with this count
SELECT bidder, count(*) AS bid_count FROM bid GROUP BY bidder;
