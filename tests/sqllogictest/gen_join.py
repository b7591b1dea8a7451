#!/usr/bin/env python3
"""Joins, subqueries, DELETE/UPDATE and ORDER BY over small integer tables
(with NULLs), answered by PostgreSQL, as a corpus-mode .test file.
usage: gen3.py SEED N OUT.test"""
import os, shlex
import random, subprocess, sys, hashlib
seed, N, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
R = random.Random(seed)
PSQL = shlex.split(os.environ.get("PSQL", "psql"))
T = ["tab0", "tab1", "tab2"]
def v():
    return "NULL" if R.random() < 0.15 else str(R.randint(0, 20))
setup = []
for t in T:
    setup.append(f"CREATE TABLE {t}(col0 INTEGER, col1 INTEGER, col2 INTEGER)")
for t in T:
    for _ in range(R.randint(3, 6)):
        setup.append(f"INSERT INTO {t} VALUES({v()},{v()},{v()})")
def col(a):
    return f"{a}.col{R.randint(0, 2)}"
def e(a_list, d=2):
    k = R.random()
    if d <= 0 or k < 0.5:
        return col(R.choice(a_list)) if R.random() < 0.7 else str(R.randint(0, 20))
    if k < 0.8:
        return f"{e(a_list, d-1)} {R.choice(['+', '-', '*'])} {e(a_list, d-1)}"
    if k < 0.9:
        return f"COALESCE({e(a_list, d-1)}, {e(a_list, d-1)})"
    return f"CASE WHEN {p(a_list, d-1)} THEN {e(a_list, d-1)} ELSE {e(a_list, d-1)} END"
def sub(a_list, d):
    t = R.choice(T); b = f"s{d}"
    w = f" WHERE {p([b] + (a_list if R.random() < 0.6 else []), d-1)}" if R.random() < 0.8 else ""
    return t, b, w
def p(a_list, d=2):
    k = R.random()
    if d <= 0 or k < 0.4:
        return f"{e(a_list, 1)} {R.choice(['=', '<>', '<', '>', '<=', '>='])} {e(a_list, 1)}"
    if k < 0.5:
        return f"{e(a_list, 1)} IS {R.choice(['', 'NOT '])}NULL"
    if k < 0.6:
        return f"({p(a_list, d-1)}) {R.choice(['AND', 'OR'])} ({p(a_list, d-1)})"
    if k < 0.7:
        t, b, w = sub(a_list, d)
        return f"{R.choice(['', 'NOT '])}EXISTS (SELECT 1 FROM {t} {b}{w})"
    if k < 0.8:
        t, b, w = sub(a_list, d)
        return f"{e(a_list, 1)} {R.choice(['', 'NOT '])}IN (SELECT {col(b)} FROM {t} {b}{w})"
    if k < 0.9:
        t, b, w = sub(a_list, d)
        return f"{e(a_list, 1)} {R.choice(['=', '<', '>'])} (SELECT {R.choice(['MAX', 'MIN', 'COUNT', 'SUM'])}({col(b)}) FROM {t} {b}{w})"
    return f"NOT ({p(a_list, d-1)})"
def query():
    k = R.random()
    if k < 0.45:
        n = R.randint(1, 3)
        al = [f"a{i}" for i in range(n)]
        frm = f"{R.choice(T)} a0"
        for i in range(1, n):
            j = R.choice(["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "CROSS JOIN", ","])
            if j in ("CROSS JOIN", ","):
                frm += f"{' ' if j != ',' else ''}{j} {R.choice(T)} a{i}"
            else:
                frm += f" {j} {R.choice(T)} a{i} ON {p(al[:i+1], 1)}"
        items = ", ".join(e(al, 1) for _ in range(R.randint(1, 3)))
        w = f" WHERE {p(al, 2)}" if R.random() < 0.6 else ""
        return "q", f"SELECT {R.choice(['', 'DISTINCT '])}{items} FROM {frm}{w}"
    if k < 0.6:
        al = ["a0"]
        t = R.choice(T); t2 = R.choice(T)
        return "q", f"SELECT a0.col0, (SELECT {R.choice(['MAX', 'COUNT', 'SUM'])}(s.col1) FROM {t2} s WHERE s.col2 {R.choice(['=', '<', '>'])} a0.col{R.randint(0,2)}) FROM {t} a0"
    if k < 0.75:
        al = ["a0"]
        items = [e(al, 1) for _ in range(R.randint(1, 2))]
        ob = ", ".join(f"{i+1}{R.choice(['', ' DESC', ' NULLS FIRST', ' DESC NULLS LAST'])}" for i in range(len(items)))
        lim = f" LIMIT {R.randint(1, 5)}" if R.random() < 0.3 else ""
        return "o", f"SELECT {', '.join(items)} FROM {R.choice(T)} a0{' WHERE ' + p(al, 1) if R.random() < 0.5 else ''} ORDER BY {ob}{lim}"
    if k < 0.85:
        a, b = R.choice(T), R.choice(T)
        op = R.choice(["UNION", "UNION ALL", "EXCEPT", "INTERSECT", "EXCEPT ALL", "INTERSECT ALL"])
        return "q", f"SELECT a0.col{R.randint(0,2)} FROM {a} a0 {op} SELECT b0.col{R.randint(0,2)} FROM {b} b0"
    t = R.choice(T)
    if R.random() < 0.5:
        return "s", f"DELETE FROM {t} WHERE {p([t], 1)}"
    return "s", f"UPDATE {t} SET col{R.randint(0,2)} = {e([t], 1)} WHERE {p([t], 1)}"
dbname = f"j{seed}"
subprocess.run(PSQL + ["-q", "-c", f"DROP DATABASE IF EXISTS {dbname}", "-c", f"CREATE DATABASE {dbname}"], check=True, capture_output=True)
subprocess.run(PSQL + ["-q", "-d", dbname], input=";\n".join(setup) + ";\n", text=True, check=True, capture_output=True)
def fmt(x, t):
    if x == "NULL": return "NULL"
    if t == "I": return str(int(float(x))) if x not in ("t", "f") else ("1" if x == "t" else "0")
    return x if x else "(empty)"
with open(out, "w") as f:
    f.write("hash-threshold 8\n\n")
    for s in setup:
        f.write(f"statement ok\n{s}\n\n")
    for _ in range(N):
        kind, s = query()
        p_ = subprocess.run(PSQL + ["-q", "-A", "-t", "-F", "\x1f", "-d", dbname, "-v", "ON_ERROR_STOP=1", "-c", "\\pset null NULL", "-c", s], text=True, capture_output=True)
        if p_.returncode != 0:
            msg = [l for l in p_.stderr.split("\n") if "ERROR" in l][0]
            f.write(f"# pg: {msg}\nstatement error\n{s}\n\n"); continue
        if kind == "s":
            f.write(f"statement ok\n{s}\n\n"); continue
        tq = subprocess.run(PSQL + ["-q", "-A", "-t", "-F", "\x1f", "-d", dbname], input=s + " \\gdesc\n", text=True, capture_output=True)
        types = "".join("I" if ln.split("\x1f")[1] in ("integer", "bigint", "boolean", "numeric") else "T" for ln in tq.stdout.split("\n") if ln)
        vals = [[fmt(x, types[i]) for i, x in enumerate(l.split("\x1f"))] for l in p_.stdout.split("\n") if l != ""]
        if kind == "q": vals.sort()
        flat = [x for r in vals for x in r]
        body = f"{len(flat)} values hashing to {hashlib.md5(''.join(x + chr(10) for x in flat).encode()).hexdigest()}\n" if len(flat) > 8 else "".join(x + "\n" for x in flat)
        f.write(f"query {types} {'rowsort' if kind == 'q' else 'nosort'}\n{s}\n----\n{body}\n")
