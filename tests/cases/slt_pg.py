#!/usr/bin/env python3
"""Checks the expected answers of .slt files against PostgreSQL 15.

Every `statement ok` and `query` record of each file runs, in order, in a
fresh database of the PostgreSQL server reached by --psql (a command line
prefix such as "psql -h DIR -p 5432 -U postgres"); a record preceded by a
"# pg: skip" comment line is left out (Laminar-only syntax), and a file with a "# pg: skip file"
line entirely. A query's
rows, printed as the slt runner prints them (NULL, (empty), reals with 3
decimals) and sorted for rowsort (CREATE MATERIALIZED VIEW runs as CREATE VIEW), must equal the file's expected rows; a
`query error` / `statement error` record must fail in PostgreSQL too (its
message is not compared, except in a file with a "# pg: check messages"
line: there the record's expected substring must appear in PostgreSQL's
error text, its ERROR or its DETAIL line). A file with a "# pg: one
session" line runs in one psql session (RESET ALL before each record). Exit status 0 when every record
agrees, 1 when any does not (each difference printed as FILE:LINE).

  python3 tests/cases/slt_pg.py --psql "psql -h DIR -U postgres" FILE.slt...
"""
import argparse
import re
import shlex
import subprocess
import sys


def records(path):
    """(line, kind, header, sql, expected rows) for every record."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i, skip = 0, False
    while i < len(lines):
        ln = lines[i]
        if ln.startswith("# pg: skip"):
            skip = True
            i += 1
            continue
        if not ln.strip() or ln.startswith("#"):
            i += 1
            continue
        start = i + 1
        head = ln.split()
        i += 1
        body = []
        while i < len(lines) and lines[i].strip() and lines[i] != "----":
            body.append(lines[i])
            i += 1
        exp = []
        if i < len(lines) and lines[i] == "----":
            i += 1
            while i < len(lines) and lines[i].strip():
                exp.append(lines[i])
                i += 1
        if not skip and head[0] in ("statement", "query"):
            yield start, head, pg_sql("\n".join(body)), exp
        skip = False


def pg_sql(sql):
    """PostgreSQL's form of a Laminar statement: a Laminar materialized view
    is always current, so PostgreSQL's equivalent is a (non-materialized)
    view, not a snapshot taken at CREATE."""
    return re.sub(r"^(\s*CREATE\s+)(OR\s+REPLACE\s+)?MATERIALIZED\s+VIEW\b",
                  r"\1\2VIEW", sql, flags=re.I)


def fmt(v, t):
    if v is None:
        return "NULL"
    if v == "":
        return "(empty)"
    if t == "R":
        try:
            return "%.3f" % float(v)
        except ValueError:
            return v
    if t == "B":
        return {"t": "true", "f": "false"}.get(v, v)
    return v


def run(psql, db, sql):
    """(ok, rows as lists of str|None, error text)."""
    cmd = shlex.split(psql) + ["-d", db, "-X", "-q", "-A", "-t", "-F", "\x1f",
                               "-R", "\x1e", "-P", "null=\x01",
                               "-v", "ON_ERROR_STOP=1", "-c", sql]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        return False, [], p.stderr.strip()
    out = p.stdout
    if out.endswith("\n"):
        out = out[:-1]
    rows = []
    for r in out.split("\x1e") if out else []:
        rows.append([None if c == "\x01" else c for c in r.split("\x1f")])
    return True, rows, ""


def run_batch(psql, db, recs):
    """Runs every record in one psql session (a file with a "# pg: one
    session" line: much faster than a psql per record), RESET ALL before
    each; returns {line: (ok, rows, error text)}. stdout is unbuffered
    (stdbuf) so the results and the errors on stderr keep their order."""
    script = []
    for line, _, sql, _ in recs:
        script.append("\\echo @@R %d" % line)
        script.append("RESET ALL;")
        script.append(sql.rstrip().rstrip(";") + ";")
    pre = shlex.split(psql)
    cmd = ["stdbuf", "-o0"] + pre
    for i, a in enumerate(pre):  # after a runuser prefix (as root)
        if a.endswith("psql"):
            cmd = pre[:i] + ["stdbuf", "-o0"] + pre[i:]
            break
    cmd += ["-d", db, "-X", "-q", "-A", "-t", "-F", "\x1f", "-R", "\x1e",
            "-P", "null=\x01", "-v", "ON_ERROR_STOP=0", "-f", "-"]
    p = subprocess.run(cmd, input="\n".join(script) + "\n",
                       capture_output=False, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    out = {}
    cur, buf = None, []

    def close():
        if cur is None:
            return
        text = "\n".join(buf)
        if "ERROR:" in text:
            err = text[text.index("ERROR:"):]
            out[cur] = (False, [], err)
            return
        if text.endswith("\n"):
            text = text[:-1]
        rows = [[None if c == "\x01" else c for c in r.split("\x1f")]
                for r in text.split("\x1e")] if text else []
        out[cur] = (True, rows, "")
    for ln in p.stdout.split("\n"):
        if ln.startswith("@@R "):
            close()
            cur, buf = int(ln[4:]), []
        else:
            buf.append(ln)
    close()
    return out


def check(psql, path, n, messages=False, batch=False):
    db = "slt_pg_%d" % n
    admin = shlex.split(psql) + ["-d", "postgres", "-X", "-q", "-c"]
    subprocess.run(admin + ["DROP DATABASE IF EXISTS %s" % db], check=True,
                   capture_output=True)
    subprocess.run(admin + ["CREATE DATABASE %s" % db], check=True,
                   capture_output=True)
    bad = 0
    recs = list(records(path))
    done = run_batch(psql, db, recs) if batch else {}
    for line, head, sql, exp in recs:
        want_err = len(head) > 1 and head[1] == "error"
        if batch:
            ok, rows, msg = done.get(line, (False, [], "no result"))
        else:
            ok, rows, msg = run(psql, db, sql)
        where = "%s:%d" % (path, line)
        if want_err:
            if ok:
                print("%s: PostgreSQL accepts what the file expects to fail:\n%s"
                      % (where, sql))
                bad += 1
            elif messages and len(head) > 2:
                want = " ".join(head[2:])
                if want not in msg:
                    print("%s: PostgreSQL's error differs\n%s\n  expected: %s"
                          "\n  postgres: %s" % (where, sql, want, msg))
                    bad += 1
            continue
        if not ok:
            print("%s: PostgreSQL fails: %s\n%s" % (where, msg, sql))
            bad += 1
            continue
        if head[0] != "query":
            continue
        types = head[1]
        mode = head[2] if len(head) > 2 else "nosort"
        got = [" ".join(fmt(v, types[k] if k < len(types) else "T")
                        for k, v in enumerate(r)) for r in rows]
        e = list(exp)
        if mode == "rowsort":
            got.sort()
            e.sort()
        elif mode == "valuesort":
            got = sorted(" ".join(got).split())
            e = sorted(" ".join(e).split())
        if got != e:
            print("%s: PostgreSQL's rows differ\n%s\n  expected: %s\n  postgres: %s"
                  % (where, sql, e, got))
            bad += 1
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--psql", required=True)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    bad = 0
    for n, f in enumerate(a.files):
        if "\n# pg: skip file\n" in open(f, encoding="utf-8").read():
            print("%s: Laminar-only (# pg: skip file)" % f)
            continue
        text = open(f, encoding="utf-8").read()
        marks = [ln for ln in text.split("\n") if ln.startswith("# pg: ")]
        b = check(a.psql, f, n,
                  any(m.startswith("# pg: check messages") for m in marks),
                  any(m.startswith("# pg: one session") for m in marks))
        print("%s: %s" % (f, "agrees with PostgreSQL" if not b
                          else "%d records differ from PostgreSQL" % b))
        bad += b
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
