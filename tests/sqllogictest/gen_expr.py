#!/usr/bin/env python3
"""Random queries in the style of SQLite's test/random/* files, answered by
PostgreSQL (psql), written as a corpus-mode .test file (all columns I, rowsort).
usage: gen.py SEED N OUT.test"""
import os, shlex
import random, subprocess, sys
seed, N, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
R = random.Random(seed)
PSQL = shlex.split(os.environ.get("PSQL", "psql"))
data = {t: [[R.randint(0, 99) for _ in range(3)] for _ in range(3)] for t in ("tab0", "tab1", "tab2")}
setup = []
for t in data:
    setup.append(f"CREATE TABLE {t}(col0 INTEGER, col1 INTEGER, col2 INTEGER)")
for t, rows in data.items():
    for r in rows:
        setup.append(f"INSERT INTO {t} VALUES({r[0]},{r[1]},{r[2]})")

def lit():
    return str(R.randint(0, 99))

def un(e):
    return R.choice(["- ", "+ ", "- - ", "+ - "]) + e

def expr(d, cols, agg):
    k = R.random()
    if d <= 0 or k < 0.25:
        c = R.random()
        if cols and c < 0.5:
            return R.choice(cols)
        if c < 0.58:
            return "CAST ( NULL AS INTEGER )"
        return lit()
    if k < 0.35:
        return un(expr(d - 1, cols, agg))
    if k < 0.6:
        op = R.choice(["+", "-", "*", "*", "/", "+"])
        return f"{expr(d-1, cols, agg)} {op} {expr(d-1, cols, agg)}"
    if k < 0.65:
        return f"( {expr(d-1, cols, agg)} )"
    if k < 0.72:
        n = R.randint(1, 3)
        if R.random() < 0.5:
            s = "CASE " + expr(d-1, cols, agg)
            for _ in range(n):
                s += f" WHEN {expr(d-1, cols, agg)} THEN {expr(d-1, cols, agg)}"
        else:
            s = "CASE"
            for _ in range(n):
                s += f" WHEN {pred(d-1, cols, agg)} THEN {expr(d-1, cols, agg)}"
        if R.random() < 0.6:
            s += f" ELSE {expr(d-1, cols, agg)}"
        return s + " END"
    if k < 0.77:
        return "COALESCE ( " + ", ".join(expr(d-1, cols, agg) for _ in range(R.randint(1, 3))) + " )"
    if k < 0.81:
        return f"NULLIF ( {expr(d-1, cols, agg)}, {expr(d-1, cols, agg)} )"
    if k < 0.86:
        return f"CAST ( {expr(d-1, cols, agg)} AS INTEGER )"
    if agg and k < 0.97:
        f = R.choice(["COUNT", "SUM", "MIN", "MAX", "AVG", "COUNT"])
        if f == "COUNT" and R.random() < 0.4:
            return "COUNT ( * )"
        q = R.choice(["", "", "DISTINCT ", "ALL "])
        return f"{f} ( {q}{expr(d-1, cols, False)} )"
    return lit()

def pred(d, cols, agg):
    k = R.random()
    if d <= 0 or k < 0.35:
        rhs = "NULL" if R.random() < 0.1 else expr(d-1, cols, agg)
        return f"{expr(d-1, cols, agg)} {R.choice(['=', '<>', '<', '>', '<=', '>='])} {rhs}"
    if k < 0.45:
        return f"{expr(d-1, cols, agg)} IS {R.choice(['', 'NOT '])}NULL"
    if k < 0.55:
        return f"NOT {pred(d-1, cols, agg)}"
    if k < 0.7:
        return f"{pred(d-1, cols, agg)} {R.choice(['AND', 'OR'])} {pred(d-1, cols, agg)}"
    if k < 0.8:
        return f"{expr(d-1, cols, agg)} {R.choice(['', 'NOT '])}BETWEEN {expr(d-1, cols, agg)} AND {expr(d-1, cols, agg)}"
    if k < 0.92:
        return f"{expr(d-1, cols, agg)} {R.choice(['', 'NOT '])}IN ( " + ", ".join(expr(d-1, cols, agg) for _ in range(R.randint(1, 4))) + " )"
    return f"( {pred(d-1, cols, agg)} )"

def query():
    k = R.random()
    dist = R.choice(["", "", "DISTINCT ", "ALL "])
    if k < 0.3:  # constant expressions, aggregates over no FROM
        n = R.randint(1, 2)
        return f"SELECT {dist}" + ", ".join(expr(4, [], True) for _ in range(n))
    t = R.choice(list(data))
    a = R.choice(["", " AS cor0", " cor0"])
    q = "cor0." if a and R.random() < 0.3 else ""
    cols = [q + c for c in ("col0", "col1", "col2")]
    frm = f" FROM {t}{a}"
    if R.random() < 0.15:
        frm += f", {R.choice(list(data))} AS cor1"
        cols = [c for c in cols]  # unqualified would be ambiguous: qualify
        if not q:
            cols = [f"{t if not a else 'cor0'}.{c}" for c in ("col0", "col1", "col2")]
    where = f" WHERE {pred(3, cols, False)}" if R.random() < 0.5 else ""
    if k < 0.6:
        n = R.randint(1, 2)
        return f"SELECT {dist}" + ", ".join(expr(3, cols, False) for _ in range(n)) + frm + where
    if k < 0.85:
        return f"SELECT {dist}" + expr(3, cols, True) + frm + where
    g = R.choice(cols)
    having = f" HAVING {pred(2, [g], True)}" if R.random() < 0.4 else ""
    return f"SELECT {dist}{expr(2, [g], True)} FROM {t}{a} GROUP BY {g}{having}" if not frm.count(",") else f"SELECT {dist}{expr(2, [g], True)}{frm} GROUP BY {g}{having}"

qs = []
seen = set()
while len(qs) < N:
    s = query()
    if s not in seen:
        seen.add(s); qs.append(s)

script = "\\pset null NULL\n" + ";\n".join(setup) + ";\n"
for i, s in enumerate(qs):
    script += f"\\echo @@@ {i}\n{s};\n"
script += "\\echo @@@ end\n"
dbname = f"g{seed}"
subprocess.run(PSQL + ["-q", "-c", f"DROP DATABASE IF EXISTS {dbname}", "-c", f"CREATE DATABASE {dbname}"], check=True, capture_output=True)
p = subprocess.run(PSQL + ["-q", "-A", "-t", "-F", "\t", "-d", dbname], input=script, text=True, capture_output=True)
lines = (p.stdout + "").split("\n")
# errors go to stderr: run again per failing? Instead map by statement order
err_lines = [l for l in p.stderr.split("\n") if "ERROR:" in l]
res = {}
cur = None
for l in lines:
    if l.startswith("@@@ "):
        cur = l[4:]
        res[cur] = []
        continue
    if cur is not None and cur != "end" and l != "":
        res[cur].append(l.split("\t"))
# find which queries errored: rerun those with empty results individually
def conv(v):
    if v == "NULL":
        return "NULL"
    try:
        return str(int(float(v))) if "." in v or "e" in v.lower() else str(int(v))
    except ValueError:
        return v
with open(out, "w") as f:
    f.write("hash-threshold 1000000\n\n")
    for s in setup:
        f.write(f"statement ok\n{s}\n\n")
    for i, s in enumerate(qs):
        rows = res.get(str(i), [])
        errored = False
        if not rows:
            p2 = subprocess.run(PSQL + ["-q", "-A", "-t", "-d", dbname, "-c", s], text=True, capture_output=True)
            errored = "ERROR" in p2.stderr
        if errored:
            msg = [l for l in p2.stderr.split("\n") if "ERROR" in l][0]
            f.write(f"# pg: {msg}\nstatement error\n{s}\n\n")
            continue
        ncol = len(rows[0]) if rows else s.count(",") + 1
        if rows:
            vals = [[conv(v) for v in r] for r in rows]
            vals.sort()
            flat = [v for r in vals for v in r]
            # strcmp row order == Python list compare of str lists
            f.write(f"query {'I'*ncol} rowsort\n{s}\n----\n" + "\n".join(flat) + "\n\n")
        else:
            # column count unknown for empty results: ask psql
            p3 = subprocess.run(PSQL + ["-q", "-d", dbname, "-c", s + " LIMIT 0"], text=True, capture_output=True)
            hdr = p3.stdout.strip().split("\n")[0]
            n = hdr.count("|") + 1
            f.write(f"query {'I'*n} rowsort\n{s}\n----\n\n")
print(len(qs), "queries")
