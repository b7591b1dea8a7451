#!/usr/bin/env python3
"""Random window-function queries checked against PostgreSQL 15.

Writes an .slt file (--slt) whose expected answers are PostgreSQL's: a
random table (ids 1..N unique; groups, integers, floats, text and
NUMERIC(8,2) with NULLs and ties), then --queries random `SELECT id, f(...) OVER (...) FROM r ORDER
BY id` over it: every function of docs/window_functions.md, PARTITION BY,
ORDER BY (ASC/DESC, NULLS FIRST/LAST), and random ROWS / GROUPS / RANGE
frames with offsets, half of them with an EXCLUDE clause (CURRENT ROW,
GROUP, TIES or NO OTHERS). Order-sensitive calls (ranking by position, LAG/LEAD,
FIRST/LAST/NTH_VALUE, ROWS frames) get `id` as their last ORDER BY key so
the answer is unique. The seed is printed by the caller; the same seed
gives the same file.

  python3 tests/diff/window_random_pg.py --psql "psql -h DIR -U postgres" \
      --seed 1 --queries 200 --slt out.slt
"""
import argparse
import random
import shlex
import subprocess
import sys
import os

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cases"))
import slt_pg  # noqa: E402


def table(rnd, n):
    rows = []
    for i in range(1, n + 1):
        g = rnd.choice(["NULL", "0", "1", "2", "3"])
        x = "NULL" if rnd.random() < 0.15 else str(rnd.randint(0, 12))
        y = "NULL" if rnd.random() < 0.15 else "%.2f" % (rnd.randint(-400, 400) / 8)
        s = "NULL" if rnd.random() < 0.1 else "'%s'" % rnd.choice(
            ["a", "b", "c", "ab", "ba", "x", ""])
        d = "NULL" if rnd.random() < 0.15 else "%.2f" % (rnd.randint(-1600, 1600) / 100)
        rows.append("(%d, %s, %s, %s, %s, %s)" % (i, g, x, y, s, d))
    return rows


def frame(rnd, unit, okey):
    """A valid frame clause for unit (ROWS/GROUPS/RANGE) over key okey."""
    def off():
        if unit == "RANGE" and okey in ("y", "d"):
            return rnd.choice(["0.5", "3", "12.25", "0"])
        return str(rnd.choice([0, 1, 2, 3, 5]))
    # start kinds 0..3, end kinds >= start's order (PostgreSQL's rules)
    order = ["UP", "P", "C", "F", "UF"]
    s = rnd.choice(order[:4])
    e = rnd.choice([k for k in order[order.index(s):] if k != "UP"])

    def txt(k):
        return {"UP": "UNBOUNDED PRECEDING", "C": "CURRENT ROW",
                "UF": "UNBOUNDED FOLLOWING", "P": off() + " PRECEDING",
                "F": off() + " FOLLOWING"}[k]
    return "%s BETWEEN %s AND %s" % (unit, txt(s), txt(e))


FUNCS = [
    ("row_number()", "I", "pos"), ("rank()", "I", "rank"),
    ("dense_rank()", "I", "rank"), ("percent_rank()", "R", "rank"),
    ("cume_dist()", "R", "rank"), ("ntile(%d)", "I", "pos"),
    ("lag(x)", "I", "pos"), ("lead(x, %d)", "I", "pos"),
    ("lag(x, %d, -1)", "I", "pos"), ("lead(s, 1, 'zz')", "T", "pos"),
    ("first_value(x)", "I", "val"), ("last_value(s)", "T", "val"),
    ("nth_value(x, %d)", "I", "val"),
    ("count(*)", "I", "agg"), ("count(x)", "I", "agg"), ("sum(x)", "I", "agg"),
    ("avg(x)", "R", "agg"), ("min(x)", "I", "agg"), ("max(x)", "I", "agg"),
    ("sum(y)", "R", "agg"), ("min(s)", "T", "agg"), ("max(y)", "R", "agg"),
    ("count(*) FILTER (WHERE x > 5)", "I", "agg"),
    ("string_agg(s, ',')", "T", "val"), ("nth_value(s, %d)", "T", "val"),
    ("sum(d)", "T", "agg"), ("avg(d)", "R", "agg"), ("min(d)", "T", "agg"),
    ("max(d)", "T", "agg"),
    ("var_pop(y)", "R", "agg"), ("stddev(y)", "R", "agg"),
    ("var_samp(x)", "R", "agg"), ("stddev_pop(d)", "R", "agg"),
    ("corr(y, x)", "R", "agg"), ("regr_slope(y, d)", "R", "agg"),
    ("regr_count(y, x)", "I", "agg"), ("bit_or(x)", "I", "agg"),
    ("bit_and(x) FILTER (WHERE x > 2)", "I", "agg"),
]


def exclude(rnd):
    """An EXCLUDE clause (or none) for a frame."""
    if rnd.random() < 0.5:
        return ""
    return " EXCLUDE " + rnd.choice(["CURRENT ROW", "GROUP", "TIES",
                                     "NO OTHERS"])


def query(rnd):
    f, t, kind = rnd.choice(FUNCS)
    if "%d" in f:
        f = f % rnd.randint(1, 5)
    part = ""
    if rnd.random() < 0.6:
        part = "PARTITION BY " + rnd.choice(["g", "g, x > 5", "x % 3"]) + " "
    keys = []
    frm = ""
    if kind == "agg" and rnd.random() < 0.35:
        # RANGE with an offset: exactly one numeric key
        k = rnd.choice(["x", "y", "d"])
        keys.append(k + rnd.choice(["", " DESC", " NULLS FIRST", " DESC NULLS LAST"]))
        frm = " " + frame(rnd, "RANGE", k) + exclude(rnd)
    else:
        for _ in range(rnd.randint(0 if kind in ("agg", "val") else 1, 2)):
            keys.append(rnd.choice(["x", "y", "s", "g", "d"]) +
                        rnd.choice(["", " DESC", " NULLS FIRST", " DESC NULLS LAST"]))
        unit = None
        if kind in ("agg", "val") and rnd.random() < 0.7:
            unit = rnd.choice(["ROWS", "GROUPS", "RANGE"])
            if unit == "GROUPS" and not keys:
                keys.append("x")
        pos_sensitive = kind in ("pos", "val") or unit == "ROWS"
        if pos_sensitive:
            keys.append("id" + rnd.choice(["", " DESC"]))
        if unit == "RANGE":
            frm = " RANGE BETWEEN " + rnd.choice([
                "UNBOUNDED PRECEDING AND CURRENT ROW",
                "CURRENT ROW AND UNBOUNDED FOLLOWING",
                "UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING",
                "CURRENT ROW AND CURRENT ROW"]) + exclude(rnd)
        elif unit:
            frm = " " + frame(rnd, unit, None) + exclude(rnd)
    order = ("ORDER BY " + ", ".join(keys)) if keys else ""
    spec = (part + order + frm).strip()
    return t, "SELECT id, %s OVER (%s) FROM r ORDER BY id" % (f, spec)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--psql", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--rows", type=int, default=40)
    ap.add_argument("--slt", required=True)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    db = "winrand_%d" % a.seed
    admin = shlex.split(a.psql) + ["-d", "postgres", "-X", "-q", "-c"]
    subprocess.run(admin + ["DROP DATABASE IF EXISTS %s" % db], capture_output=True)
    subprocess.run(admin + ["CREATE DATABASE %s" % db], check=True,
                   capture_output=True)
    setup = ["CREATE TABLE r (id INT, g INT, x INT, y DOUBLE PRECISION, s VARCHAR, "
             "d NUMERIC(8,2))",
             "INSERT INTO r VALUES " + ", ".join(table(rnd, a.rows))]
    out = ["# generated by tests/diff/window_random_pg.py --seed %d: every "
           "answer is PostgreSQL 15's" % a.seed, ""]
    for st in setup:
        ok, _, msg = slt_pg.run(a.psql, db, st)
        if not ok:
            print("setup failed: %s" % msg)
            return 1
        out += ["statement ok", st, ""]
    for _ in range(a.queries):
        t, q = query(rnd)
        ok, rows, msg = slt_pg.run(a.psql, db, q)
        if not ok:
            print("PostgreSQL refused a generated query (generator bug): %s\n%s"
                  % (msg, q))
            return 1
        out += ["query I" + t, q, "----"]
        out += [" ".join(slt_pg.fmt(v, ("I" + t)[k]) for k, v in enumerate(r))
                for r in rows]
        out.append("")
    open(a.slt, "w").write("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
