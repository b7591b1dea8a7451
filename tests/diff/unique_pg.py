#!/usr/bin/env python3
"""Randomized differential test of UNIQUE constraints and indexes
(docs/tables.md) against PostgreSQL 15.

A seeded trace on a keyed table u (k INT PRIMARY KEY, a INT UNIQUE, b VARCHAR,
c INT, UNIQUE (b, c)) and a multiset table m (x INT UNIQUE, y VARCHAR, z INT
UNIQUE NULLS NOT DISTINCT): multi-row upserts into u (repeated keys, values
colliding with other rows or with earlier rows of the statement, NULLs),
multi-row INSERTs into m (duplicates inside the statement too), UPDATEs
onto taken values, DELETEs, and mid-trace CREATE [UNIQUE] INDEX / DROP INDEX
/ REINDEX on m, with a materialized view over u. PostgreSQL runs the same
trace in one psql session: an upsert into u is one `INSERT ... ON CONFLICT
(k) DO UPDATE` per row, in order, and every statement runs in a DO block
that records its error (SQLERRM and the DETAIL) and rolls it back, as
Laminar's statements are atomic. The .slt file written expects, after every
step, PostgreSQL's rows; a refused statement appears twice, expecting
PostgreSQL's message and then its DETAIL line (it changes nothing, so it
fails the same way twice).

UPDATEs here never depend on the order rows are visited in (PostgreSQL
checks a unique key row by row in heap order, which page pruning can make
differ from insertion order): a column is set to one constant, or shifted
past every value the trace inserts. tests/slt/tables_unique.slt covers the
order-dependent cases on fresh tables.

  unique_pg.py --psql 'psql -h DIR -p PORT -U postgres' --seed N --steps S \\
               --slt OUT.slt

Python 3 stdlib only. Exit 0 after writing the .slt (the caller runs it).
"""
import sys

import pg_trace

BS = ["'a'", "'b'", "'c'", "NULL"]
YS = ["'p'", "'q'", "'r'", "'s'", "NULL"]

SETUP = [
    "CREATE TABLE u (k INT PRIMARY KEY, a INT UNIQUE, b VARCHAR, c INT, "
    "UNIQUE (b, c))",
    "CREATE TABLE m (x INT UNIQUE, y VARCHAR, z INT UNIQUE NULLS NOT DISTINCT)",
]
VIEW = ("vu", "SELECT b, COUNT(*) AS n, SUM(a) AS s FROM u GROUP BY b",
        "SELECT b, COUNT(*), SUM(a)::bigint FROM u GROUP BY b", "TII")
CHECKS = [
    ("SELECT k, a, b, c FROM u", "SELECT k, a, b, c FROM u", "IITI"),
    ("SELECT x, y, z FROM m", "SELECT x, y, z FROM m", "ITI"),
    ("SELECT * FROM vu", VIEW[2], VIEW[3]),
]


def small(rng, hi, null=0.1):
    return "NULL" if rng.random() < null else str(rng.randrange(hi))


def gen(rng, steps):
    """(laminar_sql, pg_sql) per step."""
    keys = rng.choice([5, 10])
    vals = rng.choice([6, 15])
    out = []
    for _ in range(steps):
        r = rng.random()
        if r < 0.30:  # upserts into u
            rows = [(str(rng.randrange(keys)), small(rng, vals),
                     rng.choice(BS), small(rng, 3, 0.2))
                    for _ in range(rng.randint(1, 4))]
            lam = "INSERT INTO u VALUES " + ", ".join(
                f"({k}, {a}, {b}, {c})" for k, a, b, c in rows)
            pg = " ".join(
                f"INSERT INTO u VALUES ({k}, {a}, {b}, {c}) ON CONFLICT (k) "
                "DO UPDATE SET a = EXCLUDED.a, b = EXCLUDED.b, "
                "c = EXCLUDED.c;" for k, a, b, c in rows)
        elif r < 0.50:  # inserts into m
            rows = [(small(rng, vals), rng.choice(YS), small(rng, vals, 0.2))
                    for _ in range(rng.randint(1, 4))]
            lam = "INSERT INTO m VALUES " + ", ".join(
                f"({x}, {y}, {z})" for x, y, z in rows)
            pg = lam + ";"
        elif r < 0.62:  # UPDATE u: one constant, or a shift past the values
            lam = rng.choice([
                f"UPDATE u SET a = {small(rng, vals)} WHERE k = "
                f"{rng.randrange(keys)}",
                f"UPDATE u SET b = {rng.choice(BS)}, c = {small(rng, 3)} "
                f"WHERE k >= {rng.randrange(keys)}",
                f"UPDATE u SET a = a + 1000 WHERE a < {rng.randrange(vals)}",
                "UPDATE u SET a = NULL WHERE a % 2 = 0",
                f"UPDATE u SET c = {small(rng, 3)} WHERE b = {rng.choice(BS)}",
            ])
            pg = lam + ";"
        elif r < 0.72:  # UPDATE m
            lam = rng.choice([
                f"UPDATE m SET x = {small(rng, vals)} WHERE y = "
                f"{rng.choice(YS)}",
                f"UPDATE m SET z = {small(rng, vals, 0.3)} WHERE x = "
                f"{rng.randrange(vals)}",
                f"UPDATE m SET x = x + 1000 WHERE x < {rng.randrange(vals)}",
                "UPDATE m SET y = 'p'",
            ])
            pg = lam + ";"
        elif r < 0.84:  # DELETE
            lam = rng.choice([
                f"DELETE FROM u WHERE k = {rng.randrange(keys)}",
                f"DELETE FROM u WHERE a > {rng.randrange(vals)}",
                f"DELETE FROM m WHERE x < {rng.randrange(vals)}",
                f"DELETE FROM m WHERE y = {rng.choice(YS)}",
                "DELETE FROM m WHERE x IS NULL OR x > 900",
            ])
            pg = lam + ";"
        else:  # indexes on m
            lam = rng.choice([
                "CREATE UNIQUE INDEX m_y_uidx ON m (y)",
                "CREATE UNIQUE INDEX m_yx_uidx ON m (y, x)",
                "CREATE INDEX m_y_idx ON m (y DESC)",
                "DROP INDEX m_y_uidx",
                "DROP INDEX IF EXISTS m_yx_uidx",
                "DROP INDEX m_y_idx",
                "REINDEX TABLE m",
                "REINDEX INDEX m_x_key",
            ])
            pg = lam + ";"
        out.append((lam, pg))
    return out


def main():
    a, trace = pg_trace.start(gen)

    pg = pg_trace.PRELUDE + ["DROP TABLE IF EXISTS u, m, errlog;"]
    pg += [s + ";" for s in SETUP]
    pg += ["CREATE TABLE errlog (step INT, msg TEXT, detail TEXT);",
           "\\pset null '\\\\N'"]
    for i, (_, pgs) in enumerate(trace):
        body = pgs.replace("$$", "")
        # DDL (CREATE INDEX ...) runs in a DO block through EXECUTE
        if not body.startswith(("INSERT", "UPDATE", "DELETE")):
            body = "EXECUTE " + "'" + body.rstrip(";").replace("'", "''") + \
                "';"
        pg.append(f"DO $$ DECLARE d TEXT; BEGIN {body} EXCEPTION WHEN others "
                  "THEN GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL; "
                  f"INSERT INTO errlog VALUES ({i}, SQLERRM, d); END $$;")
        for j, (_, q, _) in enumerate(CHECKS):
            pg.append(f"\\echo @@ {i} {j}")
            pg.append(q + ";")
    pg.append("\\echo @@ errlog")
    pg.append("SELECT step, msg, detail FROM errlog;")
    ran = pg_trace.run(a.psql, pg, 2)
    if ran is None:
        return 1
    results, errors = ran

    out = [f"# generated by tests/diff/unique_pg.py --seed {a.seed} "
           f"--steps {a.steps}; expected results from PostgreSQL 15", ""]
    for s in SETUP:
        out += ["statement ok", s, ""]
    out += ["statement ok",
            f"CREATE MATERIALIZED VIEW {VIEW[0]} AS {VIEW[1]}", ""]
    n_err = 0
    for i, (lam, _) in enumerate(trace):
        if i in errors:
            n_err += 1
            msg, detail = errors[i]
            out += [f"# step {i}", f"statement error {msg}", lam, ""]
            # the key a unique index build reports depends on its sort
            if detail not in ("", "\\N") and \
                    not msg.startswith("could not create unique index"):
                out += ["statement error " + detail, lam, ""]
        else:
            out += [f"# step {i}", "statement ok", lam, ""]
        for j, (sql, _, types) in enumerate(CHECKS):
            out += pg_trace.query_record(sql, types, results.get((i, j), []))
    with open(a.slt, "w") as f:
        f.write("\n".join(out) + "\n")
    print(f"unique_pg: seed {a.seed}: {len(trace)} steps, "
          f"{n_err} statements refused by PostgreSQL")
    return 0


if __name__ == "__main__":
    sys.exit(main())
