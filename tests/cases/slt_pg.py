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

With a socket directory in --psql (-h /DIR), the records go over the
PostgreSQL protocol itself (PgConn: one simple Query message per record,
as psql -c sends it) on one connection per file, each record in a session
reset as a new one (FreshSessions: DISCARD ALL before it, ROLLBACK of a
transaction it leaves open); otherwise through a psql process per record.

  python3 tests/cases/slt_pg.py --psql "psql -h DIR -U postgres" FILE.slt...
"""
import argparse
import os
import re
import shlex
import socket
import struct
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


class PgConn:
    """A minimal PostgreSQL client (protocol 3, trust authentication, Unix
    socket) that sends a record as one simple Query message, as `psql -c`
    does: every statement of it in one implicit transaction, the rows of
    every result set, the values as the server's text, NOTICEs ignored
    (psql prints them on stderr, which run() ignores). No psql process per
    record: that process (and runuser) was most of case.slt_pg's time."""

    def __init__(self, path, user, db):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(path)
        self.buf = b""
        body = b"".join(k.encode() + b"\0" + v.encode() + b"\0" for k, v in
                        (("user", user), ("database", db),
                         ("client_encoding", "UTF8"))) + b"\0"
        self.s.sendall(struct.pack("!ii", 8 + len(body), 196608) + body)
        while True:
            t, m = self._msg()
            if t == b"R" and struct.unpack("!i", m[:4])[0] != 0:
                raise RuntimeError("slt_pg: the server asks for a password")
            if t == b"E":
                raise RuntimeError("slt_pg: connection refused: %s"
                                   % self._err(m))
            if t == b"Z":
                return

    def _msg(self):
        while True:
            if len(self.buf) >= 5:
                n = struct.unpack("!i", self.buf[1:5])[0]
                if len(self.buf) >= 1 + n:
                    t, m = self.buf[:1], self.buf[5:1 + n]
                    self.buf = self.buf[1 + n:]
                    return t, m
            d = self.s.recv(1 << 16)
            if not d:
                raise RuntimeError("slt_pg: the server closed the connection")
            self.buf += d

    @staticmethod
    def _err(m, sql=""):
        """psql's form of an ErrorResponse: ERROR:  msg, the LINE of the
        error position (without psql's shortening of long lines), DETAIL:,
        HINT:, CONTEXT:."""
        f = {}
        for part in m.split(b"\0"):
            if part:
                f[part[:1]] = part[1:].decode("utf-8", "replace")
        out = "%s:  %s" % (f.get(b"V", f.get(b"S", "ERROR")), f.get(b"M", ""))
        if f.get(b"P", "").isdigit() and sql:
            pos = int(f[b"P"]) - 1
            ln = sql[:pos].count("\n")
            col = pos - (sql.rfind("\n", 0, pos) + 1)
            head = "LINE %d: " % (ln + 1)
            out += "\n%s%s\n%s^" % (head, sql.split("\n")[ln],
                                     " " * (len(head) + col))
        for k, name in ((b"D", "DETAIL"), (b"H", "HINT"), (b"W", "CONTEXT")):
            if k in f:
                out += "\n%s:  %s" % (name, f[k])
        return out

    def query(self, sql):
        """(ok, rows as lists of str|None, error text), as run()."""
        q = sql.encode("utf-8") + b"\0"
        self.s.sendall(b"Q" + struct.pack("!i", 4 + len(q)) + q)
        rows, err = [], None
        while True:
            t, m = self._msg()
            if t == b"D":
                nc, off, row = struct.unpack("!h", m[:2])[0], 2, []
                for _ in range(nc):
                    ln = struct.unpack("!i", m[off:off + 4])[0]
                    off += 4
                    if ln < 0:
                        row.append(None)
                    else:
                        row.append(m[off:off + ln].decode("utf-8"))
                        off += ln
                rows.append(row)
            elif t == b"E":
                err = err or self._err(m, sql)
            elif t == b"G":  # COPY FROM STDIN: no data here
                msg = b"no COPY data in slt_pg\0"
                self.s.sendall(b"f" + struct.pack("!i", 4 + len(msg)) + msg)
            elif t == b"Z":
                self.status = m[:1]  # I idle, T in a transaction, E failed
                break
        if err is not None:
            return False, [], err
        return True, rows, ""

    def close(self):
        try:
            self.s.sendall(b"X" + struct.pack("!i", 4))
        except OSError:
            pass
        self.s.close()


class FreshSessions:
    """Each record in a session as fresh as a new connection's, over one
    connection per file: DISCARD ALL (settings, SET ROLE and SESSION
    AUTHORIZATION, temporary tables, prepared statements, cursors,
    advisory locks, LISTEN, cached plans and sequence state) before each
    record, and a transaction a record leaves open rolled back after it,
    as the end of its session would. A connection the record broke is
    replaced. A backend start costs 5-150 ms on a busy machine, so one
    per record was most of case.slt_pg's time."""

    def __init__(self, path, user, db):
        self.target = (path, user, db)
        self.c = None
        self.used = False

    def query(self, sql):
        if self.c is None:
            self.c, self.used = PgConn(*self.target), False
        try:
            if self.used:
                ok, _, msg = self.c.query("DISCARD ALL")
                if not ok:
                    raise RuntimeError("slt_pg: DISCARD ALL failed: " + msg)
            self.used = True
            r = self.c.query(sql)
            if self.c.status != b"I":
                self.c.query("ROLLBACK")
            return r
        except (OSError, RuntimeError) as e:
            self.close()
            if isinstance(e, RuntimeError) and "DISCARD ALL" in str(e):
                raise
            return False, [], "ERROR:  the connection broke: %s" % e

    def close(self):
        if self.c is not None:
            self.c.close()
            self.c = None


def pg_target(psql):
    """(socket path, user) of a psql command line's -h DIR [-p PORT]
    [-U USER], or None when it names no socket directory."""
    a = shlex.split(psql)
    host, port, user = None, "5432", os.environ.get("PGUSER", "postgres")
    for i, x in enumerate(a[:-1]):
        if x == "-h":
            host = a[i + 1]
        elif x == "-p":
            port = a[i + 1]
        elif x == "-U":
            user = a[i + 1]
    if not host or not host.startswith("/"):
        return None
    return "%s/.s.PGSQL.%s" % (host, port), user


def run(psql, db, sql):
    """(ok, rows as lists of str|None, error text): sql in a session of its
    own (a new connection, one simple Query message: what `psql -c` does;
    through psql itself when psql names no socket directory)."""
    tgt = pg_target(psql)
    if tgt:
        c = PgConn(tgt[0], tgt[1], db)
        try:
            return c.query(sql)
        finally:
            c.close()
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
    """Runs every record in one session (a file with a "# pg: one session"
    line), RESET ALL before each; returns {line: (ok, rows, error text)}.
    Over one connection (PgConn) when psql names a socket directory, each
    record one simple Query message as in run(); else one psql -f session
    whose stdout is unbuffered (stdbuf) so the results and the errors on
    stderr keep their order."""
    tgt = pg_target(psql)
    if tgt:
        c = PgConn(tgt[0], tgt[1], db)
        try:
            out = {}
            for line, _, sql, _ in recs:
                c.query("RESET ALL")
                out[line] = c.query(sql)
            return out
        finally:
            c.close()
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


def check(psql, path, n, messages=False, batch=False, admin=None):
    """The number of records of path that differ from PostgreSQL's answer,
    run in a new database slt_pg_N (made through admin, a PgConn to
    database postgres, when given)."""
    db = "slt_pg_%d" % n
    for st in ("DROP DATABASE IF EXISTS %s" % db, "CREATE DATABASE %s" % db):
        ok, _, msg = admin.query(st) if admin else run(psql, "postgres", st)
        if not ok:
            raise RuntimeError("slt_pg: %s: %s" % (st, msg))
    bad = 0
    recs = list(records(path))
    done = run_batch(psql, db, recs) if batch else {}
    tgt = pg_target(psql)
    fresh = FreshSessions(tgt[0], tgt[1], db) if tgt and not batch else None
    try:
        return bad + compare(psql, db, path, recs, done, batch, messages,
                             fresh)
    finally:
        if fresh:
            fresh.close()


def compare(psql, db, path, recs, done, batch, messages, fresh):
    """The number of records of path whose PostgreSQL answer differs."""
    bad = 0
    for line, head, sql, exp in recs:
        want_err = len(head) > 1 and head[1] == "error"
        if batch:
            ok, rows, msg = done.get(line, (False, [], "no result"))
        elif fresh:
            ok, rows, msg = fresh.query(sql)
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
    tgt = pg_target(a.psql)
    admin = PgConn(tgt[0], tgt[1], "postgres") if tgt else None
    for n, f in enumerate(a.files):
        if "\n# pg: skip file\n" in open(f, encoding="utf-8").read():
            print("%s: Laminar-only (# pg: skip file)" % f)
            continue
        text = open(f, encoding="utf-8").read()
        marks = [ln for ln in text.split("\n") if ln.startswith("# pg: ")]
        b = check(a.psql, f, n,
                  any(m.startswith("# pg: check messages") for m in marks),
                  any(m.startswith("# pg: one session") for m in marks),
                  admin)
        print("%s: %s" % (f, "agrees with PostgreSQL" if not b
                          else "%d records differ from PostgreSQL" % b))
        bad += b
    if admin:
        admin.close()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
