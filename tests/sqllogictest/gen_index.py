#!/usr/bin/env python3
"""Random queries in the style of SQLite's test/index/* files (tables tab0..tab4
of (pk, col0 INTEGER, col1 FLOAT, col2 TEXT, col3 INTEGER, col4 FLOAT,
col5 TEXT)), answered by PostgreSQL, as a corpus-mode .test file.
usage: gen2.py SEED NROWS NQUERIES OUT.test"""
import os, shlex
import random, subprocess, sys, string
seed, NR, N, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
R = random.Random(seed)
PSQL = shlex.split(os.environ.get("PSQL", "psql"))
rows = []
for i in range(NR):
    rows.append((i, R.randint(0, 999), round(R.uniform(0, 1000), 2), "".join(R.choice(string.ascii_lowercase) for _ in range(5)),
                 R.randint(0, 999), round(R.uniform(0, 1000), 2), "".join(R.choice(string.ascii_lowercase) for _ in range(5))))
setup = ["CREATE TABLE tab0(pk INTEGER PRIMARY KEY, col0 INTEGER, col1 FLOAT, col2 TEXT, col3 INTEGER, col4 FLOAT, col5 TEXT)"]
for r in rows:
    setup.append("INSERT INTO tab0 VALUES(%d,%d,%s,'%s',%d,%s,'%s')" % r)
for t in (1, 2):
    setup.append(f"CREATE TABLE tab{t}(pk INTEGER PRIMARY KEY, col0 INTEGER, col1 FLOAT, col2 TEXT, col3 INTEGER, col4 FLOAT, col5 TEXT)")
    setup.append(f"CREATE INDEX idx_tab{t}_0 ON tab{t} (col0, col1 DESC)")
    setup.append(f"INSERT INTO tab{t} SELECT * FROM tab0")
ICOL = ["col0", "col3", "pk"]
FCOL = ["col1", "col4"]
TCOL = ["col2", "col5"]
def num():
    return str(R.randint(0, 999)) if R.random() < 0.6 else "%.2f" % R.uniform(0, 1000)
def val(kind):
    if kind == "I":
        return R.choice(ICOL) if R.random() < 0.5 else str(R.randint(0, 999))
    if kind == "F":
        return R.choice(FCOL) if R.random() < 0.5 else num()
    return R.choice(TCOL) if R.random() < 0.5 else "'" + "".join(R.choice(string.ascii_lowercase) for _ in range(R.randint(1, 5))) + "'"
def pred(d):
    k = R.random()
    if d <= 0 or k < 0.4:
        kind = R.choice("IIFFT")
        c = R.choice(ICOL if kind == "I" else FCOL if kind == "F" else TCOL)
        op = R.choice(["=", "<>", "<", ">", "<=", ">="])
        rhs = val(kind) if kind == "T" else (num() if kind == "F" else str(R.randint(0, 999)))
        return f"{c} {op} {rhs}" if R.random() < 0.5 else f"{rhs} {op} {c}"
    if k < 0.5:
        return f"{R.choice(ICOL + FCOL + TCOL)} IS {R.choice(['', 'NOT '])}NULL"
    if k < 0.6:
        c = R.choice(ICOL + FCOL)
        a, b = sorted([R.randint(0, 999), R.randint(0, 999)]) if R.random() < 0.8 else (R.randint(0, 999), R.randint(0, 999))
        return f"{c} {R.choice(['', 'NOT '])}BETWEEN {a} AND {b}"
    if k < 0.7:
        kind = R.choice("IFT")
        c = R.choice(ICOL if kind == "I" else FCOL if kind == "F" else TCOL)
        if R.random() < 0.3:
            c2 = R.choice(ICOL if kind == "I" else FCOL if kind == "F" else TCOL)
            return f"{c} {R.choice(['', 'NOT '])}IN (SELECT {c2} FROM tab0 WHERE {pred(d-1)})"
        lst = [val(kind) if kind == "T" else (num() if kind == "F" else str(R.randint(0, 999))) for _ in range(R.randint(1, 5))]
        if kind == "I" and R.random() < 0.3:
            lst = [R.choice(ICOL)] + lst
        return f"{c} {R.choice(['', 'NOT '])}IN ({','.join(lst)})"
    if k < 0.8:
        return f"NOT ({pred(d-1)})"
    return f"({pred(d-1)}) {R.choice(['AND', 'OR'])} ({pred(d-1)})"
def sel_item():
    k = R.random()
    if k < 0.4:
        return R.choice(["pk", "col0", "col1", "col2", "col3", "col4", "col5"])
    if k < 0.6:
        return f"{R.choice(ICOL)} {R.choice(['+', '-', '*', '/'])} {R.choice(ICOL + [str(R.randint(1, 99))])}"
    if k < 0.75:
        return f"{R.choice(FCOL)} {R.choice(['+', '-', '*', '/'])} {R.choice(ICOL + FCOL + [str(R.randint(1, 99))])}"
    return R.choice(["col0 + col3", "- col1", "col4 * 2", "ABS(col1 - col4)", "col2 || col5", "LENGTH(col2)", "UPPER(col5)", "ROUND(col1)", "CAST(col1 AS INTEGER)", "CAST(col0 AS REAL) / 3"])
def agg_item():
    f = R.choice(["COUNT(*)", "SUM({i})", "MIN({a})", "MAX({a})", "AVG({i})", "COUNT(DISTINCT {a})", "SUM({f})", "AVG({f})", "MIN({t})", "MAX({t})"])
    return f.format(i=R.choice(ICOL), a=R.choice(ICOL + FCOL), f=R.choice(FCOL), t=R.choice(TCOL))
def query():
    t = f"tab{R.randint(0, 2)}"
    k = R.random()
    w = f" WHERE {pred(3)}" if R.random() < 0.85 else ""
    if k < 0.35:
        return f"SELECT pk FROM {t}{w}", False
    if k < 0.6:
        items = ", ".join(sel_item() for _ in range(R.randint(1, 3)))
        if R.random() < 0.5:
            ob = ", ".join(f"{R.randint(1, items.count(',') + 1)}{R.choice(['', ' DESC', ' ASC'])}" for _ in range(1))
            return f"SELECT {items}, pk FROM {t}{w} ORDER BY {ob}, pk{R.choice(['', ' DESC'])}", True
        return f"SELECT {R.choice(['', 'DISTINCT '])}{items} FROM {t}{w}", False
    if k < 0.8:
        return f"SELECT {', '.join(agg_item() for _ in range(R.randint(1, 3)))} FROM {t}{w}", False
    g = R.choice(["col0 % 7", "col2", "col3 / 100", "col0"])
    return f"SELECT {g}, {agg_item()} FROM {t}{w} GROUP BY {g}{' HAVING COUNT(*) > 1' if R.random() < 0.3 else ''}", False
qs, seen = [], set()
while len(qs) < N:
    s, ordered = query()
    if s not in seen:
        seen.add(s); qs.append((s, ordered))
dbname = f"h{seed}"
subprocess.run(PSQL + ["-q", "-c", f"DROP DATABASE IF EXISTS {dbname}", "-c", f"CREATE DATABASE {dbname}"], check=True, capture_output=True)
subprocess.run(PSQL + ["-q", "-d", dbname], input=";\n".join(setup) + ";\n", text=True, check=True, capture_output=True)
def fmt(v, t):
    if v is None or v == "NULL":
        return "NULL"
    if t == "I":
        return str(int(float(v)))
    if t == "R":
        s = "%.3f" % float(v)
        return "0.000" if s == "-0.000" else s
    return v if v != "" else "(empty)"
with open(out, "w") as f:
    f.write("hash-threshold 8\n\n")
    for s in setup:
        f.write(f"statement ok\n{s}\n\n")
    for s, ordered in qs:
        # types from a typed probe
        p = subprocess.run(PSQL + ["-q", "-A", "-t", "-F", "\x1f", "-d", dbname, "-v", "ON_ERROR_STOP=1", "-c", "\\pset null NULL", "-c", s], text=True, capture_output=True)
        if p.returncode != 0:
            msg = [l for l in p.stderr.split("\n") if "ERROR" in l][0]
            f.write(f"# pg: {msg}\nstatement error\n{s}\n\n")
            continue
        tq = subprocess.run(PSQL + ["-q", "-A", "-t", "-F", "\x1f", "-d", dbname], input=s + " \\gdesc\n", text=True, capture_output=True)
        types = ""
        for ln in tq.stdout.split("\n"):
            if not ln:
                continue
            ty = ln.split("\x1f")[1]
            types += "I" if ty in ("integer", "bigint", "smallint", "boolean") else "R" if ty.startswith(("numeric", "double", "real")) else "T"
        lines = [l for l in p.stdout.split("\n") if l != ""]
        vals = [[fmt(v, types[i]) for i, v in enumerate(l.split("\x1f"))] for l in lines]
        mode = "nosort" if ordered else "rowsort"
        if not ordered:
            vals.sort()
        flat = [v for r in vals for v in r]
        if len(flat) > 8:
            import hashlib
            h = hashlib.md5("".join(v + "\n" for v in flat).encode()).hexdigest()
            body = f"{len(flat)} values hashing to {h}\n"
        else:
            body = "".join(v + "\n" for v in flat)
        f.write(f"query {types} {mode}\n{s}\n----\n{body}\n")
print(len(qs), "queries")
