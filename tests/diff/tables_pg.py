#!/usr/bin/env python3
"""Randomized differential test of tables (docs/tables.md) against PostgreSQL 15.

A seeded trace of statements on a keyed table t (k INT PRIMARY KEY, g VARCHAR,
v BIGINT) and a multiset table m (g VARCHAR, v BIGINT): upserts (several rows,
repeated keys, sometimes a NULL key), DELETEs, UPDATEs of values and of the key
(sometimes onto an existing key), with materialized views over both tables,
one created mid-trace. PostgreSQL runs the same trace in one psql session: an
upsert is one `INSERT ... ON CONFLICT (k) DO UPDATE` per row, in order (a
sequence of upserts: the last row of a key wins), and every statement runs in
a DO block that records its error (SQLERRM) and rolls it back, as Laminar's
statements are atomic. After every step the views' contents and the tables
(ad-hoc SELECTs) as PostgreSQL computes them become the expected results of an
.slt file (docs/slt.md), which slt_runner then runs.

  tables_pg.py --psql 'psql -h DIR -p PORT -U postgres' --seed N --steps S \
               --slt OUT.slt

Python 3 stdlib only. Exit 0 after writing the .slt (the caller runs it).
"""
import sys

import pg_trace

GS = ["'a'", "'b'", "'c'", "''", "NULL"]

VIEWS = [
    # name, Laminar/PG query (PG casts), slt types
    ("v1", "SELECT g, COUNT(*) AS n, SUM(v) AS s, MIN(v) AS lo, MAX(v) AS hi "
           "FROM t GROUP BY g",
     "SELECT g, COUNT(*), SUM(v)::bigint, MIN(v), MAX(v) FROM t GROUP BY g",
     "TIIII"),
    ("v2", "SELECT COUNT(*) AS n, SUM(v) AS s, COUNT(DISTINCT g) AS dg "
           "FROM t WHERE v > 0",
     "SELECT COUNT(*), SUM(v)::bigint, COUNT(DISTINCT g) FROM t WHERE v > 0",
     "III"),
    ("v3", "SELECT g, COUNT(*) AS n, SUM(v) AS s, MAX(v) AS hi FROM m GROUP BY g",
     "SELECT g, COUNT(*), SUM(v)::bigint, MAX(v) FROM m GROUP BY g", "TIII"),
    ("v4", "SELECT k, g, v FROM t WHERE v % 2 = 0",
     "SELECT k, g, v FROM t WHERE v % 2 = 0", "ITI"),
]
LATE_VIEW = ("v5", "SELECT g, SUM(v) AS s, COUNT(v) AS c FROM t GROUP BY g",
             "SELECT g, SUM(v)::bigint, COUNT(v) FROM t GROUP BY g", "TII")
ADHOC = [
    ("SELECT k, g, v FROM t", "SELECT k, g, v FROM t", "ITI"),
    ("SELECT g, v FROM m", "SELECT g, v FROM m", "TI"),
]


def rand_v(rng):
    return "NULL" if rng.random() < 0.1 else str(rng.randint(-50, 50))


def where_t(rng, keys):
    c = rng.randrange(7)
    if c == 0:
        return f" WHERE v < {rng.randint(-50, 50)}"
    if c == 1:
        return f" WHERE g = {rng.choice(GS[:4])}"
    if c == 2:
        return " WHERE g IS NULL"
    if c == 3:
        m = rng.randint(2, 6)
        return f" WHERE k % {m} = {rng.randrange(m)}"
    if c == 4:
        return " WHERE v IS NULL OR v > 40"
    if c == 5:
        return f" WHERE k = {rng.randrange(keys)}"
    return ""


def gen(rng, steps):
    """(laminar_sql, pg_sql) per step; a step may create the late view."""
    keys = rng.choice([6, 12, 40])
    out = []
    for i in range(steps):
        r = rng.random()
        if i == steps // 2:
            out.append(("CREATE_VIEW", None))
        if r < 0.35:  # upsert into t
            rows = []
            for _ in range(rng.randint(1, 8)):
                k = "NULL" if rng.random() < 0.03 else str(
                    rng.randrange(keys) if rng.random() < 0.9 else
                    100 + rng.randrange(keys))
                rows.append((k, rng.choice(GS), rand_v(rng)))
            lam = "INSERT INTO t VALUES " + ", ".join(
                f"({k}, {g}, {v})" for k, g, v in rows)
            pg = " ".join(
                f"INSERT INTO t VALUES ({k}, {g}, {v}) ON CONFLICT (k) DO "
                "UPDATE SET g = EXCLUDED.g, v = EXCLUDED.v;"
                for k, g, v in rows)
        elif r < 0.45:  # some columns only: the others NULL
            k = rng.randrange(keys)
            lam = f"INSERT INTO t (v, k) VALUES ({rand_v(rng)}, {k})"
            pg = (lam + " ON CONFLICT (k) DO UPDATE SET g = EXCLUDED.g, "
                  "v = EXCLUDED.v;")
        elif r < 0.55:
            lam = "DELETE FROM t" + where_t(rng, keys)
            pg = lam + ";"
        elif r < 0.68:
            sets = rng.choice(["v = v + 3", "v = v * 2", "g = 'b'",
                               "v = NULL", "g = v::VARCHAR",
                               "v = k, g = 'c'"])
            lam = f"UPDATE t SET {sets}" + where_t(rng, keys)
            pg = lam + ";"
        elif r < 0.74:  # key updates (maybe onto an existing key)
            if rng.random() < 0.5:
                x = rng.randrange(keys)
                lam = f"UPDATE t SET k = {rng.randrange(keys)} WHERE k = {x}"
            else:
                lam = f"UPDATE t SET k = k + 100 WHERE k < {rng.randrange(keys)}"
            pg = lam + ";"
        elif r < 0.86:
            rows = [(rng.choice(GS), rand_v(rng))
                    for _ in range(rng.randint(1, 5))]
            if rows and rng.random() < 0.3:
                rows.append(rows[0])  # an exact duplicate row
            lam = "INSERT INTO m VALUES " + ", ".join(
                f"({g}, {v})" for g, v in rows)
            pg = lam + ";"
        elif r < 0.93:
            lam = "DELETE FROM m" + rng.choice(
                [" WHERE v < 0", " WHERE g = 'a'", " WHERE v IS NULL",
                 f" WHERE v = {rng.randint(-50, 50)}"])
            pg = lam + ";"
        else:
            lam = "UPDATE m SET v = v - 1" + rng.choice(
                [" WHERE g = 'b'", " WHERE v > 0", ""])
            pg = lam + ";"
        out.append((lam, pg))
    return out


def main():
    a, trace = pg_trace.start(gen)

    # the PostgreSQL script: statements in DO blocks recording their error,
    # then every check's query between markers
    pg = pg_trace.PRELUDE + [
        "DROP TABLE IF EXISTS t, m, errlog;",
        "CREATE TABLE t (k INT PRIMARY KEY, g VARCHAR, v BIGINT);",
        "CREATE TABLE m (g VARCHAR, v BIGINT);",
        "CREATE TABLE errlog (step INT, msg TEXT);",
        "\\pset null '\\\\N'"]
    views = list(VIEWS)
    checks_at = []  # per step: the checks after it
    for i, (lam, pgs) in enumerate(trace):
        if lam == "CREATE_VIEW":
            views.append(LATE_VIEW)
            checks_at.append(None)
            continue
        body = pgs.replace("$$", "")
        pg.append(f"DO $$ BEGIN {body} EXCEPTION WHEN others THEN "
                  f"INSERT INTO errlog VALUES ({i}, SQLERRM); END $$;")
        cks = [(v[0], v[2], v[3]) for v in views] + \
              [(q[0], q[1], q[2]) for q in ADHOC]
        checks_at.append(cks)
        for j, (_, q, _) in enumerate(cks):
            pg.append(f"\\echo @@ {i} {j}")
            pg.append(q + ";")
    pg.append("\\echo @@ errlog")
    pg.append("SELECT step, msg FROM errlog;")
    ran = pg_trace.run(a.psql, pg, 1)
    if ran is None:
        return 1
    results, errors = ran

    out = [f"# generated by tests/diff/tables_pg.py --seed {a.seed} "
           f"--steps {a.steps}; expected results from PostgreSQL 15",
           "",
           "statement ok",
           "CREATE TABLE t (k INT PRIMARY KEY, g VARCHAR, v BIGINT)", "",
           "statement ok", "CREATE TABLE m (g VARCHAR, v BIGINT)", ""]
    for name, q, _, _ in VIEWS:
        out += ["statement ok", f"CREATE MATERIALIZED VIEW {name} AS {q}", ""]
    for i, (lam, _) in enumerate(trace):
        out += pg_trace.step_records(i, lam, errors, LATE_VIEW)
        if lam == "CREATE_VIEW":
            continue
        for j, (name, _, types) in enumerate(checks_at[i]):
            sql = name if name.upper().startswith("SELECT") else \
                f"SELECT * FROM {name}"
            out += pg_trace.query_record(sql, types, results.get((i, j), []))
    with open(a.slt, "w") as f:
        f.write("\n".join(out) + "\n")
    print(f"tables_pg: seed {a.seed}: {len(trace)} steps, "
          f"{len(errors)} statements refused by PostgreSQL")
    return 0


if __name__ == "__main__":
    sys.exit(main())
