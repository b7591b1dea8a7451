#!/usr/bin/env python3
"""Randomized differential test, against PostgreSQL 15, of which of several
equal values a materialized view shows after INSERT / UPDATE / DELETE.

Values that are equal but print differently (jsonb '1' / '1.0' / '1.00',
float8 0 / -0, interval '1 mon' / '30 days' / '720 hours') in a keyed table
t (id INT PRIMARY KEY, g INT, j JSONB, f FLOAT8, i INTERVAL) under a seeded
trace of inserts, upserts, DELETEs and UPDATEs (some that change nothing but
move the row to the end of the table, as in PostgreSQL's heap). After every
step the materialized views (GROUP BY j, f, i, j->'a', several keys; MIN /
MAX of f and i per g) and the same ad-hoc GROUP BY queries, read as text,
must show what PostgreSQL shows: a group's key is its first row's value in
scan order, MIN/MAX the later of equal extremes. PostgreSQL runs the views
as plain views with hash aggregation (enable_sort off) over a table without
autovacuum, in one transaction (no row version is dead to another, so no
page is pruned): its heap order is insertion order, updated rows moved last.

  mv_spelling_pg.py --psql 'psql -h DIR -p PORT -U postgres' --seed N \\
                    --steps S --slt OUT.slt

Python 3 stdlib only. Exit 0 after writing the .slt (the caller runs it).
"""
import sys

import pg_trace

JS = ["'1'", "'1.0'", "'1.00'", "'2'", "'2.0'", "'[1, 2.0]'", "'[1,2]'",
      "'{\"a\": 1.50}'", "'{\"a\":1.5}'", "'{\"a\": 1}'", "'{\"a\": 1.0}'",
      "'null'", "NULL"]
FS = ["'0'", "'-0'", "'2'", "'2.0'", "NULL"]
IS = ["'1 mon'", "'30 days'", "'720 hours'", "'1 day'", "'24 hours'", "NULL"]

VIEWS = [
    # name, query, the check's SELECT list, slt types
    ("vj", "SELECT j, count(*) AS n FROM t GROUP BY j", "j::text, n", "TI"),
    ("vf", "SELECT f, count(*) AS n FROM t GROUP BY f", "f::text, n", "TI"),
    ("vi", "SELECT i, count(*) AS n FROM t GROUP BY i", "i::text, n", "TI"),
    ("va", "SELECT j->'a' AS ja, count(*) AS n FROM t GROUP BY j->'a'",
     "ja::text, n", "TI"),
    ("vm", "SELECT g, f, j, i, count(*) AS n FROM t GROUP BY g, f, j, i",
     "g, f::text, j::text, i::text, n", "ITTTI"),
    ("vx", "SELECT g, min(f) AS lo, max(f) AS hi, min(i) AS ilo, "
           "max(i) AS ihi FROM t GROUP BY g",
     "g, lo::text, hi::text, ilo::text, ihi::text", "ITTTT"),
]
LATE_VIEW = ("vl", "SELECT g, j, f, count(*) AS n FROM t GROUP BY g, j, f",
             "g, j::text, f::text, n", "ITTI")


def row(rng, k):
    return (str(k), str(rng.randint(1, 3)), rng.choice(JS), rng.choice(FS),
            rng.choice(IS))


def where(rng, ids):
    c = rng.randrange(6)
    if c == 0 and ids:
        return f" WHERE id = {rng.choice(ids)}"
    if c == 1:
        return f" WHERE j = {rng.choice(JS[:-1])}"
    if c == 2:
        return f" WHERE f = {rng.choice(FS[:-1])}"
    if c == 3:
        return f" WHERE i = {rng.choice(IS[:-1])}::interval"
    if c == 4:
        m = rng.randint(2, 4)
        return f" WHERE id % {m} = {rng.randrange(m)}"
    return f" WHERE g = {rng.randint(1, 3)}"


def gen(rng, steps):
    """(laminar_sql, pg_sql) per step; a step may create the late view."""
    out, ids, nxt = [], [], 0
    for s in range(steps):
        if s == steps // 2:
            out.append(("CREATE_VIEW", None))
        r = rng.random()
        if r < 0.4 or len(ids) < 3:  # new rows
            rows = []
            for _ in range(rng.randint(1, 4)):
                rows.append(row(rng, nxt))
                ids.append(nxt)
                nxt += 1
            lam = "INSERT INTO t VALUES " + ", ".join(
                "(" + ", ".join(x) + ")" for x in rows)
            pg = lam + ";"
        elif r < 0.5:  # an upsert of an existing row
            x = row(rng, rng.choice(ids))
            lam = "INSERT INTO t VALUES (" + ", ".join(x) + ")"
            pg = (lam + " ON CONFLICT (id) DO UPDATE SET g = EXCLUDED.g, "
                  "j = EXCLUDED.j, f = EXCLUDED.f, i = EXCLUDED.i;")
        elif r < 0.7:
            lam = "DELETE FROM t" + where(rng, ids)
            pg = lam + ";"
        else:
            sets = rng.choice([f"j = {rng.choice(JS)}", f"f = {rng.choice(FS)}",
                               f"i = {rng.choice(IS)}", "f = -f", "g = g",
                               f"g = {rng.randint(1, 3)}", "j = j, f = f"])
            lam = f"UPDATE t SET {sets}" + where(rng, ids)
            pg = lam + ";"
        out.append((lam, pg))
    return out


def checks(views):
    out = [(f"SELECT {sel} FROM {name}", types)
           for name, _, sel, types in views]
    for name, q, sel, types in views:  # the same ad hoc
        out.append((f"SELECT {sel} FROM ({q}) x", types))
    return out


def main():
    a, trace = pg_trace.start(gen)
    ddl = ("CREATE TABLE t (id INT PRIMARY KEY, g INT, j JSONB, f FLOAT8, "
           "i INTERVAL)")
    pg = pg_trace.PRELUDE + [
        "SET enable_sort = off;",  # hash aggregation: a group's first row
        "DROP VIEW IF EXISTS " + ", ".join(v[0] for v in VIEWS + [LATE_VIEW])
        + ";",
        "DROP TABLE IF EXISTS t, errlog;",
        ddl + " WITH (autovacuum_enabled = false);",
        "CREATE TABLE errlog (step INT, msg TEXT);",
        "\\pset null '\\\\N'",
        # one transaction: no row version is dead to others, so no page is
        # pruned and a new version never reuses a pruned line pointer (the
        # heap stays in insertion order, updated rows last)
        "BEGIN;"]
    for name, q, _, _ in VIEWS:
        pg.append(f"CREATE VIEW {name} AS {q};")
    views = list(VIEWS)
    checks_at = []
    for i, (lam, pgs) in enumerate(trace):
        if lam == "CREATE_VIEW":
            views.append(LATE_VIEW)
            pg.append(f"CREATE VIEW {LATE_VIEW[0]} AS {LATE_VIEW[1]};")
            checks_at.append(None)
            continue
        pg.append(f"DO $$ BEGIN {pgs} EXCEPTION WHEN others THEN "
                  f"INSERT INTO errlog VALUES ({i}, SQLERRM); END $$;")
        cks = checks(views)
        checks_at.append(cks)
        for j, (q, _) in enumerate(cks):
            pg.append(f"\\echo @@ {i} {j}")
            pg.append(q + ";")
        pg.append(f"\\echo @@ {i} -1")  # the heap's pages
        pg.append("SELECT pg_relation_size('t') / 8192;")
    pg.append("\\echo @@ errlog")
    pg.append("SELECT step, msg FROM errlog;")
    pg.append("COMMIT;")
    ran = pg_trace.run(a.psql, pg, 1)
    if ran is None:
        return 1
    results, errors = ran
    out = [f"# generated by tests/diff/mv_spelling_pg.py --seed {a.seed} "
           f"--steps {a.steps}; expected results from PostgreSQL 15", "",
           "statement ok", ddl, ""]
    for name, q, _, _ in VIEWS:
        out += ["statement ok", f"CREATE MATERIALIZED VIEW {name} AS {q}", ""]
    ran_steps = len(trace)
    for i, (lam, _) in enumerate(trace):
        if lam != "CREATE_VIEW" and results.get((i, -1)) != ["1"]:
            # beyond one page a new row version goes wherever it fits: the
            # heap order is no longer insertion order; the trace ends here
            ran_steps = i
            break
        out += pg_trace.step_records(i, lam, errors, LATE_VIEW)
        if lam == "CREATE_VIEW":
            continue
        for j, (q, types) in enumerate(checks_at[i]):
            out += pg_trace.query_record(q, types, results.get((i, j), []))
    with open(a.slt, "w") as f:
        f.write("\n".join(out) + "\n")
    print(f"mv_spelling_pg: seed {a.seed}: {ran_steps} of {len(trace)} steps "
          "(one heap page), "
          f"{len(errors)} statements refused by PostgreSQL")
    return 0


if __name__ == "__main__":
    sys.exit(main())
