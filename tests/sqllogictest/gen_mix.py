#!/usr/bin/env python3
"""Random queries mixing the styles of SQLite's test/random/* and test/index/*
over tables with INTEGER, FLOAT and TEXT columns and NULLs, answered by
PostgreSQL, as a corpus-mode .test file.  usage: gen_mix.py SEED N OUT.test"""
import os, shlex, random, subprocess, sys, string, hashlib
seed, N, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
R = random.Random(seed)
PSQL = shlex.split(os.environ.get("PSQL", "psql"))
T = ["tab0", "tab1", "tab2"]
COLS = {"pk": "I", "col0": "I", "col1": "F", "col2": "T", "col3": "I", "col4": "F", "col5": "T"}
def word():
    return "".join(R.choice("abcdefg") for _ in range(R.randint(1, 4)))
setup = []
for t in T:
    setup.append(f"CREATE TABLE {t}(pk INTEGER PRIMARY KEY, col0 INTEGER, col1 FLOAT, col2 TEXT, col3 INTEGER, col4 FLOAT, col5 TEXT)")
    for i in range(R.randint(4, 8)):
        def nn(s):
            return "NULL" if R.random() < 0.12 else s
        setup.append(f"INSERT INTO {t} VALUES({i},{nn(str(R.randint(-20, 99)))},{nn('%.2f' % R.uniform(-50, 100))},{nn(repr(word()))},{nn(str(R.randint(0, 30)))},{nn(str(R.randint(0, 9)) + '.5')},{nn(repr(word()))})")
def lit(k):
    if k == "I":
        return str(R.randint(0, 99)) if R.random() < 0.9 else "CAST ( NULL AS INTEGER )"
    if k == "F":
        return "%.1f" % R.uniform(0, 99)
    return "'" + word() + "'"
def col(al, k=None):
    cs = [c for c, kk in COLS.items() if k is None or kk == k]
    c = R.choice(cs)
    a = R.choice(al)
    return f"{a}.{c}" if a else c
def un(e):
    return R.choice(["- ", "+ ", "- - ", "+ - ", ""]) + e
def num(al, d, agg=False):
    """numeric expression (I or F)"""
    k = R.random()
    if d <= 0 or k < 0.3:
        r = R.random()
        if al and r < 0.6:
            return un(col(al, R.choice("IIF")))
        if r < 0.65:
            return "CAST ( NULL AS INTEGER )"
        return un(lit(R.choice("IIF")))
    if k < 0.55:
        op = R.choice(["+", "-", "*", "/", "%", "*", "+"])
        if op == "%":
            return f"{col(al, 'I') if al else lit('I')} % NULLIF ( {un(lit('I'))}, 0 )"
        rhs = num(al, d - 1, agg)
        if op in "/%" and R.random() < 0.7:
            rhs = f"NULLIF ( {rhs}, 0 )"
        return f"{num(al, d-1, agg)} {op} {rhs}"
    if k < 0.6:
        return f"( {num(al, d-1, agg)} )"
    if k < 0.67:
        s = "CASE"
        for _ in range(R.randint(1, 2)):
            s += f" WHEN {pred(al, d-1, agg)} THEN {num(al, d-1, agg)}"
        if R.random() < 0.6:
            s += f" ELSE {num(al, d-1, agg)}"
        return s + " END"
    if k < 0.72:
        s = f"CASE {num(al, d-1, agg)}"
        for _ in range(R.randint(1, 2)):
            s += f" WHEN {num(al, d-1, agg)} THEN {num(al, d-1, agg)}"
        return s + (f" ELSE {num(al, d-1, agg)}" if R.random() < 0.5 else "") + " END"
    if k < 0.77:
        return "COALESCE ( " + ", ".join(num(al, d-1, agg) for _ in range(R.randint(1, 3))) + " )"
    if k < 0.8:
        return f"NULLIF ( {num(al, d-1, agg)}, {num(al, d-1, agg)} )"
    if k < 0.84:
        return f"CAST ( {num(al, d-1, agg)} AS {R.choice(['INTEGER', 'REAL', 'BIGINT', 'FLOAT'])} )"
    if k < 0.87:
        return f"ABS ( {num(al, d-1, agg)} )"
    if k < 0.9:
        return R.choice([f"LENGTH ( {col(al, 'T') if al else lit('T')} )", f"( SELECT s.col0 FROM {R.choice(T)} AS s WHERE s.pk = {R.randint(0, 6)} )", f"( SELECT s.col3 FROM {R.choice(T)} AS s WHERE s.col3 > {R.randint(0, 30)} )", f"POSITION ( 'a' IN {col(al, 'T') if al else lit('T')} )", f"CAST ( {col(al, 'T') if al else lit('T')} LIKE '%a%' AS INTEGER )"])
    if agg and k < 0.97:
        f = R.choice(["COUNT", "SUM", "MIN", "MAX", "AVG", "COUNT"])
        if f == "COUNT" and R.random() < 0.4:
            return "COUNT ( * )"
        return f"{f} ( {R.choice(['', '', 'DISTINCT ', 'ALL '])}{num(al, d-1, False)} )"
    if al and k < 0.99 and len(T) > 0:
        t = R.choice(T)
        return f"( SELECT {R.choice(['MAX', 'MIN', 'COUNT', 'SUM'])} ( s.{R.choice(['col0', 'col3', 'col1'])} ) FROM {t} AS s WHERE s.col3 {R.choice(['<', '>', '='])} {col(al, 'I')} )"
    return lit("I")
def txt(al, d):
    k = R.random()
    if d <= 0 or k < 0.5:
        return col(al, "T") if al and R.random() < 0.7 else lit("T")
    if k < 0.7:
        return f"{txt(al, d-1)} || {txt(al, d-1)}"
    if k < 0.8:
        return f"COALESCE ( {txt(al, d-1)}, {txt(al, d-1)} )"
    if k < 0.9:
        return f"UPPER ( {txt(al, d-1)} )"
    return f"CASE WHEN {pred(al, d-1)} THEN {txt(al, d-1)} ELSE {txt(al, d-1)} END"
def pred(al, d, agg=False):
    k = R.random()
    if d <= 0 or k < 0.3:
        if R.random() < 0.2:
            return f"{txt(al, 1)} {R.choice(['=', '<>', '<', '>=' ])} {txt(al, 1)}"
        rhs = "NULL" if R.random() < 0.08 else num(al, d-1, agg)
        if rhs == "NULL" and R.random() < 0.5:
            return f"NULL {R.choice(['=', '<>', '<'])} {num(al, d-1, agg)}"
        return f"{num(al, d-1, agg)} {R.choice(['=', '<>', '<', '>', '<=', '>='])} {rhs}"
    if k < 0.38:
        return f"{num(al, d-1, agg)} IS {R.choice(['', 'NOT '])}NULL"
    if k < 0.45:
        return f"NOT {pred(al, d-1, agg)}"
    if k < 0.6:
        return f"{pred(al, d-1, agg)} {R.choice(['AND', 'OR'])} {pred(al, d-1, agg)}"
    if k < 0.68:
        return f"{num(al, d-1, agg)} {R.choice(['', 'NOT '])}BETWEEN {num(al, d-1, agg)} AND {num(al, d-1, agg)}"
    if k < 0.78:
        lst = [num(al, 0, agg) for _ in range(R.randint(1, 4))]
        if R.random() < 0.2:
            lst.append("NULL")
        return f"{num(al, d-1, agg)} {R.choice(['', 'NOT '])}IN ( " + ", ".join(lst) + " )"
    if k < 0.86 and not agg:
        t = R.choice(T)
        c = R.choice(["col0", "col3", "col1"])
        w = f" WHERE {pred(['s'] + ([x for x in al if x] if R.random() < 0.5 else []), d-1)}" if R.random() < 0.7 else ""
        return f"{num(al, 0)} {R.choice(['', 'NOT '])}IN ( SELECT s.{c} FROM {t} AS s{w} )"
    if k < 0.92 and not agg:
        t = R.choice(T)
        w = f" WHERE {pred(['s'] + [x for x in al if x], d-1)}"
        return f"{R.choice(['', 'NOT '])}EXISTS ( SELECT 1 FROM {t} AS s{w} )"
    return f"( {pred(al, d-1, agg)} )"
def item(al, agg):
    if R.random() < 0.15:
        return txt(al, 2)
    return num(al, 3, agg)
def frm():
    n = R.choice([1, 1, 1, 2, 2, 3])
    ts = [R.choice(T) for _ in range(n)]
    if n == 1:
        a = R.choice(["", "cor0"])
        return f"{ts[0]}{' AS ' + a if a else ''}", [a]
    al = [f"cor{i}" for i in range(n)]
    s = f"{ts[0]} AS cor0"
    for i in range(1, n):
        j = R.choice([", ", " CROSS JOIN ", " JOIN ", " LEFT JOIN "])
        s += f"{j}{ts[i]} AS cor{i}"
        if j in (" JOIN ", " LEFT JOIN "):
            s += f" ON {pred(al[:i+1], 1)}"
    return s, al
def query():
    k = R.random()
    f, al = frm()
    w = f" WHERE {pred(al, 2)}" if R.random() < 0.6 else ""
    dist = R.choice(["", "", "DISTINCT ", "ALL "])
    if k < 0.35:
        items = [item(al, False) for _ in range(R.randint(1, 3))]
        return "q", f"SELECT {dist}{', '.join(items)} FROM {f}{w}"
    if k < 0.55:
        items = [num(al, 3, True) for _ in range(R.randint(1, 2))]
        return "q", f"SELECT {dist}{', '.join(items)} FROM {f}{w}"
    if k < 0.75:
        g = [col(al) for _ in range(R.randint(1, 2))]
        items = [R.choice(g)] + [num([], 2, True).replace("( * )", "( * )") if R.random() < 0.3 else f"{R.choice(['COUNT', 'SUM', 'MIN', 'MAX', 'AVG'])} ( {R.choice(['', 'DISTINCT '])}{col(al, R.choice('IF'))} )" for _ in range(R.randint(1, 2))]
        h = ""
        if R.random() < 0.5:
            h = f" HAVING {R.choice(['COUNT ( * )', 'SUM ( ' + col(al, 'I') + ' )', 'MIN ( ' + col(al, 'F') + ' )', 'AVG ( ' + col(al, 'I') + ' )'])} {R.choice(['>', '<', '>=', '<>', 'IS NOT NULL AND 1 ='])} {R.randint(0, 40)}"
        return "q", f"SELECT {dist}{', '.join(items)} FROM {f}{w} GROUP BY {', '.join(g)}{h}"
    if k < 0.87:
        items = [item(al, False) for _ in range(R.randint(1, 3))]
        ob = ", ".join(f"{i+1}{R.choice(['', ' DESC', ' ASC', ' DESC NULLS LAST', ' NULLS FIRST'])}" for i in range(len(items)))
        lim = f" LIMIT {R.randint(1, 6)}" + (f" OFFSET {R.randint(0, 3)}" if R.random() < 0.4 else "") if R.random() < 0.3 else ""
        return "o", f"SELECT {dist}{', '.join(items)} FROM {f}{w} ORDER BY {ob}{lim}"
    if k < 0.95:
        f2, al2 = frm()
        a = num(al, 2); b = num(al2, 2)
        op = R.choice(["UNION", "UNION ALL", "EXCEPT", "INTERSECT", "EXCEPT ALL", "INTERSECT ALL"])
        return "q", f"SELECT {a} FROM {f}{w} {op} SELECT {b} FROM {f2}"
    t = R.choice(T)
    if R.random() < 0.5:
        return "s", f"DELETE FROM {t} WHERE {pred([''], 1)}"
    c = R.choice(["col0", "col3", "col1", "col4"])
    return "s", f"UPDATE {t} SET {c} = {num([''], 1)} WHERE {pred([''], 1)}"
dbname = f"slt_mix{seed}"
subprocess.run(PSQL + ["-q", "-d", "postgres", "-c", f"DROP DATABASE IF EXISTS {dbname}", "-c", f"CREATE DATABASE {dbname}"], check=True, capture_output=True)
subprocess.run(PSQL + ["-q", "-d", dbname], input=";\n".join(setup) + ";\n", text=True, check=True, capture_output=True)
def fmt(x, t):
    if x == "NULL": return "NULL"
    if t == "I": return str(int(float(x))) if x not in ("t", "f") else ("1" if x == "t" else "0")
    if t == "R":
        s = "%.3f" % float(x)
        return "0.000" if s == "-0.000" else s
    return x if x else "(empty)"
nerr = 0
with open(out, "w") as fo:
    fo.write("hash-threshold 8\n\n")
    for s in setup:
        fo.write(f"statement ok\n{s}\n\n")
    done = 0
    while done < N:
        kind, s = query()
        if len(s) > 1500:
            continue
        done += 1
        p_ = subprocess.run(PSQL + ["-q", "-A", "-t", "-F", "\x1f", "-d", dbname, "-v", "ON_ERROR_STOP=1", "-c", "\\pset null NULL", "-c", s], text=True, capture_output=True)
        if p_.returncode != 0:
            msg = [l for l in p_.stderr.split("\n") if "ERROR" in l][0]
            nerr += 1
            fo.write(f"# pg: {msg}\nstatement error\n{s}\n\n"); continue
        if kind == "s":
            fo.write(f"statement ok\n{s}\n\n"); continue
        tq = subprocess.run(PSQL + ["-q", "-A", "-t", "-F", "\x1f", "-d", dbname], input=s + " \\gdesc\n", text=True, capture_output=True)
        types = ""
        for ln in tq.stdout.split("\n"):
            if not ln: continue
            ty = ln.split("\x1f")[1]
            types += "I" if ty in ("integer", "bigint", "smallint", "boolean") else "R" if ty.startswith(("numeric", "double", "real")) else "T"
        vals = [[fmt(x, types[i]) for i, x in enumerate(l.split("\x1f"))] for l in p_.stdout.split("\n") if l != ""]
        if kind == "q": vals.sort()
        flat = [x for r in vals for x in r]
        body = f"{len(flat)} values hashing to {hashlib.md5(''.join(x + chr(10) for x in flat).encode()).hexdigest()}\n" if len(flat) > 8 else "".join(x + "\n" for x in flat)
        fo.write(f"query {types} {'rowsort' if kind == 'q' else 'nosort'}\n{s}\n----\n{body}\n")
print(N, "records,", nerr, "PostgreSQL errors")
