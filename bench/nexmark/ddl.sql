-- The three Nexmark tables of one deterministic event stream (docs/nexmark.md),
-- as Flink's ddl_gen.sql + ddl_views.sql expose them: same names, same columns,
-- watermark dateTime - INTERVAL '4' SECOND (the NEXMARK default, spelled out).
-- The harness replaces ${EVENTS} (events.num) and ${RATE} (first-event.rate).
CREATE SOURCE person (WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND)
    FROM NEXMARK ('table' = 'person', 'events.num' = '${EVENTS}', 'first-event.rate' = '${RATE}');
CREATE SOURCE auction (WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND)
    FROM NEXMARK ('table' = 'auction', 'events.num' = '${EVENTS}', 'first-event.rate' = '${RATE}');
CREATE SOURCE bid (WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND)
    FROM NEXMARK ('table' = 'bid', 'events.num' = '${EVENTS}', 'first-event.rate' = '${RATE}');
